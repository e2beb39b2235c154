// A few statements sent to PostgreSQL in one write and run as one transaction without BEGIN or
// COMMIT: each goes out as Parse, Bind, Describe and Execute of the unnamed statement, and one Sync
// follows the last. The extended protocol runs everything before a Sync in one implicit transaction:
// committed at the Sync when every statement succeeded, rolled back (and the statements after the
// failing one skipped) otherwise. One round trip, one transaction, nothing left on the connection (a
// transaction-mode pooler carries it), and each statement still sees what was committed before it
// started (READ COMMITTED takes a snapshot per statement), so a lock taken by the first is honoured
// by the second. node-postgres sends its own queries one at a time, each with its Sync: this is a
// query object of its own (the "submittable" interface pg-cursor uses), written against pg 8's
// connection (parse/bind/describe/execute/sync) and its exported Result and prepareValue.
import pg, { type QueryResult, type QueryResultRow } from 'pg';
import type { Database } from './db';
import { CommitOutcomeUnknown } from './errors';
import { isDatabaseUnavailable } from './pg-errors';

export interface Statement {
  text: string;
  values: unknown[];
}

interface Wire {
  stream: { cork?: () => void; uncork?: () => void };
  parse(msg: { text: string; name: string; types: number[] }): void;
  bind(msg: { portal: string; statement: string; values: unknown[] }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows: number }): void;
  sync(): void;
}

interface PgResult extends QueryResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): QueryResultRow;
  addRow(row: QueryResultRow): void;
  addCommandComplete(msg: unknown): void;
}

const runtime = pg as unknown as {
  Result: new () => PgResult;
  utils: { prepareValue(value: unknown): unknown };
};

/** The query object the pooled client runs: the client hands it the connection and each message back. */
class Pipeline {
  private readonly results: PgResult[] = [];
  private current: PgResult | undefined;
  private failure: Error | undefined;
  private done = false;

  constructor(
    private readonly statements: Statement[],
    private readonly settle: (err: Error | undefined, results: QueryResult[]) => void,
  ) {}

  submit(connection: Wire): void {
    // Values are mapped before anything is written, so a value that cannot be sent sends nothing.
    const values = this.statements.map((s) => s.values.map((v) => runtime.utils.prepareValue(v)));
    connection.stream.cork?.();
    try {
      this.statements.forEach((s, i) => {
        connection.parse({ text: s.text, name: '', types: [] });
        connection.bind({ portal: '', statement: '', values: values[i]! });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  private result(): PgResult {
    this.current ??= new runtime.Result();
    return this.current;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.result().addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    if (this.failure) return;
    try {
      const result = this.result();
      result.addRow(result.parseRow(msg.fields));
    } catch (err) {
      this.failure = err as Error;
    }
  }

  handleCommandComplete(msg: unknown): void {
    const result = this.result();
    result.addCommandComplete(msg);
    this.results.push(result);
    this.current = undefined;
  }

  handleEmptyQuery(): void {
    this.results.push(this.result());
    this.current = undefined;
  }

  // The client stops routing messages to a query once it has reported an error (the server skips
  // to the Sync, rolling the transaction back): the error settles it.
  handleError(err: Error): void {
    this.finish(this.failure ?? err);
  }

  handleReadyForQuery(): void {
    this.finish(this.failure);
  }

  handlePortalSuspended(): void {
    this.finish(new Error('a pipelined statement was suspended'));
  }

  handleCopyInResponse(): void {
    this.finish(new Error('COPY is not supported in a pipelined transaction'));
  }

  handleCopyData(): void {}

  private finish(err: Error | undefined): void {
    if (this.done) return;
    this.done = true;
    this.settle(err, this.results);
  }
}

/**
 * Runs `statements` in one round trip as one transaction (see above) on a pooled connection and
 * answers each one's result, in order. Its statements set their own timeouts (`set_config(…, true)`
 * is local to the transaction). A connection lost after the write leaves the outcome unknown
 * (CommitOutcomeUnknown): the Sync that commits went out with the statements.
 */
export async function inOneRoundTrip(db: Database, statements: Statement[]): Promise<QueryResult[]> {
  const client = await db.pool.connect();
  // A checked-out connection whose server goes away emits 'error' besides failing the query in flight.
  const ignore = () => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    return await new Promise<QueryResult[]>((resolve, reject) => {
      client.query(
        new Pipeline(statements, (err, results) => {
          if (!err) return resolve(results);
          if (isDatabaseUnavailable(err)) {
            broken = err;
            return reject(new CommitOutcomeUnknown(err));
          }
          reject(err);
        }) as never,
      );
    });
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}
