/**
 * The operands of a checked operator, by position. The checker (shared/query/check-filter.ts)
 * gives every operator the number of arguments it takes, but the tree types them as an array;
 * both filter compilers read them through these, so a tree that breaks that promise fails with
 * a clear error rather than a TypeError on a missing operand.
 */
import type { CheckedExpression, CheckedOperator } from '../query/checked-filter.js';

/** Operand `index` (from 0) of `node`. */
export function operandAt(node: CheckedOperator, index: number): CheckedExpression {
  const argument = node.args[index];
  if (argument === undefined) {
    throw new Error(`The checked ${node.op} operator lacks its operand ${index + 1}`);
  }
  return argument;
}

/** The two operands of a binary operator. */
export function operands(node: CheckedOperator): [CheckedExpression, CheckedExpression] {
  return [operandAt(node, 0), operandAt(node, 1)];
}
