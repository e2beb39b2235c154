-- The statements of a group commit of queued requests (shared/requests/group-transaction.ts), each in
-- a PL/pgSQL function so a server connection plans it once (shared/platform/sql-function.ts): the
-- claim of the requests' rows, the accounts' lock, the duplicate look-up, the insert of the
-- transactions, the answers and the run-ledger rows. test/platform/sql-functions.test.ts keeps them
-- equal to the code's queries.

CREATE OR REPLACE FUNCTION "insert_pending_results"(text[], integer[], text[], text[], text[], integer[], text[], text)
  RETURNS TABLE(id text)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY INSERT INTO request_results (id, organisation_id, endpoint, idempotency_key, body_hash, account_id, run_id, job_id)
         SELECT u.id, u.organisation_id, u.endpoint, u.idempotency_key, u.body_hash, u.account_id, u.run_id, $8::text
           FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
             AS u(id, organisation_id, endpoint, idempotency_key, body_hash, account_id, run_id)
         ON CONFLICT DO NOTHING
         RETURNING id;
END
$function$;

CREATE OR REPLACE FUNCTION "lock_unanswered_results"(text[])
  RETURNS TABLE(id text)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT r.id FROM unnest($1::text[]) AS k(id) JOIN request_results r ON r.id = ANY(ARRAY[k.id])
          WHERE CASE WHEN r.finished_at IS NULL THEN true END
          ORDER BY r.id FOR UPDATE OF r;
END
$function$;

CREATE OR REPLACE FUNCTION "lock_unanswered_results_nowait"(text[])
  RETURNS TABLE(id text)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT r.id FROM unnest($1::text[]) AS k(id) JOIN request_results r ON r.id = ANY(ARRAY[k.id])
          WHERE CASE WHEN r.finished_at IS NULL THEN true END
          ORDER BY r.id FOR UPDATE OF r NOWAIT;
END
$function$;

CREATE OR REPLACE FUNCTION "lock_accounts_checked"(integer[], integer[], text[])
  RETURNS TABLE(id integer, platform_account_number text, starts_on text, ends_on text, supplier_status text, writable boolean)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT a.id, a.platform_account_number, p.starts_on::text AS starts_on, p.ends_on::text AS ends_on,
                s.status::text AS supplier_status,
                (ip.state = 'IMPORTED' AND ip.supplier_code = k.supplier_code
                 AND EXISTS (SELECT 1 FROM organisation_suppliers os
                              WHERE os.organisation_id = k.organisation_id AND os.supplier_code = k.supplier_code))
                  AS writable
           FROM unnest($1::int[], $2::int[], $3::text[]) AS k(account_id, organisation_id, supplier_code)
           JOIN accounts a ON a.id = ANY(ARRAY[k.account_id])
           JOIN account_import_processes ip ON ip.id = ANY(ARRAY[a.process_id])
           JOIN import_suppliers s ON s.code = ip.supplier_code
           LEFT JOIN statement_periods p ON p.account_id = ANY(ARRAY[a.id]) AND p.is_open
          ORDER BY a.id
            FOR NO KEY UPDATE OF a;
END
$function$;

CREATE OR REPLACE FUNCTION "lock_accounts_checked_nowait"(integer[], integer[], text[])
  RETURNS TABLE(id integer, platform_account_number text, starts_on text, ends_on text, supplier_status text, writable boolean)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT a.id, a.platform_account_number, p.starts_on::text AS starts_on, p.ends_on::text AS ends_on,
                s.status::text AS supplier_status,
                (ip.state = 'IMPORTED' AND ip.supplier_code = k.supplier_code
                 AND EXISTS (SELECT 1 FROM organisation_suppliers os
                              WHERE os.organisation_id = k.organisation_id AND os.supplier_code = k.supplier_code))
                  AS writable
           FROM unnest($1::int[], $2::int[], $3::text[]) AS k(account_id, organisation_id, supplier_code)
           JOIN accounts a ON a.id = ANY(ARRAY[k.account_id])
           JOIN account_import_processes ip ON ip.id = ANY(ARRAY[a.process_id])
           JOIN import_suppliers s ON s.code = ip.supplier_code
           LEFT JOIN statement_periods p ON p.account_id = ANY(ARRAY[a.id]) AND p.is_open
          ORDER BY a.id
            FOR NO KEY UPDATE OF a NOWAIT;
