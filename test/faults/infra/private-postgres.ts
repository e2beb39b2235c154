// A PostgreSQL cluster of the fault suite's own (initdb + pg_ctl in a temporary folder, a free port,
// its socket in that folder), so stopping and restarting it never touches the machine's shared server
// on 5432. initdb refuses to run as root, so every binary runs as the `postgres` OS user.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  port: number;
  /** Base URL without a database name. */
  baseUrl: string;
  start(): Promise<void>;
  /** `fast` disconnects clients and checkpoints; `immediate` is a crash (recovery replays the WAL). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync('/tmp/faults-pg-');
  const data = path.join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (bin: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(BIN, bin), ...args]) : run(path.join(BIN, bin), args);

  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // A private throwaway cluster: durability against power loss is not what the suite tests (a
    // crash of the server process keeps the WAL in the OS cache either way).
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');

  let running = false;
  const self: PrivatePostgres = {
    port,
    baseUrl: `postgresql://postgres@127.0.0.1:${port}`,
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await self.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await self.start();
  return self;
}
