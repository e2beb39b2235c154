// Query strings of the support page. Account numbers follow the API's AccountReference bounds.
import { z } from 'zod';
import { AccountReference } from '../platform/fields';

export const SUPPORT_PAGE_SIZE = 50;
export const LATEST_ITEMS = 5;
/** How many of an account's most recent refused writes (one per field error) the account view lists. */
export const LATEST_REJECTIONS = 50;
/** How many of an account creation's latest events the account view lists. */
export const LATEST_EVENTS = 50;

export const AccountListName = z.enum(['pending', 'imported']);
export type AccountListName = z.infer<typeof AccountListName>;

const Cursor = AccountReference.external_account_number;

export const AccountPageQuery = z.object({
  list: AccountListName.default('pending'),
  after: Cursor.optional(),
  before: Cursor.optional(),
});
export type AccountPageQuery = z.infer<typeof AccountPageQuery>;

export const CsvQuery = z.object({ list: z.enum(['pending', 'imported', 'all']).default('all') });

export const AccountSearchQuery = z.object({ number: z.string().trim().pipe(Cursor) });
