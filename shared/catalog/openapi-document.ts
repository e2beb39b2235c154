// The service's OpenAPI document: every declared data-import endpoint (endpoints.ts) and the service's
// own paths (shared/openapi/), with the components' request schemas named first (component-schemas.ts).
import { buildDocument, type DocsConfig, type OpenApiDocument } from '../openapi/document';
import {
  describeNoteSchemas,
  describePaymentInstructionSchemas,
  describeSharedFields,
  describeStatementSchemas,
  describeTransactionSchemas,
} from './component-schemas';
import { DATA_IMPORT_ENDPOINTS } from './endpoints';

export type { OpenApiDocument };

export function buildOpenApiDocument(config: DocsConfig): OpenApiDocument {
  describeSharedFields();
  describeNoteSchemas();
  describeStatementSchemas();
  describeTransactionSchemas();
  describePaymentInstructionSchemas();
  return buildDocument(config, DATA_IMPORT_ENDPOINTS);
}
