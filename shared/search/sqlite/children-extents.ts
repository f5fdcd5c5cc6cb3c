/**
 * The SQL of `SearchBackend.childrenExtents` on SQLite and the reading of its rows. Pure. The
 * boxes are the records' own (`bbox_*`: `record.bbox` in double precision, as the engines index
 * them), not the R*Tree's, whose single-precision bounds are rounded outwards; the statement
 * reads the covering index `records_parent_extent` alone.
 */
import type { ChildrenExtent } from '../backend.js';

/** One parameter: the parent ids as a JSON array. */
export const CHILDREN_EXTENTS_SQL = `
SELECT parent_id AS parentId, count(*) AS count,
  min(CASE WHEN bbox_west > bbox_east THEN -180 ELSE bbox_west END) AS west,
  min(bbox_south) AS south,
  max(CASE WHEN bbox_west > bbox_east THEN 180 ELSE bbox_east END) AS east,
  max(bbox_north) AS north,
  sum(has_time) AS timed, min(time_start) AS start, max(time_end) AS end,
  sum(has_time = 1 AND time_start IS NULL) AS openStart,
  sum(has_time = 1 AND time_end IS NULL) AS openEnd
FROM records
WHERE parent_id IN (SELECT value FROM json_each(?))
GROUP BY parent_id ORDER BY parent_id`;

/** A row of CHILDREN_EXTENTS_SQL. */
export interface ChildrenExtentRow {
  parentId: string;
  count: number;
  west: number | null;
  south: number | null;
  east: number | null;
  north: number | null;
  timed: number;
  start: string | null;
  end: string | null;
  openStart: number;
  openEnd: number;
}

/** Reads a row of CHILDREN_EXTENTS_SQL. */
export function readChildrenExtentRow(row: ChildrenExtentRow): ChildrenExtent {
  const extent: ChildrenExtent = { parentId: row.parentId, count: row.count };
  if (row.west !== null && row.south !== null && row.east !== null && row.north !== null) {
    extent.bbox = [row.west, row.south, row.east, row.north];
  }
  if (row.timed > 0) {
    extent.time = {
      start: row.openStart > 0 ? null : row.start,
      end: row.openEnd > 0 ? null : row.end,
    };
  }
  return extent;
}
