// The generated OpenAPI document on its own: valid OpenAPI 3.1, every example valid against the
// schema it illustrates (request examples also against the zod schema the route parses with), and
// every error code the code base can answer listed.
import { RunDeclarationRequest } from '../../shared/run-progress/run-declaration.schemas';
import { ProcessRequest, ScheduleRequest } from '../../shared/account-import/account-creation.use-cases';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { buildAuthSchema } from '../../api/routes/graphql.routes';
import { EnergyAccountSchema, V2ValidateRequest } from '../../shared/account-import/energy-account';
import { notesRequestSchema } from '../../shared/notes/note.schemas';
import { CreatePaymentInstructionRequest } from '../../shared/payment-instructions/payment-instruction.schemas';
import { parseIdempotencyKey, parseRunId } from '../../shared/requests/request-headers';
import { statementsRequestSchema } from '../../shared/statements/statement.schemas';
import { ImportOptions } from '../../shared/transactions/transaction.schemas';
import { parseTransactionImport } from '../../shared/transactions/transaction.validation';
import type { AuthDeps } from '../../shared/auth/auth.use-cases';
import { testConfig } from '../helpers/context';
import {
  operation,
  operationsOf,
  requestExamples,
  requestSchemaPointer,
  schemaChecker,
  testDocument,
  type DocumentedOperation,
} from './openapi.helpers';

const ROOT = path.join(__dirname, '..', '..');
const config = testConfig();
const document = testDocument();
const checker = schemaChecker(document);
const operations = operationsOf(document);

/** @seriousme/openapi-schema-validator's verdict, from a child process (the package is ESM-only). */
function validateWithSchemaValidator(doc: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(__dirname, 'validate-openapi.mjs')],
      (err: Error | null, stdout: string) => (err ? reject(err) : resolve(JSON.parse(stdout))),
    );
    child.stdin!.end(JSON.stringify(doc));
  });
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document whose $refs all resolve', async () => {
    expect(document.openapi).toBe('3.1.0');
    await expect(validateWithSchemaValidator(document)).resolves.toEqual({ valid: true, version: '3.1', errors: null });
  });

  it('gives every operation a unique operationId, a summary, tags and at least one response', () => {
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation: op } of operations) {
      expect(op).toMatchObject({ summary: expect.any(String), tags: [expect.any(String)] });
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
    }
  });

  it('declares each path template parameter as a required path parameter, and no others', () => {
    for (const { path: template, operation: op } of operations) {
      const inTemplate = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort()).toEqual(inTemplate.sort());
      expect(declared.every((p) => p.required === true)).toBe(true);
    }
  });

  it('protects every /v1/ and /v2/data-import/ operation with the Token scheme except the document itself', () => {
    for (const { path: p, operation: op } of operations) {
      const dataImport = p.startsWith('/v1/data-import/') || p.startsWith('/v2/data-import/');
      const expected = dataImport && p !== '/v1/data-import/openapi.json' ? [{ Token: [] }] : undefined;
      if (expected) expect(op.security).toEqual(expected);
      else expect(op.security).not.toEqual([{ Token: [] }]);
    }
  });

  it('names the request shapes and the transaction types as components, with a discriminator on type', () => {
    const schemas = document.components?.schemas ?? {};
    for (const name of [
      'NotesRequest',
      'Note',
      'HistoricalStatement',
      'TransactionsRequest',
      'LineItem',
      'TaxItem',
      'PaymentInstructionRequest',
    ]) {
      expect(schemas).toHaveProperty(name);
    }
    expect(schemas.Transaction).toMatchObject({
      discriminator: {
        propertyName: 'type',
        mapping: {
          CHARGE: '#/components/schemas/ChargeTransaction',
          CREDIT: '#/components/schemas/CreditTransaction',
          PAYMENT: '#/components/schemas/PaymentTransaction',
          REPAYMENT: '#/components/schemas/RepaymentTransaction',
          SUPPLY_CHARGE: '#/components/schemas/SupplyChargeTransaction',
        },
      },
    });
  });

  it('describes the decimal formats that the transaction schemas only express as number-or-string', () => {
    const schemas = document.components?.schemas as Record<
      string,
      { properties: Record<string, { description?: string }> }
    >;
    expect(schemas.ChargeTransaction!.properties.amount!.description).toMatch(
      /10 digits before the point and 10 after/,
    );
    expect(schemas.RepaymentTransaction!.properties.amount!.description).toMatch(/Must be positive/);
    expect(schemas.LineItem!.properties.number_of_units!.description).toMatch(/12 digits before the point and 4 after/);
    expect(schemas.LineItem!.properties.price_per_unit!.description).toMatch(/8 digits before the point and 7 after/);
    expect(schemas.TaxItem!.properties.rate!.description).toMatch(/15 digits before the point and 5 after/);
  });

  it('states the configured item limit on every batch', () => {
    const schemas = document.components?.schemas as Record<
      string,
      { properties: Record<string, { maxItems?: number }> }
    >;
    expect(schemas.NotesRequest!.properties.notes!.maxItems).toBe(config.MAX_ITEMS_PER_REQUEST);
    expect(schemas.HistoricalStatementsRequest!.properties.statements!.maxItems).toBe(config.MAX_ITEMS_PER_REQUEST);
    expect(schemas.TransactionsRequest!.properties.transactions!.maxItems).toBe(config.MAX_ITEMS_PER_REQUEST);
  });
});

