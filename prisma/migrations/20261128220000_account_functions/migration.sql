-- Account creation's most frequent statements, each in a PL/pgSQL function so a server connection
-- plans it once (shared/platform/sql-function.ts): the look-up of an account's team, products, meter
-- points and caller (account-import.repository.ts) and the guarded move of a process with its event,
-- by id and by supplier and external number (process-lifecycle.repository.ts).
-- test/platform/sql-functions.test.ts keeps them equal to the code's queries.

CREATE OR REPLACE FUNCTION "account_facts"(text, text[], text, text[], text, integer, text, integer)
  RETURNS TABLE(team_exists boolean, missing text[], supply json, taken json, supplier_status text, unanswered integer)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY SELECT ($1::text IS NULL OR EXISTS (SELECT 1 FROM operations_teams WHERE name = $1)) AS team_exists,
            ARRAY(SELECT c.code FROM unnest($2::text[]) AS c(code)
                   WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.code = c.code)) AS missing,
            (SELECT json_object_agg(p.code, p.supply_type) FROM products p
              WHERE p.code = ANY($2::text[]) AND p.supply_type IS NOT NULL) AS supply,
            COALESCE((SELECT json_agg(json_build_object('identifier', mp.identifier,
                                                        'external', p.external_account_number))
                        FROM meter_points mp
                        JOIN accounts a ON a.id = mp.account_id
                        JOIN account_import_processes p ON p.id = a.process_id
                       WHERE mp.supplier_code = $3 AND mp.identifier = ANY($4::text[])
                         AND p.external_account_number <> $5), '[]'::json) AS taken,
            CASE WHEN $6::int IS NOT NULL THEN
              (SELECT s.status::text FROM import_suppliers s
                 JOIN organisation_suppliers os ON os.supplier_code = s.code AND os.organisation_id = $6
                WHERE s.code = $3) END AS supplier_status,
            CASE WHEN $6::int IS NOT NULL THEN
              (SELECT count(*)::int FROM (
                 SELECT 1 FROM request_results
                  WHERE finished_at IS NULL AND organisation_id = $6 AND endpoint = $7
                  LIMIT $8) pending) END AS unanswered;
END
$function$;

CREATE OR REPLACE FUNCTION "move_process_by_id"(integer, text, text, text, timestamp with time zone, jsonb, text, text[], text, text, boolean, jsonb, boolean, timestamp with time zone, timestamp with time zone, text, boolean, text, text, jsonb, boolean)
  RETURNS TABLE(id integer, instructions jsonb)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH moved AS (
       UPDATE account_import_processes p
          SET status = $3::text::"ImportStatus", state = $4::text::"ImportState", modified_at = $5::timestamptz,
              latest_error = $6::jsonb,
              held_by = $7, held_at = CASE WHEN $7::text IS NULL THEN NULL ELSE $5::timestamptz END,
              payload = COALESCE($12::jsonb, p.payload),
              is_dry_run = COALESCE($13::boolean, CASE WHEN $3::text = 'PROCESSED' THEN false ELSE p.is_dry_run END),
              schedule_window_start = COALESCE($14::timestamptz, p.schedule_window_start),
              schedule_window_end = COALESCE($15::timestamptz, p.schedule_window_end),
              scheduled_request_id = COALESCE($16, p.scheduled_request_id),
              operations_team_name = CASE WHEN $17::boolean THEN $18::text ELSE p.operations_team_name END,
              staged_at = CASE WHEN $12::jsonb IS NULL THEN p.staged_at ELSE $5::timestamptz END
        WHERE p.id = $1 AND $2 IS NULL
          AND p.status::text = ANY($8::text[])
          AND ($9::text IS NULL OR p.status <> 'IN_PROGRESS' OR p.held_by = $9)
          AND ($10::text IS NULL OR p.scheduled_request_id = $10)
          AND (NOT $11 OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id))
       RETURNING p.id, CASE WHEN $21 THEN p.payload->'payment_instructions' END AS instructions
     ), event AS (
       INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
       SELECT id, $19, $5::timestamptz, $20::jsonb FROM moved
     )
     SELECT id, instructions FROM moved;
END
$function$;

CREATE OR REPLACE FUNCTION "move_process_by_key"(text, text, text, text, timestamp with time zone, jsonb, text, text[], text, text, boolean, jsonb, boolean, timestamp with time zone, timestamp with time zone, text, boolean, text, text, jsonb, boolean)
  RETURNS TABLE(id integer, instructions jsonb)
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH moved AS (
       UPDATE account_import_processes p
          SET status = $3::text::"ImportStatus", state = $4::text::"ImportState", modified_at = $5::timestamptz,
              latest_error = $6::jsonb,
              held_by = $7, held_at = CASE WHEN $7::text IS NULL THEN NULL ELSE $5::timestamptz END,
              payload = COALESCE($12::jsonb, p.payload),
              is_dry_run = COALESCE($13::boolean, CASE WHEN $3::text = 'PROCESSED' THEN false ELSE p.is_dry_run END),
              schedule_window_start = COALESCE($14::timestamptz, p.schedule_window_start),
              schedule_window_end = COALESCE($15::timestamptz, p.schedule_window_end),
              scheduled_request_id = COALESCE($16, p.scheduled_request_id),
              operations_team_name = CASE WHEN $17::boolean THEN $18::text ELSE p.operations_team_name END,
              staged_at = CASE WHEN $12::jsonb IS NULL THEN p.staged_at ELSE $5::timestamptz END
        WHERE p.supplier_code = $1 AND p.external_account_number = $2
          AND p.status::text = ANY($8::text[])
          AND ($9::text IS NULL OR p.status <> 'IN_PROGRESS' OR p.held_by = $9)
          AND ($10::text IS NULL OR p.scheduled_request_id = $10)
          AND (NOT $11 OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id))
       RETURNING p.id, CASE WHEN $21 THEN p.payload->'payment_instructions' END AS instructions
     ), event AS (
       INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
       SELECT id, $19, $5::timestamptz, $20::jsonb FROM moved
     )
     SELECT id, instructions FROM moved;
END
$function$;
