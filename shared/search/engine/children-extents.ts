/**
 * `SearchBackend.childrenExtents` on the engines: the request (one terms aggregation on the
 * parent id with the box and time bounds under it) and the reading of its buckets. Pure. A box
 * crossing the antimeridian is indexed as two halves (box0 ends at 180, box1 starts at -180),
 * so the least west and greatest east over both halves give -180..180 for it, as SQLite's
 * CASE does (../sqlite/children-extents.ts).
 */
import type { ChildrenExtent } from '../backend.js';
import type { JsonObject } from './engine-adapter.js';
import { fieldOf } from './engine-fields.js';

const exists = (field: string): JsonObject => ({ exists: { field } });

/** The search body for the children of these parents (size 0, aggregations only). */
export function buildChildrenExtentsBody(parentIds: readonly string[]): JsonObject {
  const parentField = fieldOf('parentId').path;
  const metrics: JsonObject = {};
  for (const part of [0, 1]) {
    metrics[`west${part}`] = { min: { field: `box${part}.minx` } };
    metrics[`south${part}`] = { min: { field: `box${part}.miny` } };
    metrics[`east${part}`] = { max: { field: `box${part}.maxx` } };
    metrics[`north${part}`] = { max: { field: `box${part}.maxy` } };
  }
  metrics.start = { min: { field: 'time.start' } };
  metrics.end = { max: { field: 'time.end' } };
  metrics.timed = {
    filter: {
      bool: { should: [exists('time.start'), exists('time.end')], minimum_should_match: 1 },
    },
  };
  metrics.openStart = {
    filter: { bool: { filter: [exists('time.end')], must_not: [exists('time.start')] } },
  };
  metrics.openEnd = {
    filter: { bool: { filter: [exists('time.start')], must_not: [exists('time.end')] } },
  };
  // Size and shard size at least the number of parents: every bucket and count is exact.
  const size = Math.max(1, parentIds.length);
  return {
    size: 0,
    track_total_hits: false,
    query: { bool: { filter: [{ terms: { [parentField]: [...parentIds] } }] } },
    aggs: {
      parents: {
        terms: { field: parentField, size, shard_size: size, order: { _key: 'asc' } },
        aggs: metrics,
      },
    },
  };
}

interface MetricValue {
  value: number | null;
}

type Bucket = { key: string; doc_count: number } & Record<string, unknown>;

function metric(bucket: Bucket, name: string): number | undefined {
  const value = (bucket[name] as MetricValue | undefined)?.value;
  return typeof value === 'number' ? value : undefined;
}

function pick(bucket: Bucket, name: string, choose: (a: number, b: number) => number) {
  const found = [metric(bucket, `${name}0`), metric(bucket, `${name}1`)].filter(
    (value): value is number => value !== undefined,
  );
  return found.length === 0 ? undefined : found.reduce((a, b) => choose(a, b));
}

function docCount(bucket: Bucket, name: string): number {
  return (bucket[name] as { doc_count?: number } | undefined)?.doc_count ?? 0;
}

function isoTime(value: number | undefined): string | null {
  return value === undefined ? null : new Date(value).toISOString();
}

/** Reads the buckets of the `parents` aggregation. */
export function readChildrenExtents(aggregations: JsonObject | undefined): ChildrenExtent[] {
  const buckets = ((aggregations?.parents as JsonObject | undefined)?.buckets ?? []) as Bucket[];
  return buckets.map((bucket) => {
    const extent: ChildrenExtent = { parentId: String(bucket.key), count: bucket.doc_count };
    const west = pick(bucket, 'west', Math.min);
    if (west !== undefined) {
      extent.bbox = [
        west,
        pick(bucket, 'south', Math.min)!,
        pick(bucket, 'east', Math.max)!,
        pick(bucket, 'north', Math.max)!,
      ];
    }
    if (docCount(bucket, 'timed') > 0) {
      extent.time = {
        start: docCount(bucket, 'openStart') > 0 ? null : isoTime(metric(bucket, 'start')),
        end: docCount(bucket, 'openEnd') > 0 ? null : isoTime(metric(bucket, 'end')),
      };
    }
    return extent;
  });
}
