/**
 * Parsers for the query parameters the protocols share (bbox, datetime, limit, offset,
 * sortby, q). Each is pure, takes its limits as arguments and throws InvalidParameterError
 * naming the parameter.
 */
import { InvalidParameterError, UnsortablePropertyError } from '../errors/index.js';
import type { Bbox } from '../records/core-record.js';
import { parseTimestamp, parseTimeValue } from '../records/time.js';
import { snapCrs84 } from './crs84.js';
import { findQueryable } from './queryables.js';
import type { SortKey } from './search-query.js';

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Parses `bbox` as 4 or 6 comma-separated CRS84 numbers into a 2D box. West greater than
 * east crosses the antimeridian; south must not exceed north.
 */
export function parseBbox(value: string, name = 'bbox'): Bbox {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length !== 4 && parts.length !== 6) {
    throw new InvalidParameterError(
      name,
      `${name} must have 4 or 6 comma-separated numbers, got ${parts.length}`,
    );
  }
  if (!parts.every((part) => NUMBER.test(part))) {
    throw new InvalidParameterError(name, `${name} must contain only numbers: "${value}"`);
  }
  const numbers = parts.map(Number);
  const at = (index: number): number => {
    const number = numbers[index];
    if (number === undefined) {
      throw new InvalidParameterError(name, `${name} must have 4 or 6 comma-separated numbers`);
    }
    return number;
  };
  const [west, south, east, north] =
    numbers.length === 4 ? [at(0), at(1), at(2), at(3)] : [at(0), at(1), at(3), at(4)];
  // Edges within the tolerance beyond a bound are read as the bound (crs84.ts).
  const lower = snapCrs84(west, south);
  const upper = snapCrs84(east, north);
  if (lower === undefined || upper === undefined) {
    throw new InvalidParameterError(
      name,
      `${name} is outside the CRS84 range (longitude ±180, latitude ±90)`,
    );
  }
  if (lower[1] > upper[1]) {
    throw new InvalidParameterError(
      name,
      `${name} south (${south}) is greater than north (${north})`,
    );
  }
  return [lower[0], lower[1], upper[0], upper[1]];
}

export interface DatetimeInterval {
  /** Inclusive UTC bounds; null is open. */
  start: string | null;
  end: string | null;
}

export interface DatetimeOptions {
  /** Accept a bare calendar date as the whole day (OGC API – Records); STAC refuses it. */
  allowDates?: boolean;
  name?: string;
}

function parseDatetimeEnd(text: string, options: DatetimeOptions, side: 'start' | 'end'): string {
  const name = options.name ?? 'datetime';
  const timestamp = parseTimestamp(text);
  if (timestamp) return timestamp;
  if (options.allowDates && /^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const span = parseTimeValue(text);
    if (span) return side === 'start' ? span.start : span.end;
  }
  const expected = options.allowDates
    ? 'an RFC 3339 date-time or date'
    : 'an RFC 3339 date-time with a time zone';
  throw new InvalidParameterError(name, `${name} "${text}" is not ${expected}`);
}

/**
 * Parses `datetime`: an instant, or an interval `start/end` where one end may be open
 * (`..` or empty). A bare instant that is a date spans the whole day.
 */
export function parseDatetime(value: string, options: DatetimeOptions = {}): DatetimeInterval {
  const name = options.name ?? 'datetime';
  // split gives at least one part.
  const [first = '', second, ...more] = value.trim().split('/');
  if (more.length > 0) throw new InvalidParameterError(name, `${name} has more than one "/"`);
  if (second === undefined) {
    const start = parseDatetimeEnd(first, options, 'start');
    const end = parseDatetimeEnd(first, options, 'end');
    return { start, end };
  }
  const open = (text: string): boolean => text === '' || text === '..';
  if (open(first) && open(second)) {
    throw new InvalidParameterError(name, `${name} interval must have at least one closed end`);
  }
  const start = open(first) ? null : parseDatetimeEnd(first, options, 'start');
  const end = open(second) ? null : parseDatetimeEnd(second, options, 'end');
  if (start && end && start > end) {
    throw new InvalidParameterError(name, `${name} interval starts after it ends`);
  }
  return { start, end };
}

/** Parses `limit`: a positive integer, clamped to `max` (never refused for being large). */
export function parseLimit(
  value: string | undefined,
  defaultLimit: number,
  max: number,
  name = 'limit',
): number {
  if (value === undefined) return defaultLimit;
  if (!/^\+?\d+$/.test(value.trim())) {
    throw new InvalidParameterError(name, `${name} must be a positive integer, got "${value}"`);
  }
  const limit = Number(value);
  if (limit < 1) throw new InvalidParameterError(name, `${name} must be at least 1`);
  return Math.min(limit, max);
}

/** Parses a zero-based offset (`offset`, `startindex`). */
export function parseOffset(value: string | undefined, name = 'offset'): number {
  if (value === undefined) return 0;
  if (!/^\+?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidParameterError(name, `${name} must be a non-negative integer, got "${value}"`);
  }
  return Number(value);
}

/**
 * The sort key of one `sortby` field: a sortable core queryable (by its name or an alias, in any
 * case), else a property learned from the records that `sortable` names (by its exact name).
 * Anything else is refused with UnsortablePropertyError naming it; without `sortable`, only the
 * core sortables are accepted.
 */
export function resolveSortKey(
  field: string,
  direction: SortKey['direction'],
  sortable: ReadonlySet<string> = new Set(),
  name = 'sortby',
): SortKey {
  const queryable = findQueryable(field);
  if (queryable?.sortable) return { field: queryable.name, direction };
  if (queryable === undefined && sortable.has(field)) return { field, direction };
  throw new UnsortablePropertyError(name, field);
}

/**
 * Parses `sortby`: comma-separated property names, each optionally prefixed by `+`
 * (ascending, default) or `-` (descending); names must be sortable (resolveSortKey).
 */
export function parseSortby(
  value: string,
  name = 'sortby',
  sortable?: ReadonlySet<string>,
): SortKey[] {
  return parseList(value).map((part) => {
    const descending = part.startsWith('-');
    const field = part.replace(/^[+-]/, '').trim();
    return resolveSortKey(field, descending ? 'desc' : 'asc', sortable, name);
  });
}

/**
 * Parses free text `q`: comma-separated terms are OR-ed; the words of a term must all match.
 * Returns undefined when nothing searchable remains.
 */
export function parseFreeText(value: string): string[][] | undefined {
  const terms = value
    .split(',')
    .map((term) => term.split(/\s+/).filter((word) => word !== ''))
    .filter((words) => words.length > 0);
  return terms.length > 0 ? terms : undefined;
}

/**
 * Splits a comma-separated list parameter into trimmed (String.prototype.trim), non-empty
 * values: every comma separates, there is no escaping. The one list splitter of the protocols'
 * GET and KVP parameters (Records, STAC, CSW, OpenSearch).
 */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
