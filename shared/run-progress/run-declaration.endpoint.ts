// A client's run declares what it sends: POST /v1/data-import/runs/{run_id}/declaration/
// (run-progress.use-cases.ts), and the progress GET runs/{run_id}/ shows derives from it. The handler is
// api/routes/run-declaration.routes.ts.
import { z } from 'zod';
import { ERRORS } from '../openapi/error-codes';
import { jsonRequest, jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { annotate, named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { RunDeclarationRequest } from './run-declaration.schemas';

const declarationExample = {
  kind: 'transactions',
  items: 1_000_000,
  files: [{ name: 'transactions.ndjson', lines: 1_000_000 }],
};

const RunDeclaration = named(
  'RunDeclaration',
  z.object({
    kind: z.string(),
    items: z.number().int(),
    files: z.array(z.object({ name: z.string(), lines: z.number().int() })),
    declared_at: z.string().describe('When the run first declared (UTC): its rate counts from here.'),
  }),
);

export const RunProgress = named(
  'RunProgress',
  z.object({
    declared: RunDeclaration.nullable().describe('What the run declared; null when it declared nothing.'),
    items_done: z.number().int().describe('Items with a final outcome (not `not_written`), at most `declared.items`.'),
    percent: z.number().nullable().describe('Percent of the declared items done (one decimal); null without one.'),
    rate_per_second: z.number().nullable().describe('Items done a second since the declaration, to the last write.'),
    eta_seconds: z.number().int().nullable().describe('Seconds left at that rate; 0 when done, null when unknown.'),
  }),
);

export const runDeclarationEndpoint = endpoint({
  method: 'post',
  path: '/v1/data-import/runs/{run_id}/declaration/',
  operationId: 'declareRun',
  errors: ERRORS.runDeclaration,
  describe: () => ({
    tag: 'Post account import',
    summary: 'Declare what a run sends',
    description:
      'A client’s run says, when it starts, what it is sending: its kind, its files with their line counts and the ' +
      'items in all. `GET runs/<run_id>/` then shows the run’s percent done, rate and ETA. Declaring again (a ' +
      'resumed run) replaces the declaration and keeps its time. An organisation keeps its newest 10,000.',
    request: {
      params: z.object({ run_id: annotate(z.string().min(1).max(64), { description: 'The client’s run id.' }) }),
      body: jsonRequest(RunDeclarationRequest, { run: { value: declarationExample } }),
    },
    answers: {
      200: jsonResponse(
        'The declaration as stored.',
        RunDeclaration.extend({ run_id: z.string() }),
        {
          run: {
            value: {
              run_id: 'transactions-20261126T080000Z-a1b2c3',
              ...declarationExample,
              declared_at: '2026-11-26T08:00:00.000Z',
            },
          },
        },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});
