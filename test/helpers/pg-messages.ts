// Counts what a pool's connections send to PostgreSQL, message by message, as the server reads it:
// each simple query (`Q`, which BEGIN and COMMIT go out as), each statement parsed (`P`) and executed
// (`E`), and each Sync (`S`: without BEGIN, everything before a Sync is one transaction). Every
// connection is wrapped the first time the pool hands it out; the database itself is real.
import type { Pool } from 'pg';

export interface SentMessages {
  /** Texts of the simple-protocol queries. */
  queries: string[];
  /** Texts of the statements parsed (extended protocol). */
  parsed: string[];
  executes: number;
  syncs: number;
}

export interface MessageCounter {
  /** What was sent since the last `reset`. */
  sent(): SentMessages;
  reset(): void;
}

const cString = (buf: Buffer, from: number): string => buf.toString('utf8', from, buf.indexOf(0, from));

/**
 * `ignore`: statements the process sends on a timer, not for a request (the revocation poll): left
 * out with the messages that follow them up to their Sync.
 */
export function countMessages(pool: Pool, ignore: (text: string) => boolean = () => false): MessageCounter {
  let current: SentMessages = { queries: [], parsed: [], executes: 0, syncs: 0 };
  const wrapped = new WeakSet<object>();
  // Per connection: whether the messages up to its next Sync belong to an ignored statement (each
  // message goes out in a write of its own).
  const scan = (chunk: Buffer, skipping: { on: boolean }) => {
    // Frontend messages after start-up: a type byte and a length that counts itself, not the type.
    for (let at = 0; at + 5 <= chunk.length; at += 1 + chunk.readInt32BE(at + 1)) {
      const type = String.fromCharCode(chunk[at]!);
      const text =
        type === 'Q' ? cString(chunk, at + 5) : type === 'P' ? cString(chunk, chunk.indexOf(0, at + 5) + 1) : '';
      if (text && ignore(text)) skipping.on = true;
      if (!skipping.on) {
        if (type === 'Q') current.queries.push(text);
        if (type === 'P') current.parsed.push(text);
        if (type === 'E') current.executes++;
        if (type === 'S') current.syncs++;
      }
      if (type === 'S' || type === 'Q') skipping.on = false;
    }
  };
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const stream = (client as unknown as { connection: { stream: { write: (...args: unknown[]) => boolean } } })
      .connection.stream;
    const write = stream.write.bind(stream);
    const skipping = { on: false };
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk)) scan(chunk, skipping);
      return write(chunk, ...rest);
    };
  });
  return {
    sent: () => current,
    reset: () => {
      current = { queries: [], parsed: [], executes: 0, syncs: 0 };
    },
  };
}
