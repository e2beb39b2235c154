// docs/account-import.md's complete account example (docs/examples/account.json) is an account the
// service validates, and it names every field the subset takes: a field added to the schema without
// the example, or an example the rules refuse, fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AccountShape } from '../../shared/account-import/account-import.schemas';
import { EnergyAccountSchema } from '../../shared/account-import/energy-account';

const ROOT = path.join(__dirname, '..', '..');
const example = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'examples', 'account.json'), 'utf8'));

interface Def {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  element?: unknown;
  options?: unknown[];
  in?: unknown;
}
const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/** A contract field the service refuses (field_not_supported): not part of the subset. */
function refused(schema: unknown): boolean {
  const parsed = (
    schema as { safeParse(v: unknown): { error?: { issues: { params?: { code?: string } }[] } } }
  ).safeParse('any value');
  return parsed.error?.issues.some((i) => i.params?.code === 'field_not_supported') ?? false;
}

/** Every field path the schema takes (`customers[].psr[].description`), through lists and unions. */
function fieldPaths(schema: unknown, at: string, out: Set<string>): Set<string> {
  const def = defOf(schema);
  if (['optional', 'nullable', 'default'].includes(def.type)) return fieldPaths(def.innerType, at, out);
  if (def.type === 'pipe') return fieldPaths(def.in, at, out);
  if (def.type === 'array') return fieldPaths(def.element, `${at}[]`, out);
  if (def.type === 'union') for (const option of def.options!) fieldPaths(option, at, out);
  if (def.type === 'object') {
    for (const [name, field] of Object.entries(def.shape!)) {
      if (refused(field)) continue;
      const here = at ? `${at}.${name}` : name;
      out.add(here);
      if (name !== 'metadata' && name !== 'params') fieldPaths(field, here, out);
    }
  }
  return out;
}

/** The field paths a JSON value has, in the same notation. */
function valuePaths(value: unknown, at: string, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) valuePaths(item, `${at}[]`, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [name, field] of Object.entries(value)) {
      const here = at ? `${at}.${name}` : name;
      out.add(here);
      if (name !== 'metadata' && name !== 'params') valuePaths(field, here, out);
    }
  }
  return out;
}

/** The same account with its ledger fields in the one-item `ledgers` form instead of the top level. */
function inLedgersForm(account: Record<string, unknown>): Record<string, unknown> {
  const fields = [
    'current_statement_transactions',
    'historical_statement_transactions',
    'last_statement_balance',
    'last_statement_closing_date',
    'last_statement_issue_date',
  ];
  const copy = structuredClone(account);
  const ledger: Record<string, unknown> = { ledger_balance: '30.00' };
  for (const f of fields) {
    ledger[f] = copy[f];
    delete copy[f];
  }
  return { ...copy, ledgers: [ledger] };
}

describe('the complete account example of docs/account-import.md', () => {
  it('is referenced by the account import guide', () => {
    const guide = readFileSync(path.join(ROOT, 'docs', 'account-import.md'), 'utf8');
    expect(guide).toContain('(examples/account.json)');
  });

  it('passes the account validation, in both ledger forms', () => {
    for (const account of [example, inLedgersForm(example)]) {
      const parsed = EnergyAccountSchema.safeParse(account);
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
  });

  it('names every field the subset takes (the ledgers form shown by moving the ledger fields)', () => {
    // A transaction's fields are the same in both lists: shown once, in either.
    const oneList = (p: string) => p.replace(/(current|historical)_statement_transactions/g, 'statement_transactions');
    const taken = [...new Set([...fieldPaths(AccountShape, '', new Set())].map(oneList))];
    expect(taken.length).toBeGreaterThan(150);
    const shown = new Set(
      [...valuePaths(example, '', new Set()), ...valuePaths(inLedgersForm(example), '', new Set())].map(oneList),
    );
    expect(taken.filter((p) => !shown.has(p))).toEqual([]);
  });
});
