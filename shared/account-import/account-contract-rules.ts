// The contract's validators on payment schedules, dates and occupier accounts (docs/account-import.md,
// "The contract's validators on fields the subset takes"). They run with the other cross-checks, once
// every field passed its shape; every loop is over arrays the shape already bounded.
import type { z } from 'zod';
import type { AccountShape } from './account-import.schemas';

type Account = z.output<typeof AccountShape>;
type Path = (string | number)[];
export type AddIssue = (code: string, message: string, path: Path) => void;

const DAY_MS = 86_400_000;

/** The calendar day after an ISO date (`YYYY-MM-DD`), as an ISO date. */
const dayAfter = (isoDate: string) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/**
 * The latest day an account may name as past: tomorrow in UTC, so an account prepared where the day has
 * already turned (up to 24 hours ahead of UTC) is not refused for "today".
 */
const latestAllowedDay = (now: Date = new Date()) => new Date(now.getTime() + DAY_MS).toISOString().slice(0, 10);

export function checkContractRules(a: Account, add: AddIssue, now: Date = new Date()): void {
  checkPaymentSchedules(a, add);
  checkDates(a, add, latestAllowedDay(now));
  checkOccupier(a, add);
  checkCustomerNames(a, add);
  checkCurrentAfterLastBilled(a, add);
}

/** A customer of an account that is not BUSINESS has a given and a family name (blank is missing). */
function checkCustomerNames(a: Account, add: AddIssue): void {
  if (a.account_type === 'BUSINESS') return;
  (a.customers ?? []).forEach((c, i) => {
    if (!c.given_name?.trim()) {
      add('customer_given_name_required', 'A customer of a domestic account has a given_name.', [
        'customers',
        i,
        'given_name',
      ]);
    }
    if (!c.family_name?.trim()) {
      add('customer_family_name_required', 'A customer of a domestic account has a family_name.', [
        'customers',
        i,
        'family_name',
      ]);
    }
  });
}

/**
 * Without a `last_statement_closing_date` (which opens the current period the day after it, checked with
 * the ledger), `last_billed_to_date` bounds the current period: no current statement transaction is
 * dated before it.
 */
function checkCurrentAfterLastBilled(a: Account, add: AddIssue): void {
  const ledger = a.ledgers?.[0];
  const closing = a.last_statement_closing_date ?? ledger?.last_statement_closing_date;
  const lastBilled = a.last_billed_to_date;
  if (closing || !lastBilled) return;
  const inLedger = !a.current_statement_transactions && ledger?.current_statement_transactions !== undefined;
  const current = a.current_statement_transactions ?? ledger?.current_statement_transactions ?? [];
  current.forEach((t, i) => {
    if (t.transaction_date < lastBilled) {
      add(
        'current_statement_transaction_before_last_billed_to_date',
        `A current statement transaction cannot be dated before last_billed_to_date (${lastBilled}).`,
        [...(inLedger ? ['ledgers', 0] : []), 'current_statement_transactions', i, 'transaction_date'],
      );
    }
  });
}

type Schedule = NonNullable<Account['payment_schedules']>[number];

/**
 * Payment schedules: no zero amount, no schedule ending the day it starts, and, within each kind (debt
 * repayment plans, regular schedules: the contract's own example runs an open-ended one of each from the
 * same day), one open-ended schedule at most and, sorted by start, each starting the day its predecessor
 * ends or the day after (both readings of `end_date`, last day covered or first day not covered, are
 * taken), never earlier (overlap) nor later (gap).
 */
function checkPaymentSchedules(a: Account, add: AddIssue): void {
  const schedules = a.payment_schedules ?? [];
  schedules.forEach((s, i) => {
    if (s.amount != null && Number(s.amount) === 0) {
      add('zero_payment_schedule_amount', 'A payment schedule cannot be for 0.00.', ['payment_schedules', i, 'amount']);
    }
    if (s.end_date && s.end_date === s.start_date) {
      add('start_date_same_as_end_date', 'A payment schedule must end after the day it starts.', [
        'payment_schedules',
        i,
        'end_date',
      ]);
    }
  });
  const indexed = schedules.map((s, i) => ({ s, i }));
  for (const debt of [true, false]) {
    checkScheduleSequence(
      indexed.filter(({ s }) => (s.is_debt_repayment_plan === true) === debt),
      add,
    );
  }
}

