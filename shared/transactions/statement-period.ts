// The open statement period as a range of YYYY-MM-DD days (string order is date order).
import type { OpenPeriod } from './transaction.repository';

/** The day of the period nearest to `date`: its first day for earlier dates, its last for later ones. */
export function nearestDayWithin(period: OpenPeriod, date: string): string {
  if (date < period.startsOn) return period.startsOn;
  if (period.endsOn !== null && date > period.endsOn) return period.endsOn;
  return date;
}

export function describePeriod(period: OpenPeriod): string {
  return `${period.startsOn} - ${period.endsOn ?? '(no end date)'} (OPEN)`;
}
