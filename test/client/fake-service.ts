// A stand-in for the data-import service that answers whatever a test tells it to: a hostile or
// broken server (redirects, terminal escapes in its texts, absurd reconciliation figures), which the
// real service never is. It records every request it receives, so a test can prove one got nothing.
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Sent as it is; an object is sent as JSON. */
  body?: string | object;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  body: string;
}

export interface FakeService {
  baseUrl: string;
  received: ReceivedRequest[];
  /** The runs' declarations (POST runs/<run_id>/declaration/), answered 200 here, not by the test. */
  declarations: ReceivedRequest[];
  close(): Promise<void>;
}

const DECLARATION = /^\/v1\/data-import\/runs\/[^/]+\/declaration\/$/;

export async function startFakeService(
  answer: (req: IncomingMessage, body: string) => FakeAnswer,
): Promise<FakeService> {
  const received: ReceivedRequest[] = [];
  const declarations: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (req.method === 'POST' && DECLARATION.test(req.url!)) {
        declarations.push({ method: req.method, path: req.url!, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      received.push({ method: req.method!, path: req.url!, body });
      const a = answer(req, body);
      const text = typeof a.body === 'string' ? a.body : a.body === undefined ? '' : JSON.stringify(a.body);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    declarations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** obtainToken's answer: a token valid for an hour. */
export function tokenAnswer(): FakeAnswer {
  const iat = Math.floor(Date.now() / 1000);
  return {
    status: 200,
    body: { data: { obtainToken: { token: 'fake-token', payload: { iat, exp: iat + 3600 }, refreshToken: 'r' } } },
  };
}

export const isTokenRequest = (req: IncomingMessage) => req.url === '/v1/graphql/';
