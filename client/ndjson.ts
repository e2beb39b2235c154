// The one NDJSON reader: a file read line by line, never whole, each JSON value with its source line
// number (the number the journal, the Idempotency-Keys and the result files are keyed on). Blank lines
// are skipped but counted; a line that is too long or not JSON comes back as a problem with its number.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export type NdjsonLine =
  { line: number; value: unknown } | { line: number; problem: 'too_long' | 'not_json'; detail: string };

export async function* readNdjson(file: string, maxChars: number): AsyncIterable<NdjsonLine> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    if (text.length > maxChars) {
      yield { line, problem: 'too_long', detail: `The line is over ${maxChars} characters.` };
      continue;
    }
    try {
      yield { line, value: JSON.parse(text) as unknown };
    } catch (err) {
      yield { line, problem: 'not_json', detail: `Not JSON: ${(err as Error).message}` };
    }
  }
}
