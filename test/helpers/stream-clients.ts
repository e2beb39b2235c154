// Clients of streamed downloads that misbehave on purpose: one that stops reading after the status
// line, and one that keeps reading but slowly. Both speak raw HTTP/1.1 so the test controls every read.
import { connect, type Socket } from 'node:net';
import type { TestApp } from './app';

export interface StalledDownload {
  socket: Socket;
  /** The status line's code, once the first bytes arrived. */
  status: Promise<number>;
}

/** Inserts `rows` staged processes for `supplier`: 100,000 make ~12 MB of list, more than every buffer on the way. */
export async function createImportProcesses(app: Pick<TestApp, 'db'>, supplier: string, rows: number): Promise<void> {
  await app.db.pool.query(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state)
     SELECT $1, 'EXT-' || lpad(n::text, 7, '0'), 'STAGED' FROM generate_series(1, $2::int) AS n`,
    [supplier, rows],
  );
}

/** A GET (`headers` as raw lines) whose client reads the first chunk, to learn the status, then stops reading. */
export function stalledDownload(port: number, path: string, headers: string): StalledDownload {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  const status = new Promise<number>((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0));
    });
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  return { socket, status };
}

/**
 * Like stalledDownload, then reads at `bytesPerSecond` at most (in small reads every 20 ms, catching up
 * after a late timer): the server sees its writes progress all along, but never faster than that.
 * `rest()` then reads everything left at full speed and resolves with it once the server closes.
 */
export function tricklingDownload(
  port: number,
  path: string,
  headers: string,
  bytesPerSecond: number,
): StalledDownload & { received(): number; rest(): Promise<Buffer>; stop(): void } {
  const download = stalledDownload(port, path, headers);
  const { socket } = download;
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  void download.status.then(() => {
    const started = Date.now();
    timer = setInterval(() => {
      const allowed = Math.floor(((Date.now() - started) * bytesPerSecond) / 1000) - received;
      const chunk = socket.read(Math.max(0, Math.min(allowed, socket.readableLength))) as Buffer | null;
      received += chunk?.length ?? 0;
    }, 20);
  });
  const rest = () => {
    clearInterval(timer);
    const chunks: Buffer[] = [];
    return new Promise<Buffer>((resolve) => {
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.once('close', () => resolve(Buffer.concat(chunks)));
      socket.resume();
    });
  };
  const stop = () => {
    clearInterval(timer);
    socket.destroy();
  };
  return { ...download, received: () => received, rest, stop };
}
