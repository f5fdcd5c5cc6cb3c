/**
 * The embedded SQLite schema: one row per record, a contentless FTS5 index for free text,
 * and an R*Tree over the record's bounding boxes (two entries when a box crosses the
 * antimeridian; entry id = rowid * 2 + part).
 */
import type { ColumnQueryable } from '../../query/queryables.js';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS records (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT,
  title TEXT,
  title_key TEXT,
  parent_id TEXT,
  created TEXT,
  updated TEXT,
  time_start TEXT,
  time_end TEXT,
  has_time INTEGER NOT NULL DEFAULT 0,
  time_lo INTEGER,
  time_hi INTEGER,
  geocell INTEGER,
  centre_lon REAL,
  centre_lat REAL,
  box_west REAL,
  box_south REAL,
  box_east REAL,
  box_north REAL,
  bbox_west REAL,
  bbox_south REAL,
  bbox_east REAL,
  bbox_north REAL,
  props TEXT NOT NULL,
  geometry TEXT,
  record TEXT NOT NULL,
  source_format TEXT NOT NULL,
  source_media_type TEXT NOT NULL,
  source TEXT NOT NULL,
  changed TEXT
);
CREATE INDEX IF NOT EXISTS records_type ON records(type);
CREATE INDEX IF NOT EXISTS records_title ON records(title);
CREATE INDEX IF NOT EXISTS records_parent ON records(parent_id);
CREATE INDEX IF NOT EXISTS records_parent_extent ON records(parent_id, has_time, time_start, time_end, bbox_west, bbox_south, bbox_east, bbox_north);
CREATE INDEX IF NOT EXISTS records_created ON records(created);
CREATE INDEX IF NOT EXISTS records_updated ON records(updated);
DROP INDEX IF EXISTS records_time_start;
CREATE INDEX IF NOT EXISTS records_time_end ON records(time_end);
CREATE INDEX IF NOT EXISTS records_title_key ON records(title_key, title, id);
CREATE INDEX IF NOT EXISTS records_time ON records(time_start, time_end, has_time);
CREATE INDEX IF NOT EXISTS records_span ON records(rid, has_time, time_start, time_end, type, parent_id, created, updated, id, title, time_lo, time_hi, box_west, box_south, box_east, box_north);
CREATE INDEX IF NOT EXISTS records_probe ON records(rid, type, has_time, time_start, time_end, time_lo, time_hi, box_west, box_south, box_east, box_north);
CREATE INDEX IF NOT EXISTS records_interval ON records(time_lo, time_hi);
CREATE INDEX IF NOT EXISTS records_cells ON records(geocell, centre_lon, centre_lat, time_start, time_end);
CREATE INDEX IF NOT EXISTS records_changed ON records(changed, id);
CREATE INDEX IF NOT EXISTS records_type_changed ON records(type, changed, id);
CREATE INDEX IF NOT EXISTS records_parent_changed ON records(parent_id, changed, id);
CREATE TABLE IF NOT EXISTS tombstones (
  id TEXT PRIMARY KEY,
  changed TEXT NOT NULL,
  type TEXT,
  parent_id TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tombstones_changed ON tombstones(changed, id);
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(
  anytext, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS records_rtree USING rtree(id, minx, maxx, miny, maxy);
CREATE TABLE IF NOT EXISTS records_changes (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS records_changes_insert AFTER INSERT ON records
  BEGIN UPDATE records_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS records_changes_update AFTER UPDATE ON records
  BEGIN UPDATE records_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS records_changes_delete AFTER DELETE ON records
  BEGIN UPDATE records_changes SET n = n + 1 WHERE id = 1; END;
`;

/**
 * `records_changes`: one row whose `n` grows with every row written to or deleted from
 * `records` (the triggers, in the writing transaction itself), whoever writes the file. Two read
 * transactions that see the same `n` see the same records, so a count and a page read on two
 * connections at once (SqliteBackend's split reads) can be checked to belong together.
 */
export const RECORDS_CHANGES_SQL = 'SELECT n FROM records_changes WHERE id = 1';

/** Its one row, written once when the table is new (not at every open: that would be a write). */
export const RECORDS_CHANGES_ROW_SQL =
  'INSERT OR IGNORE INTO records_changes (id, n) VALUES (1, 0)';

/**
 * `changed`: when the record was last written here (ISO 8601 UTC with milliseconds), the
 * OAI-PMH datestamp; `records_changed` and the two set indexes serve listings in (changed, id)
 * order, whole or by type or parent collection, with keyset paging. `tombstones`: one row per
 * deleted record (its deletion time and the sets it was in), apart from `records` so that no
 * search, count or facet has to exclude them; writing a record again removes its row.
 *
 * `title_key`: the title's case- and accent-insensitive sort key (textSortKey, the same function
 * as `cairn_sort_key`), stored when a record is written so that `records_title_key` serves a
 * sort by title in order and a LIMIT stops early. `records_time`: the time columns together,
 * so a time-range count reads one narrow index instead of every matching row; it also serves
 * sorts on the start (it replaces `records_time_start`, dropped from older files). `box_*`: the
 * footprint's edges when the footprint is exactly that rectangle (footprintBox in rows.ts),
 * else NULL: such a record meets a query rectangle when the edges overlap, decided from the
 * span index without reading the record's geometry.
 */

/**
 * `time_lo`, `time_hi`: the record's time interval as milliseconds since the epoch (instantMillis
 * in rows.ts), an open start below and an open end above every instant Cairn stores
 * (OPEN_START_MS, OPEN_END_MS), both NULL when the record has no time. Stored instants are
 * normalised timestamps of the years 0000–9999 with milliseconds, whose string order is their
 * time order, so comparing these integers answers what comparing `time_start`/`time_end` does;
 * `records_interval (time_lo, time_hi)` counts a time range in one range scan of a narrow index
 * (an open start made the text form `time_start IS NULL OR time_start <= ?`, two scans merged
 * by rowid and a lookup of every matching row). `geocell`: the geohash of the centre of the
 * record's own box at 60 bits (precision 12, geocellOf in rows.ts) as an integer, NULL without a
 * box; the cell at precision p is `geocell >> (60 - 5p)`, so a grid groups one integer.
 * `centre_lon`, `centre_lat`: that centre (boxCentre), NULL without a box. `records_cells` holds
 * the cell, the centre and the time columns, so the grid and the stats of an aggregation (least
 * and greatest start, centre) read one narrow index instead of every wide row.
 */

/**
 * `bbox_*`: the record's own box (`record.bbox`, west > east across the antimeridian) in double
 * precision. `records_parent_extent` holds them with the parent and time columns, so the extent
 * of a collection's items (children-extents.ts) is read from that index alone.
 */

/**
 * A narrow copy of the records' small columns, in rowid order: the
 * records an R*Tree prefilter selects are looked up here, so their time, type, collection and
 * sort columns are read without reading their wide rows (record, source, props, geometry),
 * which are read only for the rows a condition still needs. Rowids only grow, so writes append
 * to it and it stays during bulk loads; existing databases get it when they are opened.
 */
export const SPAN_INDEX = 'records_span';

/**
 * The span index's columns an R*Tree-driven count mostly reads (type, time, rectangle edges),
 * in rowid order too and less than half its size: a count whose conditions read none of the
 * span index's other columns looks its matches up here, about a quarter faster than in the
 * span index (100,000 records, 20,000 R*Tree matches: 21 -> 15 ms).
 */
export const PROBE_INDEX = 'records_probe';

/**
 * The span index's columns PROBE_INDEX lacks: a condition reading one of them is counted on
 * the span index (other wide columns, such as the geometry, are read from the row either way).
 */
export const SPAN_ONLY_COLUMNS: ReadonlySet<string> = new Set([
  'parent_id',
  'created',
  'updated',
  'id',
  'title',
]);

/**
 * Text sort keys stored in a column of their own (equal to `cairn_sort_key(column)`), by the
 * SORT_COLUMNS column they are the key of.
 */
export const STORED_SORT_KEYS: Readonly<Record<string, string>> = { 'r.title': 'r.title_key' };

/** Maps sortable canonical queryables to their column; others sort on their JSON value. */
export const SORT_COLUMNS: Readonly<Record<string, string>> = {
  id: 'r.id',
  type: 'r.type',
  title: 'r.title',
  parentId: 'r.parent_id',
  created: 'r.created',
  updated: 'r.updated',
  start_datetime: 'r.time_start',
  end_datetime: 'r.time_end',
} satisfies Record<ColumnQueryable, string>;
