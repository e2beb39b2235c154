// Reading the generated document in tests: its operations, and a JSON Schema validator that checks a
// value against any schema in it (OpenAPI 3.1 schemas are JSON Schema 2020-12).
import Ajv2020 from 'ajv/dist/2020';
import { buildOpenApiDocument, type OpenApiDocument } from '../../shared/catalog/openapi-document';
import { testConfig } from '../helpers/context';

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Operation = {
  operationId: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema: object; example?: unknown }[];
  requestBody?: { content: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }> }
  >;
  [extension: `x-${string}`]: any;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

export interface DocumentedOperation {
  method: (typeof METHODS)[number];
  path: string;
  operation: Operation;
}

export function testDocument(): OpenApiDocument {
  return buildOpenApiDocument(testConfig());
}

export function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
      method,
      path,
      operation: (item as Record<string, Operation>)[method]!,
    })),
  );
}

export function operation(document: OpenApiDocument, operationId: string): DocumentedOperation {
  const found = operationsOf(document).find((o) => o.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validates values against schemas of the document, addressed by their place in it. */
export function schemaChecker(document: OpenApiDocument) {
  // Formats and OpenAPI's own keywords (discriminator, example) are annotations here, not assertions.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'openapi.json' });
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();
  return {
    /** Errors of `value` against the schema at `pointer` (segments of a JSON pointer), or [] when valid. */
    errors(pointer: string[], value: unknown): string[] {
      const ref = `openapi.json#/${pointer.map(escape).join('/')}`;
      let validate = cache.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        cache.set(ref, validate);
      }
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}

export function responseSchemaPointer(
  op: DocumentedOperation,
  status: number | string,
  mediaType = 'application/json',
): string[] {
  return ['paths', op.path, op.method, 'responses', String(status), 'content', mediaType, 'schema'];
}

export function requestSchemaPointer(op: DocumentedOperation): string[] {
  return ['paths', op.path, op.method, 'requestBody', 'content', 'application/json', 'schema'];
}

export function requestExamples(op: DocumentedOperation): Record<string, unknown> {
  const examples = op.operation.requestBody?.content['application/json']?.examples ?? {};
  return Object.fromEntries(Object.entries(examples).map(([name, e]) => [name, e.value]));
}

export function successStatus(op: DocumentedOperation): number {
  const status = Object.keys(op.operation.responses)
    .map(Number)
    .find((s) => s >= 200 && s < 300);
  if (status === undefined) throw new Error(`${op.operation.operationId} documents no success`);
  return status;
}
