// The account schema a migration's account is validated with: the field shapes of
// account-import.schemas.ts, then the cross-checks of the contract's validators that need no database
// (they run only once every field passed), and what the creation reads off a validated account.
import Decimal from 'decimal.js';
import { z } from 'zod';
import {
  AccountShape,
  issue,
  ledgerFields,
  type ElectricityMeter,
  type GasMeter,
  type MeterPoint,
  type SupplyAddress,
} from './account-import.schemas';
import { checkContractRules } from './account-contract-rules';
import { checkMeterRules } from './account-meter-rules';
import { isValidMpanCore, isValidMprn } from './identifiers';

/** The account as validated: unsupported fields can only be absent. */
export type EnergyAccount = z.output<typeof AccountShape>;
type SupplyAddressT = z.output<typeof SupplyAddress>;
type MeterPointT = z.output<typeof MeterPoint>;
type MeterT = z.output<typeof ElectricityMeter> | z.output<typeof GasMeter>;

/** The account schema: its fields, then the cross-checks (which run only once every field passed). */
export const EnergyAccountSchema = AccountShape.superRefine((a, ctx) => {
  for (const i of crossCheck(a)) ctx.addIssue(issue(i.code, i.message, i.path));
});

export interface AccountIssue {
  code: string;
  message: string;
  path: (string | number)[];
}

/** The cross-checks of the contract's validators this service keeps, in the account's order. */
function crossCheck(a: EnergyAccount): AccountIssue[] {
  const out: AccountIssue[] = [];
  const add = (code: string, message: string, path: (string | number)[]) => out.push({ code, message, path });
  checkCustomers(a, add);
  checkLedger(a, add);
  checkSupplyAddresses(a, add);
  checkContractRules(a, add);
  checkMeterRules(a, add);
  return out;
}

type Add = (code: string, message: string, path: (string | number)[]) => void;

function checkCustomers(a: EnergyAccount, add: Add): void {
  const customers = a.customers ?? [];
  if (a.unknown_occupier === true && customers.length > 0) {
    add('customer_with_unknown_occupier', 'An unknown-occupier account has no customers.', ['customers']);
  }
  if (a.unknown_occupier !== true && customers.length === 0) {
    add('required', 'At least one customer is required unless unknown_occupier is true.', ['customers']);
  }
  // A customer's e-mail signs them in: two customers of one account cannot share it.
  const emails = new Map<string, number>();
  customers.forEach((c, i) => {
    if (!c.email) return;
    const key = c.email.toLowerCase();
    if (emails.has(key)) {
      add(
        'repeated_values_for_unique_customer_detail_namespace',
        `Customers ${emails.get(key)} and ${i} have the same email; it must be unique to one customer.`,
        ['customers', i, 'email'],
      );
    } else emails.set(key, i);
  });
}

/** The one ledger's fields, from the top level or from `ledgers` (never both). */
export function ledgerOf(a: EnergyAccount) {
  const l = a.ledgers?.[0];
  return {
    current: a.current_statement_transactions ?? l?.current_statement_transactions ?? [],
    historical: a.historical_statement_transactions ?? l?.historical_statement_transactions ?? [],
    closingDate: a.last_statement_closing_date ?? l?.last_statement_closing_date,
    issueDate: a.last_statement_issue_date ?? l?.last_statement_issue_date,
    balance: a.last_statement_balance ?? l?.last_statement_balance,
    prefix: a.ledgers?.length ? ['ledgers', 0] : [],
  };
}

