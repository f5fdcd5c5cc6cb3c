/**
 * SearchBackend.aggregate on the engines: the aggregations of one search request (size 0) and
 * the reading of their results into the shared answers (../aggregations.ts). Pure. Each one
 * computes what SQLite's statement of the same kind does (sqlite/compile-aggregate.ts): a
 * `date_histogram` by calendar interval in UTC with only non-empty buckets, `terms` ordered by
 * count then key (one shard: exact counts), `range` with from inclusive and to exclusive, and the
 * grid as two nested `histogram`s over the centre of each record's box (`centre.lon`,
 * `centre.lat`, written by engine-document.ts), whose keys are floor(value / size) × size.
 */
import {
  byCountThenKey,
  gridBuckets,
  gridCellSize,
  type AggregationAnswer,
  type AggregationRequest,
  type GridCellCount,
} from '../aggregations.js';
import type { JsonObject } from './engine-adapter.js';
import { fieldOf } from './engine-fields.js';
import { canonicalPropertyName } from '../../query/queryables.js';

/** The `aggs` of a request (names prefixed, so that they cannot meet the engine's own). */
export function buildAggregations(
  requests: Readonly<Record<string, AggregationRequest>>,
): JsonObject {
  const aggs: JsonObject = {};
  for (const [name, request] of Object.entries(requests)) {
    Object.assign(aggs, buildOne(`a_${name}`, request));
  }
  return aggs;
}

function buildOne(key: string, request: AggregationRequest): JsonObject {
  switch (request.kind) {
    case 'stats':
      return {
        [`${key}_minStart`]: { min: { field: 'time.start' } },
        [`${key}_maxStart`]: { max: { field: 'time.start' } },
        [`${key}_maxEnd`]: { max: { field: 'time.end' } },
        [`${key}_minLon`]: { min: { field: 'centre.lon' } },
        [`${key}_maxLon`]: { max: { field: 'centre.lon' } },
        [`${key}_minLat`]: { min: { field: 'centre.lat' } },
        [`${key}_maxLat`]: { max: { field: 'centre.lat' } },
      };
    case 'histogram':
      return {
        [key]: {
          date_histogram: {
            field: 'time.start',
            calendar_interval: request.interval,
            min_doc_count: 1,
            time_zone: 'UTC',
          },
        },
      };
    case 'terms': {
      const field = fieldOf(canonicalPropertyName(request.field)).path;
      return {
        [key]: {
          terms: {
            field,
            size: request.size,
            shard_size: request.size,
            order: [{ _count: 'desc' }, { _key: 'asc' }],
          },
        },
      };
    }
    case 'ranges':
      return {
        [key]: {
          range: {
            field: fieldOf(canonicalPropertyName(request.field)).path,
            ranges: request.ranges.map(({ key: rangeKey, from, to }) => ({
              key: rangeKey,
              ...(from !== undefined && { from }),
              ...(to !== undefined && { to }),
            })),
          },
        },
      };
    case 'grid': {
      const { width, height } = gridCellSize(request.precision);
      return {
        [key]: {
          histogram: { field: 'centre.lon', interval: width, min_doc_count: 1 },
          aggs: {
            rows: { histogram: { field: 'centre.lat', interval: height, min_doc_count: 1 } },
          },
        },
      };
    }
  }
}

interface EngineBucket {
  key: number | string;
  key_as_string?: string;
  doc_count: number;
  rows?: { buckets: EngineBucket[] };
}

function metric(aggregations: JsonObject, name: string): number | null {
  const value = (aggregations[name] as { value?: number | null } | undefined)?.value;
  return typeof value === 'number' ? value : null;
}

function time(value: number | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** Reads the answers of the request's aggregations; `total` is the search's exact hit count. */
export function readAggregations(
  requests: Readonly<Record<string, AggregationRequest>>,
  aggregations: JsonObject,
  total: number,
): Record<string, AggregationAnswer> {
  const answers: Record<string, AggregationAnswer> = {};
  for (const [name, request] of Object.entries(requests)) {
    const key = `a_${name}`;
    const buckets = () =>
      ((aggregations[key] as JsonObject | undefined)?.buckets ?? []) as EngineBucket[];
    switch (request.kind) {
      case 'stats':
        answers[name] = {
          kind: 'stats',
          stats: {
            count: total,
            minStart: time(metric(aggregations, `${key}_minStart`)),
            maxStart: time(metric(aggregations, `${key}_maxStart`)),
            maxEnd: time(metric(aggregations, `${key}_maxEnd`)),
            minLon: metric(aggregations, `${key}_minLon`),
            maxLon: metric(aggregations, `${key}_maxLon`),
            minLat: metric(aggregations, `${key}_minLat`),
            maxLat: metric(aggregations, `${key}_maxLat`),
          },
        };
        break;
      case 'histogram':
        answers[name] = {
          kind: 'buckets',
          buckets: buckets().map((bucket) => ({
            key: new Date(Number(bucket.key)).toISOString(),
            count: bucket.doc_count,
          })),
          overflow: 0,
        };
        break;
      case 'terms': {
        const result = aggregations[key] as { sum_other_doc_count?: number } | undefined;
        answers[name] = {
          kind: 'buckets',
          buckets: buckets()
            .map((bucket) => ({
              key: bucket.key_as_string ?? String(bucket.key),
              count: bucket.doc_count,
            }))
            .sort(byCountThenKey),
          overflow: result?.sum_other_doc_count ?? 0,
        };
        break;
      }
      case 'ranges':
        answers[name] = {
          kind: 'buckets',
          buckets: request.ranges.map((range, index) => ({
            ...range,
            count: buckets()[index]?.doc_count ?? 0,
          })),
          overflow: 0,
        };
        break;
      case 'grid': {
        const { width, height } = gridCellSize(request.precision);
        const cells: GridCellCount[] = buckets().flatMap((column) =>
          (column.rows?.buckets ?? []).map((row) => ({
            column: Math.round(Number(column.key) / width),
            row: Math.round(Number(row.key) / height),
            count: row.doc_count,
          })),
        );
        answers[name] = {
          kind: 'buckets',
          buckets: gridBuckets(cells, request.precision),
          overflow: 0,
        };
        break;
      }
    }
  }
  return answers;
}
