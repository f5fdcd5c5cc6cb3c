/**
 * Compiles a SearchQuery into SQLite SQL (WHERE, ORDER BY) with every value bound as a
 * parameter. Pure: no database access.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { splitAntimeridian } from '../../records/index-document.js';
import type { Bbox } from '../../records/core-record.js';
import { operator, propertyRef } from '../../query/filter-ast.js';
import { checkFilter } from '../../query/check-filter.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import { canonicalPropertyName, isTextSortable } from '../../query/queryables.js';
import type {
  SearchQuery,
  SpatialConstraint,
  TemporalConstraint,
} from '../../query/search-query.js';
import { SORT_COLUMNS } from './schema.js';
import { SQL_FUNCTIONS } from './sql-functions.js';

export type SqlValue = string | number | null;

export interface SqlFragment {
  sql: string;
  params: SqlValue[];
}

export interface CompiledQuery {
  /** Extra FROM clause joining the free-text scores, or ''. */
  join: string;
  joinParams: SqlValue[];
  where: SqlFragment;
  orderBy: string;
}

/** Compiles a filter expression tree to a SQL condition; supplied by the filter compiler. */
export type FilterCompiler = (filter: CheckedFilter) => SqlFragment;

/** Quotes one word for an FTS5 MATCH expression, so that no user text is FTS syntax. */
function quoteFtsWord(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/** Builds the FTS5 MATCH expression for free text: OR over terms, AND over each term's words. */
export function buildFtsMatch(text: string[][]): string {
  return text.map((words) => `(${words.map(quoteFtsWord).join(' AND ')})`).join(' OR ');
}

/** JSON path for a property name inside the `props` column. */
export function propertyPath(name: string): string {
  return `$."${canonicalPropertyName(name).replace(/"/g, '')}"`;
}

function rtreeCondition(boxes: Bbox[], mode: 'intersects' | 'within'): SqlFragment {
  const params: SqlValue[] = [];
  const parts = boxes.map(([west, south, east, north]) => {
    if (mode === 'intersects') {
      params.push(east, west, north, south);
      return '(t.minx <= ? AND t.maxx >= ? AND t.miny <= ? AND t.maxy >= ?)';
    }
    params.push(west, east, south, north);
    return '(t.minx >= ? AND t.maxx <= ? AND t.miny >= ? AND t.maxy <= ?)';
  });
  return { sql: parts.join(' OR '), params };
}

function compileSpatial(spatial: SpatialConstraint, compileFilter?: FilterCompiler): SqlFragment {
  if (!spatial.bbox) {
    if (!spatial.geometry || !compileFilter) {
      throw new InvalidParameterError('geometry', 'geometry constraints need the filter compiler');
    }
    // Any GeoJSON geometry (STAC `intersects`): the filter compiler's exact spatial predicates.
    return compileFilter(
      checkFilter(
        operator(`s_${spatial.relation}`, propertyRef('geometry'), {
          kind: 'geometry',
          geometry: spatial.geometry,
        }),
      ),
    );
  }
  const boxes = splitAntimeridian(spatial.bbox);
  const hasBox = 'EXISTS (SELECT 1 FROM records_rtree t WHERE t.id >> 1 = r.rid)';
  const intersects = rtreeCondition(boxes, 'intersects');
  const intersectsSql = `r.rid IN (SELECT t.id >> 1 FROM records_rtree t WHERE ${intersects.sql})`;
  switch (spatial.relation) {
    case 'intersects':
      return { sql: intersectsSql, params: intersects.params };
    case 'disjoint':
      return { sql: `${hasBox} AND NOT ${intersectsSql}`, params: intersects.params };
    case 'within': {
      // Every part of the record's box lies inside one of the query boxes.
      const within = rtreeCondition(boxes, 'within');
      return {
        sql: `${hasBox} AND NOT EXISTS (SELECT 1 FROM records_rtree t WHERE t.id >> 1 = r.rid AND NOT (${within.sql}))`,
        params: within.params,
      };
    }
    case 'contains':
    case 'equals': {
      // The record's (unsplit) box contains or equals the query box.
      const [west, south, east, north] = spatial.bbox;
      const op = spatial.relation === 'contains' ? ['<=', '>='] : ['=', '='];
      const parts = [
        `json_extract(r.record, '$.bbox[0]') ${op[0]} ?`,
        `json_extract(r.record, '$.bbox[1]') ${op[0]} ?`,
        `json_extract(r.record, '$.bbox[2]') ${op[1]} ?`,
        `json_extract(r.record, '$.bbox[3]') ${op[1]} ?`,
      ];
      return { sql: parts.join(' AND '), params: [west, south, east, north] };
    }
  }
}

function compileTemporal({ start, end, relation }: TemporalConstraint): SqlFragment {
  const params: SqlValue[] = [];
  const parts = ['r.has_time = 1'];
  /** Adds a bound's condition and parameter, unless that end is open (null). */
  const bound = (conditions: string[], sql: string, value: string | null): void => {
    if (value === null) return;
    conditions.push(sql);
    params.push(value);
  };
  const intersects = (): string[] => {
    const conditions: string[] = [];
    bound(conditions, '(r.time_start IS NULL OR r.time_start <= ?)', end);
    bound(conditions, '(r.time_end IS NULL OR r.time_end >= ?)', start);
    return conditions;
  };
  switch (relation) {
    case 'intersects':
      parts.push(...intersects());
      break;
    case 'disjoint': {
      const conditions = intersects();
      if (conditions.length > 0) parts.push(`NOT (${conditions.join(' AND ')})`);
      else parts.push('0');
      break;
    }
    case 'during':
      bound(parts, 'r.time_start IS NOT NULL AND r.time_start >= ?', start);
      bound(parts, 'r.time_end IS NOT NULL AND r.time_end <= ?', end);
      break;
    case 'equals':
      parts.push('r.time_start IS ?', 'r.time_end IS ?');
      params.push(start, end);
      break;
  }
  return { sql: parts.join(' AND '), params };
}

function inList(column: string, values: string[]): SqlFragment {
  return { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(values)] };
}

