/**
 * Filter AST → CQL2 JSON (a plain JSON value, ready for JSON.stringify), such that
 * parseCql2Json(printCql2Json(e)) deep-equals e for every tree the CQL2 parsers produce.
 */
import type { Geometry } from 'geojson';
import { FilterError } from '../../errors/index.js';
import type { Expression } from '../filter-ast.js';

/** A JSON value. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

function unprintable(reason: string): FilterError {
  return new FilterError(`Cannot write the filter as CQL2 JSON: ${reason}`);
}

function printNumber(value: number): number {
  if (!Number.isFinite(value)) throw unprintable(`${value} is not a finite number`);
  return value;
}

/** A copy of a geometry with only the members GeoJSON defines for it. */
function printGeometry(geometry: Geometry): JsonValue {
  if (geometry.type === 'GeometryCollection') {
    return { type: geometry.type, geometries: geometry.geometries.map(printGeometry) };
  }
  return { type: geometry.type, coordinates: structuredClone(geometry.coordinates) as JsonValue };
}

/** One end of an interval: instants as bare strings, '..', a property or a function. */
function printIntervalEnd(end: Expression): JsonValue {
  if (end.kind === 'date' || end.kind === 'timestamp') return end.value;
  if (end.kind === 'literal' && end.value === '..') return '..';
  if (end.kind === 'property' || end.kind === 'op') return printCql2Json(end);
  throw unprintable('an interval end is an instant, "..", a property or a function');
}

/** Writes a filter expression in the CQL2 JSON encoding. */
export function printCql2Json(expression: Expression): JsonValue {
  switch (expression.kind) {
    case 'property':
      return { property: expression.name };
    case 'literal':
      return typeof expression.value === 'number'
        ? printNumber(expression.value)
        : expression.value;
    case 'date':
      return { date: expression.value };
    case 'timestamp':
      return { timestamp: expression.value };
    case 'interval':
      return { interval: [printIntervalEnd(expression.start), printIntervalEnd(expression.end)] };
    case 'geometry':
      return printGeometry(expression.geometry);
    case 'bbox':
      return { bbox: expression.bbox.map(printNumber) };
    case 'array':
      return expression.items.map(printCql2Json);
    case 'op':
      return { op: expression.op, args: expression.args.map(printCql2Json) };
  }
}
