// The product catalogue as the platform team manages it (admin apply).
import type { DbClient } from '../platform/db';

export interface RateFields {
  rateBand: string;
  /** Plain decimal string: stored exactly as NUMERIC(15,7). */
  pricePerUnit: string;
  /** YYYY-MM-DD. */
  validFrom: string;
  validTo: string | null;
}

const day = (s: string) => new Date(`${s}T00:00:00Z`);

/**
 * Creates the product if absent and makes `rates` its whole rate list. An unchanged list is left as it
 * is, so applying the same file twice rewrites nothing.
 */
export async function replaceProduct(
  db: DbClient,
  code: string,
  rates: RateFields[],
  supplyType: string | null = null,
): Promise<void> {
  await db.product.createMany({ data: [{ code, supplyType }], skipDuplicates: true });
  await db.product.updateMany({ where: { code, NOT: { supplyType } }, data: { supplyType } });
  // Two applies of one product at once would both find the old list and both insert the new one.
  await db.$queryRaw`SELECT code FROM products WHERE code = ${code} FOR UPDATE`;
  const current = await db.productRate.findMany({
    where: { productCode: code },
    select: { rateBand: true, pricePerUnit: true, validFrom: true, validTo: true },
    orderBy: { id: 'asc' },
  });
  const same =
    current.length === rates.length &&
    current.every((c, i) => {
      const r = rates[i]!;
      const validTo = r.validTo === null ? null : day(r.validTo).getTime();
      return (
        c.rateBand === r.rateBand &&
        c.pricePerUnit.eq(r.pricePerUnit) &&
        c.validFrom.getTime() === day(r.validFrom).getTime() &&
        (c.validTo?.getTime() ?? null) === validTo
      );
    });
  if (same) return;
  await db.productRate.deleteMany({ where: { productCode: code } });
  await db.productRate.createMany({
    data: rates.map((r) => ({
      productCode: code,
      rateBand: r.rateBand,
      pricePerUnit: r.pricePerUnit,
      validFrom: day(r.validFrom),
      validTo: r.validTo === null ? null : day(r.validTo),
    })),
  });
}
