/**
 * Small readers for untrusted JSON values: each returns a typed value or undefined, so
 * parsers never trust a shape they have not checked.
 */
import type { Geometry } from 'geojson';
import type { Bbox, Link, TimeExtent } from '../../core-record.js';
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

/** How deeply each geometry type nests its positions (a position is depth 1). */
const COORDINATE_DEPTH: Readonly<Record<string, number>> = {
  Point: 1,
  MultiPoint: 2,
  LineString: 2,
  MultiLineString: 3,
  Polygon: 3,
  MultiPolygon: 4,
};

/** The value as a GeoJSON geometry whose coordinates are numeric arrays, or undefined. */
export function asGeometry(value: unknown): Geometry | undefined {
  const object = asObject(value);
  if (!object || typeof object.type !== 'string') return undefined;
  if (object.type === 'GeometryCollection') {
    const members = asArray(object.geometries).map(asGeometry);
    return members.every((member) => member !== undefined)
      ? { type: 'GeometryCollection', geometries: members }
      : undefined;
  }
  const depth = COORDINATE_DEPTH[object.type];
  return depth !== undefined && isCoordinateTree(object.coordinates, depth)
    ? (object as unknown as Geometry)
    : undefined;
}

/**
 * What a valid geometry is, for refusals: CRS84 positions in the ranges the read side accepts
 * for `bbox` and geometry filters.
 */
export const GEOMETRY_RULE =
  'positions are [longitude, latitude] numbers with longitude in −180..180 and latitude in −90..90, nested as the type requires';

/**
 * True when `value` nests positions exactly `depth` levels deep, as its type requires, each a
 * finite longitude in −180..180 and latitude in −90..90.
 */
function isCoordinateTree(value: unknown, depth: number): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  if (depth === 1) {
    return (
      value.length >= 2 &&
      value.every((n) => typeof n === 'number' && Number.isFinite(n)) &&
      Math.abs(value[0] as number) <= 180 &&
      Math.abs(value[1] as number) <= 90
    );
  }
  return value.every((item) => isCoordinateTree(item, depth - 1));
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

/** A 4- or 6-number bbox array reduced to a valid 2D CRS84 Bbox, or undefined. */
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
  const inRange =
    Math.abs(west) <= 180 &&
    Math.abs(east) <= 180 &&
    Math.abs(south) <= 90 &&
    Math.abs(north) <= 90;
  return inRange && south <= north ? [west, south, east, north] : undefined;
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
