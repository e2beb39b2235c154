-- The one-item writes of notes and historical statements, each in a PL/pgSQL function so a server
-- connection plans it once (shared/platform/sql-function.ts). Each function's query is the WRITE of
-- shared/notes/note.repository.ts and shared/statements/statement.repository.ts, and must stay so:
-- test/platform/sql-functions.test.ts compares them, and prints the replacement when they differ.

CREATE OR REPLACE FUNCTION "write_notes"(integer, text, text, text, text, boolean, text[], jsonb[], timestamp with time zone[], timestamp with time zone[], boolean[], timestamp with time zone[], boolean[], text[])
  RETURNS TABLE(supplier_status text, ord integer, same_as integer, found boolean, body text, documents jsonb, created_at timestamp with time zone, is_pinned boolean, unpin_at timestamp with time zone, is_archived boolean, external_id text)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH account AS MATERIALIZED (SELECT a.id, s.status::text AS status, s.document_root
           FROM account_import_processes p
           JOIN organisation_suppliers os ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           JOIN import_suppliers s ON s.code = p.supplier_code
           JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3 AND p.state = 'IMPORTED'),
docs AS MATERIALIZED (
  SELECT i.ord::int, i.body, i.sent_at, i.created_at, i.is_pinned, i.unpin_at, i.is_archived, i.external_id,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('document_path', d.path,
                                                       'location', concat_ws('/', nullif($4, ''), nullif(btrim(a.document_root, '/'), ''), nullif(d.path, '')))
                                    ORDER BY d.n), '[]'::jsonb)
            FROM jsonb_array_elements_text(i.paths) WITH ORDINALITY AS d(path, n)) AS documents
    FROM account a
   CROSS JOIN unnest($7::text[], $8::jsonb[], $9::timestamptz[], $10::timestamptz[], $11::boolean[],
                     $12::timestamptz[], $13::boolean[], $14::text[])
         WITH ORDINALITY AS i(body, paths, sent_at, created_at, is_pinned, unpin_at, is_archived, external_id, ord)
   WHERE a.status = 'Ongoing'),
sent AS MATERIALIZED (SELECT d.*, note_dedup_key(d.body, d.documents) AS k FROM docs d),
found AS MATERIALIZED (
  SELECT s.ord, n.body, n.documents, n.created_at, n.is_pinned, n.unpin_at, n.is_archived, n.external_id
    FROM sent s
   CROSS JOIN account a
   CROSS JOIN LATERAL (
         SELECT n.body, n.documents, n.created_at, n.is_pinned, n.unpin_at, n.is_archived, n.external_id
           FROM notes n
          WHERE n.account_id = a.id
            AND md5(note_dedup_key(n.body, n.documents)) = md5(s.k)
            AND note_dedup_key(n.body, n.documents) = s.k
            AND (s.sent_at IS NULL OR n.created_at = s.sent_at)
          ORDER BY n.documents = s.documents DESC, n.id
          LIMIT 1) n),
fresh AS MATERIALIZED (
  SELECT s.ord, s.sent_at, s.created_at, s.k, min(s.ord) OVER (PARTITION BY s.k) AS first_ord
    FROM sent s
   WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.ord = s.ord)),
kept AS (
  SELECT f.ord, min(f.ord) OVER (PARTITION BY f.k, f.created_at) AS kept_ord
    FROM fresh f
   WHERE f.ord = f.first_ord OR f.sent_at IS NOT NULL),
decided AS MATERIALIZED (
  SELECT f.ord, coalesce(k.kept_ord, f.first_ord) AS same_as
    FROM fresh f LEFT JOIN kept k ON k.ord = f.ord),
inserted AS (
  INSERT INTO notes (account_id, body, documents, created_at, is_pinned, unpin_at, is_archived, external_id)
  SELECT a.id, s.body, s.documents, s.created_at, s.is_pinned, s.unpin_at, s.is_archived, s.external_id
    FROM sent s
    JOIN decided d ON d.ord = s.ord AND d.same_as = s.ord
   CROSS JOIN account a
   WHERE NOT $6
   ORDER BY s.ord),
counted AS (
  SELECT CASE WHEN d.same_as = s.ord THEN 'NOTE_CREATION_SUCCESS' ELSE 'NOTE_ALREADY_EXISTS' END AS code,
         count(*)::int AS items
    FROM sent s LEFT JOIN decided d ON d.ord = s.ord
   GROUP BY 1),
