/**
 * Brings a catalogue file written by an earlier version up to the current schema when it is
 * opened, before SCHEMA_SQL creates the indexes over the new columns: columns added since are
 * added and filled from the stored values, in one transaction (all or nothing).
 */
import type Database from 'better-sqlite3';
import { SQL_FUNCTIONS } from './sql-functions.js';

/** A column added after the first release, with the statement that fills it for old rows. */
interface AddedColumn {
  name: string;
  type: string;
  fill: string;
}

const ADDED_COLUMNS: readonly AddedColumn[] = [
  {
    name: 'title_key',
    type: 'TEXT',
    fill: `UPDATE records SET title_key = ${SQL_FUNCTIONS.sortKey}(title) WHERE title IS NOT NULL`,
  },
];

function missingColumns(db: Database.Database): AddedColumn[] {
  const columns = db.prepare("SELECT name FROM pragma_table_info('records')").pluck().all();
  if (columns.length === 0) return []; // A new catalogue: SCHEMA_SQL creates the table whole.
  return ADDED_COLUMNS.filter(({ name }) => !columns.includes(name));
}

/**
 * Adds and fills the columns an existing `records` table lacks; returns their names. Needs the
 * SQL functions registered (registerSqlFunctions). Another process opening the same file at
 * the same time waits for the write lock and then finds nothing left to do.
 */
export function migrateSchema(db: Database.Database): string[] {
  if (missingColumns(db).length === 0) return [];
  return db
    .transaction(() => {
      const missing = missingColumns(db);
      for (const { name, type, fill } of missing) {
        db.exec(`ALTER TABLE records ADD COLUMN ${name} ${type}`);
        db.exec(fill);
      }
      return missing.map(({ name }) => name);
    })
    .immediate();
}
