// The levers phase: the status window on `npm start` with every read-path lever on, then with each
// one off in turn (each its own start, since they are configuration), so the cost of each shows as
// CPU per request from one run. Levers: the verified-token cache (TOKEN_CACHE_SIZE), the leased
// organisation rate limit (ORG_RATE_LIMIT_LEASE_MAX=1 asks Redis on every request) and the per-request
// log line (LOG_LEVEL=warn drops it).
import type { Client } from 'pg';
import type { Fixtures } from './fixtures';
import { CpuMeter, redisPid, say, throughput } from './measure';
import type { LeverResult } from './results';
import { freePort, obtainToken, spawnService, untilReady } from './service';

export const LEVERS: { name: string; env: Record<string, string> }[] = [
  { name: 'every lever on', env: {} },
  { name: 'token cache off', env: { TOKEN_CACHE_SIZE: '0' } },
  { name: 'rate limit asks Redis per request', env: { ORG_RATE_LIMIT_LEASE_MAX: '1' } },
  { name: 'request log line off', env: { LOG_LEVEL: 'warn' } },
];

export async function leversPhase(ctx: {
  runtime: 'dist' | 'tsx';
  env: Record<string, string>;
  logFile: string;
  f: Fixtures;
  pg: Client;
  window: { clients: number; warmupMs: number; durationMs: number };
}): Promise<LeverResult[]> {
  const results: LeverResult[] = [];
  for (const lever of LEVERS) {
    say(`levers: status with ${lever.name}`);
    const service = spawnService('start', {
      runtime: ctx.runtime,
      env: { ...ctx.env, ...lever.env },
      port: await freePort(),
      logFile: ctx.logFile,
    });
    try {
      await untilReady(service.base);
      const token = await obtainToken(service.base, ctx.f.apiKey);
      const meter = new CpuMeter(ctx.pg, await redisPid(), service.pid);
      const t = await throughput(meter, {
        kind: 'status',
        ...ctx.window,
        base: service.base,
        token,
        supplier: ctx.f.listSupplier,
        accounts: ctx.f.listAccounts,
      });
      results.push({
        lever: lever.name,
        perSecond: t.perSecond,
        p99Ms: t.p99Ms,
        errors: t.errors,
        nodeMsPerRequest: (t.cpu.service / t.requestsPerSecond) * 1000,
        redisMsPerRequest: (t.cpu.redis / t.requestsPerSecond) * 1000,
      });
    } finally {
      await service.stop();
    }
  }
  return results;
}
