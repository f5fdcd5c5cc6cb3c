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
  type AggregationAnswer,
  type AggregationBucket,
  type AggregationRequest,
  type CalendarInterval,
} from '../aggregations.js';
import { GEOCELL_BITS } from './rows.js';
import { compileQuery, propertyPath, type FilterCompiler, type SqlValue } from './compile-query.js';

/** One statement and how to read its rows. */
export interface AggregateStatement {
  sql: string;
  params: SqlValue[];
  mode: 'get' | 'all';
  read: (rows: unknown) => AggregationAnswer;
}

/** One grid cell's count: its geohash bits as the bits above and the 30 bits below 2^30. */
interface GeohashCount {
  high: number;
  low: number;
  count: number;
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** The geohash text of `precision` characters whose bits are high * 2^30 + low. */
export function geohashText(high: number, low: number, precision: number): string {
  const bits = (BigInt(high) << 30n) | BigInt(low);
  let hash = '';
  for (let index = precision - 1; index >= 0; index -= 1) {
    hash += BASE32[Number((bits >> BigInt(5 * index)) & 31n)];
  }
  return hash;
}

/** The grid's buckets, most frequent first (the order of gridBuckets). */
function geohashBuckets(cells: readonly GeohashCount[], precision: number): AggregationBucket[] {
  return cells
    .map(({ high, low, count }) => ({ key: geohashText(high, low, precision), count }))
    .sort(byCountThenKey);
}

/**
 * The centre of the record's own box, stored with it (boxCentre in ../aggregations.ts, the
 * centre the engines index too).
 */
const CENTRE_LON = 'r.centre_lon';
const CENTRE_LAT = 'r.centre_lat';

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
      // The stored cell (`geocell`, precision 12) shifted to the precision: one integer per
      // record to group, read from the cell index when the query has no condition. The key
      // crosses as two numbers below 2^30 (a JavaScript number holds 53 bits exactly).
      const shift = GEOCELL_BITS - 5 * request.precision;
      return {
        sql: `SELECT k >> 30 AS high, k & 1073741823 AS low, count(*) AS count
          FROM (SELECT r.geocell >> ${shift} AS k ${from('', 'AND r.geocell IS NOT NULL')})
          GROUP BY k`,
        params,
        mode: 'all',
        read: (rows) => ({
          kind: 'buckets',
          buckets: geohashBuckets(rows as GeohashCount[], request.precision),
          overflow: 0,
        }),
      };
    }
  }
}
