// Notes are written in batches: one set-based lookup and one set-based insert per request (the
// design measured unnest inserts at 10× Prisma's createMany).
import type { DbClient } from '../platform/db';

/** First key of the two-key advisory lock that serialises note writes per account: 'note' in ASCII. */
const NOTES_LOCK_CLASS = 0x6e6f7465;

export interface StoredDocument {
  document_path: string;
  /** `<bucket>/<supplier document root>/<path>` at the time of import. */
  location: string;
}

export interface NewNote {
  body: string | null;
  documents: StoredDocument[];
  createdAt: Date;
  isPinned: boolean;
  unpinAt: Date | null;
  isArchived: boolean;
  externalId: string | null;
}

export interface NoteLookup {
  body: string | null;
  documents: StoredDocument[];
  /** null matches a note created at any time (the caller did not send created_at). */
  createdAt: Date | null;
}

/**
 * Holds the account's note lock until the transaction ends, so two requests never both decide that
 * the same note is new. Needs READ COMMITTED (Prisma's default): statements after the lock then see
 * whatever the previous holder committed.
 */
export async function lockAccountNotes(db: DbClient, accountId: number): Promise<void> {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(${NOTES_LOCK_CLASS}::int, ${accountId}::int)`;
}

/**
 * Indexes (into `lookups`) of the notes the account already has. Uses the dedup index of migration
 * 20261122120000 (md5 of note_dedup_key) and rechecks the full key against md5 collisions.
 */
export async function findExistingNotes(db: DbClient, accountId: number, lookups: NoteLookup[]): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ ord: number }[]>`
    SELECT (i.ord - 1)::int AS ord
      FROM unnest(
             ${lookups.map((l) => l.body)}::text[],
             ${lookups.map((l) => JSON.stringify(l.documents))}::jsonb[],
             ${lookups.map((l) => l.createdAt)}::timestamptz[]
           ) WITH ORDINALITY AS i(body, documents, created_at, ord)
     WHERE EXISTS (
             SELECT 1 FROM notes n
              WHERE n.account_id = ${accountId}
                AND md5(note_dedup_key(n.body, n.documents)) = md5(note_dedup_key(i.body, i.documents))
                AND note_dedup_key(n.body, n.documents) = note_dedup_key(i.body, i.documents)
                AND (i.created_at IS NULL OR n.created_at = i.created_at))`;
  return new Set(rows.map((r) => r.ord));
}

/** Inserts the notes in one statement; ids follow the order given. */
export async function insertNotes(db: DbClient, accountId: number, notes: NewNote[]): Promise<void> {
  if (notes.length === 0) return;
  await db.$executeRaw`
    INSERT INTO notes (account_id, body, documents, created_at, is_pinned, unpin_at, is_archived, external_id)
    SELECT ${accountId}, i.body, i.documents, i.created_at, i.is_pinned, i.unpin_at, i.is_archived, i.external_id
      FROM unnest(
             ${notes.map((n) => n.body)}::text[],
             ${notes.map((n) => JSON.stringify(n.documents))}::jsonb[],
             ${notes.map((n) => n.createdAt)}::timestamptz[],
             ${notes.map((n) => n.isPinned)}::boolean[],
             ${notes.map((n) => n.unpinAt)}::timestamptz[],
             ${notes.map((n) => n.isArchived)}::boolean[],
             ${notes.map((n) => n.externalId)}::text[]
           ) WITH ORDINALITY AS i(body, documents, created_at, is_pinned, unpin_at, is_archived, external_id, ord)
     ORDER BY i.ord`;
}
