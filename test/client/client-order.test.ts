// Payment instructions go one per request; two for one account must reach the service in the file's
// order, never in flight together (the second may replace or conflict with the first), while other
// accounts' instructions still go in parallel.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runClient, summaryOf, writeLines } from './client.fixture';
import { tokenAnswer } from './fake-service';

let dir: string;
let server: Server;
let baseUrl: string;
const arrivals: { account: string; reference: string }[] = [];
const inFlight = new Map<string, number>();
let mostInFlightForOneAccount = 0;
let mostInFlight = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-order-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url!.startsWith('/v1/graphql/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokenAnswer().body));
        return;
      }
      const sent = JSON.parse(body) as { external_account_number: string; reference: string };
      arrivals.push({ account: sent.external_account_number, reference: sent.reference });
      const now = (inFlight.get(sent.external_account_number) ?? 0) + 1;
      inFlight.set(sent.external_account_number, now);
      mostInFlightForOneAccount = Math.max(mostInFlightForOneAccount, now);
      mostInFlight = Math.max(
        mostInFlight,
        [...inFlight.values()].reduce((a, b) => a + b, 0),
      );
      // Answered a moment later, so a request racing this one would arrive while it is open.
      setTimeout(() => {
        inFlight.set(sent.external_account_number, inFlight.get(sent.external_account_number)! - 1);
        res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ platform_account_number: 'P', reference: sent.reference }));
      }, 150);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

it('sends two instructions of one account in file order, one at a time, and other accounts alongside', async () => {
  const line = (account: string, reference: string) =>
    JSON.stringify({
      import_supplier: 'S',
      external_account_number: account,
      vendor: 'STRIPE',
      type: 'CARD',
      reference,
    });
  const file = writeLines(dir, 'instructions.ndjson', [
    line('A', 'pm_first'),
    line('A', 'pm_second'),
    line('B', 'pm_b'),
    line('A', 'pm_third'),
    line('C', 'pm_c'),
  ]);

  const run = await runClient(baseUrl, 'k'.repeat(32), [
    'send',
    'payment-instructions',
    file,
    '--runs-dir',
    dir,
    '--json',
  ]);

  expect(summaryOf(run)).toMatchObject({ succeeded: 5, failed: 0 });
  expect(arrivals.filter((a) => a.account === 'A').map((a) => a.reference)).toEqual([
    'pm_first',
    'pm_second',
    'pm_third',
  ]);
  expect(mostInFlightForOneAccount).toBe(1);
  expect(mostInFlight).toBeGreaterThan(1);
});
