/**
 * Time values written in requests (GML time positions, FES literals, OpenSearch EO values) as
 * filter literals, spelled the way the CQL2 parsers spell them so that equal instants give equal
 * trees whatever language they came from.
 */
import { parseTimestamp, parseTimeValue } from '../../records/time.js';
import type { DateLiteral, TimestampLiteral } from '../filter-ast.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time value as a filter literal: a calendar date stays a DATE, a date-time becomes a UTC
 * TIMESTAMP (UTC assumed when it has no offset) without trailing zero fractions. Returns
 * undefined for anything else (including impossible dates such as 2021-02-30).
 */
export function toTimeLiteral(text: string): DateLiteral | TimestampLiteral | undefined {
  const value = text.trim();
  if (DATE_ONLY.test(value)) {
    return parseTimeValue(value) === undefined ? undefined : { kind: 'date', value };
  }
  const timestamp = parseTimestamp(value, true);
  if (timestamp === undefined) return undefined;
  return {
    kind: 'timestamp',
    value: timestamp.replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z'),
  };
}

/**
 * Milliseconds since the epoch of a DATE or TIMESTAMP literal; a date spans its whole day, so
 * it is read as its first millisecond for `start` and its last for `end`.
 */
export function instantOf(literal: DateLiteral | TimestampLiteral, side: 'start' | 'end'): number {
  if (literal.kind === 'timestamp') return Date.parse(literal.value);
  const time = side === 'start' ? 'T00:00:00.000Z' : 'T23:59:59.999Z';
  return Date.parse(`${literal.value}${time}`);
}
