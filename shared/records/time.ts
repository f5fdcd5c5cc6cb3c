/**
 * Time values as Cairn stores and compares them: every instant is normalised to a UTC
 * ISO 8601 timestamp with milliseconds, so string order is time order in every backend.
 * A calendar date stands for the whole day.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
const YEAR_ONLY = /^(\d{4})$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})$/;

/** The inclusive span of time a written value stands for. */
export interface InstantSpan {
  start: string;
  end: string;
  /** True when the value had no time of day (a date, month or year). */
  dateOnly: boolean;
}

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

function dayEnd(startMs: number, days: number): string {
  return new Date(startMs + days * 86_400_000 - 1).toISOString();
}

/**
 * Parses an RFC 3339 date-time (offset required unless `assumeUtc`) into a UTC timestamp,
 * or returns undefined when the text is not a real date-time. Works on the numbers directly
 * (no second parse of a rebuilt string): ingest reads several of these per record.
 */
export function parseTimestamp(text: string, assumeUtc = false): string | undefined {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  if (!offset && !assumeUtc) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // Date.UTC reads years 0–99 as 1900–1999, which the day check below then refuses.
  const midnight = Date.UTC(year, month - 1, day);
  const date = new Date(midnight);
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return undefined;
  }
  const millis = fraction ? Number(fraction.slice(1, 4).padEnd(3, '0')) : 0;
  let zoneMinutes = 0;
  if (offset && offset !== 'Z' && offset !== 'z') {
    const [offsetHours, offsetMinutes] = offset.slice(1).split(':').map(Number);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    zoneMinutes = (offset[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  }
  // A leap second (:60) counts as :59, as before.
  const instant =
    midnight + ((hour * 60 + minute - zoneMinutes) * 60 + Math.min(second, 59)) * 1000 + millis;
  return new Date(instant).toISOString();
}

/**
 * Parses a metadata time value: a date-time (UTC assumed when no offset is given), a date,
 * a year-month or a year, into the span it stands for. Returns undefined for anything else.
 */
export function parseTimeValue(text: string): InstantSpan | undefined {
  const value = text.trim();
  const timestamp = parseTimestamp(value, true);
  if (timestamp) return { start: timestamp, end: timestamp, dateOnly: false };
  let match = DATE_ONLY.exec(value);
  if (match) {
    const [y, m, d] = match.slice(1).map(Number);
    if (!isRealDate(y, m, d)) return undefined;
    const start = Date.UTC(y, m - 1, d);
    return { start: new Date(start).toISOString(), end: dayEnd(start, 1), dateOnly: true };
  }
  match = YEAR_MONTH.exec(value);
  if (match) {
    const [y, m] = match.slice(1).map(Number);
    if (m < 1 || m > 12) return undefined;
    const start = Date.UTC(y, m - 1, 1);
    const next = Date.UTC(y, m, 1);
    return {
      start: new Date(start).toISOString(),
      end: new Date(next - 1).toISOString(),
      dateOnly: true,
    };
  }
  match = YEAR_ONLY.exec(value);
  if (match) {
    const y = Number(match[1]);
    const start = Date.UTC(y, 0, 1);
    return {
      start: new Date(start).toISOString(),
      end: new Date(Date.UTC(y + 1, 0, 1) - 1).toISOString(),
      dateOnly: true,
    };
  }
  return undefined;
}
