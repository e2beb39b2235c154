// Shapes of POST /v1/data-import/notes/create/ (spec "Note"; contract §1 for required-ness and the
// domain codes). Unknown fields are stripped, never stored.
import { z } from 'zod';
import {
  ACCOUNT_ALIAS_WHEN,
  AliasedAccountReference,
  checkAccountNumberAlias,
  DocumentPath,
  DryRun,
  IdentifierField,
  IsoDateTime,
  TextField,
} from '../platform/fields';

export const NoteDocument = z.object({ document_path: DocumentPath });

/** Document paths per note: the contract sets no limit; a note is a letter with its attachments. */
const MAX_DOCUMENT_PATHS = 100;

export const Note = z
  .object({
    // No length limit (the contract has none); the request body limit bounds it.
    body: TextField().optional(),
    document_paths: z.array(NoteDocument).max(MAX_DOCUMENT_PATHS).optional(),
    created_at: IsoDateTime.optional(),
    is_pinned: z.boolean().optional(),
    unpin_at: IsoDateTime.optional(),
    external_id: IdentifierField(255).optional(),
    is_archived: z.boolean().optional(),
  })
  .superRefine((note, ctx) => {
    if (note.body === undefined && !note.document_paths?.length) {
      ctx.addIssue({
        code: 'custom',
        message: 'A note must have a body or at least one document path.',
        params: { code: 'note_body_or_document_path_not_found' },
      });
    }
    // Without created_at the note is stamped "now"; the contract's own example pins such a note with
    // an unpin_at in the past, so the order is only checked against a created_at that was sent.
    if (note.created_at instanceof Date && note.unpin_at instanceof Date && note.unpin_at < note.created_at) {
      ctx.addIssue({
        code: 'custom',
        path: ['unpin_at'],
        message: 'unpin_at must be equal to or later than created_at.',
        params: { code: 'note_unpin_at_earlier_than_creation_date' },
      });
    }
  });

export function notesRequestSchema(maxItems: number) {
  return z
    .object({ ...AliasedAccountReference, dry_run: DryRun, notes: z.array(Note).max(maxItems) })
    .superRefine(checkAccountNumberAlias, ACCOUNT_ALIAS_WHEN);
}

export type NoteInput = z.output<typeof Note>;
export type NotesRequest = z.output<ReturnType<typeof notesRequestSchema>>;

const NoteStatus = z.enum(['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']);

/**
 * `false` on a NOTE_ALREADY_EXISTS item whose sent note differs from the stored one it echoes; absent
 * otherwise (additive to the spec's answer).
 */
const MatchesStored = z
  .literal(false)
  .optional()
  .describe(
    'Present, and false, only on a `NOTE_ALREADY_EXISTS` item whose note as sent (body, document paths, a `created_at` ' +
      'that was sent, is_pinned, unpin_at, is_archived, external_id) differs from the stored note this item echoes. ' +
      'Absent when what was sent is what is stored.',
  );

/**
 * One item of the 201 array: the spec's three fields plus the optional fields the caller sent; for a
 * note that already exists, the stored note's values and `matches_stored`.
 */
export const NoteResult = z.object({
  created_at: z.string(),
  body: z.string(),
  status: NoteStatus,
  matches_stored: MatchesStored,
  document_paths: z.array(z.object({ document_path: z.string() })).optional(),
  is_pinned: z.boolean().optional(),
  unpin_at: z.string().optional(),
  external_id: z.string().optional(),
  is_archived: z.boolean().optional(),
});
export type NoteResult = z.infer<typeof NoteResult>;
