// The run's journal directory: run.json (input, checksum, options; written once), journal.ndjson
// (append-only: each request's lines and Idempotency-Key before it is sent, its final lines after),
// and the result files. Result lines are written before the journal's "done" entry, so after a crash
// a result line without its "done" belongs to a request that resume sends again: opening the journal
// drops such lines. Writes are synchronous appends (a SIGKILL loses nothing the page cache holds);
// fsync runs every FSYNC_MS, so a machine crash loses at most that much, which resume re-sends.
import { closeSync, existsSync, fsync, fsyncSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { FatalError, UsageError } from './client-errors';
import type { RunKind, SendOptions } from './item-kinds';
import type { InputFormat } from './input-reader';
import { LineSet } from './line-set';
import { readNdjson } from './ndjson';
import { makePrivateDir, makePrivateFile, openPrivate, writePrivateFile } from './private-files';
import { jsonLine } from './terminal-text';
import { PROGRAM } from './cli/program';

export interface RunMeta {
  version: 1;
  run_id: string;
  kind: RunKind;
  input: string;
  format: InputFormat;
  checksum: string;
  lines: number;
  batch: number;
  concurrency: number;
  options: SendOptions;
  created_at: string;
}

export interface ResultRecord {
  line: number;
  import_supplier?: string;
  external_account_number?: string;
  [field: string]: unknown;
}

/** A run's start as it appears in its id and directory name: 20240301T120000Z. */
export const runStamp = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

const FSYNC_MS = 200;
const RESULT_FILES = ['succeeded.ndjson', 'differs.ndjson', 'failed.ndjson'] as const;

/** One request's final outcomes, by the result file each goes to. */
export interface Outcomes {
  succeeded: ResultRecord[];
  /** Already there, but the service says what it holds is not what the line says. */
  differs: ResultRecord[];
  failed: ResultRecord[];
}

class Appender {
  private readonly fd: number;
  private dirty = false;

  constructor(file: string) {
    this.fd = openPrivate(file, 'a');
  }

  write(text: string): void {
    if (text === '') return;
    writeSync(this.fd, text);
    this.dirty = true;
  }

  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    fsync(this.fd, () => undefined);
  }

  close(): void {
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}

interface JournalState {
  finals: LineSet;
  /** Requests written down but never closed: resume sends them again with their own keys. */
  pending: Map<string, number[]>;
}

export class RunJournal {
  readonly finals: LineSet;
  readonly pending: Map<string, number[]>;
  private readonly journal: Appender;
  private readonly results: Record<keyof Outcomes, Appender>;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly dir: string,
    readonly meta: RunMeta,
    state: JournalState = { finals: new LineSet(), pending: new Map() },
  ) {
    this.finals = state.finals;
    this.pending = state.pending;
    this.journal = new Appender(path.join(dir, 'journal.ndjson'));
    this.results = {
      succeeded: new Appender(path.join(dir, 'succeeded.ndjson')),
      differs: new Appender(path.join(dir, 'differs.ndjson')),
      failed: new Appender(path.join(dir, 'failed.ndjson')),
    };
    this.timer = setInterval(() => this.appenders().forEach((a) => a.flush()), FSYNC_MS);
    this.timer.unref();
  }

  static create(dir: string, meta: RunMeta): RunJournal {
    makePrivateDir(dir);
    const runFile = path.join(dir, 'run.json');
    if (existsSync(runFile)) throw new UsageError(`${dir} already holds a run: use \`${PROGRAM} resume ${dir}\``);
    writePrivateFile(runFile, JSON.stringify(meta, null, 2) + '\n', 'wx');
    return new RunJournal(dir, meta);
  }

  static async open(dir: string): Promise<RunJournal> {
    const meta = readMeta(dir);
    makePrivateDir(dir);
    makePrivateFile(path.join(dir, 'run.json'));
    const state = await replay(dir);
    // Before the appenders open: the files are replaced, and an appender would go on writing to the old one.
    for (const file of RESULT_FILES) await keepFinalRecords(path.join(dir, file), state.finals);
    return new RunJournal(dir, meta, state);
  }

  recordRequest(key: string, lines: number[]): void {
    this.journal.write(JSON.stringify({ e: 'req', key, lines }) + '\n');
  }

  /** The items' final outcomes; `key` closes that request (null for lines that never made a request). */
  recordOutcome(key: string | null, outcomes: Outcomes): void {
    for (const file of ['succeeded', 'differs', 'failed'] as const)
      this.results[file].write(outcomes[file].map(jsonLine).join(''));
    const final = [...outcomes.succeeded, ...outcomes.differs, ...outcomes.failed].map((r) => r.line);
    this.journal.write(JSON.stringify({ e: 'done', key, final }) + '\n');
    final.forEach((line) => this.finals.add(line));
  }

  writeUnprocessed(records: ResultRecord[]): void {
    writePrivateFile(path.join(this.dir, 'unprocessed.ndjson'), records.map(jsonLine).join(''));
  }

  close(): void {
    clearInterval(this.timer);
    this.appenders().forEach((a) => a.close());
  }

  private appenders(): Appender[] {
    return [this.journal, ...Object.values(this.results)];
  }
}

