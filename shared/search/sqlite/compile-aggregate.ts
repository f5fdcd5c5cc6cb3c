/**
 * SearchBackend.aggregate on SQLite: one statement per aggregation over the records a query
 * matches (compileQuery's join and condition), and the reading of its rows into the shared
 * answers (../aggregations.ts). Pure. Each statement computes what the engines' aggregation of
 * the same name computes (engine/compile-aggregate.ts): the same periods, the same centres and
 * cells in double precision, values counted once per record.
 */
import type { SearchQuery } from '../../query/search-query.js';
import {
  byCountThenKey,
  gridBuckets,
  gridCellSize,
  type AggregationAnswer,
  type AggregationRequest,
  type CalendarInterval,
  type GridCellCount,
} from '../aggregations.js';
import { compileQuery, propertyPath, type FilterCompiler, type SqlValue } from './compile-query.js';

/** One statement and how to read its rows. */
export interface AggregateStatement {
  sql: string;
  params: SqlValue[];
  mode: 'get' | 'all';
  read: (rows: unknown) => AggregationAnswer;
}

/** The centre of the record's own box (boxCentre in ../aggregations.ts, the same operations). */
const CENTRE_LON = `(CASE WHEN r.bbox_west <= r.bbox_east THEN (r.bbox_west + r.bbox_east) / 2.0
  WHEN (r.bbox_west + r.bbox_east + 360) / 2.0 > 180 THEN (r.bbox_west + r.bbox_east + 360) / 2.0 - 360
  ELSE (r.bbox_west + r.bbox_east + 360) / 2.0 END)`;
const CENTRE_LAT = '((r.bbox_south + r.bbox_north) / 2.0)';

/** The first instant of the period `r.time_start` (a normalised UTC timestamp) falls in. */
const PERIOD_KEYS: Readonly<Record<CalendarInterval, string>> = {
  year: "substr(r.time_start, 1, 4) || '-01-01T00:00:00.000Z'",
  quarter:
    "substr(r.time_start, 1, 5) || printf('%02d', ((CAST(substr(r.time_start, 6, 2) AS INTEGER) - 1) / 3) * 3 + 1) || '-01T00:00:00.000Z'",
  month: "substr(r.time_start, 1, 7) || '-01T00:00:00.000Z'",
  week: "date(substr(r.time_start, 1, 10), '-6 days', 'weekday 1') || 'T00:00:00.000Z'",
  day: "substr(r.time_start, 1, 10) || 'T00:00:00.000Z'",
  hour: "substr(r.time_start, 1, 13) || ':00:00.000Z'",
};

/** Compiles each aggregation of a request into its statement. */
export function compileAggregations(
  query: SearchQuery,
  requests: Readonly<Record<string, AggregationRequest>>,
  compileFilter: FilterCompiler,
  guard = '',
): Record<string, AggregateStatement> {
  const compiled = compileQuery(query, compileFilter);
  const from: From = (join = '', condition = '') =>
    `FROM records r ${compiled.join} ${join} WHERE ${guard}(${compiled.where.sql}) ${condition}`;
  const params = [...compiled.joinParams, ...compiled.where.params];
  const statements: Record<string, AggregateStatement> = {};
  for (const [name, request] of Object.entries(requests)) {
    statements[name] = compileOne(request, from, params);
  }
  return statements;
}

/** The FROM and WHERE clauses over the matched records, with a join and a condition added. */
type From = (join?: string, condition?: string) => string;

interface StatsRow {
  count: number;
  minStart: string | null;
  maxStart: string | null;
  maxEnd: string | null;
  minLon: number | null;
  maxLon: number | null;
  minLat: number | null;
  maxLat: number | null;
}

function compileOne(
  request: AggregationRequest,
  from: From,
  params: SqlValue[],
): AggregateStatement {
  switch (request.kind) {
    case 'stats':
      return {
        sql: `SELECT count(*) AS count, min(r.time_start) AS minStart, max(r.time_start) AS maxStart,
          max(r.time_end) AS maxEnd, min(${CENTRE_LON}) AS minLon, max(${CENTRE_LON}) AS maxLon,
          min(${CENTRE_LAT}) AS minLat, max(${CENTRE_LAT}) AS maxLat ${from()}`,
        params,
        mode: 'get',
        read: (row) => ({ kind: 'stats', stats: row as StatsRow }),
      };
    case 'histogram':
      return {
        sql: `SELECT ${PERIOD_KEYS[request.interval]} AS key, count(*) AS count
          ${from('', 'AND r.time_start IS NOT NULL')} GROUP BY 1 ORDER BY 1`,
        params,
        mode: 'all',
        read: (rows) => ({
          kind: 'buckets',
          buckets: rows as { key: string; count: number }[],
          overflow: 0,
        }),
      };
    case 'terms':
      return {
        sql: `WITH v AS (SELECT CAST(e.value AS TEXT) AS key, count(DISTINCT r.rid) AS count
            ${from(`JOIN json_each(r.props, '${propertyPath(request.field)}') e`, 'AND e.value IS NOT NULL')}
            GROUP BY 1)
          SELECT key, count, (SELECT sum(count) FROM v) AS total FROM v
          ORDER BY count DESC, key ASC LIMIT ?`,
        params: [...params, request.size],
        mode: 'all',
        read: (rows) => {
          const found = rows as { key: string; count: number; total: number }[];
          const buckets = found.map(({ key, count }) => ({ key, count })).sort(byCountThenKey);
          const counted = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
          return { kind: 'buckets', buckets, overflow: (found[0]?.total ?? 0) - counted };
        },
      };
    case 'ranges': {
      // The property is read once per record (materialised, so that it is not read again for
      // each band); the bands sum over the numbers.
      const path = propertyPath(request.field);
      const rangeParams: SqlValue[] = [];
      const sums = request.ranges.map((range, index) => {
        const conditions = ['v IS NOT NULL'];
        if (range.from !== undefined) {
          conditions.push('v >= ?');
          rangeParams.push(range.from);
        }
        if (range.to !== undefined) {
          conditions.push('v < ?');
          rangeParams.push(range.to);
        }
        return `sum(CASE WHEN ${conditions.join(' AND ')} THEN 1 ELSE 0 END) AS r${index}`;
      });
      return {
        sql: `WITH x AS MATERIALIZED (SELECT json_extract(r.props, '${path}') AS x ${from()}),
          v AS MATERIALIZED (SELECT x AS v FROM x WHERE typeof(x) IN ('integer', 'real'))
          SELECT ${sums.join(', ')} FROM v`,
        params: [...params, ...rangeParams],
        mode: 'get',
        read: (row) => ({
          kind: 'buckets',
          buckets: request.ranges.map((range, index) => ({
            ...range,
            count: Number((row as Record<string, number | null>)[`r${index}`] ?? 0),
          })),
          overflow: 0,
        }),
      };
    }
    case 'grid': {
      const { width, height } = gridCellSize(request.precision);
      return {
        sql: `SELECT CAST(floor(${CENTRE_LON} / ?) AS INTEGER) AS "column",
            CAST(floor(${CENTRE_LAT} / ?) AS INTEGER) AS "row", count(*) AS count
          ${from('', 'AND r.bbox_west IS NOT NULL')} GROUP BY 1, 2`,
        params: [width, height, ...params],
        mode: 'all',
        read: (rows) => ({
          kind: 'buckets',
          buckets: gridBuckets(rows as GridCellCount[], request.precision),
          overflow: 0,
        }),
      };
    }
  }
}
