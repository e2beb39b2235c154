// PostgreSQL's side of a one-note and a one-statement request, statement by statement: the write's
// planning and execution time as PostgreSQL reports them (EXPLAIN ANALYZE with SUMMARY, node timing
// off), the median of many runs against the bench database's write accounts, each run in a transaction
// that is rolled back. Read beside the bench's PostgreSQL CPU per request and pgbench's per transaction
// (bench/results.json): what is left after planning and execution is the transaction itself (parse,
// commit, WAL, the protocol) and the first statement (timeouts, the account's note lock).
// Usage, after a bench run has made its fixtures: tsx bench/statement-costs.ts [runs] [bench/results.json]
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { notesStatements } from '../shared/notes/note.repository';
import { entriesOf, type RequestLedger } from '../shared/runs/ledger.public';
import { statementsStatements } from '../shared/statements/statement.repository';
import type { Statement } from '../shared/platform/one-round-trip';
import type { BenchResults } from './results';
import { cpuMsPerRequest } from './real-shape';

const [runsArg = '200', resultsFile = 'bench/results.json'] = process.argv.slice(2);
const RUNS = Math.min(10_000, Math.max(10, Number(runsArg)));
const DATABASE = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import_bench';

interface Write {
  organisationId: number;
  supplierCode: string;
  externalAccountNumber: string;
}

function ledgerOf(w: Write, endpoint: string, listField: string): RequestLedger {
  return {
    organisationId: w.organisationId,
    runId: 'bench-statement-costs',
    requestId: randomUUID(),
    endpoint,
    subject: { ...w, items: 1, dryRun: false, listField },
  };
}

/** A one-note request's statements, as createNotes builds them (a fresh body: a new note). */
function oneNote(w: Write): Statement[] {
  const run = ledgerOf(w, 'notes/create', 'notes');
  const statuses = [{ status: 'NOTE_CREATION_SUCCESS' }, { status: 'NOTE_ALREADY_EXISTS' }];
  const note = { body: `cost ${randomUUID()}`, documents: [], createdAt: new Date(), isPinned: false };
  return notesStatements({
    ...w,
    bucket: 'bench-documents',
    dryRun: false,
    timeoutMs: 15_000,
    notes: [{ note: { ...note, unpinAt: null, isArchived: false, externalId: null }, sentAt: null }],
    ledger: { run, template: entriesOf(run.subject, 201, statuses) },
  });
}

/** A one-statement request's statements, as createHistoricalStatements builds them (a fresh statement_id). */
function oneStatement(w: Write): Statement[] {
  const run = ledgerOf(w, 'historical-statements/create', 'statements');
  const statement = {
    statementId: `cost-${randomUUID()}`,
    billPeriodFromDate: '2024-01-01',
    billPeriodToDate: '2024-01-31',
    issuedDate: null,
    number: null,
    grossAmount: 1234,
    statementPath: 'statements/2024-01.pdf',
  };
  const answer = { import_supplier: w.supplierCode, statements: [{ statement_id: statement.statementId }] };
  return statementsStatements({
    ...w,
    bucket: 'bench-documents',
    dryRun: false,
    timeoutMs: 15_000,
    statements: [statement],
    ledger: { run, template: entriesOf(run.subject, 201, answer) },
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Planning and execution of the write (the last statement), median of RUNS, each rolled back. */
async function measure(pg: Client, writes: Write[], build: (w: Write) => Statement[]) {
  const planning: number[] = [];
  const execution: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const statements = build(writes[i % writes.length]!);
    await pg.query('BEGIN');
    try {
      for (const s of statements.slice(0, -1)) await pg.query(s.text, s.values);
      const write = statements.at(-1)!;
      const { rows } = await pg.query<{ 'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }] }>(
        `EXPLAIN (ANALYZE, SUMMARY, TIMING OFF, FORMAT JSON) ${write.text}`,
        write.values,
      );
      planning.push(rows[0]!['QUERY PLAN'][0]['Planning Time']);
      execution.push(rows[0]!['QUERY PLAN'][0]['Execution Time']);
    } finally {
      await pg.query('ROLLBACK');
    }
  }
  return { planningMs: median(planning), executionMs: median(execution) };
}

async function main(): Promise<void> {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
  const pg = new Client({ connectionString: DATABASE });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ organisation_id: number; supplier_code: string; external: string }>(
      `SELECT os.organisation_id, p.supplier_code, p.external_account_number AS external
         FROM account_import_processes p
         JOIN organisation_suppliers os ON os.supplier_code = p.supplier_code
        WHERE p.supplier_code LIKE 'BENCH_WRITE_%' AND p.state = 'IMPORTED'
        ORDER BY p.id LIMIT 1000`,
    );
    if (rows.length === 0) throw new Error('no bench write account: run the bench once first');
    const writes = rows.map((r) => ({
      organisationId: r.organisation_id,
      supplierCode: r.supplier_code,
      externalAccountNumber: r.external,
    }));
    const floor = results.real?.pgbench?.one.pgCpuMs;
    console.log(`PostgreSQL per one-item request, median of ${RUNS} runs (ms)`);
    console.log('shape        CPU/request  pgbench txn  write: planning  execution  rest');
    for (const [name, build, t] of [
      ['notes', oneNote, results.real?.notes],
      ['statements', oneStatement, results.real?.statements],
    ] as const) {
      const { planningMs, executionMs } = await measure(pg, writes, build);
      const cpu = t ? cpuMsPerRequest(t, t.cpu.postgres) : undefined;
      const rest = cpu !== undefined && floor !== undefined ? cpu - floor - planningMs - executionMs : undefined;
      const f = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(3)).padStart(9);
      console.log(`${name.padEnd(12)} ${f(cpu)}    ${f(floor)}    ${f(planningMs)}  ${f(executionMs)}  ${f(rest)}`);
    }
  } finally {
    await pg.end();
  }
}

void main();
