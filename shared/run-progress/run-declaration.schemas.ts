// POST /v1/data-import/runs/<run_id>/declaration/: what a client's run sends, declared when it starts.
import { z } from 'zod';
import { isStorableText } from '../platform/validation';

/** The migration client's kinds (client/item-kinds.ts, and accounts). */
const RUN_KINDS = ['notes', 'transactions', 'statements', 'payment-instructions', 'accounts'] as const;

/** Far past any export file; keeps every sum of them inside an int. */
const MAX_LINES = 100_000_000;
const MAX_DECLARED_FILES = 20;

const DeclaredFile = z
  .object({
    name: z.string().min(1).max(256).refine(isStorableText, 'A file name is printable text.'),
    lines: z.int().min(0).max(MAX_LINES),
  })
  .strict();

export const RunDeclarationRequest = z
  .object({
    kind: z.enum(RUN_KINDS),
    /** Items the run sends in all: its files' lines, less a CSV header. */
    items: z.int().min(0).max(MAX_LINES),
    files: z.array(DeclaredFile).max(MAX_DECLARED_FILES),
  })
  .strict();

export type RunDeclarationInput = z.output<typeof RunDeclarationRequest>;
