/**
 * Shared checks for the property-based fuzz tests of the FES and OpenSearch parsers: every
 * outcome must be a success that yields a well-formed filter tree, or a typed CairnError; and a
 * small tally that the tests print so a reader sees how much was run.
 */
import type { Geometry, Position } from 'geojson';
import { CairnError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';

/** Throws when a fuzz invariant does not hold (plain code: chai is too slow per input). */
export function check(condition: boolean, message: string | (() => string)): void {
  if (!condition) throw new Error(typeof message === 'string' ? message : message());
}

/**
 * Runs `fn` with V8 stack capture off: fuzzing throws tens of thousands of expected errors, and
 * capturing their stacks costs more than parsing the inputs. The errors themselves are unchanged.
 */
export function withoutStackTraces<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Counts outcomes by kind (success or error class name). */
export class OutcomeTally {
  readonly counts = new Map<string, number>();
  total = 0;

  /** Runs `fn`; a CairnError is tallied, any other throw fails the property. */
  run<T>(fn: () => T): T | undefined {
    this.total += 1;
    try {
      const result = fn();
      this.add('success');
      return result;
    } catch (error) {
      if (error instanceof CairnError) {
        const cause = error.cause instanceof CairnError ? ` ← ${error.cause.constructor.name}` : '';
        this.add(`${error.constructor.name}${cause}`);
        return undefined;
      }
      throw error;
    }
  }

  private add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** One line: "label: N inputs (success 123, FilterError 456, …)". */
  summary(label: string): string {
    const parts = [...this.counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([key, count]) => `${key} ${count}`);
    return `${label}: ${this.total} inputs (${parts.join(', ')})`;
  }
}

function checkPosition(position: Position): void {
  check(position.length === 2, () => `position ${JSON.stringify(position)} is not 2D`);
  const [lon, lat] = position;
  check(
    typeof lon === 'number' && Number.isFinite(lon) && lon >= -180 && lon <= 180,
    () => `longitude ${lon}`,
  );
  check(
    typeof lat === 'number' && Number.isFinite(lat) && lat >= -90 && lat <= 90,
    () => `latitude ${lat}`,
  );
}

/** Checks that a GeoJSON geometry has finite CRS84 positions and closed rings. */
export function checkGeometry(geometry: Geometry): void {
  const ring = (positions: Position[]): void => {
    check(positions.length >= 4, 'ring with fewer than 4 positions');
    positions.forEach(checkPosition);
    const [first, last] = [positions[0], positions.at(-1)];
    check(first?.[0] === last?.[0] && first?.[1] === last?.[1], 'open ring');
  };
  switch (geometry.type) {
    case 'Point':
      checkPosition(geometry.coordinates);
      break;
    case 'MultiPoint':
      geometry.coordinates.forEach(checkPosition);
      break;
    case 'LineString':
      check(geometry.coordinates.length >= 2, 'line with fewer than 2 positions');
      geometry.coordinates.forEach(checkPosition);
      break;
    case 'MultiLineString':
      for (const line of geometry.coordinates) {
        check(line.length >= 2, 'line with fewer than 2 positions');
        line.forEach(checkPosition);
      }
      break;
    case 'Polygon':
      geometry.coordinates.forEach(ring);
      break;
    case 'MultiPolygon':
      for (const polygon of geometry.coordinates) polygon.forEach(ring);
      break;
    case 'GeometryCollection':
      geometry.geometries.forEach(checkGeometry);
      break;
  }
}

/** Checks a CRS84 bbox: four finite numbers in range, south ≤ north. */
export function checkBbox(bbox: number[]): void {
  check(bbox.length === 4, 'bbox without 4 numbers');
  checkPosition(bbox.slice(0, 2));
  checkPosition(bbox.slice(2));
  const [, south = Number.NaN, , north = Number.NaN] = bbox;
  check(south <= north, 'bbox south above north');
}

/** Checks that a filter tree is well formed: known kinds, finite numbers, valid literals. */
export function checkExpression(expression: Expression): void {
  switch (expression.kind) {
    case 'property':
      check(typeof expression.name === 'string' && expression.name !== '', 'empty property');
      break;
    case 'literal':
      check(
        typeof expression.value !== 'number' || Number.isFinite(expression.value),
        'non-finite number',
      );
      break;
    case 'date':
      check(/^\d{4}-\d{2}-\d{2}$/.test(expression.value), `date ${expression.value}`);
      break;
    case 'timestamp':
      check(
        !Number.isNaN(Date.parse(expression.value)) && expression.value.endsWith('Z'),
        `timestamp ${expression.value}`,
      );
      break;
    case 'interval':
      checkExpression(expression.start);
      checkExpression(expression.end);
      break;
    case 'geometry':
      checkGeometry(expression.geometry);
      break;
    case 'bbox':
      checkBbox(expression.bbox);
      break;
    case 'array':
      expression.items.forEach(checkExpression);
      break;
    case 'op':
      check(typeof expression.op === 'string' && expression.op !== '', 'empty op');
      expression.args.forEach(checkExpression);
      break;
    default:
      throw new Error(`unknown expression kind in ${JSON.stringify(expression)}`);
  }
}
