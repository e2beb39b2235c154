// A server-side cursor for a streamed download (process lists, the reconciliation): rows flow as the
// client reads, so a million never sit in memory, and the pooled connection it holds is bounded in time.
import type { Pool, PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';

export interface OpenCursor {
  stream: QueryStream;
  /** Must be called once the stream ends or fails: it gives the connection back (or destroys it). */
  release: (err?: Error) => void;
}

/**
 * Opens `sql` as a cursor in a read-only transaction. `timeoutMs` bounds it twice: PostgreSQL's
 * statement_timeout bounds each fetch, and a timer bounds the whole stream. The timer is needed
 * because PostgreSQL stops the statement clock whenever a fetch returns, so a cursor whose client
 * stopped reading sits "active" with no clock running; destroying the stream fails the response and
 * destroys the connection, which ends the backend's cursor.
 */
export async function openBoundedCursor(
  pool: Pool,
  sql: string,
  params: unknown[],
  opts: { batchSize: number; timeoutMs: number; what: string },
): Promise<OpenCursor> {
  const client: PoolClient = await pool.connect();
  const stream = new QueryStream(sql, params, { batchSize: opts.batchSize });
  // A connection lost between fetches (PostgreSQL ending the idle session, a restart) reaches no
  // pending read while backpressure holds the stream: fail the stream from here. The listener also
  // keeps the client's 'error' event from crashing the process.
  const lost = (err: Error) => stream.destroy(err);
  client.on('error', lost);
  let released = false;
  const release = (err?: Error) => {
    if (released) return;
    released = true;
    client.off('error', lost);
    // A failed or abandoned cursor leaves its connection in an unknown state: it is destroyed, not reused.
    if (err) return client.release(err);
    client.query('COMMIT').then(
      () => client.release(),
      (commitErr: Error) => client.release(commitErr),
    );
  };
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.round(opts.timeoutMs)}`);
  } catch (err) {
    release(err as Error);
    throw err;
  }
  const deadline = setTimeout(() => {
    if (!stream.destroyed && !stream.readableEnded)
      stream.destroy(new Error(`${opts.what} cursor open longer than ${opts.timeoutMs} ms`));
  }, opts.timeoutMs);
  deadline.unref();
  stream.once('close', () => clearTimeout(deadline));
  client.query(stream);
  return { stream, release };
}