function checkLedger(a: EnergyAccount, add: Add): void {
  const topLevel = Object.keys(ledgerFields).filter((k) => a[k as keyof EnergyAccount] !== undefined);
  if (a.ledgers?.length && topLevel.length > 0) {
    add('fields_are_mutually_exclusive', `Send ${topLevel.join(', ')} at the top level or in ledgers, not both.`, [
      'ledgers',
    ]);
    return;
  }
  const l = ledgerOf(a);
  const at = (...p: (string | number)[]) => [...l.prefix, ...p];
  if (l.historical.length > 0 && !l.closingDate) {
    add(
      'historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date',
      'Historical statement transactions need last_statement_closing_date.',
      at('historical_statement_transactions'),
    );
  }
  if (l.closingDate && l.issueDate && l.issueDate < l.closingDate) {
    add(
      'last_statement_issued_before_closing_date',
      'last_statement_issue_date must not be before last_statement_closing_date.',
      at('last_statement_issue_date'),
    );
  }
  const ids = new Set<string>();
  const walk = (list: typeof l.current, name: string) =>
    list.forEach((t, i) => {
      if (ids.has(t.transaction_id)) {
        add(
          'duplicate_transaction_ids',
          `transaction_id "${t.transaction_id}" appears more than once.`,
          at(name, i, 'transaction_id'),
        );
      }
      ids.add(t.transaction_id);
      if (!l.closingDate) return;
      if (name === 'historical_statement_transactions' && t.transaction_date > l.closingDate) {
        add(
          'historical_statement_transaction_after_last_statement_closing_date',
          'A historical statement transaction must be dated on or before last_statement_closing_date.',
          at(name, i, 'transaction_date'),
        );
      }
      if (name === 'current_statement_transactions' && t.transaction_date <= l.closingDate) {
        add(
          'current_statement_transaction_before_current_statement_opening_date',
          'A current statement transaction must be dated after last_statement_closing_date.',
          at(name, i, 'transaction_date'),
        );
      }
    });
  walk(l.historical, 'historical_statement_transactions');
  walk(l.current, 'current_statement_transactions');
  checkLedgerBalances(a, add);
}

/** The contract's "sum of ledger balances equals the transfer balance", when both are given. */
function checkLedgerBalances(a: EnergyAccount, add: Add): void {
  const balances = (a.ledgers ?? []).map((l) => l.ledger_balance);
  if (a.transfer_balance == null || balances.length === 0 || balances.some((b) => b == null)) return;
  const sum = balances.reduce<Decimal>((total, b) => total.plus(new Decimal(String(b))), new Decimal(0));
  if (!sum.eq(new Decimal(String(a.transfer_balance)))) {
    add(
      'ledger_balances_not_equal_to_transfer_balance',
      `The ledgers' ledger_balance add up to ${sum.toFixed(2)}, not transfer_balance ${String(a.transfer_balance)}.`,
      ['transfer_balance'],
    );
  }
}

const addressKey = (s: SupplyAddressT) =>
  JSON.stringify(
    [
      s.supply_address1,
      s.supply_address2,
      s.supply_address3,
      s.supply_address4,
      s.supply_address5,
      s.supply_postcode,
    ].map((x) => (x ?? '').replace(/\s+/g, ' ').trim().toUpperCase()),
  );

function checkSupplyAddresses(a: EnergyAccount, add: Add): void {
  const addresses = a.supply_addresses ?? [];
  const seenAddress = new Map<string, number>();
  // Meter point identifier → the address that first named it.
  const seenPoint = new Map<string, number>();
  addresses.forEach((s, i) => {
    const key = addressKey(s);
    if (seenAddress.has(key)) {
      add('duplicate_supply_addresses_found', `Supply address ${i} repeats supply address ${seenAddress.get(key)}.`, [
        'supply_addresses',
        i,
      ]);
    } else seenAddress.set(key, i);
    s.meter_points.forEach((mp, j) => {
      const path = ['supply_addresses', i, 'meter_points', j];
      const first = seenPoint.get(mp.identifier);
      if (first === i) {
        add('duplicate_meter_points_provided', `Meter point ${mp.identifier} appears twice at this address.`, [
          ...path,
          'identifier',
        ]);
      } else if (first !== undefined) {
        add(
          'duplicate_meter_points_on_different_supply_addresses_provided',
          `Meter point ${mp.identifier} is also at supply address ${first}.`,
          [...path, 'identifier'],
        );
      } else seenPoint.set(mp.identifier, i);
      checkMeterPoint(a, mp, path, add);
    });
  });
}

function checkMeterPoint(a: EnergyAccount, mp: MeterPointT, path: (string | number)[], add: Add): void {
  const valid = mp.supply_type === 'ELECTRICITY' ? isValidMpanCore(mp.identifier) : isValidMprn(mp.identifier);
  if (!valid) {
    add(
      'invalid_supply_point_identifier',
      mp.supply_type === 'ELECTRICITY'
        ? 'An electricity meter point is identified by a 13-digit MPAN core with a valid check digit.'
        : 'A gas meter point is identified by a 6 to 10-digit MPRN with valid check digits.',
      [...path, 'identifier'],
    );
  }
  if (mp.supply_end_date && mp.supply_end_date < mp.supply_start_date) {
    add('start_date_later_than_end_date', 'supply_end_date must not be before supply_start_date.', [
      ...path,
      'supply_end_date',
    ]);
  }
  checkAgreements(mp, path, add);
  (mp.meters ?? []).forEach((m, k) => checkMeter(a, m, [...path, 'meters', k], add));
}

