// POST /v1/data-import/notes/create/: add notes to an imported account, skipping the ones it has.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Config } from '../platform/config';
import { inTransaction, type Database } from '../platform/db';
import { formatDateTime, resolveDocumentLocation, wholeSecond } from '../platform/fields';
import * as repo from './note.repository';
import type { NoteInput, NoteResult, NotesRequest } from './note.schemas';

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
  // Note datetimes are whole seconds (see wholeSecond): a defaulted created_at is the current second.
  const now = wholeSecond(deps.now?.() ?? new Date());
  const notes = request.notes.map((n) => toNewNote(n, now, deps.config.DOCUMENT_BUCKET, account.documentRoot));
  if (notes.length === 0) return [];
  // A note sent without created_at matches a same-body note from any time.
  const lookups = notes.map((n, i) => ({ ...n, createdAt: request.notes[i]!.created_at ? n.createdAt : null }));

  const decided = await inTransaction(
    deps.db,
    async (sql) => {
      await repo.lockAccountNotes(sql, account.accountId);
      const existing = await repo.findExistingNotes(sql, account.accountId, lookups);
      const decisions = decideStatuses(request.notes, notes, existing);
      // A dry run decides every note as the real call would and stores none of them.
      if (request.dry_run) return decisions;
      await repo.insertNotes(
        sql,
        account.accountId,
        notes.filter((_, i) => decisions[i]!.stored === undefined),
      );
      return decisions;
    },
    STATEMENT_TIMEOUT_MS,
  );

  return request.notes.map((input, i) => {
    const { stored } = decided[i]!;
    return stored ? existingResult(input, notes[i]!, stored) : createdResult(input, notes[i]!);
  });
}

function toNewNote(input: NoteInput, now: Date, bucket: string, documentRoot: string): repo.NewNote {
  return {
    body: input.body ?? null,
    documents: (input.document_paths ?? []).map(({ document_path }) => ({
      document_path,
      location: resolveDocumentLocation(bucket, documentRoot, document_path),
    })),
    createdAt: input.created_at ? wholeSecond(input.created_at) : now,
    isPinned: input.is_pinned ?? false,
    unpinAt: input.unpin_at ? wholeSecond(input.unpin_at) : null,
    isArchived: input.is_archived ?? false,
    externalId: input.external_id ?? null,
  };
}

/** A note's fate: `stored` is the note it duplicates (on the account, or created earlier in this request). */
interface Decision {
  stored?: repo.StoredNote;
}

/**
 * Walks the request in order: a note is new unless the account already has it or an earlier note of
 * this request was just created with the same key (and the same created_at, when this one sends one).
 * Same key: same body; for a note without a body, the same document paths (as note_dedup_key in SQL).
 */
function decideStatuses(
  inputs: NoteInput[],
  notes: repo.NewNote[],
  existing: Map<number, repo.StoredNote>,
): Decision[] {
  const createdByKey = new Map<string, repo.NewNote[]>();
  return notes.map((note, i) => {
    const onAccount = existing.get(i);
    if (onAccount) return { stored: onAccount };
    const key =
      note.body !== null ? `b:${note.body}` : `d:${JSON.stringify(note.documents.map((d) => d.document_path))}`;
    const sent = inputs[i]!.created_at && note.createdAt.getTime();
    const earlier = createdByKey.get(key) ?? [];
    const same = earlier.find((e) => sent === undefined || e.createdAt.getTime() === sent);
    if (same) return { stored: same };
    createdByKey.set(key, earlier);
    earlier.push(note);
    return {};
  });
}

/** The spec's fields plus every optional field the caller sent (undefined ones vanish in JSON). */
function createdResult(input: NoteInput, note: repo.NewNote): NoteResult {
  return {
    created_at: formatDateTime(note.createdAt),
    body: input.body ?? '',
    status: 'NOTE_CREATION_SUCCESS',
    document_paths: input.document_paths,
    is_pinned: input.is_pinned,
    unpin_at: note.unpinAt ? formatDateTime(note.unpinAt) : undefined,
    external_id: input.external_id,
    is_archived: input.is_archived,
  };
}

/**
 * NOTE_ALREADY_EXISTS echoes the stored note, never what was sent: the spec's fields, each optional
 * field the caller sent or that the stored note sets, and `matches_stored: false` when what was sent
 * (as it would have been stored) differs from it, so a client can tell a retry from a conflicting line.
 */
function existingResult(input: NoteInput, sent: repo.NewNote, stored: repo.StoredNote): NoteResult {
  const shown = <T>(wasSent: boolean, isSet: boolean, value: T) => (wasSent || isSet ? value : undefined);
  return {
    created_at: formatDateTime(stored.createdAt),
    body: stored.body ?? '',
    status: 'NOTE_ALREADY_EXISTS',
    ...(matchesStored(input, sent, stored) ? {} : { matches_stored: false }),
    document_paths: shown(
      input.document_paths !== undefined,
      stored.documents.length > 0,
      stored.documents.map(({ document_path }) => ({ document_path })),
    ),
    is_pinned: shown(input.is_pinned !== undefined, stored.isPinned, stored.isPinned),
    unpin_at: stored.unpinAt ? formatDateTime(stored.unpinAt) : undefined,
    external_id: stored.externalId ?? undefined,
    is_archived: shown(input.is_archived !== undefined, stored.isArchived, stored.isArchived),
  };
}

/** Whether the note sent, as it would have been stored, is the stored one (created_at only when sent). */
function matchesStored(input: NoteInput, sent: repo.NewNote, stored: repo.StoredNote): boolean {
  const paths = (n: repo.StoredNote) => n.documents.map((d) => d.document_path);
  const time = (d: Date | null) => d?.getTime() ?? null;
  return (
    sent.body === stored.body &&
    JSON.stringify(paths(sent)) === JSON.stringify(paths(stored)) &&
    (input.created_at === undefined || time(sent.createdAt) === time(stored.createdAt)) &&
    sent.isPinned === stored.isPinned &&
    time(sent.unpinAt) === time(stored.unpinAt) &&
    sent.isArchived === stored.isArchived &&
    sent.externalId === stored.externalId
  );
}
