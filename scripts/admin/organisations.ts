// `admin organisations …`: the API's clients, the suppliers each may use, and the emergency stop.
import {
  assignSuppliers,
  createOrganisation,
  disableOrganisation,
  enableOrganisation,
  listOrganisations,
  unassignSuppliers,
} from '../../shared/admin/organisations.use-cases';
import { str, type Command } from './command';

export const ORGANISATION_COMMANDS: Record<string, Command> = {
  'organisations create': {
    args: ['<name>'],
    options: {
      supplier: { type: 'string', multiple: true, arg: 'CODE', help: 'a supplier it may use (again for more)' },
      label: { type: 'string', arg: 'TEXT', help: 'the label of its first key' },
    },
    optionsUsage: '[--supplier <code>]... [--label <key label>]',
    description: 'Create an organisation with its suppliers and its first API key (printed this once).',
    run: (db, [name], o) =>
      createOrganisation(db, { name, suppliers: Array.isArray(o.supplier) ? o.supplier : [], label: str(o.label) }),
  },
  'organisations assign': {
    args: ['<name>', '<supplier>...'],
    description: 'Let an organisation use these suppliers.',
    run: (db, [organisation, ...suppliers]) => assignSuppliers(db, { organisation, suppliers }),
  },
  'organisations unassign': {
    args: ['<name>', '<supplier>...'],
    description: 'Stop an organisation using these suppliers.',
    run: (db, [organisation, ...suppliers]) => unassignSuppliers(db, { organisation, suppliers }),
  },
  'organisations list': { args: [], description: 'List organisations.', run: (db) => listOrganisations(db) },
  'organisations disable': {
    args: ['<name>'],
    description:
      'Emergency stop: the organisation gets no token, and its tokens are refused within seconds on every API process.',
    details:
      'Its API keys and refresh tokens are kept: `organisations enable` restores its access as it was. To end one leaked key for good, use `api-keys revoke`.',
    run: (db, [organisation]) => disableOrganisation(db, { organisation }),
  },
  'organisations enable': {
    args: ['<name>'],
    description: 'Let a disabled organisation obtain and use tokens again.',
    run: (db, [organisation]) => enableOrganisation(db, { organisation }),
  },
};
