// Where each millisecond of a small request's CPU goes, in the API and in the worker: a bench run's
// CPU profiles (`--cpu-prof DIR`) cut to each real-shape phase's window (bench/results.json), their
// busy samples sorted into the stages a request passes through, each stage's share then scaled to the
// process's measured CPU per request. Samples are wall-clock while the process runs or waits for a
// core, so a stage that wakes another process (a socket write) is somewhat over-counted against CPU.
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
    /^(express|router|finalhandler|on-finished|parseurl|statuses|http-errors|depd|qs|type-is|media-typer|content-type|mime-types|mime-db|helmet|send|vary|side-channel.*|get-intrinsic|api\/.*)$/,
  ],
  ['worker loop', /^worker\//],
];

/** The stage of one busy sample: its nearest frame whose code belongs to a stage, else by its leaf. */
function stageOf(stack: ProfileNode[]): string {
  for (const frame of stack) {
    const place = placeOf(frame.callFrame.url);
    const hit = STAGES.find(([, places]) => places.test(place));
    if (hit) return hit[0];
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

function print(title: string, byStage: Map<string, number>, msPerRequest: number): void {
  const busy = [...byStage.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\n${title}: ${msPerRequest.toFixed(3)} ms of CPU per request, ${(busy / 1e6).toFixed(1)} s of busy samples`,
  );
  for (const [stage, us] of [...byStage].sort((a, b) => b[1] - a[1])) {
    const share = us / busy;
    console.log(
      `  ${(share * msPerRequest).toFixed(3).padStart(7)} ms  ${(share * 100).toFixed(1).padStart(5)} %  ${stage}`,
    );
  }
}

const [dir, resultsFile = 'bench/results.json'] = process.argv.slice(2);
if (!dir) throw new Error('usage: tsx bench/cost-breakdown.ts <profile dir> [bench/results.json]');
const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
if (!results.pids || !results.real) throw new Error(`${resultsFile} holds no real-shape phase of a profiled run`);
const files = readdirSync(dir);
const profileOf = (pid: number) => {
  const file = files.find((f) => f.includes(`.${pid}.`) && f.endsWith('.cpuprofile'));
  return file && readCpuProfile(path.join(dir, file));
};
const roles = [
  ['API', profileOf(results.pids.api), 'api'],
  ['worker', profileOf(results.pids.worker), 'worker'],
] as const;
const phases: [string, Throughput][] = [
  [`transactions, ${results.real.clients} clients × ${results.real.batch}`, results.real.transactions],
  [`notes, ${results.real.clients} clients × 1`, results.real.notes],
  [`statements, ${results.real.clients} clients × 1`, results.real.statements],
];
for (const [phase, t] of phases) {
  if (!t.window) continue;
  for (const [role, profile, key] of roles) {
    if (profile) print(`${phase} — ${role}`, breakdown(profile, t.window), cpuMsPerRequest(t, t.cpu[key]));
  }
}