function checkAgreements(mp: MeterPointT, path: (string | number)[], add: Add): void {
  const agreements = mp.agreements ?? [];
  agreements.forEach((g, k) => {
    if (g.effective_to && g.effective_to < g.effective_from) {
      add('start_date_later_than_end_date', 'effective_to must not be before effective_from.', [
        ...path,
        'agreements',
        k,
        'effective_to',
      ]);
    }
  });
  // Periods are [from, to) with an open end meaning "until further notice"; sorted by start, each must
  // end on or before the next one starts.
  const order = agreements.map((g, k) => ({ g, k })).sort((x, y) => (x.g.effective_from < y.g.effective_from ? -1 : 1));
  for (let n = 1; n < order.length; n++) {
    const before = order[n - 1]!.g;
    const next = order[n]!;
    if (!before.effective_to || before.effective_to > next.g.effective_from) {
      add('gaps_or_overlaps_in_agreement_dates', 'The agreements of a meter point must not overlap.', [
        ...path,
        'agreements',
        next.k,
        'effective_from',
      ]);
    }
  }
}

function checkMeter(a: EnergyAccount, m: MeterT, path: (string | number)[], add: Add): void {
  if ('registers' in m && m.registers) {
    const ids = new Set<string>();
    m.registers.forEach((r, k) => {
      if (ids.has(r.register_id)) {
        add('meter_with_duplicate_register_ids', `Register ${r.register_id} appears twice on this meter.`, [
          ...path,
          'registers',
          k,
          'register_id',
        ]);
      }
      ids.add(r.register_id);
    });
  }
  const lastBilled = a.last_billed_to_date;
  const transfer = m.transfer_readings ?? [];
  const history = m.reading_history ?? [];
  if (lastBilled) {
    transfer.forEach((r, k) => {
      if (r.reading_date !== lastBilled) {
        add(
          'transfer_reading_dates_must_match_last_billed_to_date',
          `A transfer reading must be dated last_billed_to_date (${lastBilled}).`,
          [...path, 'transfer_readings', k, 'reading_date'],
        );
      }
    });
    history.forEach((r, k) => {
      if (r.billed && r.reading_date > lastBilled) {
        add(
          'billed_reading_after_last_billed_to_date',
          `A billed reading cannot be dated after last_billed_to_date (${lastBilled}).`,
          [...path, 'reading_history', k, 'reading_date'],
        );
      }
    });
  }
  if (m.removed_on) {
    const removed = m.removed_on;
    const hasReading =
      transfer.some((r) => r.reading_date === removed) || history.some((r) => r.reading_date === removed);
    if (!hasReading) {
      add('no_reading_on_removed_on', 'A removed meter needs a reading on the day it was removed.', [
        ...path,
        'removed_on',
      ]);
    }
  }
}

/** Every meter point of the account: its identifier, supply type and where it sits. */
export function meterPointsOf(
  a: EnergyAccount,
): { identifier: string; supplyType: string; path: (string | number)[] }[] {
  return (a.supply_addresses ?? []).flatMap((s, i) =>
    s.meter_points.map((mp, j) => ({
      identifier: mp.identifier,
      supplyType: mp.supply_type,
      path: ['supply_addresses', i, 'meter_points', j, 'identifier'],
    })),
  );
}

/** Every agreement's tariff code with where it sits. */
export function tariffCodesOf(a: EnergyAccount): { code: string; supplyType: string; path: (string | number)[] }[] {
  return (a.supply_addresses ?? []).flatMap((s, i) =>
    s.meter_points.flatMap((mp, j) =>
      (mp.agreements ?? []).map((g, k) => ({
        code: g.tariff_code,
        supplyType: mp.supply_type,
        path: ['supply_addresses', i, 'meter_points', j, 'agreements', k, 'tariff_code'],
      })),
    ),
  );
}

// ----- The request bodies -----

/** v2 validate: the account wrapped in `payload`. */
export const V2ValidateRequest = z.object({ payload: EnergyAccountSchema });
