// scheduled.ndjson in an accounts run's journal directory: one line per account the service took
// (`{"line","key","window_start"}`), written synchronously as the 201 arrives. Resume follows these
// accounts with the status endpoint instead of scheduling them again. A line cut short by a crash is
// skipped on reading: its request is still open in journal.ndjson, so resume sends it again with its
// own key (the service answers the stored schedule, or that the account already exists).
import { createHash } from 'node:crypto';
import { closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import { openPrivate } from '../private-files';
import { readRecords } from '../run-journal';

/** The other kinds' key form (`<run id>.<hash of the line numbers>`), for the one line of an account. */
export const accountKey = (runId: string, line: number): string =>
  `${runId}.${createHash('sha256').update(String(line)).digest('hex').slice(0, 32)}`;

export class ScheduledFile {
  private readonly file: string;
  private fd?: number;

  constructor(dir: string) {
    this.file = path.join(dir, 'scheduled.ndjson');
  }

  async read(): Promise<Map<number, { key: string; windowStart?: string }>> {
    const found = new Map<number, { key: string; windowStart?: string }>();
    for await (const record of readRecords(this.file)) {
      const r = record as { line?: unknown; key?: unknown; window_start?: unknown };
      if (typeof r.line !== 'number' || typeof r.key !== 'string') continue;
      found.set(r.line, { key: r.key, ...(typeof r.window_start === 'string' ? { windowStart: r.window_start } : {}) });
    }
    return found;
  }

  add(line: number, key: string, windowStart?: string): void {
    this.fd ??= openPrivate(this.file, 'a');
    writeSync(this.fd, JSON.stringify({ line, key, ...(windowStart ? { window_start: windowStart } : {}) }) + '\n');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
