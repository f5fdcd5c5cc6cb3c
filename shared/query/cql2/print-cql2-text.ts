/**
 * Filter AST → CQL2 text, such that parseCql2Text(printCql2Text(e)) deep-equals e for every
 * tree the CQL2 parsers produce. Parentheses are written only where precedence or the
 * grammar needs them.
 */
import type { Geometry, Position } from 'geojson';
import { FilterError } from '../../errors/index.js';
import { positionsOf } from '../bbox-geometry.js';
import type { Expression, OperatorNode } from '../filter-ast.js';
import { isCql2Identifier, isCql2ReservedWord, isCql2TextString } from './cql2-lexical.js';
import {
  ARITHMETIC_PRECEDENCE,
  type ArithmeticOp,
  COMPARISON_OPS,
  isArithmeticOp,
  isPredicateFunction,
} from './cql2-operators.js';

/** Operators whose text form is a boolean predicate needing parentheses as an operand. */
const INFIX_BOOLEAN_OPS = new Set(['and', 'or', 'not', 'like', 'between', 'in', 'isNull']);

function unprintable(reason: string): FilterError {
  return new FilterError(`Cannot write the filter as CQL2 text: ${reason}`);
}

/** Writes a number so that the grammar reads back the same value (including -0). */
function printNumber(value: number): string {
  if (!Number.isFinite(value)) throw unprintable(`${value} is not a finite number`);
  return Object.is(value, -0) ? '-0' : String(value);
}

const ESCAPES = new Map([
  ["'", "''"],
  ['\\', '\\\\'],
  ['\u0007', '\\a'],
  ['\b', '\\b'],
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\v', '\\v'],
  ['\f', '\\f'],
  ['\r', '\\r'],
]);

/** Writes a character literal, escaping quotes, backslashes and control characters. */
function printString(value: string): string {
  if (!isCql2TextString(value)) {
    throw unprintable(`the string ${JSON.stringify(value)} holds a character CQL2 cannot encode`);
  }
  return `'${[...value].map((character) => ESCAPES.get(character) ?? character).join('')}'`;
}

/** Writes a property name, double-quoted when it is a keyword. */
function printProperty(name: string): string {
  if (!isCql2Identifier(name)) throw unprintable(`"${name}" is not a CQL2 identifier`);
  return isCql2ReservedWord(name) ? `"${name}"` : name;
}

function printPosition(position: Position): string {
  return position.map(printNumber).join(' ');
}

const printPositions = (positions: Position[]): string =>
  `(${positions.map(printPosition).join(', ')})`;

const printRings = (rings: Position[][]): string => `(${rings.map(printPositions).join(', ')})`;

