/**
 * The aggregation contract every backend answers alike (SearchBackend.aggregate), and the pure
 * arithmetic both sides share, so that SQLite and the engines give the same buckets and counts
 * (docs/decisions/aggregations.md):
 *
 * - `stats`: the count of the matched records, the least and greatest start, the greatest end
 *   of their times, and the least and greatest centre of their boxes (boxCentre);
 * - `histogram`: the matched records by the calendar period (UTC) their time starts in, only
 *   non-empty periods, in time order;
 * - `terms`: the values of a property (each element of a list), each counted once per record,
 *   most frequent first then by value (UTF-8 byte order), at most `size`, the records of the
 *   values left out counted in `overflow`;
 * - `ranges`: the records whose numeric property lies in [from, to) of each range;
 * - `grid`: the records by the geohash cell of their box's centre at a precision, found with two
 *   nested numeric histograms (the cell's column and row), keys made here (gridBuckets).
 */
import type { Bbox } from '../records/core-record.js';

/** The calendar intervals of a date histogram. */
export const CALENDAR_INTERVALS = ['year', 'quarter', 'month', 'week', 'day', 'hour'] as const;
export type CalendarInterval = (typeof CALENDAR_INTERVALS)[number];

/** A numeric range of a `ranges` aggregation: from (inclusive) and to (exclusive); absent: open. */
export interface NumericRange {
  key: string;
  from?: number;
  to?: number;
}

/**
 * Bands of ten of a percentage (cloud and snow cover): from inclusive, to exclusive, the last
 * one open above (so that 100 falls in it).
 */
export const PERCENT_RANGES: readonly NumericRange[] = [
  ...Array.from({ length: 9 }, (_, index) => ({
    key: `${index * 10}-${index * 10 + 10}`,
    from: index * 10,
    to: index * 10 + 10,
  })),
  { key: '90-*', from: 90 },
];

/** One aggregation to compute over the records a query matches. */
export type AggregationRequest =
  | { kind: 'stats' }
  | { kind: 'histogram'; interval: CalendarInterval }
  | { kind: 'terms'; field: string; size: number }
  | { kind: 'ranges'; field: string; ranges: readonly NumericRange[] }
  | { kind: 'grid'; precision: number };

/** The `stats` answer; null where no matched record has the value. */
export interface AggregationStats {
  count: number;
  minStart: string | null;
  maxStart: string | null;
  maxEnd: string | null;
  minLon: number | null;
  maxLon: number | null;
  minLat: number | null;
  maxLat: number | null;
}

/** One bucket: its key, how many records fall in it, and a range's bounds. */
export interface AggregationBucket {
  key: string;
  count: number;
  from?: number;
  to?: number;
}

/** What one aggregation gives. */
export type AggregationAnswer =
  | { kind: 'stats'; stats: AggregationStats }
  | { kind: 'buckets'; buckets: AggregationBucket[]; overflow: number };

/** A grid bucket as the backends count it: the cell's column and row (from the histograms). */
export interface GridCellCount {
  column: number;
  row: number;
  count: number;
}

/** Most characters of a geohash grid. */
export const MAX_GRID_PRECISION = 12;

/**
 * The centre of a box: the midpoint of its longitudes (across the antimeridian when west >
 * east) and of its latitudes. Written once here for the engines' documents; the SQLite statement
 * does the same operations in the same order (centre longitude and latitude in SQL), so both
 * give the same doubles.
 */
export function boxCentre([west, south, east, north]: Bbox): [number, number] {
  let lon = west <= east ? (west + east) / 2 : (west + east + 360) / 2;
  if (lon > 180) lon -= 360;
  return [lon, (south + north) / 2];
}