function compileExternalIds(values: string[]): SqlFragment {
  const params: SqlValue[] = [];
  const parts = values.map((value) => {
    const [scheme, id] = value.includes(':')
      ? [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)]
      : [undefined, value];
    if (scheme !== undefined && id === '') {
      params.push(`${scheme}:%`);
      return 'e.value LIKE ?';
    }
    if (scheme !== undefined) {
      params.push(`${scheme}:${id}`);
      return 'e.value = ?';
    }
    params.push(id, `%:${id}`);
    return '(e.value = ? OR e.value LIKE ?)';
  });
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(r.props, '$.externalIds') e WHERE ${parts.join(' OR ')})`,
    params,
  };
}

function compileSort(query: SearchQuery, hasText: boolean): string {
  const keys = query.sort.map(({ field, direction }) => {
    const column = SORT_COLUMNS[field] ?? `json_extract(r.props, '${propertyPath(field)}')`;
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    // Text sorts case- and accent-insensitively, ties in code-point order.
    if (isTextSortable(field)) {
      return `(${column} IS NULL), ${SQL_FUNCTIONS.sortKey}(${column}) ${order}, ${column} ${order}`;
    }
    return `(${column} IS NULL), ${column} ${order}`;
  });
  if (keys.length === 0 && hasText) keys.push('f.score ASC');
  keys.push('r.id ASC');
  return keys.join(', ');
}

/** Compiles the query; `compileFilter` translates the filter tree when one is present. */
export function compileQuery(query: SearchQuery, compileFilter?: FilterCompiler): CompiledQuery {
  const conditions: SqlFragment[] = [];
  let join = '';
  const joinParams: SqlValue[] = [];
  if (query.text && query.text.length > 0) {
    join =
      'JOIN (SELECT rowid AS rid, bm25(records_fts) AS score FROM records_fts WHERE records_fts MATCH ?) f ON f.rid = r.rid';
    joinParams.push(buildFtsMatch(query.text));
  }
  if (query.spatial) conditions.push(compileSpatial(query.spatial, compileFilter));
  if (query.temporal) conditions.push(compileTemporal(query.temporal));
  if (query.ids) conditions.push(inList('r.id', query.ids));
  if (query.types) conditions.push(inList('r.type', query.types));
  if (query.collections) conditions.push(inList('r.parent_id', query.collections));
  if (query.externalIds) conditions.push(compileExternalIds(query.externalIds));
  for (const { name, values } of query.properties ?? []) {
    conditions.push({
      sql: `EXISTS (SELECT 1 FROM json_each(r.props, '${propertyPath(name)}') e WHERE CAST(e.value AS TEXT) IN (SELECT value FROM json_each(?)))`,
      params: [JSON.stringify(values)],
    });
  }
  if (query.filter) {
    if (!compileFilter)
      throw new InvalidParameterError('filter', 'filter expressions are not available');
    conditions.push(compileFilter(query.filter));
  }
  const where: SqlFragment = {
    sql: conditions.length > 0 ? conditions.map((c) => `(${c.sql})`).join(' AND ') : '1',
    params: conditions.flatMap((c) => c.params),
  };
  return { join, joinParams, where, orderBy: compileSort(query, join !== '') };
}
