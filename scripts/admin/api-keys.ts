// `admin api-keys …`: an organisation's keys, shown by id and prefix only, and revocation.
import { createApiKey, listApiKeys, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { str, type Command } from './command';

export const API_KEY_COMMANDS: Record<string, Command> = {
  'api-keys create': {
    args: ['<organisation>'],
    options: { label: { type: 'string', arg: 'TEXT', help: 'what the key is for' } },
    optionsUsage: '[--label <text>]',
    description: 'Create an API key for an organisation; the key is printed this once, only its digest is stored.',
    run: (db, [organisation], o) => createApiKey(db, { organisation, label: str(o.label) }),
  },
  'api-keys list': {
    args: [],
    options: { organisation: { type: 'string', arg: 'NAME', help: 'only this organisation' } },
    optionsUsage: '[--organisation <name>]',
    description: 'List API keys by id and prefix (never the key).',
    run: (db, _args, o) => listApiKeys(db, { organisation: str(o.organisation) }),
  },
  'api-keys revoke': {
    args: ['<id>'],
    description:
      'Revoke an API key: it signs in no more, its refresh tokens are revoked, and the access tokens it issued are refused within seconds on every API process.',
    run: (db, [id]) => revokeApiKey(db, { id }),
  },
};
