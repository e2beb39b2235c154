// Documentation metadata for zod schemas, kept beside the schemas rather than in them.
//
// zod-to-openapi's `.openapi()` needs a prototype patch (extendZodWithOpenApi) that only reaches
// schemas built after it runs, and `registry.register` calls `.openapi()`. Instead the metadata goes
// straight into the library's own metadata registry, keyed by the schema instance the routes use:
// the components' schemas stay untouched, and a renamed or restructured schema cannot silently
// drift from its documentation (the same instance is both parsed and rendered).
import { zodToOpenAPIRegistry, type ZodOpenAPIMetadata } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';

type Metadata = Partial<ZodOpenAPIMetadata> & Record<`x-${string}`, unknown>;

/** Renders `schema` as `#/components/schemas/<refId>` wherever it appears. */
export function named<T extends z.ZodType>(refId: string, schema: T, metadata: Metadata = {}): T {
  zodToOpenAPIRegistry.add(schema, { ...metadata, _internal: { refId } });
  return schema;
}

/** Adds schema keywords (description, format, example…) to `schema` wherever it appears. */
export function annotate<T extends z.ZodType>(schema: T, metadata: Metadata): T {
  zodToOpenAPIRegistry.add(schema, metadata);
  return schema;
}