/** A run's run.json; a directory without one is a usage error, an unreadable one fatal. */
export function readMeta(dir: string): RunMeta {
  const runFile = path.join(dir, 'run.json');
  if (!existsSync(runFile)) throw new UsageError(`${dir} is not a run's journal directory (no run.json)`);
  try {
    return JSON.parse(readFileSync(runFile, 'utf8')) as RunMeta;
  } catch (err) {
    throw new FatalError(`${runFile} is unreadable: ${(err as Error).message}`);
  }
}

/**
 * A run as it stands, read only (a run may still be going): its options and the lines whose outcome
 * the journal records as final, with their succeeded.ndjson and differs.ndjson records (a line that
 * differs is on the account too, with other values: a reconciliation should show that difference).
 */
export async function readRun(
  dir: string,
): Promise<{ meta: RunMeta; finals: LineSet; succeeded: AsyncIterable<ResultRecord> }> {
  const meta = readMeta(dir);
  const { finals } = await replay(dir);
  async function* stored(): AsyncIterable<ResultRecord> {
    for (const file of ['succeeded.ndjson', 'differs.ndjson'])
      yield* readRecords(path.join(dir, file)) as AsyncIterable<ResultRecord>;
  }
  return { meta, finals, succeeded: stored() };
}

async function replay(dir: string): Promise<JournalState> {
  const state: JournalState = { finals: new LineSet(), pending: new Map() };
  for await (const entry of readRecords(path.join(dir, 'journal.ndjson'))) {
    const e = entry as { e?: string; key?: string; lines?: number[]; final?: number[] };
    if (e.e === 'req' && e.key && Array.isArray(e.lines)) state.pending.set(e.key, e.lines);
    if (e.e === 'done' && Array.isArray(e.final)) {
      if (e.key) state.pending.delete(e.key);
      e.final.forEach((line) => state.finals.add(line));
    }
  }
  return state;
}

/** A journal line never holds more than one request's line numbers or one result record. */
const MAX_JOURNAL_LINE_CHARS = 5 * 1024 * 1024;

/** Lines that do not parse are a write cut short by a crash: skipped, since what they said is re-sent. */
export async function* readRecords(file: string): AsyncIterable<unknown> {
  if (!existsSync(file)) return;
  for await (const read of readNdjson(file, MAX_JOURNAL_LINE_CHARS)) if ('value' in read) yield read.value;
}

async function keepFinalRecords(file: string, finals: LineSet): Promise<void> {
  if (!existsSync(file)) return;
  const tmp = `${file}.tmp`;
  const fd = openPrivate(tmp, 'w');
  for await (const record of readRecords(file)) {
    const line = (record as ResultRecord).line;
    if (typeof line === 'number' && finals.has(line)) writeSync(fd, jsonLine(record));
  }
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, file);
}
