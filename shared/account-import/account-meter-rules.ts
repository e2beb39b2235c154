// The contract's validators on registers, readings and agreement coverage (docs/account-import.md, "The
// contract's validators on fields the subset takes"). They run with the other cross-checks once every
// field passed its shape; every loop is over arrays the shape already bounded.
import type { z } from 'zod';
import type { AccountShape } from './account-import.schemas';
import type { AddIssue } from './account-contract-rules';

type Account = z.output<typeof AccountShape>;
type MeterPoint = NonNullable<Account['supply_addresses']>[number]['meter_points'][number];
type Meter = NonNullable<MeterPoint['meters']>[number];
type Path = (string | number)[];

export function checkMeterRules(a: Account, add: AddIssue): void {
  (a.supply_addresses ?? []).forEach((s, i) =>
    s.meter_points.forEach((mp, j) => {
      const path = ['supply_addresses', i, 'meter_points', j];
      (mp.meters ?? []).forEach((m, k) => {
        if (mp.supply_type === 'ELECTRICITY') checkRegisters(a, m, [...path, 'meters', k], add);
        else checkGasTransfer(a, m, [...path, 'meters', k], add);
      });
      checkAgreementCover(a, mp, path, add);
    }),
  );
}

/**
 * An electricity meter that lists registers: every reading names one of them (a transfer reading
 * without one is `no_register_id_for_reading`, a historical one `reading_without_register_id`), and,
 * while the meter is in place and the account has a `last_billed_to_date`, each settlement register has
 * exactly one transfer reading (and no register more than one).
 */
function checkRegisters(a: Account, m: Meter, path: Path, add: AddIssue): void {
  if (!('registers' in m) || !m.registers?.length) return;
  const known = new Set(m.registers.map((r) => r.register_id));
  const transferCount = new Map<string, number>();
  let unplaced = false;
  (m.transfer_readings ?? []).forEach((r, n) => {
    const at = [...path, 'transfer_readings', n, 'register_id'];
    if (r.register_id === undefined) {
      unplaced = true;
      add('no_register_id_for_reading', 'A transfer reading of a meter with registers names its register.', at);
    } else if (!known.has(r.register_id)) {
      unplaced = true;
      add('reading_register_id_not_recognised', `The meter has no register ${r.register_id}.`, at);
    } else {
      const seen = (transferCount.get(r.register_id) ?? 0) + 1;
      transferCount.set(r.register_id, seen);
      if (seen === 2) {
        add(
          'multiple_transfer_readings_for_register',
          `Register ${r.register_id} has more than one transfer reading.`,
          at,
        );
      }
    }
  });
  (m.reading_history ?? []).forEach((r, n) => {
    const at = [...path, 'reading_history', n, 'register_id'];
    if (r.register_id === undefined) {
      add('reading_without_register_id', 'A reading of a meter with registers names its register.', at);
    } else if (!known.has(r.register_id)) {
      add('historical_reading_register_id_not_recognised', `The meter has no register ${r.register_id}.`, at);
    }
  });
  // A transfer reading already refused above may be the one a register misses: not said twice.
  if (m.removed_on || !a.last_billed_to_date || unplaced) return;
  m.registers.forEach((r, n) => {
    // A register marked `is_settlement: false` is not settled on (the contract's example sends one
    // without a transfer reading).
    if (r.is_settlement !== false && !transferCount.has(r.register_id)) {
      add(
        'missing_transfer_reading_for_register',
        `Register ${r.register_id} needs a transfer reading on last_billed_to_date.`,
        [...path, 'registers', n, 'register_id'],
      );
    }
  });
}

/** A gas meter in place on an account with a `last_billed_to_date` has a transfer reading. */
function checkGasTransfer(a: Account, m: Meter, path: Path, add: AddIssue): void {
  if (m.removed_on || !a.last_billed_to_date || (m.transfer_readings ?? []).length > 0) return;
  add('active_gas_meter_without_transfer_reading', 'A gas meter in place needs a transfer reading.', [
    ...path,
    'transfer_readings',
  ]);
}

/**
 * A meter point's agreements (when it has any, agreements being optional here): none starts before the
 * supply does, none starts after the supply ended, and, when the meter point is on supply on the
 * account's `last_billed_to_date`, one of them covers that day (agreement periods are [from, to)).
 */
function checkAgreementCover(a: Account, mp: MeterPoint, path: Path, add: AddIssue): void {
  const agreements = mp.agreements ?? [];
  if (agreements.length === 0) return;
  agreements.forEach((g, k) => {
    const at = [...path, 'agreements', k, 'effective_from'];
    if (g.effective_from < mp.supply_start_date) {
      add('agreement_start_date_before_supply_start_date', 'An agreement cannot start before supply_start_date.', at);
    } else if (mp.supply_end_date && g.effective_from > mp.supply_end_date) {
      add('meterpoint_with_agreement_not_on_supply', 'An agreement cannot start after supply_end_date.', at);
    }
  });
  const day = a.last_billed_to_date;
  const onSupply = day && mp.supply_start_date <= day && (!mp.supply_end_date || mp.supply_end_date > day);
  if (!onSupply) return;
  const covered = agreements.some((g) => g.effective_from <= day && (!g.effective_to || g.effective_to > day));
  if (!covered) {
    add('no_agreement_covering_last_billed_to_date', `No agreement of this meter point covers ${day}.`, [
      ...path,
      'agreements',
    ]);
  }
}
