/**
 * The kinds of engine fields (registered, declared in the mapping, else live) and the DSL
 * clauses the engine filter translation (compile-filter.ts) is built from: a clause on
 * a field's raw or folded view, comparisons of values and of time spans (values of different
 * granularity compare at the coarser one, as on SQLite), LIKE patterns as wildcards, and the
 * values of a field outside a set.
 */
import type { ComparisonOp } from '../../query/cql2/cql2-operators.js';
import { caseInsensitively } from './case-insensitive.js';
import { allOf, anyOf, exists, not, range, term, type Query } from './dsl.js';
import { foldPath, type EngineField, type FieldKind, type FoldView } from './engine-fields.js';

export type Constant = string | number | boolean;

/** A time value: the first and last instant it covers (ISO strings, or ±Infinity when open). */
export interface Span {
  lo: string | number;
  hi: string | number;
}

/**
 * A clause on the chosen view of a field. Folded copies exist only where the value itself
 * cannot stand for its view: a `ci` copy for text beyond ASCII (plain ASCII is compared on the
 * value, case-insensitively), an `ai` copy where stripping accents changes the value, a `cai`
 * copy where that differs from the CASEI view. So a record without the view's copy is compared
 * on the next one along the chain, and at last on its raw value (engine-document.ts).
 */
export function onView(field: EngineField, view: FoldView, build: (path: string) => Query): Query {
  if (view === 'raw') return build(field.path);
  const copies =
    view === 'cai' ? [foldPath(field, 'cai'), foldPath(field, 'ci')] : [foldPath(field, view)];
  // Under CASEI the raw value is plain ASCII (or, in indexes written before mapping version 3,
  // text folding leaves unchanged): matched ignoring ASCII case.
  const onRaw = view === 'ai' ? build(field.path) : caseInsensitively(build(field.path));
  const chain = [...copies.map(build), onRaw];
  return anyOf(
    chain.map((clause, position) =>
      position === 0
        ? clause
        : allOf([...copies.slice(0, position).map((absent) => not(exists(absent))), clause]),
    ),
  );
}

/** The JSON value a keyword / double / date field is compared with. */
export function engineValue(value: Constant): string | number {
  return typeof value === 'boolean' ? String(value) : value;
}

export const FLIPPED: Record<ComparisonOp, ComparisonOp> = {
  '=': '=',
  '<>': '<>',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

export function compareConstants(
  op: ComparisonOp,
  a: Constant | number,
  b: Constant | number,
): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '<>':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** The span of one instant. */
export const instant = (value: string | number): Span => ({ lo: value, hi: value });

/** Orders two span bounds: ISO strings in time order, ±Infinity below and above them all. */
export function compareBounds(a: string | number, b: string | number): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const rank = (x: string | number): number => (typeof x === 'string' ? 0 : Math.sign(x));
  return rank(a) - rank(b);
}

/** Compares two spans at the coarser granularity, as the SQLite compiler does. */
export function compareSpans(op: ComparisonOp, x: Span, y: Span): boolean {
  const c = compareBounds;
  switch (op) {
    case '<':
      return c(x.hi, y.lo) < 0;
    case '>':
      return c(x.lo, y.hi) > 0;
    case '<=':
      return c(x.lo, y.hi) <= 0;
    case '>=':
      return c(x.hi, y.lo) >= 0;
    case '=':
      return c(x.lo, y.hi) <= 0 && c(y.lo, x.hi) <= 0;
    case '<>':
      return c(x.hi, y.lo) < 0 || c(x.lo, y.hi) > 0;
  }
}

/**
 * The clause for `field op span` where each value of the field covers the span from the
 * instant in `lo` to the one in `hi` (the same path for a field of instants), compared at the
 * coarser granularity as compareSpans does.
 */
export function spanClause(
  path: string | { lo: string; hi: string },
  op: ComparisonOp,
  span: Span,
): Query {
  const { lo, hi } = typeof path === 'string' ? { lo: path, hi: path } : path;
  const instants = lo === hi && span.lo === span.hi;
  const equal = (): Query =>
    instants
      ? term(lo, span.lo)
      : lo === hi
        ? range(lo, { gte: span.lo, lte: span.hi })
        : allOf([range(lo, { lte: span.hi }), range(hi, { gte: span.lo })]);
  switch (op) {
    case '<':
      return range(hi, { lt: span.lo });
    case '>':
      return range(lo, { gt: span.hi });
    case '<=':
      return range(lo, { lte: span.hi });
    case '>=':
      return range(hi, { gte: span.lo });
    case '=':
      return equal();
    case '<>':
      return lo === hi
        ? not(equal())
        : anyOf([range(hi, { lt: span.lo }), range(lo, { gt: span.hi })]);
  }
}

export function valueClause(path: string, op: ComparisonOp, value: string | number): Query {
  switch (op) {
    case '=':
      return term(path, value);
    case '<>':
      return not(term(path, value));
    case '<':
      return range(path, { lt: value });
    case '<=':
      return range(path, { lte: value });
    case '>':
      return range(path, { gt: value });
    case '>=':
      return range(path, { gte: value });
  }
}

/** Translates a CQL2 LIKE pattern (`%`, `_`, `\` escapes) into an engine wildcard pattern. */
export function likeToWildcard(pattern: string): string {
  const characters = Array.from(pattern);
  let result = '';
  for (let i = 0; i < characters.length; i += 1) {
    let character = characters[i];
    if (character === '\\' && i + 1 < characters.length) {
      i += 1;
      character = characters[i];
    } else if (character === '%') {
      result += '*';
      continue;
    } else if (character === '_') {
      result += '?';
      continue;
    }
    result +=
      character === '*' || character === '?' || character === '\\' ? `\\${character}` : character;
  }
  return result;
}

/** Orders values as the engine orders a field's terms (UTF-8 bytes for keywords). */
export function engineOrder(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}

/** Records with some value of the field outside the set: the open ranges between its members. */
export function someValueOutside(path: string, values: (string | number)[]): Query {
  const sorted = [...new Set(values)].sort(engineOrder);
  const [first, ...rest] = sorted;
  if (first === undefined) return exists(path);
  const ranges = [range(path, { lt: first })];
  let previous = first;
  for (const value of rest) {
    ranges.push(range(path, { gt: previous, lt: value }));
    previous = value;
  }
  ranges.push(range(path, { gt: previous }));
  return anyOf(ranges);
}

// ---------------------------------------------------------------------------------------------
// Field kinds

export const TYPE_NAMES: Record<FieldKind, string> = {
  string: 'string',
  number: 'number',
  time: 'date/timestamp',
  unknown: 'value',
};

export function queryableKind(field: EngineField): FieldKind | 'geometry' | 'array' | undefined {
  switch (field.queryable?.type) {
    case undefined:
      return undefined;
    case 'integer':
    case 'number':
      return 'number';
    case 'datetime':
      return 'time';
    case 'geometry':
      return 'geometry';
    case 'array':
      return 'array';
    case 'boolean':
      return 'unknown';
    default:
      return 'string';
  }
}

/** The kind of a property's values: registered type, declared mapping, else the live mapping. */
export function fieldKind(
  field: EngineField,
  mappedKind: (path: string) => FieldKind | 'absent',
): FieldKind | 'absent' {
  const registered = queryableKind(field);
  if (registered === 'geometry' || registered === 'array') return 'unknown';
  return registered ?? field.declared ?? mappedKind(field.path);
}

/** True when a field's kind is fixed by the registry or the base mapping (so mismatches are errors). */
export function isStaticKind(field: EngineField): boolean {
  return queryableKind(field) !== undefined || field.declared !== undefined;
}
