// Notes are written in batches: one set-based lookup and one set-based insert per request (the
// design measured unnest inserts at 10× Prisma's createMany), in plain SQL on pg, which costs a
// fraction of Prisma's raw API on this busy synchronous path.
import type { Prepared, Sql } from '../platform/db';

/** First key of the two-key advisory lock that serialises note writes per account: 'note' in ASCII. */
const NOTES_LOCK_CLASS = 0x6e6f7465;

// Run for every request: prepared once per connection (see Prepared).
const LOCK_NOTES: Prepared = { name: 'notes.lock', text: 'SELECT pg_advisory_xact_lock($1::int, $2::int)' };
// Each lookup's stored note, read with the look-up itself (so the answer echoes what is stored, not
// what was sent): the oldest matching note, preferring one with the same attachments.
const FIND_EXISTING: Prepared = {
  name: 'notes.find-existing',
  text: `SELECT (i.ord - 1)::int AS ord, n.body, n.documents, n.created_at, n.is_pinned, n.unpin_at, n.is_archived,
                n.external_id
           FROM unnest($2::text[], $3::jsonb[], $4::timestamptz[]) WITH ORDINALITY AS i(body, documents, created_at, ord)
          CROSS JOIN LATERAL (
                SELECT n.body, n.documents, n.created_at, n.is_pinned, n.unpin_at, n.is_archived, n.external_id
                  FROM notes n
                 WHERE n.account_id = $1
                   AND md5(note_dedup_key(n.body, n.documents)) = md5(note_dedup_key(i.body, i.documents))
                   AND note_dedup_key(n.body, n.documents) = note_dedup_key(i.body, i.documents)
                   AND (i.created_at IS NULL OR n.created_at = i.created_at)
                 ORDER BY n.documents = i.documents DESC, n.id
                 LIMIT 1) n`,
};
const INSERT: Prepared = {
  name: 'notes.insert',
  text: `INSERT INTO notes (account_id, body, documents, created_at, is_pinned, unpin_at, is_archived, external_id)
         SELECT $1, i.body, i.documents, i.created_at, i.is_pinned, i.unpin_at, i.is_archived, i.external_id
           FROM unnest($2::text[], $3::jsonb[], $4::timestamptz[], $5::boolean[], $6::timestamptz[], $7::boolean[], $8::text[])
                WITH ORDINALITY AS i(body, documents, created_at, is_pinned, unpin_at, is_archived, external_id, ord)
          ORDER BY i.ord`,
};

interface StoredDocument {
  document_path: string;
  /** `<bucket>/<supplier document root>/<path>` at the time of import. */
  location: string;
}

/** A note as stored (or about to be): what a NOTE_ALREADY_EXISTS answer echoes. */
export interface StoredNote {
  body: string | null;
  documents: StoredDocument[];
  createdAt: Date;
  isPinned: boolean;
  unpinAt: Date | null;
  isArchived: boolean;
  externalId: string | null;
}

export type NewNote = StoredNote;

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
export async function lockAccountNotes(db: Sql, accountId: number): Promise<void> {
  await db.query(LOCK_NOTES, [NOTES_LOCK_CLASS, accountId]);
}

/**
 * The note the account already has for each lookup that matches one, by index into `lookups`. Uses the
 * dedup index of migration 20261122120000 (md5 of note_dedup_key) and rechecks the full key against md5
 * collisions.
 */
export async function findExistingNotes(
  db: Sql,
  accountId: number,
  lookups: NoteLookup[],
): Promise<Map<number, StoredNote>> {
  const { rows } = await db.query<{
    ord: number;
    body: string | null;
    documents: StoredDocument[];
    created_at: Date;
    is_pinned: boolean;
    unpin_at: Date | null;
    is_archived: boolean;
    external_id: string | null;
  }>(FIND_EXISTING, [
    accountId,
    lookups.map((l) => l.body),
    lookups.map((l) => JSON.stringify(l.documents)),
    lookups.map((l) => l.createdAt),
  ]);
  return new Map(
    rows.map((r) => [
      r.ord,
      {
        body: r.body,
        documents: r.documents,
        createdAt: r.created_at,
        isPinned: r.is_pinned,
        unpinAt: r.unpin_at,
        isArchived: r.is_archived,
        externalId: r.external_id,
      },
    ]),
  );
}

/** Inserts the notes in one statement; ids follow the order given. */
export async function insertNotes(db: Sql, accountId: number, notes: NewNote[]): Promise<void> {
  if (notes.length === 0) return;
  await db.query(INSERT, [
    accountId,
    notes.map((n) => n.body),
    notes.map((n) => JSON.stringify(n.documents)),
    notes.map((n) => n.createdAt),
    notes.map((n) => n.isPinned),
    notes.map((n) => n.unpinAt),
    notes.map((n) => n.isArchived),
    notes.map((n) => n.externalId),
  ]);
}
