// POST /v1/data-import/notes/create/: add notes to an imported account, skipping the ones it has.
// One transaction of two statements in one round trip (note.repository.ts): the account's checks, the
// per-account lock, the dedup, the insert and the request's run-ledger rows.
import { assertWritable } from '../accounts/account.use-cases';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { accountNotFound } from '../platform/errors';
import { formatDateTime, wholeSecond } from '../platform/fields';
import { inOneRoundTrip } from '../platform/one-round-trip';
import { entriesOf, type RequestLedger } from '../runs/ledger.public';
import * as repo from './note.repository';
import type { NoteInput, NoteResult, NotesRequest } from './note.schemas';

export interface NoteDeps {
  db: Database;
  config: Pick<Config, 'DOCUMENT_BUCKET'>;
  now?: () => Date;
  /** Bounds each statement of the write (the lock wait included); 15 s unless a test says otherwise. */
  statementTimeoutMs?: number;
}

/** The request's run-ledger rows, written by the write's transaction; `recorded` once it committed them. */
export interface LedgerInTransaction {
  run: RequestLedger;
  recorded(): void;
}

const STATEMENT_TIMEOUT_MS = 15_000;

// The rows an answer with one note of each status records (the counts come from the write).
const STATUSES: NoteResult['status'][] = ['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS'];

export async function createNotes(
  deps: NoteDeps,
  organisationId: number,
  request: NotesRequest,
  ledger?: LedgerInTransaction,
): Promise<NoteResult[]> {
  // Notes also take the contract's deprecated `account_number` (checked equal when both come).
  const external = request.external_account_number ?? request.account_number;
  if (!external) throw accountNotFound();
  // Note datetimes are whole seconds (see wholeSecond): a defaulted created_at is the current second.
  const now = wholeSecond(deps.now?.() ?? new Date());
  const notes = request.notes.map((n) => toNewNote(n, now));
  // An empty list still answers the account's refusals; its ledger row is the API's (no item to count).
  const recorded = ledger && notes.length > 0 ? ledger : undefined;
  const template =
    recorded &&
    entriesOf(
      recorded.run.subject,
      201,
      STATUSES.map((status) => ({ status })),
    );
  const statements = repo.notesStatements({
    organisationId,
    supplierCode: request.import_supplier,
    externalAccountNumber: external,
    bucket: deps.config.DOCUMENT_BUCKET,
    dryRun: request.dry_run === true,
    timeoutMs: deps.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
    // A note sent without created_at matches a same-body note from any time.
    notes: notes.map((note, i) => ({ note, sentAt: request.notes[i]!.created_at ? note.createdAt : null })),
    ledger: recorded && template ? { run: recorded.run, template } : undefined,
  });
  const [, written] = await inOneRoundTrip(deps.db, statements);
  const outcome = repo.notesOutcome(written!.rows as Parameters<typeof repo.notesOutcome>[0]);
  assertWritable(request.import_supplier, outcome.supplierStatus);
  if (!('fates' in outcome)) throw accountNotFound();
  recorded?.recorded();
  return request.notes.map((input, i) => {
    const fate = outcome.fates[i]!;
    if (fate.kind === 'new') return createdResult(input, notes[i]!);
    return existingResult(input, notes[i]!, fate.kind === 'stored' ? fate.stored : notes[fate.index]!);
  });
}

/** The note as it will be stored; the write adds each document's location (from the supplier's root). */
function toNewNote(input: NoteInput, now: Date): repo.NewNote {
  return {
    body: input.body ?? null,
    documents: (input.document_paths ?? []).map(({ document_path }) => ({ document_path, location: '' })),
    createdAt: input.created_at ? wholeSecond(input.created_at) : now,
    isPinned: input.is_pinned ?? false,
    unpinAt: input.unpin_at ? wholeSecond(input.unpin_at) : null,
    isArchived: input.is_archived ?? false,
    externalId: input.external_id ?? null,
  };
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
