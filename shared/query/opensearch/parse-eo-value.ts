/**
 * OpenSearch EO value notation (OGC 13-026r9, as the CEOS best practice and resto / Terradue
 * implement it) → filter expressions on the canonical queryable.
 *
 * Numeric and date parameters:
 *
 * | value        | meaning            | expression                     |
 * |--------------|--------------------|--------------------------------|
 * | `n`          | x = n              | `=`                            |
 * | `{a,b,c}`    | x ∈ {a, b, c}      | `in`                           |
 * | `[a,b]`      | a ≤ x ≤ b          | `between` (dates: `>= and <=`) |
 * | `[a,b[`      | a ≤ x < b          | `>= and <`                     |
 * | `]a,b[`      | a < x < b          | `> and <`                      |
 * | `]a,b]`      | a < x ≤ b          | `> and <=`                     |
 * | `[a`         | x ≥ a              | `>=`                           |
 * | `]a`         | x > a              | `>`                            |
 * | `a]`         | x ≤ a              | `<=`                           |
 * | `a[`         | x < a              | `<`                            |
 *
 * Empty ranges (a > b, or a = b with an open end) are refused rather than silently matching
 * nothing. Text parameters take `v`, a comma list `a,b` or a set `{a,b}` (any of them), and `*`
 * as a wildcard (CEOS-DG, e.g. `SPOT*`); range notation is refused for text.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { instantOf, toTimeLiteral } from '../fes/time-literal.js';
import type { DateLiteral, Expression, TimestampLiteral } from '../filter-ast.js';
import { findQueryable } from '../queryables.js';
import { findEoParameter, type EoParameter, type EoValueType } from './eo-parameters.js';

/** Limits on EO values; callers take them from configuration. */
export interface EoValueLimits {
  /** Maximum number of values in a set or list. */
  maxListValues: number;
}

/** Default limits. */
export const DEFAULT_EO_VALUE_LIMITS: Readonly<EoValueLimits> = Object.freeze({
  maxListValues: 100,
});

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

type Ordered = { kind: 'literal'; value: number } | DateLiteral | TimestampLiteral;

/** The definition for a parameter: the EO table first, then the queryables registry. */
function resolveParameter(name: string): EoParameter {
  const known = findEoParameter(name);
  if (known !== undefined) return known;
  const queryable = findQueryable(name);
  const types: Partial<Record<string, EoValueType>> = {
    number: 'number',
    integer: 'integer',
    datetime: 'datetime',
    string: 'text',
    array: 'text',
  };
  const type = queryable === undefined ? undefined : types[queryable.type];
  if (queryable === undefined || type === undefined) {
    throw new InvalidParameterError(name, `${name} is not a supported EO search parameter`);
  }
  return { parameter: name, property: queryable.name, type };
}

function invalid(name: string, value: string, why: string): InvalidParameterError {
  return new InvalidParameterError(name, `${name}="${value}": ${why}`);
}

function parseScalar(definition: EoParameter, text: string, value: string): Ordered {
  const name = definition.parameter;
  const item = text.trim();
  if (item === '') throw invalid(name, value, 'a value is missing');
  if (definition.type === 'datetime') {
    const time = toTimeLiteral(item);
    if (time === undefined)
      throw invalid(name, value, `"${item}" is not an RFC 3339 date or date-time`);
    return time;
  }
  const number = Number(item);
  if (!NUMBER.test(item) || !Number.isFinite(number)) {
    throw invalid(name, value, `"${item}" is not a number`);
  }
  if (definition.type === 'integer' && !Number.isInteger(number)) {
    throw invalid(name, value, `"${item}" is not an integer`);
  }
  return { kind: 'literal', value: number };
}

function compare(a: Ordered, b: Ordered): number {
  const at = (item: Ordered): number =>
    item.kind === 'literal' ? item.value : instantOf(item, 'start');
  return at(a) - at(b);
}

function checkList(name: string, value: string, count: number, limits: EoValueLimits): void {
  if (count > limits.maxListValues) {
    throw invalid(name, value, `more than ${limits.maxListValues} values`);
  }
}

/**
 * What is inside the braces of a value written as a set (`{a,b,…}`, already trimmed), or
 * undefined when the value is not a set; a brace at one end only is refused.
 */
function setContent(name: string, value: string, text: string): string | undefined {
  if (!text.startsWith('{') && !text.endsWith('}')) return undefined;
  if (text.length < 2 || !text.startsWith('{') || !text.endsWith('}')) {
    throw invalid(name, value, 'a set is written {a,b,…}');
  }
  return text.slice(1, -1);
}

