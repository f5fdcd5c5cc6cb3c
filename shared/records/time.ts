/**
 * Time values as Cairn stores and compares them: every instant is normalised to a UTC
 * ISO 8601 timestamp with milliseconds, so string order is time order in every backend.
 * A calendar date stands for the whole day. Every year RFC 3339 writes (0000–9999) is one.
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

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Days in a month of the proleptic Gregorian calendar, as JavaScript's Date counts them (year 0
 * is a leap year; 0 for a month outside 1–12).
 */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** Whether year-month-day is a real date of the years RFC 3339 writes (0000–9999). */
function isRealDate(year: number, month: number, day: number): boolean {
  if (year < 0 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/**
 * Milliseconds since the epoch of midnight UTC starting a day of the proleptic Gregorian
 * calendar, for every year 0000–9999: Date.UTC would read years 0–99 as 1900–1999, so the year
 * is set on its own.
 */
export function utcMidnight(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

/** The earliest and latest instants of the years 0000–9999, the range Cairn stores. */
const FIRST_INSTANT = utcMidnight(0, 1, 1);
const LAST_INSTANT = utcMidnight(10000, 1, 1) - 1;

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
  if (!isRealDate(year, month, day)) return undefined;
  const milliText = fraction ? fraction.slice(1, 4).padEnd(3, '0') : '000';
  // Already UTC and no leap second: the normalised form is the written numbers themselves.
  if ((!offset || offset === 'Z' || offset === 'z') && second < 60)
    return `${y}-${mo}-${d}T${h}:${mi}:${s}.${milliText}Z`;
  const midnight = utcMidnight(year, month, day);
  const millis = Number(milliText);
  let zoneMinutes = 0;
  if (offset && offset !== 'Z' && offset !== 'z') {
    const [offsetHours, offsetMinutes] = offset.slice(1).split(':').map(Number);
    if (offsetHours === undefined || offsetMinutes === undefined) return undefined;
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    zoneMinutes = (offset[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  }
  // A leap second (:60) counts as :59, as before.
  const instant =
    midnight + ((hour * 60 + minute - zoneMinutes) * 60 + Math.min(second, 59)) * 1000 + millis;
  // An offset may carry the first or last day of the range out of the years RFC 3339 writes
  // (and out of the string order of four-digit years): such an instant is not one.
  if (instant < FIRST_INSTANT || instant > LAST_INSTANT) return undefined;
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
    if (!isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) return undefined;
    const day = `${match[1]}-${match[2]}-${match[3]}`;
    return { start: `${day}T00:00:00.000Z`, end: `${day}T23:59:59.999Z`, dateOnly: true };
  }
  match = YEAR_MONTH.exec(value);
  if (match) {
    const [year, month] = [Number(match[1]), Number(match[2])];
    if (!isRealDate(year, month, 1)) return undefined;
    const last = String(daysInMonth(year, month));
    return {
      start: `${match[1]}-${match[2]}-01T00:00:00.000Z`,
      end: `${match[1]}-${match[2]}-${last}T23:59:59.999Z`,
      dateOnly: true,
    };
  }
  match = YEAR_ONLY.exec(value);
  if (match) {
    if (!isRealDate(Number(match[1]), 1, 1)) return undefined;
    return {
      start: `${match[1]}-01-01T00:00:00.000Z`,
      end: `${match[1]}-12-31T23:59:59.999Z`,
      dateOnly: true,
    };
  }
  return undefined;
}
