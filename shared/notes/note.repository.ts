// Notes are written in batches (set-based look-up and insert), in plain SQL on pg: one request is one
// transaction of two statements sent in one round trip (shared/platform/one-round-trip.ts). The first
// sets the transaction's timeouts and takes the account's note lock; the second, which sees what the
// previous holder of the lock committed, finds the account (visible, imported, its supplier Ongoing),
// each note's stored match, decides every note in request order, inserts the new ones and the
// request's run-ledger rows; it runs inside the function write_notes, planned once per connection.
// Account creation inserts a new account's notes with insertNotes.
import { countedLedgerInsert } from '../runs/ledger.public';
import {
  ACCOUNT_WRITE_ARGS,
  accountWriteValues,
  WRITABLE_ACCOUNT_SQL,
  type AccountWrite,
} from '../accounts/account.use-cases';
import { documentLocationSql } from '../platform/fields';
import type { Prepared, Sql } from '../platform/db';
import type { Statement } from '../platform/one-round-trip';
import { callOf, type SqlFunction } from '../platform/sql-function';

/**
 * First key of the two-key advisory lock that serialises note writes per account: 'noTe'. The second
 * is a hash of the account's (supplier, external number), so the lock is taken before the look-up, in
 * the statement that sets the timeouts (a collision only makes two accounts wait for each other).
 */
const NOTES_LOCK_CLASS = 0x6e6f5465;

// `lock_timeout` bounds this statement's wait: set first, in the same statement (`OFFSET 0` keeps the
// sub-select apart), it applies to the lock; `statement_timeout` bounds the next statement.
const LOCK = `SELECT pg_advisory_xact_lock($1::int, hashtext(jsonb_build_array($2::text, $3::text)::text))
                FROM (SELECT set_config('statement_timeout', $4, true), set_config('lock_timeout', $4, true),
                             set_config('jit', 'off', true)
                       OFFSET 0) timeouts`;

// Each note's match on the account (the dedup index of migration 20261122120000, the full key
// rechecked against md5 collisions): the oldest, preferring one with the same attachments. Then, among
// the notes without one, in request order: the first of each key is new; a later one that sent no
// created_at repeats it; one that sent created_at is new unless an earlier new note of its key has
// that created_at (the first of the key, or an earlier one that sent it), which it then repeats.
const WRITE = `WITH account AS MATERIALIZED (${WRITABLE_ACCOUNT_SQL}),
docs AS MATERIALIZED (
  SELECT i.ord::int, i.body, i.sent_at, i.created_at, i.is_pinned, i.unpin_at, i.is_archived, i.external_id,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('document_path', d.path,
                                                       'location', ${documentLocationSql('$4', 'a.document_root', 'd.path')})
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
ledger AS (${countedLedgerInsert('$1', '$5', 'counted')})
SELECT a.status AS supplier_status, r.ord, r.same_as, r.found, r.body, r.documents, r.created_at, r.is_pinned,
       r.unpin_at, r.is_archived, r.external_id
  FROM (SELECT 1) one
  LEFT JOIN account a ON true
  LEFT JOIN (SELECT (s.ord - 1)::int AS ord, (d.same_as - 1)::int AS same_as, f.ord IS NOT NULL AS found, f.body,
                    f.documents, f.created_at, f.is_pinned, f.unpin_at, f.is_archived, f.external_id
               FROM sent s LEFT JOIN found f ON f.ord = s.ord LEFT JOIN decided d ON d.ord = s.ord) r ON true
 ORDER BY r.ord`;

/** WRITE, planned once per connection (shared/platform/sql-function.ts; migration 20261128210000). */
export const WRITE_NOTES: SqlFunction = {
  name: 'write_notes',
  args: [
    ...ACCOUNT_WRITE_ARGS,
    'text[]',
    'jsonb[]',
    'timestamp with time zone[]',
    'timestamp with time zone[]',
    'boolean[]',
    'timestamp with time zone[]',
    'boolean[]',
    'text[]',
  ],
  returns:
    'TABLE(supplier_status text, ord integer, same_as integer, found boolean, body text, documents jsonb, ' +
    'created_at timestamp with time zone, is_pinned boolean, unpin_at timestamp with time zone, ' +
    'is_archived boolean, external_id text)',
  query: WRITE,
};
const CALL_WRITE_NOTES = callOf(WRITE_NOTES);

// A new account's notes (account creation, in its own transaction): nothing to match them against.
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

/** A notes write: who writes, where, the ledger rows (AccountWrite), and the notes. */
export interface NotesWrite extends AccountWrite {
  /** The note as it would be stored, and the created_at it was sent with (null: matches any time). */
  notes: { note: NewNote; sentAt: Date | null }[];
}

/** What the write decided for one note: a match on the account, an earlier note of the request, or new. */
type NoteFate = { kind: 'stored'; stored: StoredNote } | { kind: 'repeats'; index: number } | { kind: 'new' };

export type NotesOutcome = { supplierStatus: null } | { supplierStatus: string; fates: NoteFate[] };

/** The two statements of one notes request (see WRITE): run them with inOneRoundTrip. */
export function notesStatements(w: NotesWrite): Statement[] {
  const notes = w.notes.map((n) => n.note);
  const lock = [NOTES_LOCK_CLASS, w.supplierCode, w.externalAccountNumber, String(Math.round(w.timeoutMs))];
  return [
    { text: LOCK, values: lock },
    {
      text: CALL_WRITE_NOTES,
      values: [
        ...accountWriteValues(w),
        notes.map((n) => n.body),
        notes.map((n) => JSON.stringify(n.documents.map((d) => d.document_path))),
        w.notes.map((n) => n.sentAt),
        notes.map((n) => n.createdAt),
        notes.map((n) => n.isPinned),
        notes.map((n) => n.unpinAt),
        notes.map((n) => n.isArchived),
        notes.map((n) => n.externalId),
      ],
    },
  ];
}

interface WriteRow {
  supplier_status: string | null;
  ord: number | null;
  same_as: number | null;
  found: boolean | null;
  body: string | null;
  documents: StoredDocument[];
  created_at: Date;
  is_pinned: boolean;
  unpin_at: Date | null;
  is_archived: boolean;
  external_id: string | null;
}

/** The second statement's rows as each note's fate, in request order. */
export function notesOutcome(rows: WriteRow[]): NotesOutcome {
  const status = rows[0]?.supplier_status ?? null;
  if (status === null) return { supplierStatus: null };
  const fates = rows
    .filter((r) => r.ord !== null)
    .map((r): NoteFate => {
      if (r.found) {
        const stored: StoredNote = {
          body: r.body,
          documents: r.documents,
          createdAt: r.created_at,
          isPinned: r.is_pinned,
          unpinAt: r.unpin_at,
          isArchived: r.is_archived,
          externalId: r.external_id,
        };
        return { kind: 'stored', stored };
      }
      return r.same_as === r.ord ? { kind: 'new' } : { kind: 'repeats', index: r.same_as! };
    });
  return { supplierStatus: status, fates };
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
