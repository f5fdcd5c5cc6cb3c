/**
 * The CQL2 operator names as the CQL2 JSON encoding spells them (and the filter AST keeps
 * them), grouped the way the grammar and the printers need them.
 */

/** Spatial comparison functions (S_* in text). */
export const SPATIAL_OPS: readonly string[] = [
  's_contains',
  's_crosses',
  's_disjoint',
  's_equals',
  's_intersects',
  's_overlaps',
  's_touches',
  's_within',
];

/** Temporal comparison functions (T_* in text); JSON spells some in camel case. */
export const TEMPORAL_OPS: readonly string[] = [
  't_after',
  't_before',
  't_contains',
  't_disjoint',
  't_during',
  't_equals',
  't_finishedBy',
  't_finishes',
  't_intersects',
  't_meets',
  't_metBy',
  't_overlappedBy',
  't_overlaps',
  't_startedBy',
  't_starts',
];

/** Array comparison functions (A_* in text). */
export const ARRAY_OPS: readonly string[] = [
  'a_containedBy',
  'a_contains',
  'a_equals',
  'a_overlaps',
];

/** Binary comparison operators. */
export const COMPARISON_OPS: readonly string[] = ['=', '<>', '<', '>', '<=', '>='];

/** Arithmetic operators with their binding strength (higher binds tighter). */
export const ARITHMETIC_PRECEDENCE: Readonly<Record<string, number>> = {
  '+': 1,
  '-': 1,
  '*': 2,
  '/': 2,
  '%': 2,
  div: 2,
  '^': 3,
};

/** Every operator name that is not a custom function. */
export const STANDARD_OPS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  ...COMPARISON_OPS,
  'like',
  'between',
  'in',
  'isNull',
  'casei',
  'accenti',
  ...SPATIAL_OPS,
  ...TEMPORAL_OPS,
  ...ARRAY_OPS,
  ...Object.keys(ARITHMETIC_PRECEDENCE),
]);

const FUNCTION_STYLE = new Set([...SPATIAL_OPS, ...TEMPORAL_OPS, ...ARRAY_OPS]);

/** Whether an operator is written as a keyword call in text (S_*, T_*, A_*). */
export function isPredicateFunction(op: string): boolean {
  return FUNCTION_STYLE.has(op);
}

/** Whether an operator is arithmetic. */
export function isArithmeticOp(op: string): boolean {
  return Object.hasOwn(ARITHMETIC_PRECEDENCE, op);
}
