// A throwaway Redis Cluster of three masters (and, when asked, a replica of each) on loopback ports, in a
// temporary folder: started and torn down by the test that uses it, so the machine's own Redis is never
// touched.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { until } from './until';

export interface LocalRedisCluster {
  ports: number[];
  /** `host:port,…`, the form REDIS_CLUSTER_NODES takes. */
  nodes: string;
  /** Client connections open on the nodes, not counting the ones this asks on. */
  connectedClients(): Promise<number>;
  /**
   * Fails the master that holds `key` over to its replica with CLUSTER FAILOVER (the replica catches up,
   * then takes the master's slots), and resolves once every node agrees on the new master and the
   * cluster is ok. Answers the ports of the old and the new master. Needs `replicas: 1`.
   */
  failOver(key: string): Promise<{ from: number; to: number }>;
  destroy(): Promise<void>;
}

export interface ClusterShape {
  /** Replicas per master (0 by default): 1 gives six nodes, each master with a replica. */
  replicas?: 0 | 1;
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** A free port whose cluster-bus port (port + 10000) is free too. */
async function clusterPort(taken: number[]): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (!taken.includes(port) && (await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited with ${code}: ${out}`)),
    );
  });
}

/** With a password, every node requires it of the default user (requirepass). */
export interface ClusterAuth {
  password: string;
  /** An ACL user besides the default one, allowed everything, as a managed cluster's application user. */
  user?: { name: string; password: string };
}

/** One command on one node, over a connection of its own that never retries. */
async function ask(port: number, password: string | undefined, ...command: string[]): Promise<string> {
  const probe = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    password,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.call(command[0]!, ...command.slice(1))) as string;
  } finally {
    probe.disconnect();
  }
}

async function clusterState(port: number, password?: string): Promise<string> {
  return /cluster_state:(\w+)/.exec(await ask(port, password, 'CLUSTER', 'INFO'))?.[1] ?? 'unknown';
}

/**
 * CLIENT LIST has a line per client connection, the asking one included; a replica's link to its master
 * (flags S on the master, M on the replica) is the cluster's own and not counted.
 */
const clientsOn = async (port: number, password?: string) =>
  (await ask(port, password, 'CLIENT', 'LIST'))
    .trim()
    .split('\n')
    .filter((line) => !/ flags=\w*[SM]/.test(line)).length - 1;

interface NodeLine {
  port: number;
  id: string;
  master: boolean;
  /** The master's id, for a replica. */
  replicaOf: string | undefined;
  slots: Array<[number, number]>;
}

/** CLUSTER NODES as one node sees it (a line per node: id, address, flags, master id, …, slot ranges). */
async function nodesSeenBy(port: number, password?: string): Promise<NodeLine[]> {
  const text = await ask(port, password, 'CLUSTER', 'NODES');
  return text
    .trim()
    .split('\n')
    .slice(0, 64)
    .map((line) => {
      const [id = '', address = '', flags = '', masterId = '-', , , , , ...slots] = line.split(' ');
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        master: flags.split(',').includes('master'),
        replicaOf: masterId === '-' ? undefined : masterId,
        slots: slots
          .filter((r) => !r.startsWith('['))
          .map((r) => r.split('-').map(Number))
          .map(([a = 0, b]) => [a, b ?? a] as [number, number]),
      };
    });
}

/** The port of the master that serves `slot`, as `port` sees it. */
async function ownerOf(port: number, slot: number, password?: string): Promise<number | undefined> {
  const nodes = await nodesSeenBy(port, password);
  return nodes.find((n) => n.master && n.slots.some(([a, b]) => slot >= a && slot <= b))?.port;
}

/** Every replica's link to its master is up (it has synced its master's data). */
async function replicasInSync(ports: number[], password?: string): Promise<boolean> {
  for (const port of ports) {
    const info = await ask(port, password, 'INFO', 'replication');
    if (/role:slave/.test(info) && !/master_link_status:up/.test(info)) return false;
  }
  return true;
}

export async function startLocalRedisCluster(auth?: ClusterAuth, shape: ClusterShape = {}): Promise<LocalRedisCluster> {
  const replicas = shape.replicas ?? 0;
  const password = auth?.password;
  const authArgs = password ? ['--requirepass', password, '--masterauth', password] : [];
  if (auth?.user) authArgs.push('--user', auth.user.name, 'on', `>${auth.user.password}`, '~*', '&*', '+@all');
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 3 * (1 + replicas); i++) ports.push(await clusterPort(ports));
  const servers: ChildProcess[] = ports.map((port) =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '5000',
        ...authArgs,
      ],
      { stdio: 'ignore' },
    ),
  );
  const destroy = async () => {
    await Promise.all(
      servers.flatMap((s) =>
        s.exitCode !== null || s.signalCode !== null
          ? []
          : [new Promise((resolve) => (s.once('exit', resolve), s.kill('SIGKILL')))],
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      await until(
        `redis-server on ${port}`,
        async () => ((await clusterState(port, password)) ? true : undefined),
        15_000,
      );
    await run('redis-cli', [
      ...(password ? ['--no-auth-warning', '-a', password] : []),
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    for (const port of ports) {
      await until(
        `cluster_state:ok on ${port}`,
        async () => ((await clusterState(port, password)) === 'ok' ? true : undefined),
        30_000,
        100,
      );
    }
    await until(
      'every replica in sync',
      async () => ((await replicasInSync(ports, password)) ? true : undefined),
      30_000,
      100,
    );
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    ports,
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
    connectedClients: async () =>
      (await Promise.all(ports.map((p) => clientsOn(p, password)))).reduce((a, b) => a + b, 0),
    async failOver(key) {
      const slot = Number(await ask(ports[0]!, password, 'CLUSTER', 'KEYSLOT', key));
      const nodes = await nodesSeenBy(ports[0]!, password);
      const from = await ownerOf(ports[0]!, slot, password);
      const fromId = nodes.find((n) => n.port === from)?.id;
      const replica = nodes.find((n) => n.replicaOf !== undefined && n.replicaOf === fromId);
      if (from === undefined || !replica) throw new Error(`no replica of the master of slot ${slot} to fail over to`);
      await ask(replica.port, password, 'CLUSTER', 'FAILOVER');
      await until(
        `every node to see ${replica.port} as the master of slot ${slot}`,
        async () => {
          const owners = await Promise.all(ports.map((p) => ownerOf(p, slot, password)));
          const states = await Promise.all(ports.map((p) => clusterState(p, password)));
          return owners.every((o) => o === replica.port) && states.every((s) => s === 'ok') ? true : undefined;
        },
        30_000,
        100,
      );
      await until(
        'the old master to follow the new one',
        async () => ((await replicasInSync(ports, password)) ? true : undefined),
        30_000,
        100,
      );
      return { from, to: replica.port };
    },
    destroy,
  };
}