ledger AS (INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                                 http_status, dry_run, outcome, code, attr, detail, items)
          SELECT $1, t.run_id, t.request_id, t.endpoint, t.supplier_code, t.external_account_number, t.http_status,
                 t.dry_run, t.outcome, t.code, t.attr, t.detail, c.items
            FROM jsonb_to_recordset($5::jsonb) AS t(run_id text, request_id text, endpoint text, supplier_code text, external_account_number text,
                        http_status int, dry_run boolean, outcome text, code text, attr text, detail text, items int)
            JOIN counted c ON c.code IS NOT DISTINCT FROM t.code)
SELECT a.status AS supplier_status, r.ord, r.same_as, r.found, r.body, r.documents, r.created_at, r.is_pinned,
       r.unpin_at, r.is_archived, r.external_id
  FROM (SELECT 1) one
  LEFT JOIN account a ON true
  LEFT JOIN (SELECT (s.ord - 1)::int AS ord, (d.same_as - 1)::int AS same_as, f.ord IS NOT NULL AS found, f.body,
                    f.documents, f.created_at, f.is_pinned, f.unpin_at, f.is_archived, f.external_id
               FROM sent s LEFT JOIN found f ON f.ord = s.ord LEFT JOIN decided d ON d.ord = s.ord) r ON true
 ORDER BY r.ord;
END
$function$;

CREATE OR REPLACE FUNCTION "write_statements"(integer, text, text, text, text, boolean, text[], date[], date[], date[], text[], bigint[], text[])
  RETURNS TABLE(supplier_status text, existing integer)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH account AS MATERIALIZED (SELECT a.id, s.status::text AS status, s.document_root
           FROM account_import_processes p
           JOIN organisation_suppliers os ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           JOIN import_suppliers s ON s.code = p.supplier_code
           JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3 AND p.state = 'IMPORTED'),
sent AS MATERIALIZED (
  SELECT a.id AS account_id, i.*,
         CASE WHEN i.statement_path IS NOT NULL
              THEN concat_ws('/', nullif($4, ''), nullif(btrim(a.document_root, '/'), ''), nullif(i.statement_path, '')) END AS storage_location
    FROM account a
   CROSS JOIN unnest($7::text[], $8::date[], $9::date[], $10::date[], $11::text[], $12::bigint[], $13::text[])
         WITH ORDINALITY AS i(statement_id, bill_period_from_date, bill_period_to_date, issued_date, number,
                              gross_amount, statement_path, ord)
   WHERE a.status = 'Ongoing'),
existing AS MATERIALIZED (
  SELECT s.ord
    FROM sent s
   WHERE EXISTS (SELECT 1 FROM historical_statements h
                  WHERE h.account_id = s.account_id AND h.statement_id = s.statement_id)),
inserted AS (
  INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                     issued_date, number, gross_amount, statement_path, storage_location)
  SELECT s.account_id, s.statement_id, s.bill_period_from_date, s.bill_period_to_date, s.issued_date, s.number,
         s.gross_amount, s.statement_path, s.storage_location
    FROM sent s
   WHERE NOT $6 AND NOT EXISTS (SELECT 1 FROM existing)
   ORDER BY s.ord),
counted AS (
  SELECT NULL::text AS code, count(*)::int AS items FROM sent HAVING count(*) > 0 AND NOT EXISTS (SELECT 1 FROM existing)),
ledger AS (INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                                 http_status, dry_run, outcome, code, attr, detail, items)
          SELECT $1, t.run_id, t.request_id, t.endpoint, t.supplier_code, t.external_account_number, t.http_status,
                 t.dry_run, t.outcome, t.code, t.attr, t.detail, c.items
            FROM jsonb_to_recordset($5::jsonb) AS t(run_id text, request_id text, endpoint text, supplier_code text, external_account_number text,
                        http_status int, dry_run boolean, outcome text, code text, attr text, detail text, items int)
            JOIN counted c ON c.code IS NOT DISTINCT FROM t.code)
SELECT a.status AS supplier_status, (e.ord - 1)::int AS existing
  FROM (SELECT 1) one
  LEFT JOIN account a ON true
  LEFT JOIN existing e ON true
 ORDER BY e.ord;
END
$function$;
