/**
 * Compiles the filter expression tree (shared/query/filter-ast.ts) into Elasticsearch /
 * OpenSearch query DSL, with the semantics of the SQLite filter compiler
 * (shared/search/sqlite/compile-filter.ts) wherever the engines can express them without scripts.
 *
 * Three-valued logic: every predicate compiles to a `test` and a `defined` clause; a record
 * satisfies it when both match, fails it when `defined` matches and `test` does not, and is
 * unknown otherwise. NOT swaps satisfied and failed, so NOT(x = 1) never selects a record
 * lacking x, exactly as SQL's NULL does in the SQLite backend.
 *
 * What the engines cannot do without scripts is refused with a FilterError (400) naming the
 * backend: comparing two properties, arithmetic on properties, LIKE with a computed pattern,
 * and the spatial relations the engines lack (see the README for the list).
 */
import type { Geometry, Position } from 'geojson';
import { FilterError, UnsupportedFilterError } from '../../errors/index.js';
import type { Bbox } from '../../records/core-record.js';
import { parseTimestamp, parseTimeValue } from '../../records/time.js';
import type {
  BboxLiteral,
  Expression,
  GeometryLiteral,
  OperatorNode,
} from '../../query/filter-ast.js';
import { printCql2Text } from '../../query/cql2/index.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import {
  matchesLike,
  readGeometry,
  relateArrays,
  relateGeometries,
  type ArrayRelationName,
  type SpatialRelationName,
} from '../../query/cql2-functions.js';
import { foldCase, stripAccents } from '../../query/text-folding.js';
import {
  compileExactSpatialRelation,
  hasFootprint,
  type EngineSpatialRelation,
} from './compile-spatial.js';
import {
  allOf,
  anyOf,
  exists,
  matchAll,
  matchNone,
  not,
  range,
  term,
  terms,
  type Query,
} from './dsl.js';
import {
  foldPath,
  resolveFilterProperty,
  TIME_RANGE_FIELD,
  type EngineField,
  type FieldKind,
  type FoldView,
  timeSpanPaths,
} from './engine-fields.js';
import type { SpatialMode } from './index-templates.js';
import { caseInsensitively } from './case-insensitive.js';
import { isBoxGeometry } from './engine-document.js';

/**
 * The field naming the properties a record has that their own field cannot show (an empty
 * array, a string beyond the keyword limit: engine-fields.ts, `presenceShowsOnField`).
 */
export const PRESENT_FIELD = 'has';

/** The records that have the property (its value may be an empty array): not NULL. */
function present(field: EngineField): Query {
  return anyOf([exists(field.path), term(PRESENT_FIELD, field.name)]);
}

/** What the compiler needs to know about the target index. */
export interface FilterContext {
  spatial: SpatialMode;
  /** The backend's name for messages: "Elasticsearch" or "OpenSearch". */
  engineName: string;
  /**
   * The mapped kind of a dynamic property field (`props.<name>`), or 'absent' when no record
   * has the property yet. Declared fields never reach this.
   */
  mappedKind(path: string): FieldKind | 'absent';
  /**
   * Collects, for each predicate the engine cannot answer exactly for every record, the
   * documents in doubt and the operator: the backend refuses the search when any document in
   * the query's scope is in doubt (engine-backend.ts). Absent: nothing is collected.
   */
  doubts?: { query: Query; operator: string }[];
}

// ---------------------------------------------------------------------------------------------
// Messages

/** The units FES distance operators accept (as the SQLite compiler does). */
const METRE_UNITS = new Set(['m', 'metre', 'meter', 'metres', 'meters']);

