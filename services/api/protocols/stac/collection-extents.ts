/**
 * The extents STAC Collections are served with, and the Collection Search tests on them. Pure.
 *
 * A collection with items is served with its items' extent (SearchBackend.childrenExtents:
 * the union of their boxes and their time span, computed from the index when asked), so it
 * follows every write; a collection without items keeps the extent it declares. `bbox` and
 * `datetime` of the collection search match what is served: a collection matches when the
 * request's box meets any box of `extent.spatial.bbox` and its interval meets any interval of
 * `extent.temporal.interval` (STAC API Collection Search, "intersection … with any of").
 */
import type { Bbox } from '../../../../shared/records/core-record.js';
import { parseTimeValue } from '../../../../shared/records/time.js';
import type { ChildrenExtent } from '../../../../shared/search/backend.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The collection with its items' extent in place of the declared one, where it has items with
 * a box (the spatial extent) or a time (the temporal extent); otherwise unchanged.
 */
export function withChildrenExtent(
  collection: JsonObject,
  children: ChildrenExtent | undefined,
): JsonObject {
  if (!children || children.count === 0 || (!children.bbox && !children.time)) return collection;
  const declared = isObject(collection.extent) ? collection.extent : {};
  return {
    ...collection,
    extent: {
      ...declared,
      spatial: children.bbox ? { bbox: [children.bbox] } : declared.spatial,
      temporal: children.time
        ? { interval: [[children.time.start, children.time.end]] }
        : declared.temporal,
    },
  };
}

/** The longitude ranges of a box: two when it crosses the antimeridian (west > east). */
function longitudeRanges(west: number, east: number): [number, number][] {
  return west > east
    ? [
        [west, 180],
        [-180, east],
      ]
    : [[west, east]];
}

/** A box of a collection's extent: 4 numbers, or 6 with heights (west, south, low, east, north, high). */
function readBox(value: unknown): Bbox | undefined {
  if (!Array.isArray(value) || !value.every((n): n is number => typeof n === 'number')) {
    return undefined;
  }
  const [west, south, third, fourth, fifth] = value;
  if (value.length === 4) return [west!, south!, third!, fourth!];
  if (value.length === 6) return [west!, south!, fourth!, fifth!];
  return undefined;
}

/** Whether two CRS84 boxes share a point (edges included; either may cross the antimeridian). */
export function boxesIntersect(a: Bbox, b: Bbox): boolean {
  if (a[1] > b[3] || b[1] > a[3]) return false;
  return longitudeRanges(a[0], a[2]).some(([aw, ae]) =>
    longitudeRanges(b[0], b[2]).some(([bw, be]) => aw <= be && bw <= ae),
  );
}

/** An interval end as a normalised UTC timestamp (a date: its first or last instant); null when open. */
function readEnd(value: unknown, side: 'start' | 'end'): string | null | undefined {
  if (value === null || value === '..') return null;
  if (typeof value !== 'string') return undefined;
  const span = parseTimeValue(value);
  return span ? span[side] : undefined;
}

/** Whether a `[start, end]` interval of an extent meets the request's interval (null: open). */
function intervalMeets(value: unknown, wanted: { start: string | null; end: string | null }) {
  if (!Array.isArray(value) || value.length !== 2) return false;
  const start = readEnd(value[0], 'start');
  const end = readEnd(value[1], 'end');
  if (start === undefined || end === undefined) return false;
  const beforeEnd = wanted.end === null || start === null || start <= wanted.end;
  const afterStart = wanted.start === null || end === null || end >= wanted.start;
  return beforeEnd && afterStart;
}

/** Whether a served collection matches the collection search's `bbox` and `datetime`. */
export function collectionExtentMatches(
  collection: JsonObject,
  bbox: Bbox | undefined,
  datetime: { start: string | null; end: string | null } | undefined,
): boolean {
  const extent = isObject(collection.extent) ? collection.extent : {};
  if (bbox) {
    const boxes = isObject(extent.spatial) ? extent.spatial.bbox : undefined;
    const list = Array.isArray(boxes) ? boxes : [];
    if (!list.some((box) => (readBox(box) ? boxesIntersect(readBox(box)!, bbox) : false))) {
      return false;
    }
  }
  if (datetime) {
    const intervals = isObject(extent.temporal) ? extent.temporal.interval : undefined;
    const list = Array.isArray(intervals) ? intervals : [];
    if (!list.some((interval) => intervalMeets(interval, datetime))) return false;
  }
  return true;
}
