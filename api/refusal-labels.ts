// Labels of the refusal metrics that stay bounded whatever clients send: a code is one of the codes
// the API documents (shared/openapi/error-codes.ts) or `other`; a supplier is one of the import
// suppliers the platform team set up (the import_suppliers table, read at most every few seconds) or
// `unknown` (a code no supplier has: a typo or a probe) or `none`. No label names an organisation, an
// account, a run or a request.
import { KNOWN_ERROR_CODES } from '../shared/openapi/error-codes';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';

/** The most supplier labels kept: past it, further suppliers count as `other`. */
const MAX_SUPPLIER_LABELS = 500;
/** How long a miss waits before the supplier list is read again (a new supplier shows up within it). */
const RELOAD_AFTER_MS = 5_000;

export const codeLabel = (code: string): string => (KNOWN_ERROR_CODES.has(code) ? code : 'other');

export interface SupplierLabels {
  /** The supplier's label; reads the supplier list again first when it may be out of date. */
  label(code: string | undefined): Promise<string>;
}

export function supplierLabels(db: Database, logger: Logger): SupplierLabels {
  let known = new Set<string>();
  let loadedAt = 0;
  let loading: Promise<void> | undefined;
  const load = () => {
    loading ??= db.pool
      .query<{ code: string }>('SELECT code FROM import_suppliers ORDER BY code LIMIT $1', [MAX_SUPPLIER_LABELS])
      .then(({ rows }) => {
        known = new Set(rows.map((r) => r.code));
      })
      .catch((err: unknown) => logger.warn({ err }, 'supplier labels not read'))
      .finally(() => {
        loadedAt = Date.now();
        loading = undefined;
      });
    return loading;
  };
  return {
    async label(code) {
      if (code === undefined) return 'none';
      if (!known.has(code) && Date.now() - loadedAt > RELOAD_AFTER_MS) await load();
      if (known.has(code)) return code;
      return known.size >= MAX_SUPPLIER_LABELS ? 'other' : 'unknown';
    },
  };
}
