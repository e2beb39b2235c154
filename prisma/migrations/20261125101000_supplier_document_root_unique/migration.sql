-- A supplier's document root is required and its own: a supplier with the bucket itself as its root
-- (''), or sharing a root, could have document paths naming another supplier's documents. Existing
-- rows are made to fit: an empty root becomes the supplier's code, and of suppliers sharing a root the
-- oldest keeps it while each other one moves to <root>/<code>. Locations already stored with notes and
-- statements do not change; new documents of a moved supplier are stored under its new root.
-- Nested roots (one inside another) are refused by the admin commands; existing ones are left as they are.
UPDATE "import_suppliers" SET "document_root" = "code" WHERE "document_root" = '';

UPDATE "import_suppliers" AS s SET "document_root" = s."document_root" || '/' || s."code"
  FROM "import_suppliers" AS first
 WHERE first."document_root" = s."document_root"
   AND (first."created_at", first."code") < (s."created_at", s."code");

ALTER TABLE "import_suppliers" ALTER COLUMN "document_root" DROP DEFAULT;
CREATE UNIQUE INDEX "import_suppliers_document_root_key" ON "import_suppliers"("document_root");