describe('request examples', () => {
  const max = config.MAX_ITEMS_PER_REQUEST;
  const parsers: Record<string, (body: unknown) => unknown> = {
    createNotes: (body) => notesRequestSchema(max).parse(body),
    createHistoricalStatements: (body) => statementsRequestSchema(max).parse(body),
    createTransactions: (body) => parseTransactionImport({ options: {}, request: body }, { maxItems: max }),
    createPaymentInstruction: (body) => CreatePaymentInstructionRequest.parse(body),
    validateAccount: (body) => EnergyAccountSchema.parse(body),
    createOrUpdateAccountImportProcess: (body) => EnergyAccountSchema.parse(body),
    validateAccountV2: (body) => V2ValidateRequest.parse(body),
    processAccountImportProcess: (body) => ProcessRequest.parse(body),
    scheduleAccountCreation: (body) => EnergyAccountSchema.parse(ScheduleRequest.parse(body).payload),
    declareRun: (body) => RunDeclarationRequest.parse(body),
    obtainToken: (body) => {
      const { query } = body as { query: string };
      const errors = validate(buildAuthSchema({} as AuthDeps), parse(query));
      if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('; '));
    },
  };
  const withBodies = operations.filter((o) => o.operation.requestBody);

  it('exist for every operation that takes a body, and only for those the test knows how to parse', () => {
    expect(withBodies.map((o) => o.operation.operationId).sort()).toEqual(Object.keys(parsers).sort());
    for (const op of withBodies) expect(Object.keys(requestExamples(op)).length).toBeGreaterThan(0);
  });

  it.each(withBodies.map((o) => [o.operation.operationId, o] as [string, DocumentedOperation]))(
    '%s: every example parses with the schema the route uses and validates against the documented schema',
    (id, op) => {
      for (const example of Object.values(requestExamples(op))) {
        expect(() => parsers[id]!(example)).not.toThrow();
        expect(checker.errors(requestSchemaPointer(op), example)).toEqual([]);
      }
    },
  );

  it('use the import supplier ACME_ENERGY', () => {
    // A run's declaration names its files, not a supplier (a file may hold several).
    const naming = withBodies.filter((o) => o.operation.operationId !== 'declareRun');
    for (const op of naming.filter((o) => o.path.startsWith('/v1/data-import/'))) {
      for (const example of Object.values(requestExamples(op)))
        expect(
          (example as { import_supplier?: string; import_supplier_code?: string }).import_supplier ??
            (example as { import_supplier_code?: string }).import_supplier_code,
        ).toBe('ACME_ENERGY');
    }
  });

  it('document the query options, Idempotency-Key and Data-Import-Run-Id as the service reads them', () => {
    const params = operation(document, 'createTransactions').operation.parameters ?? [];
    expect(params.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'header:Data-Import-Run-Id',
      'header:Idempotency-Key',
      'query:check_previously_added',
      'query:force_add_to_current_statement',
    ]);
    expect(ImportOptions.parse({})).toEqual({ check_previously_added: true, force_add_to_current_statement: true });
    for (const p of params.filter((x) => x.in === 'query'))
      expect(p.schema).toMatchObject({ type: 'boolean', default: true });

    const headers: [string, (value: string) => string | undefined, number][] = [
      ['Idempotency-Key', parseIdempotencyKey, 255],
      ['Data-Import-Run-Id', parseRunId, 64],
    ];
    for (const [name, parse, max] of headers) {
      const header = params.find((p) => p.name === name)!.schema as { pattern: string; example: string };
      const documented = new RegExp(header.pattern);
      for (const candidate of [header.example, 'a', 'x'.repeat(max), 'x'.repeat(max + 1), 'café', 'tab\there', '']) {
        const accepted = (() => {
          try {
            return parse(candidate) !== undefined;
          } catch {
            return false;
          }
        })();
        expect([name, candidate, documented.test(candidate)]).toEqual([name, candidate, accepted]);
      }
    }
    expect(operation(document, 'createPaymentInstruction').operation.parameters?.map((p) => p.name)).toEqual([
      'Idempotency-Key',
      'Data-Import-Run-Id',
    ]);
  });
});

