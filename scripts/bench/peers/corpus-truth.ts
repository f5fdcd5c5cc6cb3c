/**
 * Counts taken from the generated corpus itself, for `npm run bench:peers`: where
 * Cairn and a peer report different numbers of matches, these decide which side is right.
 * Pure: they read CoreRecords only.
 */
import type { Bbox, CoreRecord, TimeExtent } from '../../../shared/records/core-record.js';

/** Whether a record's box (west > east crosses the antimeridian) meets a query box that does not. */
export function boxIntersects(record: Bbox, query: Bbox): boolean {
  const [west, south, east, north] = record;
  if (south > query[3] || north < query[1]) return false;
  const spans: [number, number][] =
    west <= east
      ? [[west, east]]
      : [
          [west, 180],
          [-180, east],
        ];
  return spans.some(([from, to]) => from <= query[2] && to >= query[0]);
}

/** Whether a record's time extent overlaps the closed period [start, end] (open ends are open). */
export function timeOverlaps(time: TimeExtent | undefined, start: string, end: string): boolean {
  if (!time || (time.start === null && time.end === null)) return false;
  const [from, to] = [Date.parse(start), Date.parse(end)];
  const recordStart = time.start === null ? -Infinity : Date.parse(time.start);
  const recordEnd = time.end === null ? Infinity : Date.parse(time.end);
  return recordStart <= to && recordEnd >= from;
}

/** The records a bbox query matches (any overlap). */
export function countBbox(records: readonly CoreRecord[], query: Bbox): number {
  return records.filter((record) => record.bbox !== undefined && boxIntersects(record.bbox, query))
    .length;
}

/** The records a datetime period matches (any overlap of the temporal extent). */
export function countDatetime(records: readonly CoreRecord[], start: string, end: string): number {
  return records.filter((record) => timeOverlaps(record.time, start, end)).length;
}
