// `admin suppliers …`: the import suppliers, their migration status, document root and e-mail setting.
import { createSupplier, listSuppliers, updateSupplier } from '../../shared/admin/suppliers.use-cases';
import { str, type Command } from './command';

export const SUPPLIER_COMMANDS: Record<string, Command> = {
  'suppliers create': {
    args: ['<code>'],
    options: {
      status: { type: 'string', arg: 'STATUS', help: 'Ongoing, Paused or Complete' },
      'document-root': { type: 'string', arg: 'PATH', help: 'its folder in the bucket' },
      'send-emails': { type: 'boolean', help: 'send customers automated e-mails' },
    },
    optionsUsage: '--document-root <path> [--status Ongoing|Paused|Complete] [--send-emails]',
    description: 'Create an import supplier with its own document root (status Ongoing and e-mails off unless given).',
    run: (db, [code], o) =>
      createSupplier(db, {
        code,
        status: str(o.status),
        document_root: str(o['document-root']),
        send_emails: o['send-emails'] === true,
      }),
  },
  'suppliers set-status': {
    args: ['<code>', '<Ongoing|Paused|Complete>'],
    description: "Set a supplier's migration status.",
    run: (db, [code, status]) => updateSupplier(db, { code, status }),
  },
  'suppliers set-document-root': {
    args: ['<code>', '<path>'],
    description: "Set a supplier's document root in the bucket ('' for the bucket itself).",
    run: (db, [code, root]) => updateSupplier(db, { code, document_root: root }),
  },
  'suppliers set-send-emails': {
    args: ['<code>', '<true|false>'],
    description: 'Turn automated customer e-mails on migration on or off.',
    run: (db, [code, flag]) => updateSupplier(db, { code, send_emails: flag }),
  },
  'suppliers list': { args: [], description: 'List import suppliers.', run: (db) => listSuppliers(db) },
};
