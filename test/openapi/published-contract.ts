// The published platform contract (../shared/reference/raw, Origin variant) as a test fixture: read
// at test time, adapted to the spec's names by the deliberate differences listed below, and turned
// into a validator of the eight endpoints' requests and responses. Nothing of the contract is
// copied into the repository; it is read from shared/ beside the checkout (see referenceDir).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';

const ROOT = path.join(__dirname, '..', '..');
const CONTRACT_FILE = 'origin-energy-kraken-data-import-openapi.yml';

/** The local folder this checkout was cloned from (remote `origin`), if it is one. */
function clonedFrom(): string | undefined {
  try {
    const url = execFileSync('git', ['remote', 'get-url', 'origin'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dir = url.startsWith('file://') ? url.slice('file://'.length) : url;
    return path.isAbsolute(dir) && existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where shared/ is: beside this checkout; beside the main checkout when this is a git worktree (its
 * `.git` file points into the main checkout's `.git/worktrees/`); or beside the checkout this one was
 * cloned from, when that is a folder on this machine (a fresh clone made anywhere, as CI makes).
 */
export function referenceDir(): string {
  const candidates = [path.join(ROOT, '..', 'shared')];
  const gitFile = path.join(ROOT, '.git');
  // In a checkout `.git` is a folder; only a worktree's is a file.
  const gitdir =
    existsSync(gitFile) && statSync(gitFile).isFile()
      ? /^gitdir: (.+)$/m.exec(readFileSync(gitFile, 'utf8'))?.[1]
      : undefined;
  if (gitdir) candidates.push(path.join(gitdir.trim(), '..', '..', '..', '..', 'shared'));
  const origin = clonedFrom();
  if (origin) candidates.push(path.join(origin, '..', 'shared'));
  const found = candidates
    .map((c) => path.join(c, 'reference', 'raw'))
    .find((dir) => existsSync(path.join(dir, CONTRACT_FILE)));
  if (!found)
    throw new Error(
      `The published contract is not beside the checkout: looked for ${CONTRACT_FILE} under ${candidates.join(', ')}`,
    );
  return found;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/** The eight endpoints the spec keeps, by the contract's path. */
export const ENDPOINTS = {
  transferStatus: {
    method: 'get',
    path: '/v1/data-import/account-transfer-status/{import_supplier_code}/{external_account_number}/',
  },
  allProcesses: { method: 'get', path: '/v1/data-import/all-account-import-processes/{import_supplier_code}/' },
  pendingProcesses: { method: 'get', path: '/v1/data-import/pending-account-import-processes/{import_supplier_code}/' },
  importedProcesses: {
    method: 'get',
    path: '/v1/data-import/imported-account-import-processes/{import_supplier_code}/',
  },
  notes: { method: 'post', path: '/v1/data-import/notes/create/' },
  statements: { method: 'post', path: '/v1/data-import/historical-statements/create/' },
  transactions: { method: 'post', path: '/v1/data-import/transactions/create/' },
  paymentInstruction: { method: 'post', path: '/v1/data-import/payment-instruction/create/' },
} as const;
export type Endpoint = keyof typeof ENDPOINTS;

/** Where the service deliberately differs from the published schemas, and why; each adapts the document. */
export const DELIBERATE_DIFFERENCES: { what: string; why: string; adapt: (doc: Json) => void }[] = [
  {
    what: '`kraken_account_number` is `platform_account_number`',
    why: "The spec's own name for the target platform's account number (spec: Data model).",
    adapt: (doc) => renameKey(doc, 'kraken_account_number', 'platform_account_number'),
  },
  {
    what: '`import_supplier` takes any configured supplier code, not the enum of the eight Origin codes',
    why: "Import suppliers are created by the platform team (`admin apply`); the enum lists one tenant's.",
    adapt: (doc) =>
      eachSchema(doc, (s) => {
        if (s.properties?.import_supplier?.enum) delete s.properties.import_supplier.enum;
      }),
  },
  {
    what: 'Decimal fields accept a JSON number as well as the decimal string the schema names',
    why: 'The contract\'s own example payloads send numbers (`"amount": 10.0`) for these string fields, and the spec accepts both.',
    adapt: (doc) =>
      eachSchema(doc, (s) => {
        if (s.type === 'string' && s.format === 'decimal') {
          s.type = ['string', 'number'];
          delete s.pattern;
        }
      }),
  },
  {
    what: 'In the list endpoints, `platform_account_number` and `account_created_at` are null while the account is pending',
    why: 'The spec says so, and so does the contract\'s own description of the 200 ("will be null"); its schema forgot `nullable`.',
    adapt: (doc) => {
      const props = doc.components.schemas.ImportProcess.properties;
      props.platform_account_number.nullable = true;
      props.account_created_at.nullable = true;
    },
  },
  {
    what: 'The payment-instruction 201 is `{platform_account_number, reference}`: no `account_number`, and `reference` up to 512 characters',
    why: "The spec fixes this body; `reference` is the request's own (1–512 characters, the deprecated `instruction_reference` ≤ 128).",
    adapt: (doc) => {
      const s = doc.components.schemas.CreatePaymentInstructionResponse;
      s.required = s.required.filter((r: string) => r !== 'account_number');
      delete s.properties.reference.maxLength;
    },
  },
  {
    what: "A line item's `params` is optional",
    why: "The Origin line item lists it as required, yet the contract's own SUPPLY_CHARGE example omits it (README: Transactions).",
    adapt: (doc) =>
      eachSchema(doc, (s) => {
        if (Array.isArray(s.required) && s.properties?.net_amount && s.required.includes('params')) {
          s.required = s.required.filter((r: string) => r !== 'params');
        }
      }),
  },
  {
    what: 'The notes 201 is an array of note results',
    why: 'The spec says so, and so does the contract\'s own 201 example and description ("a list of the posted notes"); its schema names one object.',
    adapt: (doc) => {
      const content = doc.paths[ENDPOINTS.notes.path].post.responses['201'].content['application/json'];
      content.schema = { type: 'array', items: content.schema };
    },
  },
  {
    what: "Payment-instruction `vendor` is a vendor this service has an adapter for (`STRIPE`), not Origin's `WESTPAC`",
    why: "The contract's own example sends `STRIPE`; a vendor without an adapter is refused with `invalid_choice` (README).",
    adapt: (doc) => {
      doc.components.schemas.LegacyPaymentInstruction.properties.vendor.enum = ['STRIPE'];
    },
  },
  {
    what: 'A STRIPE `reference` is a PaymentMethod id (`pm_` and letters and digits), not any text',
    why:
      "A reference that cannot be a PaymentMethod is refused (`invalid_vendor_reference`) without a vendor call; the contract's " +
      'example `THIS-IS-A-FAKE-REFERENCE` is sent as a `pm_` id (README, Payment instructions).',
    // Nothing to adapt: every such id is text the contract accepts; the test sends its example as one.
    adapt: () => undefined,
  },
  {
    what:
      "The 400 of notes, statements and a broken transactions envelope is the spec's `{detail, code, errors}`, not DRF's " +
      '`non_field_errors`; a payment-instruction 400/500 is the same body, not `{error_detail, …}`',
    why: "The spec's Errors section defines every validation body; those contract schemas are not checked (a refused transaction's `TRANSACTION_IMPORT_ERROR` is).",
    adapt: () => undefined,
  },
  {
    what: 'A `SUPPLY_CHARGE` echo carries no nested `status`, and a note without `created_at` still answers one',
    why: 'The nested `TRANSACTION_IMPORT_SUCCESS` repeats the outer status and is in no enum (README: Transactions).',
    adapt: () => undefined,
  },
];

/**
 * OpenAPI's discriminator picks the one branch its mapping names, where plain JSON Schema `oneOf` would
 * refuse an object that fits several open branches: rewritten as "if type is X then branch X".
 */
function resolveDiscriminators(node: Json): void {
  if (node === null || typeof node !== 'object') return;
  Object.values(node).forEach(resolveDiscriminators);
  const mapping = node.discriminator?.mapping as Record<string, string> | undefined;
  if (!Array.isArray(node.oneOf) || !mapping) return;
  const property = node.discriminator.propertyName as string;
  node.type = 'object';
  node.required = [property];
  node.properties = { [property]: { enum: Object.keys(mapping) } };
  node.allOf = Object.entries(mapping).map(([value, ref]) => ({
    if: { properties: { [property]: { const: value } } },
    then: { $ref: ref.replace('#/', 'contract.json#/') },
  }));
  delete node.oneOf;
  delete node.discriminator;
}

/**
 * OpenAPI 3.0 writes a nullable reference as `{allOf: [$ref], nullable: true}`, which Ajv refuses
 * ("nullable" needs "type"): rewritten as "the reference, or null".
 */
function nullableRefs(node: Json): void {
  if (node === null || typeof node !== 'object') return;
  Object.values(node).forEach(nullableRefs);
  if (node.nullable !== true || node.type !== undefined) return;
  // Without a type and a reference the value may be anything, null included.
  if (Array.isArray(node.allOf)) node.anyOf = [{ allOf: node.allOf }, { type: 'null' }];
  delete node.allOf;
  delete node.nullable;
}

export function renameKey(node: Json, from: string, to: string): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => (item === from ? (node[i] = to) : renameKey(item, from, to)));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const key of Object.keys(node)) {
    renameKey(node[key], from, to);
    if (key === from) {
      node[to] = node[from];
      delete node[from];
    }
  }
}

function eachSchema(doc: Json, visit: (schema: Json) => void): void {
  const walk = (node: Json): void => {
    if (node === null || typeof node !== 'object') return;
    if (!Array.isArray(node)) visit(node);
    Object.values(node).forEach(walk);
  };
  walk(doc.components.schemas);
  walk(doc.paths);
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export interface ContractValidator<E extends string> {
  /** The contract's own examples of a request body and of responses by status. */
  examples(endpoint: E): { request: unknown[]; responses: Record<string, unknown[]> };
  requestErrors(endpoint: E, body: unknown): string[];
  responseErrors(endpoint: E, status: number, body: unknown): string[];
}
export type PublishedContract = ContractValidator<Endpoint>;

export function loadPublishedContract(): PublishedContract {
  return loadContract(CONTRACT_FILE, ENDPOINTS, DELIBERATE_DIFFERENCES);
}

/** A validator of `endpoints` of a contract file of the reference folder, adapted by `differences`. */
export function loadContract<E extends string>(
  file: string,
  endpoints: Record<E, { method: string; path: string }>,
  differences: { adapt: (doc: Json) => void }[],
): ContractValidator<E> {
  const doc = parse(readFileSync(path.join(referenceDir(), file), 'utf8'), { maxAliasCount: 10_000 });
  for (const difference of differences) difference.adapt(doc);
  resolveDiscriminators(doc);
  nullableRefs(doc);
  // OpenAPI 3.0 schemas are JSON Schema draft 4/7 plus `nullable`, which Ajv reads; formats and the
  // document's own keywords (discriminator, x-…) are annotations here.
  const ajv = new Ajv({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: 'contract.json' });
  const operation = (endpoint: E): Json => doc.paths[endpoints[endpoint].path][endpoints[endpoint].method];
  const errorsAt = (pointer: string[], value: unknown): string[] => {
    const validate = ajv.compile({
      $ref: `contract.json#/${pointer.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    });
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  };
  const examplesOf = (content: Json): unknown[] =>
    Object.values(content?.['application/json']?.examples ?? {}).map((e: Json) => e.value);
  return {
    examples(endpoint) {
      const op = operation(endpoint);
      const responses = Object.fromEntries(
        Object.entries(op.responses).map(([status, r]: [string, Json]) => [status, examplesOf(r.content)]),
      );
      return { request: examplesOf(op.requestBody?.content), responses };
    },
    requestErrors(endpoint, body) {
      const { method, path: p } = endpoints[endpoint];
      return errorsAt(['paths', p, method, 'requestBody', 'content', 'application/json', 'schema'], body);
    },
    responseErrors(endpoint, status, body) {
      const { method, path: p } = endpoints[endpoint];
      if (!operation(endpoint).responses[String(status)]?.content) return [`the contract documents no ${status} body`];
      return errorsAt(['paths', p, method, 'responses', String(status), 'content', 'application/json', 'schema'], body);
    },
  };
}
