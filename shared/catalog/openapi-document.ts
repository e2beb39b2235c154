// The service's OpenAPI document: every declared data-import endpoint (endpoints.ts) and the service's
// own paths (shared/openapi/).
import { buildDocument, type DocsConfig, type OpenApiDocument } from '../openapi/document';
import { DATA_IMPORT_ENDPOINTS } from './endpoints';

export type { OpenApiDocument };

export function buildOpenApiDocument(config: DocsConfig): OpenApiDocument {
  return buildDocument(config, DATA_IMPORT_ENDPOINTS);
}
