// Where each millisecond of a small request's CPU goes, in the API and in the worker: a bench run's
// CPU profiles (`--cpu-prof DIR`) cut to each real-shape phase's window (bench/results.json), their
// busy samples sorted into the stages a request passes through, each stage's share then scaled to the
// process's measured CPU per request: the kernel's part (system calls) as /proc measured it, the rest
// by each stage's share of the samples in the process's own code.
// Usage: tsx bench/cost-breakdown.ts <profile dir> [bench/results.json]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { placeOf, readCpuProfile, type CpuProfile, type ProfileNode } from './cpu-profile';
import { cpuMsPerRequest } from './real-shape';
import type { BenchResults, Throughput } from './results';

/** A request's stages, each the packages and project folders whose code does it (first match wins). */
const STAGES: [stage: string, places: RegExp][] = [
  ['validation (zod, field checks)', /^(zod|@asteasolutions\/zod-to-openapi|decimal\.js|luxon)$/],
  ['body read and JSON parse', /^(raw-body|body-parser|iconv-lite|api\/json-body\.js)$/],
  [
    'auth, rate limit, load shedding',
    /^(jose|express-rate-limit|api\/(auth|rate-limits\.js|leased-rate-limit-store\.js|load-shedding\.js))$/,
  ],
  [
    'log line and metrics',
    /^(pino|sonic-boom|pino-std-serializers|@pinojs\/.*|quick-format-unescaped|prom-client|api\/observability\.js|api\/route-labels\.js)$/,
  ],
  ['run ledger', /^(shared\/runs|api\/run-ledger\.js)$/],
  [
    'database client (pg, pool, protocol)',
    /^(pg|pg-protocol|pg-pool|pg-types|postgres-.*|@prisma\/.*|shared\/platform)$/,
  ],
  ['queue (BullMQ, ioredis)', /^(bullmq|ioredis|redis-parser|msgpackr|denque|cluster-key-slot)$/],
  ['the endpoint’s own work', /^shared\//],
  [
    'HTTP, routing, answer',
    /^(node http|express|router|finalhandler|on-finished|parseurl|statuses|http-errors|depd|qs|type-is|media-typer|content-type|mime-types|mime-db|helmet|send|vary|side-channel.*|get-intrinsic|api\/.*)$/,
  ],
  ['worker loop', /^worker\//],
];

const WRITES = ': its socket writes';

/** Node's own HTTP server and client code: counted with the HTTP stage. */
const NODE_HTTP = /^node:(_http_|http$|https$)/;

/** Native socket writes: the system call, and the wait for a core when it wakes the process it writes to. */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeString', 'writeUtf8String', 'writeLatin1String']);

/**
 * The stage of one busy sample: its nearest frame whose code belongs to a stage, else by its leaf; a
 * socket write is shown apart within its stage.
 */
function stageOf(stack: ProfileNode[]): string {
  const write = SOCKET_WRITES.has(stack[0]!.callFrame.functionName) ? WRITES : '';
  for (const frame of stack) {
    const place = NODE_HTTP.test(frame.callFrame.url) ? 'node http' : placeOf(frame.callFrame.url);
    const hit = STAGES.find(([, places]) => places.test(place));
    if (hit) return hit[0] + write;
  }
  const leaf = stack[0]!.callFrame.functionName;
  if (leaf === '(garbage collector)') return 'garbage collection';
  return 'node core and V8 (no project frame)';
}

const IDLE = new Set(['(idle)']);

function breakdown(profile: CpuProfile, window: { fromUs: number; toUs: number }): Map<string, number> {
  const byStage = new Map<string, number>();
  for (const { id, atUs, us } of profile.samples) {
    if (atUs < window.fromUs || atUs > window.toUs) continue;
    const stack = profile.stack(id);
    if (IDLE.has(stack[0]!.callFrame.functionName)) continue;
    const stage = stageOf(stack);
    byStage.set(stage, (byStage.get(stage) ?? 0) + us);
  }
  return byStage;
}

/**
 * The process's CPU per request: the kernel's part as measured (/proc), its own part shared among the
 * stages by their busy samples; samples in a socket write stand for kernel time and are left out of
 * that share (they also hold the wait for a core when the write wakes its reader).
 */
function print(
  title: string,
  unit: string,
  byStage: Map<string, number>,
  totalMs: number,
  kernelMs: number | undefined,
): void {
  const own = [...byStage].filter(([stage]) => kernelMs === undefined || !stage.endsWith(WRITES));
  const ownUs = own.reduce((a, [, us]) => a + us, 0);
  const userMs = totalMs - (kernelMs ?? 0);
  console.log(`\n${title}: ${totalMs.toFixed(3)} ms of CPU per ${unit}`);
  if (kernelMs !== undefined)
    console.log(`  ${kernelMs.toFixed(3).padStart(7)} ms  in the kernel (socket reads and writes, epoll)`);
  for (const [stage, us] of own.sort((a, b) => b[1] - a[1])) {
    const share = us / ownUs;
    console.log(`  ${(share * userMs).toFixed(3).padStart(7)} ms  ${(share * 100).toFixed(1).padStart(5)} %  ${stage}`);
  }
}

const [dir, resultsFile = 'bench/results.json'] = process.argv.slice(2);
if (!dir) throw new Error('usage: tsx bench/cost-breakdown.ts <profile dir> [bench/results.json]');
const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
if (!results.pids) throw new Error(`${resultsFile} is not from a run that started the service with --cpu-prof`);
const files = readdirSync(dir);
const profileOf = (pid: number) => {
  const file = files.find((f) => f.includes(`.${pid}.`) && f.endsWith('.cpuprofile'));
  return file && readCpuProfile(path.join(dir, file));
};
const profiles = { api: profileOf(results.pids.api), worker: profileOf(results.pids.worker) };
const ROLES = [
  ['API', 'api'],
  ['worker', 'worker'],
] as const;

/** A phase's window and, per role, its CPU and the kernel's part of it, in ms per request (or account). */
interface Phase {
  name: string;
  unit: string;
  window?: { fromUs: number; toUs: number };
  ms: Record<'api' | 'worker', { total: number; kernel?: number }>;
}

const phases: Phase[] = [];
if (results.real) {
  const { clients, batch } = results.real;
  const perRequest = (name: string, t: Throughput): Phase => ({
    name,
    unit: 'request',
    window: t.window,
    ms: {
      api: { total: cpuMsPerRequest(t, t.cpu.api), kernel: t.cpu.system && cpuMsPerRequest(t, t.cpu.system.api) },
      worker: {
        total: cpuMsPerRequest(t, t.cpu.worker),
        kernel: t.cpu.system && cpuMsPerRequest(t, t.cpu.system.worker),
      },
    },
  });
  phases.push(
    perRequest(`transactions, ${clients} clients × ${batch}`, results.real.transactions),
    perRequest(`notes, ${clients} clients × 1`, results.real.notes),
    perRequest(`statements, ${clients} clients × 1`, results.real.statements),
  );
}
if (results.accounts) {
  const a = results.accounts;
  phases.push({
    name: `accounts scheduled and awaited, ${a.clients} clients × ${a.depth}`,
    unit: 'account',
    window: a.window,
    ms: {
      api: { total: a.cpuMsPerAccount.api, kernel: a.kernelMsPerAccount?.api },
      worker: { total: a.cpuMsPerAccount.worker, kernel: a.kernelMsPerAccount?.worker },
    },
  });
}
for (const phase of phases) {
  if (!phase.window) continue;
  for (const [role, key] of ROLES) {
    const profile = profiles[key];
    const { total, kernel } = phase.ms[key];
    if (profile) print(`${phase.name} — ${role}`, phase.unit, breakdown(profile, phase.window), total, kernel);
  }
}
