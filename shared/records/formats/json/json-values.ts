/**
 * Small readers for untrusted JSON values: each returns a typed value or undefined, so
 * parsers never trust a shape they have not checked.
 */
import type { Geometry } from 'geojson';
import { InvalidRecordError } from '../../../errors/index.js';
import type { Bbox, Link, TimeExtent } from '../../core-record.js';
import { findGeometryFault, snapCrs84, snapGeometry } from '../../../query/crs84.js';
import { parseTimeValue } from '../../time.js';

export type JsonObject = Record<string, unknown>;

/** The value as a plain object, or undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** The value as a non-empty trimmed string (numbers are stringified), or undefined. */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The value as a finite number (numeric strings accepted), or undefined. */
export function asNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** The value as an array (a single value becomes a one-element array; absent → []). */
export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The strings in a value that may be a string or an array of strings. */
export function asStrings(value: unknown): string[] {
  return asArray(value)
    .map(asString)
    .filter((item): item is string => item !== undefined);
}

/** The keys of T whose values are (optional) strings. */
type StringKeys<T> = { [K in keyof T]-?: string extends T[K] ? K : never }[keyof T];

/**
 * Copies the named members of a JSON object onto a target as strings (see asString), leaving
 * out those that are absent or empty; returns the target.
 */
export function copyStringMembers<T extends object>(
  target: T,
  source: JsonObject,
  keys: readonly (StringKeys<T> & string)[],
): T {
  for (const key of keys) {
    const value = asString(source[key]);
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}

/**
 * A GeoJSON geometry read from an untrusted value: the geometry with its positions in CRS84
 * (those within the tolerance beyond a bound snapped onto it, see shared/query/crs84.ts), or
 * the fault that refuses it, naming the position's path and value (e.g. `coordinates[1][0][7]
 * has longitude 200, outside −180..180`).
 */
export function readGeometry(
  value: unknown,
  path = 'geometry',
): { geometry: Geometry } | { fault: string } {
  const object = asObject(value);
  if (object?.type === 'GeometryCollection') {
    const geometries: Geometry[] = [];
    for (const [index, member] of asArray(object.geometries).entries()) {
      const read = readGeometry(member, `${path}.geometries[${index}]`);
      if ('fault' in read) return read;
      geometries.push(read.geometry);
    }
    return { geometry: { type: 'GeometryCollection', geometries } };
  }
  const fault = findGeometryFault(value, path);
  return fault === undefined ? { geometry: snapGeometry(value as Geometry) } : { fault };
}

/**
 * A record's geometry member read with readGeometry: undefined when absent (null or missing),
 * the geometry when valid; otherwise an InvalidRecordError saying `refusal` and the fault.
 */
export function readRecordGeometry(value: unknown, refusal: string): Geometry | undefined {
  if (value === null || value === undefined) return undefined;
  const read = readGeometry(value);
  if ('fault' in read) throw new InvalidRecordError(`${refusal}: ${read.fault}`);
  return read.geometry;
}

/** Computes the CRS84 bounding box of a geometry (no antimeridian detection). */
export function computeBbox(geometry: Geometry): Bbox | undefined {
  let west = Infinity;
  let south = Infinity;
  let east = -Infinity;
  let north = -Infinity;
  const visit = (node: unknown): void => {
    if (!Array.isArray(node)) return;
    if (typeof node[0] === 'number') {
      west = Math.min(west, node[0]);
      east = Math.max(east, node[0]);
      south = Math.min(south, node[1] as number);
      north = Math.max(north, node[1] as number);
      return;
    }
    node.forEach(visit);
  };
  if (geometry.type === 'GeometryCollection') {
    for (const member of geometry.geometries) {
      const box = computeBbox(member);
      if (box) visit([box.slice(0, 2), box.slice(2, 4)]);
    }
  } else {
    visit(geometry.coordinates);
  }
  return Number.isFinite(west) ? [west, south, east, north] : undefined;
}

/**
 * A 4- or 6-number bbox array reduced to a valid 2D CRS84 Bbox (edges within the tolerance
 * beyond a bound snapped onto it), or undefined.
 */
export function asBbox(value: unknown): Bbox | undefined {
  const numbers = asArray(value).map(asNumber);
  if (numbers.some((n) => n === undefined)) return undefined;
  const box =
    numbers.length === 4
      ? numbers
      : numbers.length === 6
        ? [numbers[0], numbers[1], numbers[3], numbers[4]]
        : [];
  const [west, south, east, north] = box;
  if (west === undefined || south === undefined || east === undefined || north === undefined)
    return undefined;
  const lower = snapCrs84(west, south);
  const upper = snapCrs84(east, north);
  return lower && upper && lower[1] <= upper[1]
    ? [lower[0], lower[1], upper[0], upper[1]]
    : undefined;
}

/** A polygon geometry covering a bbox (split in two when it crosses the antimeridian). */
export function bboxToGeometry([west, south, east, north]: Bbox): Geometry {
  const ring = (w: number, e: number): number[][] => [
    [w, south],
    [e, south],
    [e, north],
    [w, north],
    [w, south],
  ];
  if (west <= east) return { type: 'Polygon', coordinates: [ring(west, east)] };
  return { type: 'MultiPolygon', coordinates: [[ring(west, 180)], [ring(-180, east)]] };
}

/** A time extent from start/end values that may be dates, date-times, '..' or null. */
export function buildTimeExtent(start: unknown, end: unknown): TimeExtent | undefined {
  const open = (value: unknown): boolean =>
    value === null || value === undefined || value === '..' || value === '';
  const startSpan = open(start) ? undefined : parseTimeValue(String(start));
  const endSpan = open(end) ? undefined : parseTimeValue(String(end));
  if ((!open(start) && !startSpan) || (!open(end) && !endSpan)) return undefined;
  if (!startSpan && !endSpan) return undefined;
  const extent: TimeExtent = { start: startSpan?.start ?? null, end: endSpan?.end ?? null };
  if (extent.start && extent.end && extent.start > extent.end) return undefined;
  if (startSpan?.dateOnly || endSpan?.dateOnly) extent.dateOnly = true;
  return extent;
}

/** Reads a JSON link object ({href, rel, type, title, hreflang}); undefined when it has no href. */
export function asLink(value: unknown): Link | undefined {
  const object = asObject(value);
  const href = asString(object?.href);
  if (!object || !href) return undefined;
  const link = copyStringMembers<Link>({ href }, object, ['rel', 'type', 'title', 'hreflang']);
  const roles = asStrings(object.roles);
  if (roles.length > 0) link.roles = roles;
  return link;
}
