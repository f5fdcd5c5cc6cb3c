/**
 * CSW CQL_TEXT (classic OGC Common CQL, OGC 07-006r1) → the shared filter AST, through the
 * parser generated from cql-text.peggy. The tree uses the operator names of CQL2 and of the FES
 * parser, so that a CQL_TEXT constraint and the equivalent FES filter give the same tree:
 *
 * - BBOX(p, minx, miny, maxx, maxy[, crs]) is `s_intersects(p, BBOX)`; the CRS decides the axis
 *   order as for GML (urn:ogc:def:crs:EPSG::4326 is latitude first, EPSG:4326 and CRS84
 *   longitude first, anything else is refused). WKT is longitude first.
 * - DWITHIN / BEYOND are `s_dwithin` / `s_beyond` with the distance in metres and 'm'.
 * - BEFORE / AFTER / DURING are `t_before` / `t_after` / `t_during`; BEFORE OR DURING and
 *   DURING OR AFTER are the OR of the two. Instants are DATE or TIMESTAMP literals (UTC), a
 *   period an INTERVAL; a duration is added to (or taken from) the other end with calendar
 *   arithmetic, the day clamped to the end of a shorter month.
 * - ILIKE is LIKE on CASEI of both sides; `!=` is `<>`; INCLUDE / EXCLUDE are TRUE / FALSE.
 * - Literals are typed as FES literals are: a quoted string compared with (or in the list or
 *   range of) a registered numeric queryable becomes a number, with a datetime one a DATE or
 *   TIMESTAMP. BETWEEN with bounds that are not both numbers becomes `>= AND <=` (CQL2 BETWEEN
 *   is numeric).
 * - Property names are kept as written (dc:title, /csw:Record/dc:title, "any text"); the
 *   protocol maps them to queryables.
 * Every failure is a FilterError naming the line and column.
 */
import { FilterError } from '../../errors/index.js';
import {
  betweenOrRange,
  type DateLiteral,
  type Expression,
  type IntervalLiteral,
  type TimestampLiteral,
} from '../filter-ast.js';
import { instantOf, metresPerUnit, resolveAxisOrder, toTimeLiteral } from '../fes/index.js';
import { daysInMonth } from '../../records/time.js';
import { findQueryable } from '../queryables.js';
import { describeSyntaxError } from '../cql2/syntax-error-message.js';
import { parse, SyntaxError as PeggySyntaxError } from './cql-text-parser.generated.js';

// peggy formats an English message for every syntax error, which describeSyntaxError replaces.
PeggySyntaxError.buildMessage = () => 'syntax error';

type TimeLiteral = DateLiteral | TimestampLiteral;

/** The conversions the grammar's actions call; each returns a value or the reason it cannot. */
export interface CqlTextHelpers {
  timeLiteral(text: string): TimeLiteral | string;
  period(start: string, end: string): IntervalLiteral | string;
  axisOrder(crs: string): { latitudeFirst: boolean } | string;
  metresPerUnit(units: string): number | string;
}

const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** The fields of an ISO 8601 duration; absent fields are 0. */
interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** The fields of an ISO 8601 duration, or undefined when it is not one (P alone, PT alone). */
function parseDuration(text: string): Duration | undefined {
  const match = DURATION.exec(text);
  if (!match || /^P$|T$/i.test(text)) return undefined;
  const field = (group: number): number => Number(match[group] ?? 0);
  return {
    years: field(1),
    months: field(2),
    weeks: field(3),
    days: field(4),
    hours: field(5),
    minutes: field(6),
    seconds: field(7),
  };
}

/** Adds a duration (sign +1) to or takes it (sign -1) from an instant, in UTC. */
function shiftBy(instant: number, duration: Duration, sign: number): number {
  const { years, months, weeks, days, hours, minutes, seconds } = duration;
  const date = new Date(instant);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCFullYear(date.getUTCFullYear() + sign * years);
  date.setUTCMonth(date.getUTCMonth() + sign * months);
  // Date.UTC would read years 0–99 as 1900–1999 (year 0 is a leap year, 1900 is not).
  const lastDay = daysInMonth(date.getUTCFullYear(), date.getUTCMonth() + 1);
  date.setUTCDate(Math.min(day, lastDay));
  const shifted = date.getTime() + sign * (weeks * 7 + days) * 86_400_000;
  return shifted + sign * Math.round((hours * 3600 + minutes * 60 + seconds) * 1000);
}

/** A UTC instant as a TIMESTAMP literal, or a reason when it leaves years 0000–9999. */
function timestampAt(instant: number): TimestampLiteral | string {
  const date = new Date(instant);
  if (!Number.isFinite(instant) || date.getUTCFullYear() < 0 || date.getUTCFullYear() > 9999) {
    return 'the period leaves the years 0000 to 9999';
  }
  const value = date
    .toISOString()
    .replace(/\.000Z$/, 'Z')
    .replace(/(\.\d*?)0+Z$/, '$1Z');
  return { kind: 'timestamp', value };
}

const timeLiteral = (text: string): TimeLiteral | string =>
  toTimeLiteral(text) ?? `"${text}" is not a valid date or date-time`;

