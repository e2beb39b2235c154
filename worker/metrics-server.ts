// /metrics of a worker-only process: job durations and circuit-breaker states live in the worker's
// memory, so in a split deployment the worker serves them itself (same token as the API's). /healthz
// (no token) answers the container's health check; /livez (no token) answers 200 only while the
// worker's Redis connection answers, for a liveness probe that restarts a worker whose Redis
// connection is stuck (after a fail-over, say).
import { createServer, type Server } from 'node:http';
import { digest, digestsEqual } from '../shared/auth/secrets';
import { recordBreakerStates } from '../shared/payment-instructions/vendors/vendor-breakers';
import type { Metrics } from '../shared/platform/metrics';

export async function startMetricsServer(
  metrics: Metrics,
  port: number,
  token: string | undefined,
  live: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Server> {
  const server = createServer((req, res) => {
    const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (req.url === '/livez') {
      void live().then((ok) =>
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(ok ? '{"status":"ok"}' : '{"status":"unavailable","failing":["redis"]}'),
      );
      return;
    }
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!token || !given || !digestsEqual(digest(given), digest(token))) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"detail":"Metrics need a token.","code":"not_authenticated"}');
      return;
    }
    recordBreakerStates(metrics);
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