describe('response examples', () => {
  const cases = operations.flatMap((op) =>
    Object.entries(op.operation.responses).flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).flatMap(([mediaType, media]) =>
        Object.entries(media.examples ?? {}).map(
          ([name, example]) =>
            [`${op.operation.operationId} ${status} ${name}`, op, status, mediaType, example.value] as const,
        ),
      ),
    ),
  );

  it('exist for every JSON response', () => {
    const missing = operations.flatMap((op) =>
      Object.entries(op.operation.responses)
        .filter(([, r]) => r.content?.['application/json'] && op.operation.operationId !== 'getOpenApiDocument')
        .filter(([, r]) => Object.keys(r.content!['application/json']!.examples ?? {}).length === 0)
        .map(([status]) => `${op.operation.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
    expect(cases.length).toBeGreaterThan(100);
  });

  it.each(cases)('%s validates against its schema', (_name, op, status, mediaType, value) => {
    expect(
      checker.errors(['paths', op.path, op.method, 'responses', status, 'content', mediaType, 'schema'], value),
    ).toEqual([]);
  });

  it('include an example for each error code of each status, carrying that code', () => {
    for (const op of operations) {
      for (const [status, codes] of Object.entries((op.operation['x-error-codes'] ?? {}) as Record<string, string[]>)) {
        const examples = op.operation.responses[status]?.content?.['application/json']?.examples ?? {};
        for (const code of codes) {
          const value = examples[code]?.value as { code?: string; status?: string } | undefined;
          expect([op.operation.operationId, status, code, value?.code ?? value?.status]).toEqual([
            op.operation.operationId,
            status,
            code,
            code,
          ]);
        }
      }
    }
  });
});

describe('error codes', () => {
  const documented = new Set<string>([
    ...Object.values((document as { 'x-error-codes'?: Record<string, string[]> })['x-error-codes'] ?? {}).flat(),
    ...operations.flatMap((o) => [
      ...Object.values((o.operation['x-error-codes'] ?? {}) as Record<string, string[]>).flat(),
      ...((o.operation['x-field-error-codes'] ?? []) as string[]),
      ...((o.operation['x-graphql-error-codes'] ?? []) as string[]),
    ]),
  ]);

  // Every way the code base names an error code it answers with. Staff pages and the admin CLI are
  // not part of this API.
  const PATTERNS = [
    /\bcode: '([a-z_]+)'/g,
    /ValidationError\.single\(\s*'[^']*',\s*'([a-z_]+)'/g,
    /new (?:NotFoundError|TransientError|ConflictError|TokenRequestError|AuthenticationError)\(\s*'([a-z_]+)'/g,
    /(?:new AppError|super)\(\s*\d+,\s*'([a-z_]+)'/g,
    /\b(?:fail|rejected|issue|tokenError)\(\s*(?:ctx,\s*)?'([a-z_]+)'/g,
    /\berror: '([a-z_]+)'/g,
  ];
  const EXCLUDED_DIRS = ['api/staff', 'shared/admin', 'shared/staff', 'shared/generated', 'shared/openapi'];

  function sourceFiles(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
      .filter((f) => !EXCLUDED_DIRS.some((d) => f.startsWith(d + path.sep)));
  }

  it('lists every error code that api/, shared/ and worker/ can answer with', () => {
    const found = new Map<string, string>();
    for (const file of ['api', 'shared', 'worker'].flatMap(sourceFiles)) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const pattern of PATTERNS) for (const m of text.matchAll(pattern)) found.set(m[1]!, file);
    }
    // zod's own issue code, and TransactionImportError's AppError code: its body (toBody) carries
    // `status: TRANSACTION_IMPORT_ERROR` instead, which the catalogue lists.
    found.delete('custom');
    found.delete('transaction_import_error');
    expect(found.size).toBeGreaterThan(40);
    const undocumented = [...found]
      .filter(([code]) => !documented.has(code))
      .map(([code, file]) => `${code} (${file})`);
    expect(undocumented).toEqual([]);
  });

  it("lists every data-import operation's authentication, rate-limit, server-error and load-shedding codes", () => {
    for (const op of operations.filter((o) => o.operation.security?.[0]?.Token)) {
      expect(op.operation['x-error-codes']).toMatchObject({
        401: ['not_authenticated', 'authentication_failed', 'token_expired'],
        429: expect.arrayContaining(['rate_limited']),
        500: expect.arrayContaining(['server_error']),
        503: expect.arrayContaining(['database_busy']),
      });
    }
  });
});
