// Every request the client makes goes through here. Redirects are never followed: fetch would re-post
// the body (the API key in obtainToken, a batch of customer data) to wherever a 307/308 points, so any
// 3xx stops the run naming where it pointed. Answers are read with a bound, so a server that streams
// without end cannot exhaust the client's memory.
import { FatalError } from '../client-errors';
import { oneLine } from '../terminal-text';

export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

export const serviceFetch: Fetcher = async (url, init) => {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    throw new FatalError(
      `the service answered ${res.status} redirecting to ${whereTo(res.headers.get('location'), url)}; ` +
        'redirects are not followed (they would carry the API key and the data elsewhere): ' +
        'pass the final address as --url',
    );
  }
  return res;
};

function whereTo(location: string | null, from: string): string {
  if (location === null) return 'nowhere (no Location header)';
  try {
    const to = new URL(location.slice(0, 2048), from);
    return `${to.protocol}//${to.host}`;
  } catch {
    return `an unreadable Location "${oneLine(location, 100)}"`;
  }
}

/** The answer's text, or undefined when it is longer than `maxBytes` (the rest is not read). */
export async function readBounded(res: Response, maxBytes: number): Promise<string | undefined> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never read.
    if (bytes > maxBytes) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** The answer as JSON; undefined when it is empty, longer than `maxBytes` or not JSON. */
export async function readJson(res: Response, maxBytes: number): Promise<unknown> {
  const text = await readBounded(res, maxBytes);
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer's lines, each at most `maxChars` long; a longer one ends the stream with a FatalError. */
export async function* boundedLines(res: Response, maxChars: number): AsyncIterable<string> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
    rest = lines.pop()!;
    for (const line of [...lines, rest]) {
      if (line.length > maxChars) throw new FatalError(`the service sent a line longer than ${maxChars} characters`);
    }
    for (const line of lines) yield line.replace(/\r$/, '');
  }
  rest += decoder.decode();
  if (rest !== '') yield rest.replace(/\r$/, '');
}
