// POST /v1/data-import/notes/create/: add notes to an imported account, skipping the ones it has.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Config } from '../platform/config';
import { inTransaction, type Database } from '../platform/db';
import { formatDateTime, resolveDocumentLocation } from '../platform/fields';
import * as repo from './note.repository';
import type { NoteInput, NoteResult, NotesRequest, NoteStatus } from './note.schemas';

export interface NoteDeps {
  db: Database;
  config: Pick<Config, 'DOCUMENT_BUCKET'>;
  now?: () => Date;
}

// Bounds each statement of the write (the lock wait included).
const STATEMENT_TIMEOUT_MS = 15_000;

export async function createNotes(
  deps: NoteDeps,
  organisationId: number,
  request: NotesRequest,
): Promise<NoteResult[]> {
  const account = await resolveWritableAccount(deps.db, organisationId, request);
  const now = deps.now?.() ?? new Date();
  const notes = request.notes.map((n) => toNewNote(n, now, deps.config.DOCUMENT_BUCKET, account.documentRoot));
  if (notes.length === 0) return [];
  // A note sent without created_at matches a same-body note from any time.
  const lookups = notes.map((n, i) => ({ ...n, createdAt: request.notes[i]!.created_at ?? null }));

  const statuses = await inTransaction(
    deps.db,
    async (sql) => {
      await repo.lockAccountNotes(sql, account.accountId);
      const existing = await repo.findExistingNotes(sql, account.accountId, lookups);
      const decided = decideStatuses(request.notes, notes, existing);
      await repo.insertNotes(
        sql,
        account.accountId,
        notes.filter((_, i) => decided[i] === 'NOTE_CREATION_SUCCESS'),
      );
      return decided;
    },
    STATEMENT_TIMEOUT_MS,
  );

  return request.notes.map((input, i) => toResult(input, notes[i]!, statuses[i]!));
}

function toNewNote(input: NoteInput, now: Date, bucket: string, documentRoot: string): repo.NewNote {
  return {
    body: input.body ?? null,
    documents: (input.document_paths ?? []).map(({ document_path }) => ({
      document_path,
      location: resolveDocumentLocation(bucket, documentRoot, document_path),
    })),
    createdAt: input.created_at ?? now,
    isPinned: input.is_pinned ?? false,
    unpinAt: input.unpin_at ?? null,
    isArchived: input.is_archived ?? false,
    externalId: input.external_id ?? null,
  };
}

/**
 * Walks the request in order: a note is new unless the account already has it or an earlier note of
 * this request was just created with the same key (and the same created_at, when this one sends one).
 * Same key: same body; for a note without a body, the same document paths (as note_dedup_key in SQL).
 */
function decideStatuses(inputs: NoteInput[], notes: repo.NewNote[], existing: Set<number>): NoteStatus[] {
  const createdAtByKey = new Map<string, number[]>();
  return notes.map((note, i) => {
    const key =
      note.body !== null ? `b:${note.body}` : `d:${JSON.stringify(note.documents.map((d) => d.document_path))}`;
    const sent = inputs[i]!.created_at?.getTime();
    const earlier = createdAtByKey.get(key) ?? [];
    if (existing.has(i) || earlier.some((t) => sent === undefined || t === sent)) return 'NOTE_ALREADY_EXISTS';
    createdAtByKey.set(key, earlier);
    earlier.push(note.createdAt.getTime());
    return 'NOTE_CREATION_SUCCESS';
  });
}

/** The spec's fields plus every optional field the caller sent (undefined ones vanish in JSON). */
function toResult(input: NoteInput, note: repo.NewNote, status: NoteStatus): NoteResult {
  return {
    created_at: formatDateTime(note.createdAt),
    body: input.body ?? '',
    status,
    document_paths: input.document_paths,
    is_pinned: input.is_pinned,
    unpin_at: input.unpin_at && formatDateTime(input.unpin_at),
    external_id: input.external_id,
    is_archived: input.is_archived,
  };
}