/** Writes a GeoJSON geometry as WKT, tagged Z when every position has three coordinates. */
function printGeometry(geometry: Geometry): string {
  const positions = positionsOf(geometry);
  const z = positions.length > 0 && positions.every((p) => p.length === 3) ? ' Z' : '';
  switch (geometry.type) {
    case 'Point':
      return `POINT${z} (${printPosition(geometry.coordinates)})`;
    case 'LineString':
      return `LINESTRING${z} ${printPositions(geometry.coordinates)}`;
    case 'Polygon':
      return `POLYGON${z} ${printRings(geometry.coordinates)}`;
    case 'MultiPoint':
      return `MULTIPOINT${z} (${geometry.coordinates.map((p) => `(${printPosition(p)})`).join(', ')})`;
    case 'MultiLineString':
      return `MULTILINESTRING${z} ${printRings(geometry.coordinates)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON${z} (${geometry.coordinates.map(printRings).join(', ')})`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION (${geometry.geometries.map(printGeometry).join(', ')})`;
  }
}

/** Writes one end of an INTERVAL: instants as bare strings, '..', a property or a function. */
function printIntervalEnd(end: Expression): string {
  switch (end.kind) {
    case 'date':
    case 'timestamp':
      return printString(end.value);
    case 'literal':
      if (end.value === '..') return "'..'";
      throw unprintable('an INTERVAL end is an instant, "..", a property or a function');
    case 'property':
      return printProperty(end.name);
    case 'op':
      if (isCustomFunction(end.op)) return printFunction(end);
      throw unprintable('an INTERVAL end is an instant, "..", a property or a function');
    default:
      throw unprintable('an INTERVAL end is an instant, "..", a property or a function');
  }
}

function isCustomFunction(op: string): boolean {
  return (
    !INFIX_BOOLEAN_OPS.has(op) &&
    !COMPARISON_OPS.includes(op) &&
    !isArithmeticOp(op) &&
    !isPredicateFunction(op) &&
    op !== 'casei' &&
    op !== 'accenti'
  );
}

function printFunction(node: OperatorNode): string {
  if (!isCql2Identifier(node.op) || isCql2ReservedWord(node.op)) {
    throw unprintable(`"${node.op}" is not a valid function name`);
  }
  return `${node.op}(${node.args.map(printValue).join(', ')})`;
}

/** A tuple of `N` expressions. */
type Args<N extends number, T extends Expression[] = []> = T['length'] extends N
  ? T
  : Args<N, [...T, Expression]>;

/** The arguments of `node`, which must number exactly `count`. */
function expectArgs<N extends 1 | 2 | 3>(node: OperatorNode, count: N): Args<N> {
  if (node.args.length !== count) {
    throw unprintable(`"${node.op}" takes ${count} argument(s), not ${node.args.length}`);
  }
  // The length is checked just above.
  return node.args as unknown as Args<N>;
}

/** Writes an arithmetic operand, in parentheses when it binds less tightly than required. */
function printArithmeticOperand(operand: Expression, minimumPrecedence: number): string {
  if (operand.kind === 'op' && isArithmeticOp(operand.op)) {
    const text = printArithmetic(operand);
    return ARITHMETIC_PRECEDENCE[operand.op] < minimumPrecedence ? `(${text})` : text;
  }
  return printValue(operand);
}

/** Writes + - * / % div (left-associative) and ^ (which does not chain). */
function printArithmetic(node: OperatorNode): string {
  const [left, right] = expectArgs(node, 2);
  const precedence = ARITHMETIC_PRECEDENCE[node.op as ArithmeticOp];
  const leftMinimum = node.op === '^' ? precedence + 1 : precedence;
  const symbol = node.op === 'div' ? 'div' : node.op;
  return `${printArithmeticOperand(left, leftMinimum)} ${symbol} ${printArithmeticOperand(right, precedence + 1)}`;
}

/**
 * Writes any expression where the grammar takes a value: a scalar, a geometry, an array, a
 * function argument or a boolean expression (which the grammar accepts there unparenthesised).
 */
function printValue(expression: Expression): string {
  switch (expression.kind) {
    case 'property':
      return printProperty(expression.name);
    case 'literal':
      if (typeof expression.value === 'string') return printString(expression.value);
      if (typeof expression.value === 'number') return printNumber(expression.value);
      return expression.value ? 'TRUE' : 'FALSE';
    case 'date':
      return `DATE(${printString(expression.value)})`;
    case 'timestamp':
      return `TIMESTAMP(${printString(expression.value)})`;
    case 'interval':
      return `INTERVAL(${printIntervalEnd(expression.start)}, ${printIntervalEnd(expression.end)})`;
    case 'geometry':
      return printGeometry(expression.geometry);
    case 'bbox':
      return `BBOX(${expression.bbox.map(printNumber).join(', ')})`;
    case 'array':
      return `(${expression.items.map(printValue).join(', ')})`;
    case 'op':
      if (expression.op === 'casei' || expression.op === 'accenti') {
        const [argument] = expectArgs(expression, 1);
        return `${expression.op.toUpperCase()}(${printValue(argument)})`;
      }
      if (isArithmeticOp(expression.op)) return printArithmetic(expression);
      return printBoolean(expression);
  }
}

/** Writes an operand of AND/OR/NOT/IS NULL, parenthesised when it is an infix predicate. */
function printPrimary(expression: Expression): string {
  const text = printBoolean(expression);
  return expression.kind === 'op' && INFIX_BOOLEAN_OPS.has(expression.op) ? `(${text})` : text;
}

/** Writes the argument of NOT, using the NOT LIKE / NOT BETWEEN / NOT IN / IS NOT NULL forms. */
function printNot(node: OperatorNode): string {
  const [inner] = expectArgs(node, 1);
  if (inner.kind === 'op' && NEGATABLE_OPS.has(inner.op)) return printNegatable(inner, true);
  return `NOT ${printPrimary(inner)}`;
}

/** Writes an operand of LIKE/BETWEEN/IN/comparisons (a scalar: never a bare predicate). */
function printScalar(expression: Expression): string {
  if (expression.kind === 'array') throw unprintable('an array is not a scalar value');
  return printValue(expression);
}

/** Predicates with a negated form: LIKE, BETWEEN, IN and IS NULL. */
const NEGATABLE_OPS = new Set(['like', 'between', 'in', 'isNull']);

/** Writes LIKE, BETWEEN, IN or IS NULL, with NOT in its place when negated. */
function printNegatable(node: OperatorNode, negated: boolean): string {
  const not = negated ? 'NOT ' : '';
  switch (node.op) {
    case 'like': {
      const [value, pattern] = expectArgs(node, 2);
      return `${printScalar(value)} ${not}LIKE ${printScalar(pattern)}`;
    }
    case 'between': {
      const [value, low, high] = expectArgs(node, 3);
      return `${printScalar(value)} ${not}BETWEEN ${printScalar(low)} AND ${printScalar(high)}`;
    }
    case 'in': {
      const [value, list] = expectArgs(node, 2);
      if (list.kind !== 'array' || list.items.length === 0) {
        throw unprintable('IN takes a non-empty list');
      }
      return `${printScalar(value)} ${not}IN (${list.items.map(printScalar).join(', ')})`;
    }
    default: {
      const [operand] = expectArgs(node, 1);
      const text =
        operand.kind === 'op' &&
        (INFIX_BOOLEAN_OPS.has(operand.op) || COMPARISON_OPS.includes(operand.op))
          ? `(${printBoolean(operand)})`
          : printValue(operand);
      return `${text} IS ${not}NULL`;
    }
  }
}

/** Writes a boolean expression. */
function printBoolean(expression: Expression): string {
  if (expression.kind === 'literal' && typeof expression.value === 'boolean') {
    return expression.value ? 'TRUE' : 'FALSE';
  }
  if (expression.kind !== 'op') throw unprintable(`a ${expression.kind} is not a filter`);
  const node = expression;
  switch (node.op) {
    case 'or':
    case 'and': {
      if (node.args.length < 2) throw unprintable(`"${node.op}" takes at least two arguments`);
      const keyword = node.op === 'or' ? ' OR ' : ' AND ';
      return node.args
        .map((arg) =>
          arg.kind === 'op' && (arg.op === 'or' || (node.op === 'and' && arg.op === 'and'))
            ? `(${printBoolean(arg)})`
            : printBoolean(arg),
        )
        .join(keyword);
    }
    case 'not':
      return printNot(node);
    case 'like':
    case 'between':
    case 'in':
    case 'isNull':
      return printNegatable(node, false);
    default:
      if (COMPARISON_OPS.includes(node.op)) {
        const [left, right] = expectArgs(node, 2);
        return `${printScalar(left)} ${node.op} ${printScalar(right)}`;
      }
      if (isPredicateFunction(node.op)) {
        const [left, right] = expectArgs(node, 2);
        return `${node.op.toUpperCase()}(${printValue(left)}, ${printValue(right)})`;
      }
      if (isCustomFunction(node.op)) return printFunction(node);
      throw unprintable(`"${node.op}" is not a boolean expression`);
  }
}

/** Writes a filter expression in the CQL2 text encoding. */
export function printCql2Text(expression: Expression): string {
  return printBoolean(expression);
}
