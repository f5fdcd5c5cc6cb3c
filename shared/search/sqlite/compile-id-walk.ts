/**
 * Compiles an IdWalkQuery (the sitemaps' walk over the record ids) into one SQLite statement
 * with every value bound: the ids in order from the unique index on `records.id`, from the
 * first after `after` to `through`, `skip` of them passed over in the index, `updated` read
 * beside each when asked. No count, and no record column beyond those. Pure: no database access.
 */
import type { IdWalkQuery } from '../backend.js';
import type { SqlFragment, SqlValue } from './compile-query.js';

/**
 * The statement of a walk; rows are `[id]`, or `[id, updated]` with `withUpdated`. `guard`
 * goes in front of the conditions (the deadline check on `r.rid`, when there is a budget).
 */
export function compileIdWalk(query: IdWalkQuery, guard = ''): SqlFragment {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  if (query.after !== undefined) {
    conditions.push('r.id > ?');
    params.push(query.after);
  }
  if (query.through !== undefined) {
    conditions.push('r.id <= ?');
    params.push(query.through);
  }
  const columns = query.withUpdated ? 'r.id, r.updated' : 'r.id';
  const where = conditions.length > 0 ? conditions.join(' AND ') : '1';
  return {
    sql: `SELECT ${columns} FROM records r WHERE ${guard}${where} ORDER BY r.id LIMIT ? OFFSET ?`,
    params: [...params, query.limit, query.skip ?? 0],
  };
}
