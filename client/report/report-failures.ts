// The sign-off pack's failures: every failed line of the supplier's runs, sorted into outstanding
// (nothing later put the item there), resolved (the same item succeeded in the same or a later run,
// e.g. from a fix file, at whatever line) and dry-run findings (a rehearsal stores nothing, so its
// refusals are shown apart and never count as failures). Items are matched by their identity
// (client/item-identity.ts); a line that never parsed names no item and stays outstanding.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../client-errors';
import { readEntries, toEntry } from '../input-reader';
import { itemIdentity } from '../item-identity';
import { LineSet } from '../line-set';
import { readRun, type ResultRecord, type RunMeta } from '../run-journal';

interface FailureExample {
  run: string;
  kind: string;
  input: string;
  line: number;
  account: string;
  attr: string;
  detail: string;
}

export interface FailureGroup {
  code: string;
  count: number;
  examples: FailureExample[];
}

export interface Failure extends FailureExample {
  code: string;
  /** The run's start (ISO): only a success in a run started no earlier resolves it. */
  started: string;
  identity?: string;
  resolved?: true;
}

/** Failures kept one by one to be matched; past this many, the rest count as outstanding unmatched. */
export const MAX_TRACKED_FAILURES = 200_000;
const EXAMPLES_PER_CODE = 3;
const MAX_CODES = 1000;

const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');

/** One failed.ndjson record as a failure (attr and detail cut to what a page shows). */
export function failureOf(dir: string, meta: RunMeta, r: ResultRecord): Failure {
  const record = r.record;
  const entry = typeof record === 'object' && record !== null ? toEntry(r.line, record) : undefined;
  const identity = entry ? itemIdentity(meta.kind, entry) : undefined;
  return {
    code: text(r.code, 200) || 'unknown',
    started: String(meta.created_at),
    ...(identity === undefined ? {} : { identity }),
    run: path.basename(dir),
    kind: meta.kind,
    input: path.basename(meta.input),
    line: r.line,
    account: text(r.external_account_number, 128),
    attr: text(r.attr, 500),
    detail: text(r.detail, 500),
  };
}

/**
 * Marks resolved every failure whose item one of the (real) runs later stored: reads each run's
 * input once, for the lines its journal records as succeeded, and only for kinds with failures.
 */
export async function resolveFailures(failures: Failure[], runs: { dir: string; meta: RunMeta }[]): Promise<void> {
  const open = new Map<string, Failure[]>();
  for (const f of failures) {
    if (!f.identity) continue;
    const same = open.get(f.identity);
    if (same) same.push(f);
    else open.set(f.identity, [f]);
  }
  const kinds = new Set(failures.map((f) => f.kind));
  for (const { dir, meta } of runs) {
    if (open.size === 0) return;
    if (meta.options.dry_run || !kinds.has(meta.kind)) continue;
    if (!existsSync(meta.input))
      throw new UsageError(`a run's input ${meta.input} is not here: put it back at that path`);
    const run = await readRun(dir);
    const succeeded = new LineSet();
    for await (const r of run.succeeded) if (run.finals.has(r.line)) succeeded.add(r.line);
    if (succeeded.size === 0) continue;
    for await (const entry of readEntries(meta.input, meta.format)) {
      if (!succeeded.has(entry.line)) continue;
      const identity = itemIdentity(meta.kind, entry);
      const waiting = identity === undefined ? undefined : open.get(identity);
      for (const f of waiting ?? []) if (f.started <= meta.created_at) f.resolved = true;
    }
  }
}

/**
 * Groups by code, most frequent first, with a few example lines each; `uncounted` adds lines past
 * MAX_TRACKED_FAILURES, known only by their code.
 */
export function groupFailures(failures: Iterable<Failure>, uncounted = new Map<string, number>()): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const [code, count] of uncounted) groups.set(code, { code, count, examples: [] });
  for (const f of failures) {
    let group = groups.get(f.code);
    if (!group && groups.size < MAX_CODES) groups.set(f.code, (group = { code: f.code, count: 0, examples: [] }));
    if (!group) continue;
    group.count++;
    if (group.examples.length < EXAMPLES_PER_CODE) {
      const { run, kind, input, line, account, attr, detail } = f;
      group.examples.push({ run, kind, input, line, account, attr, detail });
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

/**
 * A failure's field and text, written once: the service's account refusals already start their
 * detail with the field ("billing_postcode: …"), and a whole-request refusal names no field.
 */
export function failureText(attr: string, detail: string): string {
  if (attr === '' || attr === 'non_field_errors' || detail.startsWith(`${attr}: `)) return detail;
  return `${attr}: ${detail}`;
}
