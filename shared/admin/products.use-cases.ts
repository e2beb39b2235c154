// The product catalogue SUPPLY_CHARGE transactions are checked against (contract: "Validate product
// code exists", "Validates supply charge line item rate", "…price per unit matches an existing rate").
import type { DbClient } from '../platform/db';
import type { ProductSpecT } from './apply.schemas';
import * as repo from './products.repository';

/** A product in an apply file is declarative: its rates become exactly the listed ones. */
export async function applyProduct(tx: DbClient, p: ProductSpecT): Promise<void> {
  await repo.replaceProduct(
    tx,
    p.code,
    p.rates.map((r) => ({
      rateBand: r.rate_band,
      pricePerUnit: r.price_per_unit.toFixed(),
      validFrom: r.valid_from,
      validTo: r.valid_to ?? null,
    })),
    p.supply_type ?? null,
  );
}
