// Labels of the refusal metrics that stay bounded whatever clients send: a code is one of the codes
// the API documents (shared/openapi/error-codes.ts) or `other`; a supplier is an import supplier the
// platform team set up (looked up in import_suppliers the first time it is refused, then kept) or
// `unknown` (a code no supplier has: a typo or a probe) or `none`. No label names an organisation, an
// account, a run or a request.
import { KNOWN_ERROR_CODES } from '../shared/openapi/error-codes';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';

/** The most supplier labels kept: past it, further suppliers count as `other`. */
const MAX_SUPPLIER_LABELS = 500;
/** Longer than any supplier code: counted as `unknown` without a look-up. */
const MAX_SUPPLIER_CODE_LENGTH = 128;

export const codeLabel = (code: string): string => (KNOWN_ERROR_CODES.has(code) ? code : 'other');

export interface SupplierLabels {
  /** The supplier's label: a supplier refused before keeps its label; another is looked up once. */
  label(code: string | undefined): Promise<string>;
}

/**
 * The suppliers whose refusals were counted, in the order they were first refused, up to
 * MAX_SUPPLIER_LABELS. A code that is no supplier is looked up each time it is refused (one primary-key
 * read, on a request already refused), so a supplier created later gets its label at its first refusal.
 */
export function supplierLabels(db: Database, logger: Logger): SupplierLabels {
  const known = new Set<string>();
  const exists = (code: string) =>
    db.pool
      .query('SELECT 1 FROM import_suppliers WHERE code = $1', [code])
      .then(({ rowCount }) => rowCount === 1)
      .catch((err: unknown) => {
        logger.warn({ err }, 'supplier label not read');
        return false;
      });
  return {
    async label(code) {
      if (code === undefined) return 'none';
      if (known.has(code)) return code;
      if (code.length > MAX_SUPPLIER_CODE_LENGTH) return 'unknown';
      if (!(await exists(code))) return 'unknown';
      if (known.size >= MAX_SUPPLIER_LABELS) return 'other';
      known.add(code);
      return code;
    },
  };
}