/** A short CQL2 text rendering of a sub-expression, for error messages. */
function describe(expression: Expression): string {
  // Operands as the SQLite compiler names them, so both backends give the same messages.
  if (expression.kind === 'property') {
    return /^[A-Za-z_][A-Za-z0-9_.:]*$/.test(expression.name)
      ? expression.name
      : `"${expression.name}"`;
  }
  if (expression.kind === 'op' && ['casei', 'accenti'].includes(expression.op.toLowerCase())) {
    return `${expression.op.toUpperCase()}(${expression.args.map(describe).join(', ')})`;
  }
  if (expression.kind === 'date') return `DATE('${expression.value}')`;
  if (expression.kind === 'timestamp') return `TIMESTAMP('${expression.value}')`;
  if (expression.kind === 'literal') {
    return typeof expression.value === 'string'
      ? `'${expression.value.replace(/'/g, "''")}'`
      : String(expression.value);
  }
  let text: string;
  try {
    text = printCql2Text(expression);
  } catch {
    text = expression.kind === 'op' ? `${expression.op}(…)` : expression.kind;
  }
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function opName(op: string): string {
  return /^[a-z]_/i.test(op) || op === 'casei' || op === 'accenti' ? op.toUpperCase() : op;
}

function unsupported(context: FilterContext, what: string, where: Expression): FilterError {
  return new UnsupportedFilterError(
    context.engineName,
    what,
    `The ${context.engineName} backend does not support ${what} (in ${describe(where)}); it needs engine scripts, which this deployment does not use`,
  );
}

function expectArity(node: OperatorNode, count: number): void {
  if (node.args.length !== count) {
    throw new FilterError(
      `${opName(node.op)} takes ${count} argument${count === 1 ? '' : 's'}, got ${node.args.length} in ${describe(node)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Predicates: a test and the condition under which it is defined (not NULL)

interface Predicate {
  test: Query;
  defined: Query;
}

const TRUE: Predicate = { test: matchAll(), defined: matchAll() };
const FALSE: Predicate = { test: matchNone(), defined: matchAll() };
const UNKNOWN: Predicate = { test: matchNone(), defined: matchNone() };

const constant = (value: boolean): Predicate => (value ? TRUE : FALSE);

/** The records where the predicate is TRUE (polarity true) or FALSE (polarity false). */
function select(predicate: Predicate, polarity: boolean): Query {
  return allOf([predicate.defined, polarity ? predicate.test : not(predicate.test)]);
}

// ---------------------------------------------------------------------------------------------
// Scalars

type Constant = string | number | boolean;

/** A time value: the first and last instant it covers (ISO strings, or ±Infinity when open). */
interface Span {
  lo: string | number;
  hi: string | number;
}

type Scalar =
  | { kind: 'constant'; value: Constant; expression: Expression }
  | { kind: 'time'; span: Span; expression: Expression }
  | {
      kind: 'field';
      field: EngineField;
      type: FieldKind | 'absent';
      view: FoldView;
      expression: Expression;
    };

const TYPE_NAMES: Record<FieldKind, string> = {
  string: 'string',
  number: 'number',
  time: 'date/timestamp',
  unknown: 'value',
};

function queryableKind(field: EngineField): FieldKind | 'geometry' | 'array' | undefined {
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
function fieldKind(field: EngineField, context: FilterContext): FieldKind | 'absent' {
  const registered = queryableKind(field);
  if (registered === 'geometry' || registered === 'array') return 'unknown';
  return registered ?? field.declared ?? context.mappedKind(field.path);
}

/** True when a field's kind is fixed by the registry or the base mapping (so mismatches are errors). */
function isStaticKind(field: EngineField): boolean {
  return queryableKind(field) !== undefined || field.declared !== undefined;
}

function timestampSpan(value: string, expression: Expression): Span {
  const timestamp = parseTimestamp(value);
  if (!timestamp) {
    throw new FilterError(`${describe(expression)} is not an RFC 3339 UTC timestamp`);
  }
  return { lo: timestamp, hi: timestamp };
}

function dateSpan(value: string, expression: Expression): Span {
  const span = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseTimeValue(value) : undefined;
  if (!span) throw new FilterError(`${describe(expression)} is not a calendar date`);
  return { lo: span.start, hi: span.end };
}

/** The view reached by applying CASEI or ACCENTI to a view. */
function composeView(view: FoldView, op: 'casei' | 'accenti'): FoldView {
  if (view === 'cai') return 'cai';
  if (op === 'casei') return view === 'ai' ? 'cai' : 'ci';
  return view === 'ci' ? 'cai' : 'ai';
}

const ARITHMETIC_OPS = new Set(['+', '-', '*', '/', '%', 'div', '^']);

function foldArithmetic(op: string, a: number, b: number): number | undefined {
  const results: Record<string, number> = {
    '+': a + b,
    '-': a - b,
    '*': a * b,
    '/': a / b,
    '%': a % b,
    div: Math.trunc(a / b),
    '^': a ** b,
  };
  const result = results[op];
  return Number.isFinite(result) ? result : undefined;
}

function compileScalar(expression: Expression, context: FilterContext): Scalar {
  switch (expression.kind) {
    case 'literal':
      return { kind: 'constant', value: expression.value, expression };
    case 'date':
      return { kind: 'time', span: dateSpan(expression.value, expression), expression };
    case 'timestamp':
      return { kind: 'time', span: timestampSpan(expression.value, expression), expression };
    case 'property': {
      const field = resolveFilterProperty(expression.name);
      const registered = queryableKind(field);
      if (registered === 'geometry') {
        throw new FilterError(
          `"${expression.name}" is a geometry; compare it with a spatial operator such as S_EQUALS`,
        );
      }
      if (registered === 'array') {
        throw new FilterError(
          `"${expression.name}" is an array; use an array operator such as A_CONTAINS or A_OVERLAPS`,
        );
      }
      return { kind: 'field', field, type: fieldKind(field, context), view: 'raw', expression };
    }
    case 'interval':
      throw new FilterError(
        `${describe(expression)} is an interval; intervals are only operands of temporal operators (T_*)`,
      );
    case 'geometry':
    case 'bbox':
      throw new FilterError(
        `${describe(expression)} is a geometry; geometries are only operands of spatial operators (S_*)`,
      );
    case 'array':
      throw new FilterError(
        `${describe(expression)} is an array; arrays are only operands of IN and array operators (A_*)`,
      );
    case 'op':
      return compileFunction(expression, context);
  }
}

function compileFunction(node: OperatorNode, context: FilterContext): Scalar {
  const op = node.op.toLowerCase();
  if (op === 'casei' || op === 'accenti') {
    expectArity(node, 1);
    const argument = compileScalar(node.args[0], context);
    const fold = op === 'casei' ? foldCase : stripAccents;
    if (argument.kind === 'constant' && typeof argument.value === 'string') {
      return { kind: 'constant', value: fold(argument.value), expression: node };
    }
    if (
      argument.kind === 'field' &&
      (argument.type === 'string' || !isStaticKind(argument.field))
    ) {
      // The folded value is a string, whatever the field holds (as on SQLite).
      return {
        ...argument,
        type: argument.type === 'absent' ? 'absent' : 'string',
        view: composeView(argument.view, op),
        expression: node,
      };
    }
    const type =
      argument.kind === 'time'
        ? 'date/timestamp'
        : argument.kind === 'constant'
          ? typeof argument.value
          : TYPE_NAMES[argument.type === 'absent' ? 'unknown' : argument.type];
    throw new FilterError(
      `${opName(op)} needs a string, but ${describe(node.args[0])} is a ${type}`,
    );
  }
  if (ARITHMETIC_OPS.has(op)) {
    expectArity(node, 2);
    const [a, b] = node.args.map((argument) => compileScalar(argument, context));
    if (
      a.kind === 'constant' &&
      b.kind === 'constant' &&
      typeof a.value === 'number' &&
      typeof b.value === 'number'
    ) {
      const folded = foldArithmetic(op, a.value, b.value);
      if (folded !== undefined) return { kind: 'constant', value: folded, expression: node };
    }
    for (const operand of [a, b]) {
      if (operand.kind === 'constant' && typeof operand.value !== 'number') {
        throw new FilterError(
          `"${op}" needs numbers, but ${describe(operand.expression)} is a ${typeof operand.value}`,
        );
      }
    }
    throw unsupported(context, 'arithmetic on properties', node);
  }
  if (PREDICATE_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a predicate and cannot be used as a value`);
  }
  throw unknownFunction(node);
}

function unknownFunction(node: OperatorNode): FilterError {
  return new FilterError(
    `Unknown function "${node.op}" in ${describe(node)}; this catalogue offers no custom functions`,
  );
}

// ---------------------------------------------------------------------------------------------
// Field clauses on a view (raw or folded copy)

/**
 * A clause on the chosen view of a field. Folded copies exist only where the value itself
 * cannot stand for its view: a `ci` copy for text beyond ASCII (plain ASCII is compared on the
 * value, case-insensitively), an `ai` copy where stripping accents changes the value, a `cai`
 * copy where that differs from the CASEI view. So a record without the view's copy is compared
 * on the next one along the chain, and at last on its raw value (engine-document.ts).
 */
function onView(field: EngineField, view: FoldView, build: (path: string) => Query): Query {
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
function engineValue(value: Constant): string | number {
  return typeof value === 'boolean' ? String(value) : value;
}

// ---------------------------------------------------------------------------------------------
// Comparisons

type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

const FLIPPED: Record<ComparisonOp, ComparisonOp> = {
  '=': '=',
  '<>': '<>',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

function compareConstants(op: ComparisonOp, a: Constant | number, b: Constant | number): boolean {
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
const instant = (value: string | number): Span => ({ lo: value, hi: value });

/** Orders two span bounds: ISO strings in time order, ±Infinity below and above them all. */
function compareBounds(a: string | number, b: string | number): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const rank = (x: string | number): number => (typeof x === 'string' ? 0 : Math.sign(x));
  return rank(a) - rank(b);
}

/** Compares two spans at the coarser granularity, as the SQLite compiler does. */
function compareSpans(op: ComparisonOp, x: Span, y: Span): boolean {
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
function spanClause(
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

function valueClause(path: string, op: ComparisonOp, value: string | number): Query {
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

function timeText(value: Constant): Span | undefined {
  if (typeof value !== 'string') return undefined;
  const span = parseTimeValue(value);
  return span ? { lo: span.start, hi: span.end } : undefined;
}

function constantType(value: Constant): string {
  return typeof value;
}

/** The comparison `field op other` where other is a constant or a time literal. */
function compareField(
  node: Expression,
  op: ComparisonOp,
  field: Extract<Scalar, { kind: 'field' }>,
  other: Extract<Scalar, { kind: 'constant' } | { kind: 'time' }>,
): Predicate {
  if (field.type === 'absent') return UNKNOWN;
  const defined = exists(field.field.path);
  const mismatch = (otherType: string): Predicate => {
    if (!isStaticKind(field.field) && field.view === 'raw') return UNKNOWN;
    throw new FilterError(
      `Cannot compare ${describe(other.expression)} (${otherType}) with ${describe(field.expression)} (${TYPE_NAMES[field.type === 'absent' ? 'unknown' : field.type]}) in ${describe(node)}`,
    );
  };
  const span =
    other.kind === 'time' ? other.span : field.type === 'time' ? timeText(other.value) : undefined;
  if (field.type === 'time') {
    if (!span) return mismatch(other.kind === 'constant' ? constantType(other.value) : 'time');
    return { test: spanClause(field.field.path, op, span), defined };
  }
  if (span && other.kind === 'time') {
    // A time literal against a string property: the span each date-like value stands for
    // (engine-fields.ts, `timeSpanPaths`); a value that is not a time is NULL.
    if (field.type === 'number' || isStaticKind(field.field)) return mismatch('date/timestamp');
    if (field.view === 'raw') {
      const paths = timeSpanPaths(field.field);
      return { test: spanClause(paths, op, span), defined: exists(paths.lo) };
    }
    return { test: onView(field.field, field.view, (path) => spanClause(path, op, span)), defined };
  }
  const value = (other as Extract<Scalar, { kind: 'constant' }>).value;
  if (field.type === 'number' && typeof value !== 'number') return mismatch(constantType(value));
  if (field.type === 'string' && typeof value === 'number') return mismatch('number');
  const engine = engineValue(value);
  return {
    test: onView(field.field, field.view, (path) => valueClause(path, op, engine)),
    defined,
  };
}

function compileComparison(
  node: OperatorNode,
  op: ComparisonOp,
  context: FilterContext,
): Predicate {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileScalar(argument, context));
  if (a.kind === 'field' && b.kind === 'field') {
    throw unsupported(context, 'comparing two properties', node);
  }
  if (a.kind === 'field') return compareField(node, op, a, b as Exclude<Scalar, { kind: 'field' }>);
  if (b.kind === 'field') return compareField(node, FLIPPED[op], b, a);
  // Two literals.
  if (a.kind === 'time' || b.kind === 'time') {
    const spanOf = (scalar: Exclude<Scalar, { kind: 'field' }>): Span | undefined =>
      scalar.kind === 'time' ? scalar.span : timeText(scalar.value);
    const [x, y] = [spanOf(a), spanOf(b)];
    if (!x || !y) throw new FilterError(`Cannot compare the values of ${describe(node)}`);
    return constant(compareSpans(op, x, y));
  }
  if (typeof a.value !== typeof b.value) {
    throw new FilterError(
      `Cannot compare ${describe(a.expression)} (${typeof a.value}) with ${describe(b.expression)} (${typeof b.value}) in ${describe(node)}`,
    );
  }
  return constant(compareConstants(op, a.value, b.value));
}

// ---------------------------------------------------------------------------------------------
// LIKE, BETWEEN, IN, IS NULL

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

function compileLike(node: OperatorNode, context: FilterContext): Predicate {
  expectArity(node, 2);
  const [value, pattern] = node.args.map((argument) => compileScalar(argument, context));
  for (const [index, scalar] of [value, pattern].entries()) {
    const nonString =
      scalar.kind === 'time' ||
      (scalar.kind === 'constant' && typeof scalar.value !== 'string') ||
      (scalar.kind === 'field' && isStaticKind(scalar.field) && scalar.type !== 'string');
    if (nonString) {
      const type =
        scalar.kind === 'time'
          ? 'date/timestamp'
          : scalar.kind === 'constant'
            ? typeof scalar.value
            : TYPE_NAMES[scalar.type === 'absent' ? 'unknown' : scalar.type];
      throw new FilterError(`LIKE needs strings, but ${describe(node.args[index])} is a ${type}`);
    }
  }
  if (pattern.kind !== 'constant') {
    if (value.kind === 'field') throw unsupported(context, 'LIKE with a computed pattern', node);
    throw unsupported(context, 'LIKE with a property as the pattern', node);
  }
  const wildcard = likeToWildcard(String(pattern.value));
  if (value.kind === 'constant')
    return constant(matchesLike(String(value.value), String(pattern.value)));
  if (value.kind !== 'field') throw new FilterError(`LIKE needs strings in ${describe(node)}`);
  if (value.type === 'absent' || value.type === 'number' || value.type === 'time') return UNKNOWN;
  return {
    test: onView(value.field, value.view, (path) => ({
      wildcard: { [path]: { value: wildcard } },
    })),
    defined: exists(value.field.path),
  };
}

function compileBetween(node: OperatorNode, context: FilterContext): Predicate {
  expectArity(node, 3);
  const [value, low, high] = node.args;
  const lower = compileComparison({ kind: 'op', op: '>=', args: [value, low] }, '>=', context);
  const upper = compileComparison({ kind: 'op', op: '<=', args: [value, high] }, '<=', context);
  return { test: allOf([lower.test, upper.test]), defined: allOf([lower.defined, upper.defined]) };
}

function compileIn(node: OperatorNode, context: FilterContext): Predicate {
  expectArity(node, 2);
  const list = node.args[1];
  if (list.kind !== 'array') {
    throw new FilterError(`IN needs a list of values in parentheses in ${describe(node)}`);
  }
  if (list.items.length === 0) return FALSE;
  const value = compileScalar(node.args[0], context);
  const items = list.items.map((item) => compileScalar(item, context));
  if (items.some((item) => item.kind === 'field')) {
    throw unsupported(context, 'IN lists with properties', node);
  }
  const parts = items.map((item) =>
    compileComparison({ kind: 'op', op: '=', args: [node.args[0], item.expression] }, '=', context),
  );
  if (value.kind === 'field') {
    // Plain values of the field's kind become one terms clause.
    const simple = items.every(
      (item) =>
        item.kind === 'constant' &&
        (value.type === 'number'
          ? typeof item.value === 'number'
          : value.type === 'string' && typeof item.value !== 'number'),
    );
    if (simple) {
      const values = items.map((item) => engineValue((item as { value: Constant }).value));
      return {
        test: onView(value.field, value.view, (path) => terms(path, values)),
        defined: exists(value.field.path),
      };
    }
  }
  return {
    test: anyOf(parts.map((part) => part.test)),
    defined: anyOf(parts.map((part) => part.defined)),
  };
}

function compileIsNull(node: OperatorNode, context: FilterContext): Predicate {
  expectArity(node, 1);
  const argument = node.args[0];
  if (argument.kind === 'property') {
    const field = resolveFilterProperty(argument.name);
    if (field.queryable?.type === 'geometry') {
      // The box fields are written in both modes, also where the engine dropped a geometry
      // it found malformed (shape mode): they tell whether the record has a footprint.
      return { test: not(hasFootprint('envelope')), defined: matchAll() };
    }
    return { test: not(present(field)), defined: matchAll() };
  }
  if (['interval', 'geometry', 'bbox', 'array'].includes(argument.kind)) return FALSE;
  const scalar = compileScalar(argument, context);
  if (scalar.kind === 'field') {
    return { test: not(present(scalar.field)), defined: matchAll() };
  }
  return FALSE;
}

// ---------------------------------------------------------------------------------------------
// Temporal operators

/** Names that mean the record's whole time interval in temporal operators. */
const RECORD_INTERVAL_NAMES = new Set(['datetime', 'time']);

/**
 * One end of a time value: a fixed span, or a field holding instants. A field end of the
 * record's own interval is open (±Infinity) when the record has a time but not that bound.
 */
type TimeEnd =
  | { kind: 'fixed'; span: Span }
  | {
      kind: 'field';
      path: string;
      open?: number;
      field?: EngineField;
      view: FoldView;
      /** The field holds instants (mapped as dates), not date-like strings. */
      time?: boolean;
    };

interface TimeOperand {
  start: TimeEnd;
  end: TimeEnd;
  interval: boolean;
}

const OPEN_START: TimeEnd = { kind: 'fixed', span: { lo: -Infinity, hi: -Infinity } };
const OPEN_END: TimeEnd = { kind: 'fixed', span: { lo: Infinity, hi: Infinity } };

function scalarTimeEnd(scalar: Scalar, expression: Expression): TimeEnd | 'absent' {
  if (scalar.kind === 'time') return { kind: 'fixed', span: scalar.span };
  if (scalar.kind === 'field') {
    if (scalar.type === 'absent') return 'absent';
    // A registered or declared property that is not a time is refused, as on SQLite.
    if (scalar.type === 'time' || !isStaticKind(scalar.field)) {
      if (scalar.type === 'number') return 'absent';
      return {
        kind: 'field',
        path: scalar.field.path,
        field: scalar.field,
        view: scalar.view,
        time: scalar.type === 'time',
      };
    }
  }
  throw new FilterError(
    `Temporal operators need dates, timestamps or intervals; ${describe(expression)} is not one`,
  );
}

function intervalEnd(
  expression: Expression,
  side: 'start' | 'end',
  context: FilterContext,
): TimeEnd | 'absent' {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? OPEN_START : OPEN_END;
  }
  const scalar = compileScalar(expression, context);
  if (scalar.kind === 'constant') {
    const span = timeText(scalar.value);
    if (!span) {
      throw new FilterError(
        `An interval end must be a date, a timestamp, '..' or a property; ${describe(expression)} is a ${typeof scalar.value}`,
      );
    }
    return { kind: 'fixed', span };
  }
  return scalarTimeEnd(scalar, expression);
}

function compileTimeOperand(
  expression: Expression,
  context: FilterContext,
): TimeOperand | 'absent' {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start', context);
    const end = intervalEnd(expression.end, 'end', context);
    if (start === 'absent' || end === 'absent') return 'absent';
    if (
      start.kind === 'fixed' &&
      end.kind === 'fixed' &&
      typeof start.span.lo === 'string' &&
      typeof end.span.hi === 'string' &&
      start.span.lo > end.span.hi
    ) {
      throw new FilterError(`${describe(expression)} starts after it ends`);
    }
    return { start, end, interval: true };
  }
  if (expression.kind === 'property' && RECORD_INTERVAL_NAMES.has(expression.name)) {
    const field = resolveFilterProperty(expression.name);
    if (field.queryable?.name === 'start_datetime') {
      return {
        start: { kind: 'field', path: 'time.start', open: -Infinity, view: 'raw' },
        end: { kind: 'field', path: 'time.end', open: Infinity, view: 'raw' },
        interval: true,
      };
    }
  }
  const scalar = compileScalar(expression, context);
  if (scalar.kind === 'constant') {
    throw new FilterError(
      `Temporal operators need dates, timestamps or intervals; ${describe(expression)} is a ${typeof scalar.value}`,
    );
  }
  const end = scalarTimeEnd(scalar, expression);
  if (end === 'absent') return 'absent';
  return { start: end, end, interval: false };
}

type SpanOp = 'lt' | 'gt' | 'le' | 'eq';

const SPAN_OPS: Record<SpanOp, ComparisonOp> = { lt: '<', gt: '>', le: '<=', eq: '=' };

/** `x op y` on two time ends, at most one of which is a field. */
function compareEnds(
  op: SpanOp,
  x: TimeEnd,
  y: TimeEnd,
  node: Expression,
  context: FilterContext,
): Query {
  if (x.kind === 'fixed' && y.kind === 'fixed') {
    return compareSpans(SPAN_OPS[op], x.span, y.span) ? matchAll() : matchNone();
  }
  if (x.kind === 'field' && y.kind === 'field') {
    throw unsupported(context, 'temporal operators between two properties', node);
  }
  const [field, fixed, comparison] =
    x.kind === 'field'
      ? [x, (y as Extract<TimeEnd, { kind: 'fixed' }>).span, SPAN_OPS[op]]
      : [y as Extract<TimeEnd, { kind: 'field' }>, x.span, FLIPPED[SPAN_OPS[op]]];
  // Values of the field are instants; compare them with the fixed span's bounds. A fixed end
  // is either a finite span or open (±Infinity), which every instant compares with alike.
  // (The clause is only used where every end is defined, so "true for every value" is match_all.)
  const openTruth =
    field.open !== undefined && compareSpans(comparison, instant(field.open), fixed);
  const missingOpen = allOf([exists(TIME_RANGE_FIELD), not(exists(field.path))]);
  if (typeof fixed.lo !== 'string' || typeof fixed.hi !== 'string') {
    const valueTruth = compareSpans(comparison, instant(''), fixed);
    if (valueTruth) return field.open === undefined || openTruth ? matchAll() : exists(field.path);
    return openTruth ? missingOpen : matchNone();
  }
  const build = (path: string): Query => spanClause(path, comparison, fixed);
  const spans = spanPathsOf(field);
  const valued = spans
    ? spanClause(spans, comparison, fixed)
    : field.field
      ? onView(field.field, field.view, build)
      : build(field.path);
  return openTruth ? anyOf([valued, missingOpen]) : valued;
}

/**
 * The span fields of a time end read from a string property (raw view): its values are
 * compared by the spans they stand for, not as instants.
 */
function spanPathsOf(
  end: Extract<TimeEnd, { kind: 'field' }>,
): { lo: string; hi: string } | undefined {
  if (!end.field || end.view !== 'raw' || end.kind !== 'field' || end.time) return undefined;
  return timeSpanPaths(end.field);
}

function endDefined(end: TimeEnd): Query {
  if (end.kind === 'fixed') return matchAll();
  if (end.open !== undefined) return exists(TIME_RANGE_FIELD);
  const spans = spanPathsOf(end);
  if (spans) return exists(spans.lo);
  return exists(end.field?.path ?? end.path);
}

const TEMPORAL_OPS: Readonly<Record<string, { intervalsOnly: boolean }>> = {
  t_after: { intervalsOnly: false },
  t_before: { intervalsOnly: false },
  t_disjoint: { intervalsOnly: false },
  t_equals: { intervalsOnly: false },
  t_intersects: { intervalsOnly: false },
  t_contains: { intervalsOnly: true },
  t_during: { intervalsOnly: true },
  t_finishedby: { intervalsOnly: true },
  t_finishes: { intervalsOnly: true },
  t_meets: { intervalsOnly: true },
  t_metby: { intervalsOnly: true },
  t_overlappedby: { intervalsOnly: true },
  t_overlaps: { intervalsOnly: true },
  t_startedby: { intervalsOnly: true },
  t_starts: { intervalsOnly: true },
};

function compileTemporal(node: OperatorNode, op: string, context: FilterContext): Predicate {
  expectArity(node, 2);
  const operands = node.args.map((argument) => compileTimeOperand(argument, context));
  if (TEMPORAL_OPS[op].intervalsOnly) {
    node.args.forEach((argument, index) => {
      const operand = operands[index];
      if (operand !== 'absent' && !operand.interval) {
        throw new FilterError(
          `${opName(node.op)} compares intervals, but ${describe(argument)} is an instant; use INTERVAL(…) or T_AFTER, T_BEFORE, T_DISJOINT, T_EQUALS, T_INTERSECTS`,
        );
      }
    });
  }
  const [a, b] = operands;
  if (a === 'absent' || b === 'absent') return UNKNOWN;
  const c = (o: SpanOp, x: TimeEnd, y: TimeEnd): Query => compareEnds(o, x, y, node, context);
  const lt = (x: TimeEnd, y: TimeEnd): Query => c('lt', x, y);
  const gt = (x: TimeEnd, y: TimeEnd): Query => c('gt', x, y);
  const le = (x: TimeEnd, y: TimeEnd): Query => c('le', x, y);
  const eq = (x: TimeEnd, y: TimeEnd): Query => c('eq', x, y);
  let test: Query;
  switch (op) {
    case 't_before':
      test = lt(a.end, b.start);
      break;
    case 't_after':
      test = gt(a.start, b.end);
      break;
    case 't_meets':
      test = eq(a.end, b.start);
      break;
    case 't_metby':
      test = eq(a.start, b.end);
      break;
    case 't_overlaps':
      test = allOf([lt(a.start, b.start), lt(b.start, a.end), lt(a.end, b.end)]);
      break;
    case 't_overlappedby':
      test = allOf([lt(b.start, a.start), lt(a.start, b.end), lt(b.end, a.end)]);
      break;
    case 't_starts':
      test = allOf([eq(a.start, b.start), lt(a.end, b.end)]);
      break;
    case 't_startedby':
      test = allOf([eq(a.start, b.start), gt(a.end, b.end)]);
      break;
    case 't_during':
      test = allOf([gt(a.start, b.start), lt(a.end, b.end)]);
      break;
    case 't_contains':
      test = allOf([lt(a.start, b.start), gt(a.end, b.end)]);
      break;
    case 't_finishes':
      test = allOf([gt(a.start, b.start), eq(a.end, b.end)]);
      break;
    case 't_finishedby':
      test = allOf([lt(a.start, b.start), eq(a.end, b.end)]);
      break;
    case 't_equals':
      test = allOf([eq(a.start, b.start), eq(a.end, b.end)]);
      break;
    case 't_disjoint':
      test = anyOf([lt(a.end, b.start), gt(a.start, b.end)]);
      break;
    default:
      test = allOf([le(a.start, b.end), le(b.start, a.end)]);
  }
  const defined = allOf([a.start, a.end, b.start, b.end].map(endDefined));
  return { test, defined };
}

// ---------------------------------------------------------------------------------------------
// Spatial operators

const SPATIAL_OPS: Readonly<Record<string, SpatialRelationName>> = {
  s_intersects: 'intersects',
  s_disjoint: 'disjoint',
  s_equals: 'equals',
  s_touches: 'touches',
  s_crosses: 'crosses',
  s_overlaps: 'overlaps',
  s_within: 'within',
  s_contains: 'contains',
};

const CONVERSE: Readonly<Record<SpatialRelationName, SpatialRelationName>> = {
  intersects: 'intersects',
  disjoint: 'disjoint',
  equals: 'equals',
  touches: 'touches',
  crosses: 'crosses',
  overlaps: 'overlaps',
  within: 'contains',
  contains: 'within',
};

/**
 * The relations each spatial mode evaluates: the engine's geo_shape relations in `shape` mode;
 * in `envelope` mode the same on bounding boxes; equality on the boxes in both (proven only
 * where footprint and operand are boxes: compile-spatial.ts).
 */
const ENGINE_RELATIONS: Record<SpatialMode, ReadonlySet<SpatialRelationName>> = {
  shape: new Set(['intersects', 'disjoint', 'within', 'contains', 'equals']),
  envelope: new Set(['intersects', 'disjoint', 'within', 'contains', 'equals']),
};

type SpatialOperand =
  { kind: 'record' } | { kind: 'literal'; geometry: Geometry; bbox: Bbox; isBox: boolean };

function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case 'Point':
      return [geometry.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
    case 'GeometryCollection':
      return geometry.geometries.flatMap(positionsOf);
  }
}

function checkPosition(position: Position, where: Expression): void {
  const [x, y] = position;
  if (position.length < 2 || !position.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new FilterError(`${describe(where)} has a coordinate that is not a number pair`);
  }
  if (x < -180 || x > 180 || y < -90 || y > 90) {
    throw new FilterError(
      `${describe(where)} has the coordinate (${x} ${y}) outside CRS84 (longitude ±180, latitude ±90)`,
    );
  }
}

function compileBboxLiteral(expression: BboxLiteral): SpatialOperand {
  const numbers = expression.bbox;
  if (numbers.length !== 4 && numbers.length !== 6) {
    throw new FilterError(`${describe(expression)} must have 4 or 6 numbers`);
  }
  const [west, south, east, north] =
    numbers.length === 4 ? numbers : [numbers[0], numbers[1], numbers[3], numbers[4]];
  checkPosition([west, south], expression);
  checkPosition([east, north], expression);
  if (south > north) {
    throw new FilterError(`${describe(expression)} has its south edge above its north edge`);
  }
  const bbox: Bbox = [west, south, east, north];
  return { kind: 'literal', geometry: bboxToGeometry(bbox), bbox, isBox: true };
}

function compileGeometryLiteral(expression: GeometryLiteral): SpatialOperand {
  const positions = positionsOf(expression.geometry);
  if (positions.length === 0) throw new FilterError(`${describe(expression)} is empty`);
  for (const position of positions) checkPosition(position, expression);
  let valid: boolean;
  try {
    valid = readGeometry(expression.geometry).isValid();
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new FilterError(
      `${describe(expression)} is not a valid geometry (for example a self-intersecting or unclosed ring)`,
    );
  }
  const xs = positions.map((position) => position[0]);
  const ys = positions.map((position) => position[1]);
  const bbox: Bbox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  return {
    kind: 'literal',
    geometry: expression.geometry,
    bbox,
    isBox: isBoxGeometry(expression.geometry),
  };
}

function compileSpatialOperand(
  expression: Expression,
  node: OperatorNode,
  context: FilterContext,
): SpatialOperand {
  switch (expression.kind) {
    case 'bbox':
      return compileBboxLiteral(expression);
    case 'geometry':
      return compileGeometryLiteral(expression);
    case 'property': {
      const field = resolveFilterProperty(expression.name);
      if (field.queryable?.type === 'geometry') return { kind: 'record' };
      throw new FilterError(
        `${opName(node.op)} needs geometries, but "${expression.name}" is not a spatial property; the geometry queryable is "geometry" (alias "geom")`,
      );
    }
    default:
      compileScalar(expression, context);
      throw new FilterError(
        `${opName(node.op)} needs geometries, but ${describe(expression)} is not a geometry`,
      );
  }
}

function compileSpatial(node: OperatorNode, op: string, context: FilterContext): Predicate {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileSpatialOperand(argument, node, context));
  const relation = SPATIAL_OPS[op];
  if (a.kind === 'literal' && b.kind === 'literal') {
    return constant(relateGeometries(relation, readGeometry(a.geometry), readGeometry(b.geometry)));
  }
  if (a.kind === 'record' && b.kind === 'record') {
    throw unsupported(context, 'spatial relations between two record geometries', node);
  }
  const literal = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const recordRelation = a.kind === 'record' ? relation : CONVERSE[relation];
  const relations = ENGINE_RELATIONS[context.spatial];
  if (!relations.has(recordRelation)) {
    throw new UnsupportedFilterError(
      context.engineName,
      opName(op),
      `The ${context.engineName} backend does not support ${opName(op)} in spatial mode "${context.spatial}" (it offers ${[...relations].map((name) => `S_${name.toUpperCase()}`).join(', ')})`,
    );
  }
  const atom = compileExactSpatialRelation(
    context.spatial,
    recordRelation as EngineSpatialRelation,
    literal,
  );
  if (atom.doubt) context.doubts?.push({ query: atom.doubt, operator: opName(node.op) });
  return { test: atom.test, defined: atom.defined };
}

// ---------------------------------------------------------------------------------------------
// Array operators

const ARRAY_OPS: Readonly<Record<string, ArrayRelationName>> = {
  a_equals: 'equals',
  a_contains: 'contains',
  a_containedby: 'containedBy',
  a_overlaps: 'overlaps',
};

const ARRAY_CONVERSE: Readonly<Record<ArrayRelationName, ArrayRelationName>> = {
  equals: 'equals',
  overlaps: 'overlaps',
  contains: 'containedBy',
  containedBy: 'contains',
};

type ArrayOperand =
  | { kind: 'literal'; items: unknown[] }
  | { kind: 'field'; field: EngineField; type: FieldKind | 'absent' };

function arrayItemValue(expression: Expression, context: FilterContext): unknown {
  if (expression.kind === 'array')
    return expression.items.map((item) => arrayItemValue(item, context));
  if (expression.kind === 'date' || expression.kind === 'timestamp') return expression.value;
  const scalar = compileScalar(expression, context);
  if (scalar.kind !== 'constant') {
    throw new FilterError(`Array items must be literals; ${describe(expression)} is not`);
  }
  return scalar.value;
}

function compileArrayOperand(
  expression: Expression,
  node: OperatorNode,
  context: FilterContext,
): ArrayOperand {
  if (expression.kind === 'array') {
    return {
      kind: 'literal',
      items: expression.items.map((item) => arrayItemValue(item, context)),
    };
  }
  if (expression.kind === 'property') {
    const field = resolveFilterProperty(expression.name);
    const registered = queryableKind(field);
    if (registered === 'geometry' || registered === 'time' || field.declared === 'time') {
      throw new FilterError(
        `${opName(node.op)} needs arrays, but "${expression.name}" is a ${registered === 'geometry' ? 'geometry' : 'date/timestamp'}`,
      );
    }
    const type = registered === 'array' ? 'string' : fieldKind(field, context);
    return { kind: 'field', field, type };
  }
  throw new FilterError(
    `${opName(node.op)} needs arrays, but ${describe(expression)} is not an array or a property`,
  );
}

/** Orders values as the engine orders a field's terms (UTF-8 bytes for keywords). */
function engineOrder(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}

/** Records with some value of the field outside the set: the open ranges between its members. */
function someValueOutside(path: string, values: (string | number)[]): Query {
  const sorted = [...new Set(values)].sort(engineOrder);
  if (sorted.length === 0) return exists(path);
  const ranges = [range(path, { lt: sorted[0] })];
  for (let i = 1; i < sorted.length; i += 1) {
    ranges.push(range(path, { gt: sorted[i - 1], lt: sorted[i] }));
  }
  ranges.push(range(path, { gt: sorted[sorted.length - 1] }));
  return anyOf(ranges);
}

function compileArrayRelation(node: OperatorNode, op: string, context: FilterContext): Predicate {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileArrayOperand(argument, node, context));
  const relation = ARRAY_OPS[op];
  if (a.kind === 'literal' && b.kind === 'literal') {
    return constant(relateArrays(relation, a.items, b.items));
  }
  if (a.kind === 'field' && b.kind === 'field') {
    throw unsupported(context, 'array relations between two properties', node);
  }
  const [field, literal, fieldRelation] =
    a.kind === 'field'
      ? [a, b as Extract<ArrayOperand, { kind: 'literal' }>, relation]
      : [b as Extract<ArrayOperand, { kind: 'field' }>, a, ARRAY_CONVERSE[relation]];
  if (field.type === 'absent') return UNKNOWN;
  if (literal.items.some((item) => Array.isArray(item) || item === null)) {
    throw unsupported(context, 'nested arrays in array operators', node);
  }
  // Items that cannot be values of the field are never among its elements.
  const items = literal.items.map((item) => engineValue(item as Constant));
  const comparable = items.filter((item) =>
    field.type === 'number' ? typeof item === 'number' : typeof item === 'string',
  );
  const path = field.field.path;
  const defined = present(field.field);
  const contains = (): Query =>
    comparable.length < new Set(items).size
      ? matchNone()
      : allOf(comparable.map((item) => term(path, item)));
  const containedBy = (): Query => not(someValueOutside(path, comparable));
  switch (fieldRelation) {
    case 'overlaps':
      return { test: terms(path, comparable), defined };
    case 'contains':
      return { test: contains(), defined };
    case 'containedBy':
      return { test: containedBy(), defined };
    case 'equals':
      return { test: allOf([contains(), containedBy()]), defined };
  }
}

