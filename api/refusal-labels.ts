// Labels of the refusal metrics that stay bounded whatever clients send: a code is one of the codes
// the API documents (shared/openapi/error-codes.ts) or `other`; a supplier is an import supplier the
// platform team set up that the refused caller's organisation may use (looked up in
// organisation_suppliers the first time that organisation is refused for it, then kept), or `unknown`
// (a code no supplier has, or another organisation's supplier: a typo or a probe, which must not count
// against that supplier), or `none`. No label names an organisation, an account, a run or a request.
import { KNOWN_ERROR_CODES } from '../shared/openapi/error-codes';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';

/** The most supplier labels kept: past it, further suppliers count as `other`. */
const MAX_SUPPLIER_LABELS = 500;
/** The most (organisation, supplier) pairs remembered as allowed: past it, a pair is looked up each time. */
const MAX_ALLOWED_PAIRS = 10_000;
/** Longer than any supplier code: counted as `unknown` without a look-up. */
const MAX_SUPPLIER_CODE_LENGTH = 128;

export const codeLabel = (code: string): string => (KNOWN_ERROR_CODES.has(code) ? code : 'other');

export interface SupplierLabels {
  /** The supplier's label for a refusal of `organisationId`'s request (see above). */
  label(code: string | undefined, organisationId: number | undefined): Promise<string>;
}

/**
 * The suppliers whose refusals were counted, in the order they were first refused, up to
 * MAX_SUPPLIER_LABELS. A code that is no supplier is looked up each time it is refused (one primary-key
 * read, on a request already refused), so a supplier created later gets its label at its first refusal.
 */
export function supplierLabels(db: Database, logger: Logger): SupplierLabels {
  const known = new Set<string>();
  const allowed = new Set<string>();
  const mayUse = (organisationId: number, code: string) =>
    db.pool
      .query('SELECT 1 FROM organisation_suppliers WHERE organisation_id = $1 AND supplier_code = $2', [
        organisationId,
        code,
      ])
      .then(({ rowCount }) => rowCount === 1)
      .catch((err: unknown) => {
        logger.warn({ err }, 'supplier label not read');
        return false;
      });
  return {
    async label(code, organisationId) {
      if (code === undefined) return 'none';
      if (code.length > MAX_SUPPLIER_CODE_LENGTH || organisationId === undefined) return 'unknown';
      const pair = `${organisationId}\u0000${code}`;
      if (!allowed.has(pair)) {
        if (!(await mayUse(organisationId, code))) return 'unknown';
        if (allowed.size < MAX_ALLOWED_PAIRS) allowed.add(pair);
      }
      if (known.has(code)) return code;
      if (known.size >= MAX_SUPPLIER_LABELS) return 'other';
      known.add(code);
      return code;
    },
  };
}
