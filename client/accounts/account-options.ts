// The options `send accounts` adds to `send`: the schedule window, checked here so a mistyped date is
// a usage error before anything is sent (the service would refuse every account with the same 400).
// Accounts are nested objects: NDJSON only, one account per line.
import type { OptionTable } from '../../shared/cli/options';
import { UsageError } from '../client-errors';
import type { SendOptions } from '../item-kinds';

export const ACCOUNT_WINDOW = {
  'window-start': {
    type: 'string',
    arg: 'TIME',
    help: 'accounts: when the creations may start (ISO 8601 with offset; default now)',
  },
  'window-end': {
    type: 'string',
    arg: 'TIME',
    help: 'accounts: when the window closes (at most 4 days ahead; default 4 days from now)',
  },
} as const satisfies OptionTable;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

export function accountWindow(
  kind: string,
  file: string,
  values: { 'window-start'?: string; 'window-end'?: string; format?: string },
): Pick<SendOptions, 'schedule_window_start' | 'schedule_window_end'> {
  const start = values['window-start'];
  const end = values['window-end'];
  if (kind !== 'accounts') {
    if (start !== undefined || end !== undefined)
      throw new UsageError('--window-start and --window-end are for accounts only');
    return {};
  }
  if (values.format === 'csv' || (values.format === undefined && /\.csv$/i.test(file)))
    throw new UsageError(
      'send accounts reads NDJSON only (one account per line): accounts are nested, CSV cannot hold them',
    );
  for (const [name, value] of [
    ['--window-start', start],
    ['--window-end', end],
  ] as const) {
    if (value !== undefined && (value.length > 40 || !ISO.test(value) || Number.isNaN(Date.parse(value))))
      throw new UsageError(
        `${name} takes a time in ISO 8601 with its offset (2026-11-26T09:00:00Z), not ${JSON.stringify(value.slice(0, 40))}`,
      );
  }
  if (start !== undefined && end !== undefined && Date.parse(end) <= Date.parse(start))
    throw new UsageError('--window-end must be after --window-start');
  return {
    ...(start === undefined ? {} : { schedule_window_start: start }),
    ...(end === undefined ? {} : { schedule_window_end: end }),
  };
}
