// A small HTTP proxy in front of the app that misbehaves on request: answers 503 without forwarding,
// forwards and then loses the answer (the service did the work, the client sees a 503), drops the
// connection, holds a request before forwarding it, answers for the service (JSON or raw text), or
// forwards and rewrites the service's answer. It logs what passed, so tests can check which
// Idempotency-Key and token each attempt carried. A run's declaration always passes, unlogged.
import { createServer, request as forward, type IncomingMessage, type Server } from 'node:http';

export type Fault =
  | 'pass'
  | 'reject-503'
  | 'lose-answer'
  | 'drop'
  | { holdMs: number }
  | { answer: number; body: unknown }
  | { answer: number; raw: string }
  | { rewrite: (answer: unknown) => unknown };

export interface ProxyLogEntry {
  at: number;
  method: string;
  path: string;
  key?: string;
  authorization?: string;
  runId?: string;
  fault: Fault;
  status?: number;
  body?: string;
}

export interface FaultProxy {
  baseUrl: string;
  log: ProxyLogEntry[];
  close(): Promise<void>;
}

const DECLARATION = /^\/v1\/data-import\/runs\/[^/]+\/declaration\/$/;

export async function startFaultProxy(
  targetBaseUrl: string,
  choose: (req: IncomingMessage, body: string, seen: number) => Fault,
): Promise<FaultProxy> {
  const target = new URL(targetBaseUrl);
  const log: ProxyLogEntry[] = [];
  let seen = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // A run's declaration (its progress on the service) is no write: it passes, and stays out of the log.
      const declaration = req.method === 'POST' && DECLARATION.test(req.url!);
      const fault = declaration ? 'pass' : choose(req, body.toString(), seen++);
      const entry: ProxyLogEntry = {
        at: Date.now(),
        method: req.method!,
        path: req.url!,
        key: req.headers['idempotency-key'] as string | undefined,
        authorization: req.headers.authorization,
        runId: req.headers['data-import-run-id'] as string | undefined,
        fault,
        body: req.url!.startsWith('/v1/graphql/') ? body.toString() : undefined,
      };
      if (!declaration) log.push(entry);
      const unavailable = () => {
        entry.status = 503;
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ detail: 'Unavailable (proxy).', code: 'result_pending' }));
      };
      if (fault === 'reject-503') return unavailable();
      if (typeof fault === 'object' && 'answer' in fault) {
        entry.status = fault.answer;
        res.writeHead(fault.answer, { 'content-type': 'application/json' });
        return res.end('raw' in fault ? fault.raw : JSON.stringify(fault.body));
      }
      if (fault === 'drop') return req.socket.destroy();
      const send = () => {
        const upstream = forward(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              if (fault === 'lose-answer') return unavailable();
              entry.status = answer.statusCode;
              const text = Buffer.concat(parts);
              if (typeof fault !== 'object' || !('rewrite' in fault)) {
                res.writeHead(answer.statusCode!, answer.headers);
                return res.end(text);
              }
              const rewritten = Buffer.from(JSON.stringify(fault.rewrite(JSON.parse(text.toString()))));
              const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
              res.writeHead(answer.statusCode!, { ...headers, 'content-length': String(rewritten.length) });
              res.end(rewritten);
            });
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      };
      if (typeof fault === 'object' && 'holdMs' in fault) setTimeout(send, fault.holdMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
