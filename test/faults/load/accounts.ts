// Account creation in the fault suite's load: clients that create accounts as a migration does, half
// through the v1 process call (stage, then process; the request waits for the account) and half through
// the v2 schedule (answered at once; the job creates the account). Every request carries an
// Idempotency-Key and follows the spec's retry rules (spec-client.ts). The invariants count accounts and
// processes: none acknowledged is lost, none is doubled, none appears that no client sent.
import { applyFile } from '../../../shared/admin/apply.use-case';
import type { Database } from '../../../shared/platform/db';
import { account, ELEC_TARIFF, GAS_TARIFF, TEAM } from '../../account-import/account.fixture';
import type { Tenant } from '../infra/fault-stack';
import type { InvariantResult } from './invariants';
import { sendAsSpecSays, type ClientOptions, type Outcome } from './spec-client';

export interface AccountRequestRecord {
  supplier: string;
  external: string;
  via: 'v1' | 'v2';
  /** The creation request's outcome (v1 process or v2 schedule); a stage that never succeeded is its outcome. */
  outcome: Outcome;
}

const MPAN_WEIGHTS = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

/** A valid MPAN core and MPRN of their own for the n-th account of a phase (meter points are per supplier). */
function meterPointsFor(n: number): { mpan: string; mprn: string } {
  const body = `19${String(n).padStart(10, '0')}`;
  const sum = [...body].reduce((s, d, i) => s + Number(d) * MPAN_WEIGHTS[i]!, 0);
  const gas = String(10_000_000 + n).slice(-8);
  const gasSum = [...gas].reduce((s, d, i) => s + Number(d) * (gas.length - i), 0);
  return { mpan: `${body}${(sum % 11) % 10}`, mprn: `${gas}${String(gasSum % 11).padStart(2, '0')}` };
}

/** The fixture's realistic account with meter points of its own. */
function accountFor(supplier: string, external: string, n: number) {
  const a = account(supplier, external);
  const { mpan, mprn } = meterPointsFor(n);
  const [elec, gas] = a.supply_addresses[0].meter_points;
  elec.identifier = mpan;
  gas.identifier = mprn;
  return a;
}

/** The products and team the accounts name (global: applied again by every suite is fine). */
export async function applyAccountCatalogue(db: Database): Promise<void> {
  await applyFile(db, {
    products: [
      { code: ELEC_TARIFF, rates: [] },
      { code: GAS_TARIFF, rates: [] },
    ],
    operations_teams: [{ name: TEAM }],
  });
}

/** One account client: its r-th account goes through v1 when r is even, v2 when odd. */
export async function accountClient(
  tenant: Tenant,
  client: ClientOptions,
  opts: { phase: string; c: number; goOn: (r: number) => boolean; record: (r: AccountRequestRecord) => void },
): Promise<void> {
  for (let r = 0; opts.goOn(r); r++) {
    const external = `${opts.phase}-a${opts.c}-r${r}`;
    const body = accountFor(tenant.supplier, external, opts.c * 100_000 + r);
    const via = r % 2 === 0 ? 'v1' : 'v2';
    let outcome: Outcome;
    if (via === 'v1') {
      const path = '/v1/data-import/account-import-process/create-or-update/';
      outcome = await sendAsSpecSays({ path, body }, client);
      if (outcome.kind === 'acked') {
        outcome = await sendAsSpecSays(
          {
            path: '/v1/data-import/account-import-process/process/',
            body: { import_supplier_code: tenant.supplier, external_account_number: external },
            idempotencyKey: `${external}-process`,
          },
          client,
        );
      }
    } else {
      const path = '/v2/data-import/accounts/';
      outcome = await sendAsSpecSays({ path, body: { payload: body }, idempotencyKey: `${external}-schedule` }, client);
    }
    opts.record({ supplier: tenant.supplier, external, via, outcome });
  }
}

interface CountRow {
  external_account_number: string;
  accounts: number;
  numbers: string[];
}

/** Per process the clients' externals name: how many accounts it has, and their numbers. */
async function countAccounts(db: Database, records: AccountRequestRecord[]): Promise<Map<string, CountRow>> {
  const suppliers = [...new Set(records.map((r) => r.supplier))];
  const { rows } = await db.pool.query<CountRow>(
    `SELECT p.supplier_code || '/' || p.external_account_number AS external_account_number,
            count(a.id)::int AS accounts, array_remove(array_agg(a.platform_account_number), NULL) AS numbers
       FROM account_import_processes p LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = ANY($1::text[]) AND p.payload IS NOT NULL
      GROUP BY p.id`,
    [suppliers],
  );
  return new Map(rows.map((r) => [r.external_account_number, r]));
}

/**
 * None lost, none doubled: every acknowledged creation has exactly one account (a v2 schedule's once its
 * job has run: waited for up to `settleMs`), a v1 201 names it, no process has two, and every staged
 * process was sent by a client.
 */
export async function checkAccountInvariants(
  db: Database,
  records: AccountRequestRecord[],
  settleMs: number,
): Promise<InvariantResult[]> {
  const key = (r: AccountRequestRecord) => `${r.supplier}/${r.external}`;
  const acked = records.filter((r) => r.outcome.kind === 'acked');
  const deadline = Date.now() + settleMs;
  let counts = await countAccounts(db, records);
  while (acked.some((r) => counts.get(key(r))?.accounts !== 1) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    counts = await countAccounts(db, records);
  }
  const sent = new Set(records.map(key));
  const check = (name: string, offenders: string[]): InvariantResult => ({
    name,
    ok: offenders.length === 0,
    detail: offenders.slice(0, 5).join('; '),
  });
  return [
    check(
      `every account creation acknowledged with 201 has exactly one account (v2: once its job ran, within ${settleMs / 1000} s)`,
      acked
        .filter((r) => counts.get(key(r))?.accounts !== 1)
        .map((r) => `${key(r)} ×${counts.get(key(r))?.accounts ?? 0}`),
    ),
    check(
      "a v1 process call's 201 names the account's platform number",
      acked
        .filter((r) => r.via === 'v1')
        .filter((r) => !counts.get(key(r))?.numbers.includes(r.outcome.body?.platform_account_number))
        .map((r) => `${key(r)} → ${r.outcome.body?.platform_account_number}`),
    ),
    check(
      'no process has two accounts, and every staged process was sent by a client',
      [...counts.values()]
        .filter((c) => c.accounts > 1 || !sent.has(c.external_account_number))
        .map((c) => `${c.external_account_number} ×${c.accounts}`),
    ),
    check(
      'every account creation reached its designed answer (201)',
      records.filter((r) => r.outcome.kind !== 'acked').map((r) => `${key(r)}: ${r.outcome.kind} ${r.outcome.status}`),
    ),
  ];
}
