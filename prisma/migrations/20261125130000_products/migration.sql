-- The product catalogue: SUPPLY_CHARGE transactions must name a product, and a line item's rate band
-- and price per unit must match the product's rate for the line item's period.
CREATE TABLE "products" (
    "code" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "products_pkey" PRIMARY KEY ("code")
);

CREATE TABLE "product_rates" (
    "id" SERIAL NOT NULL,
    "product_code" TEXT NOT NULL,
    "rate_band" TEXT NOT NULL,
    "price_per_unit" DECIMAL(15,7) NOT NULL,
    "valid_from" DATE NOT NULL,
    "valid_to" DATE,
    CONSTRAINT "product_rates_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "product_rates_product_code_rate_band_idx" ON "product_rates"("product_code", "rate_band");

ALTER TABLE "product_rates" ADD CONSTRAINT "product_rates_product_code_fkey"
    FOREIGN KEY ("product_code") REFERENCES "products"("code") ON DELETE CASCADE ON UPDATE CASCADE;