/** Numeric and date parameters: single value, set or interval notation. */
function parseOrdered(definition: EoParameter, value: string, limits: EoValueLimits): Expression {
  const name = definition.parameter;
  const property: Expression = { kind: 'property', name: definition.property };
  const text = value.trim();
  const set = setContent(name, value, text);
  if (set !== undefined) {
    const items = set.split(',');
    checkList(name, value, items.length, limits);
    return {
      kind: 'op',
      op: 'in',
      args: [
        property,
        { kind: 'array', items: items.map((item) => parseScalar(definition, item, value)) },
      ],
    };
  }
  const first = text[0];
  const last = text[text.length - 1];
  const opens = first === '[' || first === ']';
  const closes = text.length > 1 && (last === '[' || last === ']');
  const inner = text.slice(opens ? 1 : 0, closes ? -1 : text.length);
  if (/[[\]{}]/.test(inner)) throw invalid(name, value, 'misplaced bracket');
  const lowerOp = first === '[' ? '>=' : '>';
  const upperOp = last === ']' ? '<=' : '<';
  if (opens && closes) {
    const [lowerText, upperText, ...more] = inner.split(',');
    if (lowerText === undefined || upperText === undefined || more.length > 0)
      throw invalid(name, value, 'an interval is written [a,b], [a,b[, ]a,b[ or ]a,b]');
    const lower = parseScalar(definition, lowerText, value);
    const upper = parseScalar(definition, upperText, value);
    const order = compare(lower, upper);
    if (order > 0) throw invalid(name, value, 'the lower bound is above the upper bound');
    if (order === 0 && (first !== '[' || last !== ']')) {
      throw invalid(name, value, 'the interval is empty');
    }
    if (first === '[' && last === ']' && lower.kind === 'literal') {
      return { kind: 'op', op: 'between', args: [property, lower, upper] };
    }
    return {
      kind: 'op',
      op: 'and',
      args: [
        { kind: 'op', op: lowerOp, args: [property, lower] },
        { kind: 'op', op: upperOp, args: [property, upper] },
      ],
    };
  }
  if (inner.includes(',')) {
    throw invalid(name, value, 'several values are written as a set {a,b,…}');
  }
  if (opens)
    return { kind: 'op', op: lowerOp, args: [property, parseScalar(definition, inner, value)] };
  if (closes)
    return { kind: 'op', op: upperOp, args: [property, parseScalar(definition, inner, value)] };
  return { kind: 'op', op: '=', args: [property, parseScalar(definition, inner, value)] };
}

/** The only item of a one-item list; undefined for any other length. */
function soleItem<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}

/** A CQL2 LIKE pattern for a CEOS wildcard value: `*` is any run, the rest is literal. */
function wildcardPattern(item: string): string {
  return item.replace(/[%_\\]/g, (character) => `\\${character}`).replace(/\*/g, '%');
}

/** Text parameters: a value, a comma list or a set; `*` wildcards. */
function parseText(definition: EoParameter, value: string, limits: EoValueLimits): Expression {
  const name = definition.parameter;
  const property: Expression = { kind: 'property', name: definition.property };
  const trimmed = value.trim();
  const set = setContent(name, value, trimmed);
  if (set === undefined && /^[[\]]|[[\]]$/.test(trimmed)) {
    throw invalid(name, value, 'interval notation applies to numeric and date parameters only');
  }
  const text = set ?? trimmed;
  const items = text.split(',').map((item) => item.trim());
  checkList(name, value, items.length, limits);
  if (items.some((item) => item === '')) throw invalid(name, value, 'a value is missing');
  const exact = items.filter((item) => !item.includes('*'));
  const wildcards = items.filter((item) => item.includes('*'));
  const alternatives: Expression[] = [];
  const soleExact = soleItem(exact);
  if (soleExact !== undefined) {
    alternatives.push({
      kind: 'op',
      op: '=',
      args: [property, { kind: 'literal', value: soleExact }],
    });
  } else if (exact.length > 1) {
    alternatives.push({
      kind: 'op',
      op: 'in',
      args: [
        property,
        { kind: 'array', items: exact.map((item) => ({ kind: 'literal', value: item })) },
      ],
    });
  }
  for (const item of wildcards) {
    alternatives.push({
      kind: 'op',
      op: 'like',
      args: [property, { kind: 'literal', value: wildcardPattern(item) }],
    });
  }
  return soleItem(alternatives) ?? { kind: 'op', op: 'or', args: alternatives };
}

/**
 * Parses the value of an EO search parameter (`eo:cloudCover=[0,20[`, `eo:platform=SPOT*`, …)
 * into a filter on its canonical queryable. `name` is the parameter name (an `eo:*` name Cairn
 * supports, or any registered queryable name); errors are InvalidParameterErrors naming it.
 */
export function parseEoValue(
  name: string,
  value: string,
  limits: EoValueLimits = DEFAULT_EO_VALUE_LIMITS,
): Expression {
  const definition = resolveParameter(name);
  if (value.trim() === '') throw new InvalidParameterError(name, `${name} is empty`);
  return definition.type === 'text'
    ? parseText(definition, value, limits)
    : parseOrdered(definition, value, limits);
}