/** One kind's schedules, with their index in the account: one open end, no gap, no overlap. */
function checkScheduleSequence(schedules: { s: Schedule; i: number }[], add: AddIssue): void {
  let openEnded = -1;
  schedules.forEach(({ s, i }) => {
    if (!s.end_date) {
      if (openEnded >= 0) {
        add(
          'multiple_open_ended_payment_schedules',
          `Payment schedule ${openEnded} is already open-ended; only one schedule of a kind may have no end_date.`,
          ['payment_schedules', i, 'end_date'],
        );
      } else openEnded = i;
    }
  });
  const order = [...schedules].sort((x, y) => x.s.start_date.localeCompare(y.s.start_date) || x.i - y.i);
  for (let n = 1; n < order.length; n++) {
    const before = order[n - 1]!.s;
    const { s, i } = order[n]!;
    if (!before.end_date) continue; // an open end: checked below
    if (s.start_date < before.end_date) {
      add('payment_schedule_date_overlaps', `Payment schedule ${i} starts before the one before it ends.`, [
        'payment_schedules',
        i,
        'start_date',
      ]);
    } else if (s.start_date > dayAfter(before.end_date)) {
      add(
        'payment_schedule_date_gaps',
        `Payment schedule ${i} starts more than a day after the one before it ends (${before.end_date}).`,
        ['payment_schedules', i, 'start_date'],
      );
    }
  }
  // An open-ended schedule followed by a later one overlaps it.
  for (let n = 0; n < order.length - 1; n++) {
    if (order[n]!.s.end_date) continue;
    const next = order[n + 1]!;
    if (next.s.end_date) {
      add('payment_schedule_date_overlaps', `Payment schedule ${next.i} starts while an open-ended one runs.`, [
        'payment_schedules',
        next.i,
        'start_date',
      ]);
    }
  }
}

/** Dates that must not be in the future, and periods that must not end the day they start. */
function checkDates(a: Account, add: AddIssue, latest: string): void {
  if (a.last_billed_to_date && a.last_billed_to_date > latest) {
    add('date_in_future', 'last_billed_to_date cannot be in the future.', ['last_billed_to_date']);
  }
  (a.supply_addresses ?? []).forEach((s, i) =>
    s.meter_points.forEach((mp, j) => {
      const path = ['supply_addresses', i, 'meter_points', j];
      if (mp.supply_start_date > latest) {
        add('future_supply_start_date', 'A migrated meter point must already be on supply.', [
          ...path,
          'supply_start_date',
        ]);
      }
      if (mp.supply_end_date && mp.supply_end_date === mp.supply_start_date) {
        add('start_date_same_as_end_date', 'supply_end_date must be after supply_start_date.', [
          ...path,
          'supply_end_date',
        ]);
      }
      (mp.agreements ?? []).forEach((g, k) => {
        if (g.effective_to && g.effective_to === g.effective_from) {
          add('start_date_same_as_end_date', 'effective_to must be after effective_from.', [
            ...path,
            'agreements',
            k,
            'effective_to',
          ]);
        }
      });
      (mp.meters ?? []).forEach((m, k) => {
        const readings = [
          ...(m.transfer_readings ?? []).map((r, n) => ({ r, at: ['transfer_readings', n] })),
          ...(m.reading_history ?? []).map((r, n) => ({ r, at: ['reading_history', n] })),
        ];
        for (const { r, at } of readings) {
          if (r.reading_date > latest) {
            add('date_in_future', 'A reading cannot be dated in the future.', [
              ...path,
              'meters',
              k,
              ...at,
              'reading_date',
            ]);
          }
        }
      });
    }),
  );
}

const OCCUPIER_NAMES = new Set(['occupier', 'the occupier']);
const isOccupierName = (name: string | undefined) =>
  name !== undefined && OCCUPIER_NAMES.has(name.replace(/\s+/g, ' ').trim().toLowerCase());

/** An unknown-occupier account: one supply address, no contact details; no customer named "the occupier". */
function checkOccupier(a: Account, add: AddIssue): void {
  if (a.unknown_occupier === true) {
    if ((a.supply_addresses ?? []).length > 1) {
      add('occupier_account_with_multiple_supply_addresses', 'An unknown-occupier account has one supply address.', [
        'supply_addresses',
        1,
      ]);
    }
    if (a.billing_email) {
      add('contact_details_for_occupier', 'An unknown-occupier account has no contact details.', ['billing_email']);
    }
  }
  (a.customers ?? []).forEach((c, i) => {
    const full = `${c.given_name ?? ''} ${c.family_name ?? ''}`;
    if (isOccupierName(c.given_name) || isOccupierName(c.family_name) || isOccupierName(full)) {
      add('customer_may_not_be_named_the_occupier', 'A customer cannot be named "the occupier".', [
        'customers',
        i,
        'family_name',
      ]);
    }
  });
}
