/**
 * Compiles a ChangeQuery (the OAI-PMH listing of records and tombstones) into two SQLite
 * statements per table, one for the page and one for the count, with every value bound. The
 * page is a keyset page on (changed, id), read in order from `records_changed` (or the set's
 * index), so a page deep in the listing costs what the first one does. Pure: no database access.
 */
import type { ChangeQuery } from '../backend.js';
import type { SqlFragment, SqlValue } from './compile-query.js';

/** The table a listing reads: the live records or the tombstones. */
export type ChangeTable = 'records' | 'tombstones';

/** The columns a set selects on, by ChangeSet field. */
const SET_COLUMNS = { type: 'type', parentId: 'parent_id' } as const;

/** The WHERE clause of a listing on one table, without the checkpoint (what the count reads). */
function listingWhere(query: ChangeQuery): SqlFragment {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  if (query.from !== undefined) {
    conditions.push('changed >= ?');
    params.push(query.from);
  }
  if (query.before !== undefined) {
    conditions.push('changed < ?');
    params.push(query.before);
  }
  if (query.set) {
    const column = SET_COLUMNS[query.set.field];
    if (query.set.value === undefined) conditions.push(`${column} IS NOT NULL`);
    else {
      conditions.push(`${column} = ?`);
      params.push(query.set.value);
    }
  }
  return { sql: conditions.length > 0 ? conditions.join(' AND ') : '1', params };
}

/**
 * The page of a listing on one table: up to `limit` rows after the checkpoint, in (changed, id)
 * order, each `id, changed, type, parent_id` and then `extraColumns` (the record's own columns
 * on `records`, when asked).
 */
export function compileChangePage(
  query: ChangeQuery,
  table: ChangeTable,
  extraColumns = '',
): SqlFragment {
  const where = listingWhere(query);
  const params = [...where.params];
  let sql = where.sql;
  if (query.after) {
    sql += ' AND (changed, id) > (?, ?)';
    params.push(query.after.changed, query.after.id);
  }
  const columns = `id, changed, type, parent_id${extraColumns ? `, ${extraColumns}` : ''}`;
  return {
    sql: `SELECT ${columns} FROM ${table} WHERE ${sql} ORDER BY changed, id LIMIT ?`,
    params: [...params, query.limit],
  };
}

/** The count of a listing on one table (the checkpoint and limit ignored). */
export function compileChangeCount(query: ChangeQuery, table: ChangeTable): SqlFragment {
  const where = listingWhere(query);
  return { sql: `SELECT count(*) AS n FROM ${table} WHERE ${where.sql}`, params: where.params };
}