END
$function$;

CREATE OR REPLACE FUNCTION "find_existing_transactions"(integer[], text[])
  RETURNS TABLE(account_id integer, transaction_id text, submitted jsonb)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT k.account_id, k.transaction_id, t.submitted
           FROM unnest($1::int[], $2::text[]) AS k(account_id, transaction_id)
          CROSS JOIN LATERAL (
                SELECT s.submitted FROM transactions s
                 WHERE s.account_id = k.account_id AND s.transaction_id = k.transaction_id
                 ORDER BY s.id LIMIT 1) t;
END
$function$;

CREATE OR REPLACE FUNCTION "insert_transactions"(jsonb)
  RETURNS TABLE(id bigint, account_id integer, transaction_id text)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY INSERT INTO transactions (
           account_id, request_id, transaction_id, transaction_date, original_date, amount, type, reason,
           display_note, note, reference, payment_type, product_code, line_items, tax_items, description, submitted)
         SELECT r.a, r.q, s->>'transaction_id', r.transaction_date, r.original_date, (s->>'amount')::numeric,
                s->>'type', s->>'reason', s->>'display_note', s->>'note', s->>'reference', s->>'payment_type',
                s->>'product_code', NULLIF(s->'line_items', 'null'), NULLIF(s->'tax_items', 'null'), r.description, s
           FROM jsonb_to_recordset($1::jsonb)
                AS r(a int, q text, transaction_date date, original_date date, description text, s jsonb)
         RETURNING id, account_id, transaction_id;
END
$function$;

CREATE OR REPLACE FUNCTION "store_answers"(jsonb)
  RETURNS void
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  UPDATE request_results r
            SET http_status = v.http_status, body = v.body, error_code = v.error_code, finished_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS v(id text, http_status int, body jsonb, error_code text)
          WHERE r.id = ANY(ARRAY[v.id]);
END
$function$;

CREATE OR REPLACE FUNCTION "insert_answered_results"(jsonb)
  RETURNS void
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  INSERT INTO request_results (id, organisation_id, endpoint, body_hash, account_id, run_id,
                                     http_status, body, error_code, finished_at)
         SELECT v.id, v.organisation_id, v.endpoint, v.body_hash, v.account_id, v.run_id,
                v.http_status, v.body, v.error_code, now()
           FROM jsonb_to_recordset($1::jsonb) AS v(id text, organisation_id int, endpoint text, body_hash text,
                account_id int, run_id text, http_status int, body jsonb, error_code text);
END
$function$;

CREATE OR REPLACE FUNCTION "insert_queued_ledger_rows"(jsonb)
  RETURNS void
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                             http_status, dry_run, outcome, code, attr, detail, items)
     SELECT r.organisation_id, r.run_id, e.request_id, r.endpoint, coalesce(p.supplier_code, e.supplier_code),
            coalesce(p.external_account_number, e.external_account_number), e.http_status, e.dry_run, e.outcome,
            e.code, e.attr, e.detail, e.items
       FROM jsonb_to_recordset($1::jsonb) AS e(request_id text, endpoint text, supplier_code text, external_account_number text,
                        http_status int, dry_run boolean, outcome text, code text, attr text, detail text, items int)
       JOIN request_results r ON r.id = ANY(ARRAY[e.request_id])
       LEFT JOIN accounts a ON a.id = ANY(ARRAY[r.account_id])
       LEFT JOIN account_import_processes p ON p.id = ANY(ARRAY[a.process_id]);
END
$function$;
