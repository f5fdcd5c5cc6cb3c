/**
 * The one operator table of the filter language: every operator the filter tree may hold, as
 * the CQL2 JSON encoding spells it (FES DWithin/Beyond add `s_dwithin`/`s_beyond`), with its
 * class and arity. The CQL2 parsers and printers, the filter checker (shared/query/check-filter.ts)
 * and the backends all read it; nothing else lists operators.
 */

/** What an operator is, which decides where it may stand and what its operands are. */
export type OperatorClass =
  | 'logical'
  | 'comparison'
  | 'like'
  | 'between'
  | 'in'
  | 'isNull'
  | 'fold'
  | 'arithmetic'
  | 'spatial'
  | 'distance'
  | 'temporal'
  | 'array';

interface OperatorInfo {
  class: OperatorClass;
  /** Fewest and most arguments. */
  arity: readonly [number, number];
  /** Part of CQL2 (false: only other filter languages build it). */
  cql2: boolean;
}

const n = <C extends OperatorClass>(cls: C, min: number, max = min, cql2 = true) => ({
  class: cls,
  arity: [min, max] as const,
  cql2,
});

/** Every operator, by its canonical (CQL2 JSON) name. */
export const OPERATORS = {
  and: n('logical', 0, Infinity),
  or: n('logical', 0, Infinity),
  not: n('logical', 1),
  '=': n('comparison', 2),
  '<>': n('comparison', 2),
  '<': n('comparison', 2),
  '>': n('comparison', 2),
  '<=': n('comparison', 2),
  '>=': n('comparison', 2),
  like: n('like', 2),
  between: n('between', 3),
  in: n('in', 2),
  isNull: n('isNull', 1),
  casei: n('fold', 1),
  accenti: n('fold', 1),
  '+': n('arithmetic', 2),
  '-': n('arithmetic', 2),
  '*': n('arithmetic', 2),
  '/': n('arithmetic', 2),
  '%': n('arithmetic', 2),
  div: n('arithmetic', 2),
  '^': n('arithmetic', 2),
  s_contains: n('spatial', 2),
  s_crosses: n('spatial', 2),
  s_disjoint: n('spatial', 2),
  s_equals: n('spatial', 2),
  s_intersects: n('spatial', 2),
  s_overlaps: n('spatial', 2),
  s_touches: n('spatial', 2),
  s_within: n('spatial', 2),
  s_dwithin: n('distance', 3, 4, false),
  s_beyond: n('distance', 3, 4, false),
  t_after: n('temporal', 2),
  t_before: n('temporal', 2),
  t_contains: n('temporal', 2),
  t_disjoint: n('temporal', 2),
  t_during: n('temporal', 2),
  t_equals: n('temporal', 2),
  t_finishedBy: n('temporal', 2),
  t_finishes: n('temporal', 2),
  t_intersects: n('temporal', 2),
  t_meets: n('temporal', 2),
  t_metBy: n('temporal', 2),
  t_overlappedBy: n('temporal', 2),
  t_overlaps: n('temporal', 2),
  t_startedBy: n('temporal', 2),
  t_starts: n('temporal', 2),
  a_containedBy: n('array', 2),
  a_contains: n('array', 2),
  a_equals: n('array', 2),
  a_overlaps: n('array', 2),
} as const satisfies Record<string, OperatorInfo>;

/** The closed set of operators a checked filter tree holds. */
export type FilterOp = keyof typeof OPERATORS;

type OpsOf<C extends OperatorClass> = {
  [K in FilterOp]: (typeof OPERATORS)[K]['class'] extends C ? K : never;
}[FilterOp];

export type LogicalOp = OpsOf<'logical'>;
export type ComparisonOp = OpsOf<'comparison'>;
export type ArithmeticOp = OpsOf<'arithmetic'>;
export type SpatialOp = OpsOf<'spatial'>;
export type DistanceOp = OpsOf<'distance'>;
export type TemporalOp = OpsOf<'temporal'>;
export type ArrayOp = OpsOf<'array'>;
export type FoldOp = OpsOf<'fold'>;

const ALL_OPS = Object.keys(OPERATORS) as FilterOp[];
const BY_LOWER = new Map(ALL_OPS.map((op) => [op.toLowerCase(), op]));

/** The class of an operator. */
export function operatorClass(op: FilterOp): OperatorClass {
  return OPERATORS[op].class;
}

/** The arity of an operator as [fewest, most]. */
export function operatorArity(op: FilterOp): readonly [number, number] {
  return OPERATORS[op].arity;
}

/** The canonical name of an operator spelt in any case; undefined for a custom function. */
export function canonicalOperator(op: string): FilterOp | undefined {
  return BY_LOWER.get(op.toLowerCase());
}

const ofClass = (...classes: OperatorClass[]): readonly string[] =>
  ALL_OPS.filter((op) => classes.includes(OPERATORS[op].class) && OPERATORS[op].cql2);

/** Spatial comparison functions (S_* in text). */
export const SPATIAL_OPS: readonly string[] = ofClass('spatial');

/** Temporal comparison functions (T_* in text); JSON spells some in camel case. */
export const TEMPORAL_OPS: readonly string[] = ofClass('temporal');

/** Array comparison functions (A_* in text). */
export const ARRAY_OPS: readonly string[] = ofClass('array');

/** Binary comparison operators. */
export const COMPARISON_OPS: readonly string[] = ofClass('comparison');

/** Arithmetic operators with their binding strength (higher binds tighter). */
export const ARITHMETIC_PRECEDENCE: Readonly<Record<ArithmeticOp, number>> = {
  '+': 1,
  '-': 1,
  '*': 2,
  '/': 2,
  '%': 2,
  div: 2,
  '^': 3,
};

/** Every CQL2 operator name (the names that are not custom functions). */
export const STANDARD_OPS: ReadonlySet<string> = new Set(
  ALL_OPS.filter((op) => OPERATORS[op].cql2),
);

const FUNCTION_STYLE = new Set([...SPATIAL_OPS, ...TEMPORAL_OPS, ...ARRAY_OPS]);

/** Whether an operator is written as a keyword call in text (S_*, T_*, A_*). */
export function isPredicateFunction(op: string): boolean {
  return FUNCTION_STYLE.has(op);
}

/** Whether an operator is arithmetic. */
export function isArithmeticOp(op: string): op is ArithmeticOp {
  return Object.hasOwn(ARITHMETIC_PRECEDENCE, op);
}

/** The operator as users write it in CQL2 text, for messages (S_INTERSECTS, IS NULL, =). */
export function operatorLabel(op: string): string {
  if (op.toLowerCase() === 'isnull') return 'IS NULL';
  return /^[a-z_]+$/i.test(op) && canonicalOperator(op) ? op.toUpperCase() : op;
}