/** A period start/end, start/duration or duration/end as an INTERVAL literal. */
function period(startText: string, endText: string): IntervalLiteral | string {
  const startDuration = /^P/i.test(startText) ? parseDuration(startText) : undefined;
  const endDuration = /^P/i.test(endText) ? parseDuration(endText) : undefined;
  if (/^P/i.test(startText) && !startDuration) return `"${startText}" is not an ISO 8601 duration`;
  if (/^P/i.test(endText) && !endDuration) return `"${endText}" is not an ISO 8601 duration`;
  let start: TimeLiteral | string;
  let end: TimeLiteral | string;
  if (endDuration) {
    start = timeLiteral(startText);
    if (typeof start === 'string') return start;
    end = timestampAt(shiftBy(instantOf(start, 'start'), endDuration, 1));
    if (start.kind === 'date' && typeof end !== 'string') {
      start = { kind: 'timestamp', value: `${start.value}T00:00:00Z` };
    }
  } else if (startDuration) {
    end = timeLiteral(endText);
    if (typeof end === 'string') return end;
    const endInstant =
      end.kind === 'date' ? Date.parse(`${end.value}T00:00:00Z`) : instantOf(end, 'end');
    start = timestampAt(shiftBy(endInstant, startDuration, -1));
    if (end.kind === 'date') end = { kind: 'timestamp', value: `${end.value}T00:00:00Z` };
  } else {
    start = timeLiteral(startText);
    end = timeLiteral(endText);
  }
  if (typeof start === 'string') return start;
  if (typeof end === 'string') return end;
  if (instantOf(end, 'end') < instantOf(start, 'start')) {
    return `the period ${startText}/${endText} ends before it starts`;
  }
  return { kind: 'interval', start, end };
}

/** The axis order of a BBOX CRS (only WGS 84 is accepted). */
function axisOrder(crs: string): { latitudeFirst: boolean } | string {
  try {
    return { latitudeFirst: resolveAxisOrder(crs) === 'lat-lon' };
  } catch (error) {
    if (error instanceof FilterError) return error.message;
    throw error;
  }
}

/** Metres in one of the given distance units. */
function metresIn(units: string): number | string {
  try {
    return metresPerUnit(units.replace(/\s+/g, ' '));
  } catch (error) {
    if (error instanceof FilterError) return error.message;
    throw error;
  }
}

const HELPERS: CqlTextHelpers = { timeLiteral, period, axisOrder, metresPerUnit: metresIn };

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Types a string literal after the registered queryable it is compared with, as FES does. */
function typeLiteral(expression: Expression, partner: Expression): Expression {
  if (expression.kind !== 'literal' || typeof expression.value !== 'string') return expression;
  if (partner.kind !== 'property') return expression;
  const type = findQueryable(partner.name)?.type;
  const text = expression.value;
  if (type === 'number' || type === 'integer') {
    const value = Number(text);
    if (!NUMBER.test(text.trim()) || !Number.isFinite(value)) {
      throw new FilterError(
        `Invalid CQL text: '${text}' is not a number, but ${partner.name} is numeric`,
      );
    }
    return { kind: 'literal', value };
  }
  if (type === 'datetime') return toTimeLiteral(text) ?? expression;
  return expression;
}

const COMPARISONS = new Set(['=', '<>', '<', '>', '<=', '>=']);

/** The first `count` arguments of an operator the grammar built; a FilterError if any is missing. */
function operands(op: string, args: Expression[], count: 2): [Expression, Expression];
function operands(op: string, args: Expression[], count: 3): [Expression, Expression, Expression];
function operands(op: string, args: Expression[], count: number): Expression[] {
  const taken = args.slice(0, count);
  if (taken.length < count) {
    throw new FilterError(`Invalid CQL text: "${op}" takes ${count} arguments`);
  }
  return taken;
}

/** Types literals after queryables and rewrites non-numeric BETWEEN, bottom-up. */
function typeLiterals(expression: Expression): Expression {
  if (expression.kind !== 'op') return expression;
  const args = expression.args.map(typeLiterals);
  if (COMPARISONS.has(expression.op)) {
    const [left, right] = operands(expression.op, args, 2);
    return { ...expression, args: [typeLiteral(left, right), typeLiteral(right, left)] };
  }
  if (expression.op === 'in') {
    const [subject, list] = operands(expression.op, args, 2);
    if (list.kind !== 'array') return { ...expression, args };
    const items = list.items.map((item) => typeLiteral(item, subject));
    return { ...expression, args: [subject, { kind: 'array', items }] };
  }
  if (expression.op === 'between') {
    const [subject, low, high] = operands(expression.op, args, 3);
    return betweenOrRange(subject, typeLiteral(low, subject), typeLiteral(high, subject));
  }
  return { ...expression, args };
}

/** Parses a CSW CQL_TEXT constraint into the shared filter AST. */
export function parseCqlText(text: string): Expression {
  if (typeof text !== 'string') throw new FilterError('A CQL text constraint must be a string');
  let tree: Expression;
  try {
    tree = parse(text, { helpers: HELPERS });
  } catch (error) {
    if (error instanceof PeggySyntaxError) {
      throw new FilterError(describeSyntaxError(error, text, { language: 'CQL text' }));
    }
    if (error instanceof RangeError) {
      throw new FilterError('Invalid CQL text: the expression is nested too deeply', {
        cause: error,
      });
    }
    throw error;
  }
  return typeLiterals(tree);
}
