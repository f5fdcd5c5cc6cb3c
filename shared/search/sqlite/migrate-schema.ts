/**
 * Brings a catalogue file written by an earlier version up to the current schema when it is
 * opened, before SCHEMA_SQL creates the indexes over the new columns: columns added since are
 * added and filled from the stored values, and an index whose columns changed (the span and
 * probe indexes) is dropped for SCHEMA_SQL to build again, in one transaction (all or nothing).
 */
import type Database from 'better-sqlite3';
import type { Bbox } from '../../records/core-record.js';
import { boxCentre } from '../aggregations.js';
import { footprintBox, geocellOf, intervalMillis } from './rows.js';
import { PROBE_INDEX, SPAN_INDEX } from './schema.js';
import { SQL_FUNCTIONS } from './sql-functions.js';

/** Columns added after the first release, with what fills them for the rows already stored. */
interface AddedColumns {
  /** `name TYPE` of each column. */
  columns: string[];
  fill: (db: Database.Database) => void;
}

/** Fills the footprint rectangle columns (footprintBox) of every stored record. */
function fillFootprintBoxes(db: Database.Database): void {
  const rows = db
    .prepare("SELECT rid, geometry, json_extract(record, '$.bbox') AS bbox FROM records")
    .raw()
    .iterate() as IterableIterator<[number, string | null, string | null]>;
  const boxes: [number, Bbox][] = [];
  for (const [rid, geometry, bbox] of rows) {
    const box = footprintBox(
      geometry === null ? null : JSON.parse(geometry),
      bbox === null ? null : (JSON.parse(bbox) as Bbox),
    );
    if (box) boxes.push([rid, box]);
  }
  const update = db.prepare(
    'UPDATE records SET box_west = ?, box_south = ?, box_east = ?, box_north = ? WHERE rid = ?',
  );
  for (const [rid, box] of boxes) update.run(...box, rid);
}

/**
 * Fills the interval (intervalMillis), grid cell (geocellOf) and centre (boxCentre) columns of
 * every stored record, as toSqliteRow computes them.
 */
function fillIntervalsAndCells(db: Database.Database): void {
  const rows = db
    .prepare(
      'SELECT rid, has_time, time_start, time_end, bbox_west, bbox_south, bbox_east, bbox_north FROM records',
    )
    .raw()
    .iterate() as IterableIterator<
    [number, number, string | null, string | null, ...(number | null)[]]
  >;
  type Update = [number | null, number | null, bigint | null, number | null, number | null, number];
  const updates: Update[] = [];
  for (const [rid, hasTime, start, end, west, south, east, north] of rows) {
    const [lo, hi] = hasTime === 1 ? intervalMillis(start, end) : [null, null];
    const box: Bbox | undefined =
      west == null || south == null || east == null || north == null
        ? undefined
        : [west, south, east, north];
    const [lon, lat] = box ? boxCentre(box) : [null, null];
    if (lo !== null || box) updates.push([lo, hi, box ? geocellOf(box) : null, lon, lat, rid]);
  }
  const update = db.prepare(
    'UPDATE records SET time_lo = ?, time_hi = ?, geocell = ?, centre_lon = ?, centre_lat = ? WHERE rid = ?',
  );
  for (const values of updates) update.run(...values);
}

const ADDED_COLUMNS: readonly AddedColumns[] = [
  {
    columns: ['title_key TEXT'],
    fill: (db) =>
      db.exec(
        `UPDATE records SET title_key = ${SQL_FUNCTIONS.sortKey}(title) WHERE title IS NOT NULL`,
      ),
  },
  {
    columns: ['box_west REAL', 'box_south REAL', 'box_east REAL', 'box_north REAL'],
    fill: fillFootprintBoxes,
  },
  {
    columns: ['bbox_west REAL', 'bbox_south REAL', 'bbox_east REAL', 'bbox_north REAL'],
    fill: (db) =>
      db.exec(`UPDATE records SET bbox_west = json_extract(record, '$.bbox[0]'),
        bbox_south = json_extract(record, '$.bbox[1]'), bbox_east = json_extract(record, '$.bbox[2]'),
        bbox_north = json_extract(record, '$.bbox[3]') WHERE json_type(record, '$.bbox') = 'array'`),
  },
  {
    // Records stored before change times were kept count as changed when the file is upgraded.
    columns: ['changed TEXT'],
    fill: (db) => db.exec("UPDATE records SET changed = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"),
  },
  {
    columns: [
      'time_lo INTEGER',
      'time_hi INTEGER',
      'geocell INTEGER',
      'centre_lon REAL',
      'centre_lat REAL',
    ],
    fill: fillIntervalsAndCells,
  },
];

/**
 * The column the span and probe indexes must end with (their columns changed when the boxes
 * came), and one each must hold (they gained the interval columns since).
 */
const SPAN_LAST_COLUMN = 'box_north';
const SPAN_INTERVAL_COLUMN = 'time_lo';

/** The name a column definition (`name TYPE …`) declares. */
function columnName(definition: string): string {
  const space = definition.indexOf(' ');
  return space === -1 ? definition : definition.slice(0, space);
}

function missingColumns(db: Database.Database): AddedColumns[] {
  const columns = db.prepare("SELECT name FROM pragma_table_info('records')").pluck().all();
  if (columns.length === 0) return []; // A new catalogue: SCHEMA_SQL creates the table whole.
  return ADDED_COLUMNS.filter(
    (added) => !added.columns.every((column) => columns.includes(columnName(column))),
  );
}

/** The span or probe index exists with columns of an earlier version. */
function isIndexOld(db: Database.Database, name: string): boolean {
  const columns = db.prepare(`SELECT name FROM pragma_index_info('${name}')`).pluck().all();
  return (
    columns.length > 0 &&
    (columns[columns.length - 1] !== SPAN_LAST_COLUMN || !columns.includes(SPAN_INTERVAL_COLUMN))
  );
}

function oldIndexes(db: Database.Database): string[] {
  return [SPAN_INDEX, PROBE_INDEX].filter((name) => isIndexOld(db, name));
}

/**
 * Adds and fills the columns an existing `records` table lacks, and drops an outdated span
 * index; returns the names of the columns added. Needs the SQL functions registered
 * (registerSqlFunctions). Another process opening the same file at the same time waits for
 * the write lock and then finds nothing left to do.
 */
export function migrateSchema(db: Database.Database): string[] {
  if (missingColumns(db).length === 0 && oldIndexes(db).length === 0) return [];
  return db
    .transaction(() => {
      const missing = missingColumns(db);
      const existing = db.prepare("SELECT name FROM pragma_table_info('records')").pluck().all();
      for (const { columns, fill } of missing) {
        for (const column of columns) {
          if (!existing.includes(columnName(column))) {
            db.exec(`ALTER TABLE records ADD COLUMN ${column}`);
          }
        }
        fill(db);
      }
      for (const name of oldIndexes(db)) db.exec(`DROP INDEX ${name}`);
      return missing.flatMap(({ columns }) => columns.map((column) => columnName(column)));
    })
    .immediate();
}