// ---------------------------------------------------------------------------------------------
// Boolean structure

const COMPARISON_OPS = new Set(['=', '<>', '<', '<=', '>', '>=']);

const PREDICATE_OPS = new Set([
  'and',
  'or',
  'not',
  'like',
  'between',
  'in',
  'isnull',
  ...COMPARISON_OPS,
  ...Object.keys(SPATIAL_OPS),
  ...Object.keys(ARRAY_OPS),
  ...Object.keys(TEMPORAL_OPS),
]);

function compileOperator(node: OperatorNode, context: FilterContext): Predicate {
  const op = node.op.toLowerCase();
  switch (op) {
    case 'like':
      return compileLike(node, context);
    case 'between':
      return compileBetween(node, context);
    case 'in':
      return compileIn(node, context);
    case 'isnull':
      return compileIsNull(node, context);
  }
  if (COMPARISON_OPS.has(op)) return compileComparison(node, op as ComparisonOp, context);
  if (op in SPATIAL_OPS) return compileSpatial(node, op, context);
  if (op in TEMPORAL_OPS) return compileTemporal(node, op, context);
  if (op in ARRAY_OPS) return compileArrayRelation(node, op, context);
  if (op === 's_dwithin' || op === 's_beyond') {
    const units = node.args[3];
    if (units && !(units.kind === 'literal' && METRE_UNITS.has(String(units.value)))) {
      throw new FilterError(`The distance of ${describe(node)} must be in metres`);
    }
    throw unsupported(context, 'distance operators (DWithin, Beyond)', node);
  }
  if (op === 'casei' || op === 'accenti' || ARITHMETIC_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a value, not a condition`);
  }
  throw unknownFunction(node);
}

/** The records where the expression is TRUE (polarity true) or FALSE (polarity false). */
function compileBoolean(expression: Expression, polarity: boolean, context: FilterContext): Query {
  switch (expression.kind) {
    case 'literal':
      if (typeof expression.value === 'boolean') {
        return expression.value === polarity ? matchAll() : matchNone();
      }
      throw new FilterError(`${describe(expression)} is not a condition`);
    case 'property': {
      const scalar = compileScalar(expression, context);
      if (scalar.kind !== 'field' || (isStaticKind(scalar.field) && scalar.type !== 'unknown')) {
        throw new FilterError(`"${expression.name}" is not a boolean property and not a condition`);
      }
      if (scalar.type === 'absent') return matchNone();
      return allOf([exists(scalar.field.path), term(scalar.field.path, String(polarity))]);
    }
    case 'op': {
      const op = expression.op.toLowerCase();
      if (op === 'and' || op === 'or') {
        const parts = expression.args.map((argument) =>
          compileBoolean(argument, polarity, context),
        );
        // AND is TRUE when all are; FALSE when any is (OR the other way round).
        return (op === 'and') === polarity ? allOf(parts) : anyOf(parts);
      }
      if (op === 'not') {
        expectArity(expression, 1);
        return compileBoolean(expression.args[0], !polarity, context);
      }
      return select(compileOperator(expression, context), polarity);
    }
    default:
      throw new FilterError(`${describe(expression)} is not a condition`);
  }
}

/**
 * Compiles a filter expression into one DSL clause that matches exactly the records the filter
 * selects (where it is TRUE). Throws FilterError (400) for unknown functions, wrong operand
 * types, invalid literals and what the engines cannot evaluate without scripts.
 */
export function compileFilterDsl(filter: Expression, context: FilterContext): Query {
  return compileBoolean(filter, true, context);
}