/** The geohash cell size at a precision: bits and degrees of a column and of a row. */
export function gridCellSize(precision: number): {
  lonBits: number;
  latBits: number;
  width: number;
  height: number;
} {
  const lonBits = Math.ceil((5 * precision) / 2);
  const latBits = Math.floor((5 * precision) / 2);
  return { lonBits, latBits, width: 360 / 2 ** lonBits, height: 180 / 2 ** latBits };
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/**
 * The geohash of a cell, from floor(lon / width) and floor(lat / height) (what the histograms
 * give, counted from 0° rather than from -180° and -90°); the edges 180° and 90° belong to the
 * last column and row, as in geohash.
 */
export function geohashOfCell(column: number, row: number, precision: number): string {
  const { lonBits, latBits } = gridCellSize(precision);
  const x = Math.min(column + 2 ** (lonBits - 1), 2 ** lonBits - 1);
  const y = Math.min(row + 2 ** (latBits - 1), 2 ** latBits - 1);
  let hash = '';
  let bits = 0;
  let value = 0;
  let lonBit = lonBits - 1;
  let latBit = latBits - 1;
  for (let i = 0; i < 5 * precision; i += 1) {
    const bit = i % 2 === 0 ? (x >> lonBit--) & 1 : (y >> latBit--) & 1;
    value = (value << 1) | bit;
    bits += 1;
    if (bits === 5) {
      hash += BASE32[value];
      bits = 0;
      value = 0;
    }
  }
  return hash;
}

/** Orders buckets most frequent first, then by key in UTF-8 byte order (the engines' order). */
export function byCountThenKey(a: AggregationBucket, b: AggregationBucket): number {
  if (a.count !== b.count) return b.count - a.count;
  return Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
}

/** The buckets of a grid from the backends' cell counts: cells on 180° or 90° merged into the last. */
export function gridBuckets(
  cells: readonly GridCellCount[],
  precision: number,
): AggregationBucket[] {
  const counts = new Map<string, number>();
  for (const { column, row, count } of cells) {
    const key = geohashOfCell(column, row, precision);
    counts.set(key, (counts.get(key) ?? 0) + count);
  }
  return [...counts].map(([key, count]) => ({ key, count })).sort(byCountThenKey);
}

/** The first instant (UTC) of the calendar period a timestamp falls in; weeks start on Monday. */
export function periodStart(timestamp: string, interval: CalendarInterval): Date {
  const time = new Date(timestamp);
  const year = time.getUTCFullYear();
  const month = time.getUTCMonth();
  const day = time.getUTCDate();
  switch (interval) {
    case 'year':
      return new Date(Date.UTC(year, 0, 1));
    case 'quarter':
      return new Date(Date.UTC(year, month - (month % 3), 1));
    case 'month':
      return new Date(Date.UTC(year, month, 1));
    case 'week':
      return new Date(Date.UTC(year, month, day - ((time.getUTCDay() + 6) % 7)));
    case 'day':
      return new Date(Date.UTC(year, month, day));
    case 'hour':
      return new Date(Date.UTC(year, month, day, time.getUTCHours()));
  }
}

/** The first instant (UTC) of the calendar period after the one starting at `start`. */
export function nextPeriodStart(start: string, interval: CalendarInterval): string {
  const date = periodStart(start, interval);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  switch (interval) {
    case 'year':
      return new Date(Date.UTC(year + 1, 0, 1)).toISOString();
    case 'quarter':
      return new Date(Date.UTC(year, month + 3, 1)).toISOString();
    case 'month':
      return new Date(Date.UTC(year, month + 1, 1)).toISOString();
    case 'week':
      return new Date(Date.UTC(year, month, day + 7)).toISOString();
    case 'day':
      return new Date(Date.UTC(year, month, day + 1)).toISOString();
    case 'hour':
      return new Date(Date.UTC(year, month, day, date.getUTCHours() + 1)).toISOString();
  }
}

const HOUR = 3_600_000;

/** How many calendar periods there are from the one holding `first` to the one holding `last`. */
export function countCalendarPeriods(
  first: string,
  last: string,
  interval: CalendarInterval,
): number {
  const start = periodStart(first, interval);
  const end = periodStart(last, interval);
  const months = (end.getUTCFullYear() - start.getUTCFullYear()) * 12;
  switch (interval) {
    case 'year':
      return end.getUTCFullYear() - start.getUTCFullYear() + 1;
    case 'quarter':
      return Math.floor((months + end.getUTCMonth() - start.getUTCMonth()) / 3) + 1;
    case 'month':
      return months + end.getUTCMonth() - start.getUTCMonth() + 1;
    case 'week':
      return Math.round((end.getTime() - start.getTime()) / (168 * HOUR)) + 1;
    case 'day':
      return Math.round((end.getTime() - start.getTime()) / (24 * HOUR)) + 1;
    case 'hour':
      return Math.round((end.getTime() - start.getTime()) / HOUR) + 1;
  }
}

/** How many grid cells span the centres' box at a precision (the most a grid can give). */
export function countGridCells(stats: AggregationStats, precision: number): number {
  if (stats.minLon === null || stats.maxLon === null || stats.minLat === null) return 0;
  const { width, height } = gridCellSize(precision);
  const columns = Math.floor(stats.maxLon / width) - Math.floor(stats.minLon / width) + 1;
  const rows = Math.floor(stats.maxLat! / height) - Math.floor(stats.minLat / height) + 1;
  return columns * rows;
}
