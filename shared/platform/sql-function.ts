// A hot write statement kept in a PL/pgSQL function, so each server connection plans it once instead of
// at every request. Sent as an unnamed statement, a large statement is parsed, analysed and planned
// anew each time (for a one-note write about 1.2 of its 1.9 ms of PostgreSQL CPU); a function's query
// is prepared on its first call in a backend and its plan cached there. That cache is not session state
// a pooler must carry: any backend that has not run the function yet simply plans it on first call.
//
// A plan cached while the tables were small must not stay a sequential scan as they grow (autovacuum is
// off, nothing re-plans it): the function runs with `enable_seqscan = off`, so its plan reads through
// indexes at any size, and with `plan_cache_mode = force_generic_plan`, so that plan is made once.
// Both settings hold only while the function runs. test/platform/sql-functions.test.ts checks that
// the migrated functions are these definitions and that their plans scan no table.
import type { Prepared } from './db';

export interface SqlFunction {
  name: string;
  /** Argument types as PostgreSQL names them (pg_get_function_identity_arguments): the query's $1…$n. */
  args: readonly string[];
  /** Its result columns, as PostgreSQL prints them (pg_get_function_result); 'void' for a write without rows. */
  returns: string;
  /** The query whose rows the function returns (with 'void', the statement it runs). */
  query: string;
}

/** The settings the function runs with (proconfig), in the order PostgreSQL stores them. */
export const FUNCTION_SETTINGS = ['plan_cache_mode=force_generic_plan', 'enable_seqscan=off'] as const;

/** The statement that calls the function with the query's own parameters (one row of void for 'void'). */
export function callOf(fn: SqlFunction): string {
  return `SELECT * FROM ${fn.name}(${fn.args.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/** The call as a statement the repositories declare (its name is used with DB_PREPARED_STATEMENTS=named). */
export function callStatement(name: string, fn: SqlFunction): Prepared {
  return { name, text: callOf(fn) };
}

/** The function's body as PostgreSQL stores it (prosrc). */
export function sourceOf(fn: SqlFunction): string {
  // Result columns share names with the query's columns: the query's columns win.
  const run = fn.returns === 'void' ? fn.query.trim() : `RETURN QUERY ${fn.query.trim()}`;
  return `\n#variable_conflict use_column\nBEGIN\n  ${run};\nEND\n`;
}

/** The migration that creates (or replaces) the function. */
export function definitionOf(fn: SqlFunction): string {
  const settings = FUNCTION_SETTINGS.map((s) => s.split('=')).map(([k, v]) => `  SET ${k} = ${v}\n`);
  return (
    `CREATE OR REPLACE FUNCTION "${fn.name}"(${fn.args.join(', ')})\n  RETURNS ${fn.returns}\n` +
    `  LANGUAGE plpgsql\n${settings.join('')}AS $function$${sourceOf(fn)}$function$;\n`
  );
}
