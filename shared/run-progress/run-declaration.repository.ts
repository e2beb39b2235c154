// run_declarations: one row per organisation and run id. A resumed run declares again: its kind,
// files and items are replaced, its declared_at (the run's start, which the rate counts from) kept.
import type { Sql } from '../platform/db';
import type { RunDeclarationInput } from './run-declaration.schemas';

export interface DeclarationRow {
  kind: string;
  items: number;
  files: { name: string; lines: number }[];
  declared_at: Date;
}

export async function upsertDeclaration(
  db: Sql,
  organisationId: number,
  runId: string,
  d: RunDeclarationInput,
): Promise<DeclarationRow> {
  const { rows } = await db.query<DeclarationRow>(
    `INSERT INTO run_declarations (organisation_id, run_id, kind, items, files)
     VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (organisation_id, run_id)
     DO UPDATE SET kind = EXCLUDED.kind, items = EXCLUDED.items, files = EXCLUDED.files
     RETURNING kind, items, files, declared_at`,
    [organisationId, runId, d.kind, d.items, JSON.stringify(d.files)],
  );
  return rows[0]!;
}

/** Drops an organisation's declarations past its newest `keep`, at most 100 a call (one per declaration). */
export async function pruneDeclarations(db: Sql, organisationId: number, keep: number): Promise<void> {
  await db.query(
    `DELETE FROM run_declarations
      WHERE organisation_id = $1
        AND run_id IN (SELECT run_id FROM run_declarations WHERE organisation_id = $1
                        ORDER BY declared_at DESC OFFSET $2 LIMIT 100)`,
    [organisationId, keep],
  );
}

export async function findDeclaration(
  db: Sql,
  organisationId: number,
  runId: string,
): Promise<DeclarationRow | undefined> {
  const { rows } = await db.query<DeclarationRow>(
    `SELECT kind, items, files, declared_at FROM run_declarations WHERE organisation_id = $1 AND run_id = $2`,
    [organisationId, runId],
  );
  return rows[0];
}

/** The supplier a run's writes named first (its support page lives under it), if any was recorded. */
export async function supplierOfRun(db: Sql, organisationId: number, runId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ supplier_code: string }>(
    `SELECT supplier_code FROM run_ledger
      WHERE run_id = $1 AND organisation_id = $2 AND supplier_code IS NOT NULL
      ORDER BY id LIMIT 1`,
    [runId, organisationId],
  );
  return rows[0]?.supplier_code;
}
