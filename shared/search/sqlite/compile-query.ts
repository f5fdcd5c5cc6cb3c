/**
 * Compiles a SearchQuery into SQLite SQL (WHERE, ORDER BY) with every value bound as a
 * parameter. Pure: no database access.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { splitAntimeridian } from '../../records/index-document.js';
import type { Bbox } from '../../records/core-record.js';
import { freeTextStems, type StemmedWord } from '../../records/stems.js';
import { operator, propertyRef } from '../../query/filter-ast.js';
import { checkFilter } from '../../query/check-filter.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import { canonicalPropertyName, isTextSortable } from '../../query/queryables.js';
import type {
  SearchQuery,
  SpatialConstraint,
  TemporalConstraint,
} from '../../query/search-query.js';
import {
  PROBE_INDEX,
  SORT_COLUMNS,
  SPAN_INDEX,
  SPAN_ONLY_COLUMNS,
  STORED_SORT_KEYS,
} from './schema.js';
import { instantMillis } from './rows.js';
import { stemToken } from './stem-tokens.js';
import { RTREE_DRIVE, boxMatchesFrom, halfForm, probeForm, raw, sql } from './sql-fragment.js';
import { SQL_FUNCTIONS, type DeadlineGuard } from './sql-functions.js';

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
  /** The sort keys, the record id last (a total order). */
  order: SortKey[];
  /** Set when the only condition is a bbox the R*Tree decides alone: its boxes. */
  boxesOnly?: Bbox[];
  /**
   * Set when the only condition is the free text: its FTS5 MATCH expression. The text index
   * holds one row per record (rowid = the record's), so it counts the matches alone.
   */
  textOnly?: string;
  /** One of the AND-ed conditions is an R*Tree prefilter (see FilterSql). */
  drivenByBoxes: boolean;
}

/** One ORDER BY key. */
export interface SortKey {
  sql: string;
  direction: 'ASC' | 'DESC';
  /** NULLs after every value, in both directions. */
  nullsLast: boolean;
  /**
   * For a stored sort key (STORED_SORT_KEYS): the same value computed from a column the span
   * index holds, for pages that read the span index rather than the wide rows.
   */
  computed?: string;
}

/** The statements of one search (see compileSearch). */
export interface SearchStatements {
  /**
   * `SELECT count(*) AS n, … AS size`: the exact number of matches, and the catalogue's largest
   * rowid (an upper bound of its record count, for `page`).
   */
  count: SqlFragment;
  /**
   * The page of `columns` for `total` matches in a catalogue whose largest rowid is `size`
   * (`SELECT max(rid) FROM records`, an upper bound of its record count).
   */
  page: (total: number, size: number) => SqlFragment;
  /** Whether `page` depends on its arguments; when false any count gives the same page. */
  pageDependsOnCount: boolean;
  /**
   * For a count driven by an R*Tree prefilter: the same count in two halves of the rowids
   * (halfForm), whose `n` add up to the count's on one snapshot, for two connections at once.
   */
  countHalves?: [SqlFragment, SqlFragment] | undefined;
}

/**
 * A compiled filter. `drivenByBoxes`: the condition is an AND (or a single term) one of whose
 * terms is an R*Tree prefilter `r.rid IN (…)`, so the matches can be looked up from it.
 */
export interface FilterSql extends SqlFragment {
  drivenByBoxes?: boolean;
}

/** Compiles a filter expression tree to a SQL condition; supplied by the filter compiler. */
export type FilterCompiler = (filter: CheckedFilter) => FilterSql;

/** Quotes one word for an FTS5 MATCH expression, so that no user text is FTS syntax. */
function quoteFtsWord(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/**
 * One word of free text: the word as a phrase, or its stems as a phrase of tagged stems in one
 * language (stem-tokens.ts), as the engines match `anytext` or `stems.<language>`.
 */
function ftsWord(word: string, stemmed: readonly StemmedWord[]): string {
  if (stemmed.length === 0) return quoteFtsWord(word);
  const alternatives = stemmed.map(({ language, stems }) =>
    quoteFtsWord(stems.map((stem) => stemToken(language, stem)).join(' ')),
  );
  return `(${[quoteFtsWord(word), ...alternatives].join(' OR ')})`;
}

/** Builds the FTS5 MATCH expression for free text: OR over terms, AND over each term's words. */
export function buildFtsMatch(text: string[][]): string {
  const stems = freeTextStems(text);
  return text
    .map(
      (words, t) => `(${words.map((word, w) => ftsWord(word, stems[t]?.[w] ?? [])).join(' AND ')})`,
    )
    .join(' OR ');
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

function compileSpatial(spatial: SpatialConstraint, compileFilter?: FilterCompiler): FilterSql {
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
  // A record's own entries, found by their ids (rowid * 2 + part): `t.id >> 1 = r.rid` would
  // read the whole R*Tree for every record.
  const ownBoxes = 't.id IN (r.rid * 2, r.rid * 2 + 1)';
  const hasBox = `EXISTS (SELECT 1 FROM records_rtree t WHERE ${ownBoxes})`;
  const intersects = rtreeCondition(boxes, 'intersects');
  const intersectsSql = `${RTREE_DRIVE}(${intersects.sql}))`;
  switch (spatial.relation) {
    case 'intersects':
      return { sql: intersectsSql, params: intersects.params };
    case 'disjoint':
      return { sql: `${hasBox} AND NOT ${intersectsSql}`, params: intersects.params };
    case 'within': {
      // Every part of the record's box lies inside one of the query boxes.
      const within = rtreeCondition(boxes, 'within');
      return {
        sql: `${hasBox} AND NOT EXISTS (SELECT 1 FROM records_rtree t WHERE ${ownBoxes} AND NOT (${within.sql}))`,
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

/**
 * The time range on the stored interval columns (`time_lo`, `time_hi`: integers, open ends
 * beyond every instant), when both bounds are normalised instants or open: the same records
 * as the text form (compileTemporal), counted from one range scan of `records_interval`.
 */
function compileTemporalMillis({
  start,
  end,
  relation,
}: TemporalConstraint): SqlFragment | undefined {
  const lo = start === null ? null : instantMillis(start);
  const hi = end === null ? null : instantMillis(end);
  if (lo === undefined || hi === undefined) return undefined;
  const params: SqlValue[] = [];
  const conditions: string[] = [];
  /** Adds a bound's condition and parameter, unless that end is open (null). */
  const bound = (sql: string, value: number | null): void => {
    if (value === null) return;
    conditions.push(sql);
    params.push(value);
  };
  switch (relation) {
    case 'intersects':
      bound('r.time_lo <= ?', hi);
      bound('r.time_hi >= ?', lo);
      return {
        sql: conditions.length > 0 ? conditions.join(' AND ') : 'r.time_lo IS NOT NULL',
        params,
      };
    case 'disjoint':
      bound('r.time_lo <= ?', hi);
      bound('r.time_hi >= ?', lo);
      return {
        sql:
          conditions.length > 0
            ? `r.time_lo IS NOT NULL AND NOT (${conditions.join(' AND ')})`
            : '0',
        params,
      };
    case 'during':
      // An open record end lies beyond every bound, an open start before every bound.
      bound('r.time_lo >= ?', lo);
      bound('r.time_hi <= ?', hi);
      return { sql: ['r.time_lo IS NOT NULL', ...conditions].join(' AND '), params };
    case 'equals':
      return undefined;
  }
}

function compileTemporal(constraint: TemporalConstraint): SqlFragment {
  return compileTemporalMillis(constraint) ?? compileTemporalText(constraint);
}

function compileTemporalText({ start, end, relation }: TemporalConstraint): SqlFragment {
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

/**
 * The sort keys: each field NULLs last in both directions (a bare column with NULLS LAST still
 * reads its index in order, so a LIMIT stops early), then the text score, then the record id.
 */
function compileSort(query: SearchQuery, hasText: boolean): SortKey[] {
  const keys = query.sort.flatMap(({ field, direction }): SortKey[] => {
    const column = SORT_COLUMNS[field] ?? `json_extract(r.props, '${propertyPath(field)}')`;
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    // Text sorts case- and accent-insensitively, ties in code-point order (the sort key of a
    // NULL is NULL, so NULLs still come last).
    if (isTextSortable(field)) {
      const computed = `${SQL_FUNCTIONS.sortKey}(${column})`;
      const stored = STORED_SORT_KEYS[column];
      return [
        stored
          ? { sql: stored, computed, direction: order, nullsLast: true }
          : { sql: computed, direction: order, nullsLast: true },
        { sql: column, direction: order, nullsLast: true },
      ];
    }
    return [{ sql: column, direction: order, nullsLast: true }];
  });
  if (keys.length === 0 && hasText)
    keys.push({ sql: RELEVANCE, direction: 'ASC', nullsLast: false });
  keys.push({ sql: 'r.id', direction: 'ASC', nullsLast: false });
  return keys;
}

/** Whether `condition` reads one of the record `columns` (as `r.<column>`). */
function readsAny(condition: string, columns: ReadonlySet<string>): boolean {
  return [...condition.matchAll(/\br\.(\w+)/g)].some(
    ([, column]) => column !== undefined && columns.has(column),
  );
}

/** The relevance sort key: the BM25 score of the text join, lower is better. */
const RELEVANCE = 'f.score';

/**
 * The inner page of a text-only search by relevance, with parameters MATCH and the 0-based
 * rank of the page's last row: every match scoring at least as well as that rank's score (all
 * of them when there are fewer matches), ties included, then sorted on score and id.
 */
function relevancePage(guard: string): string {
  return `WITH f AS MATERIALIZED (SELECT rowid AS rid, bm25(records_fts) AS score FROM records_fts WHERE records_fts MATCH ?)
    SELECT r.rid AS rid, f.score AS k0, r.id AS k1 FROM f CROSS JOIN records r ON r.rid = f.rid
    WHERE ${guard}f.score <= coalesce((SELECT score FROM f ORDER BY score LIMIT 1 OFFSET ?), 1e308)
    ORDER BY k0 ASC, k1 ASC LIMIT ? OFFSET ?`;
}

/** An ORDER BY clause over the keys, each named by `name(key, index)`. */
function orderByClause(keys: SortKey[], name: (key: SortKey, index: number) => string): string {
  return keys
    .map(
      (key, index) => `${name(key, index)} ${key.direction}${key.nullsLast ? ' NULLS LAST' : ''}`,
    )
    .join(', ');
}

/** Options of compileSearch. */
export interface SearchOptions {
  compileFilter?: FilterCompiler;
  /** The deadline check put in front of every WHERE clause (none when undefined). */
  guard?: DeadlineGuard | undefined;
  /** The record columns a page returns, qualified with `r.`. */
  columns: string;
}

/**
 * Compiles a search into its count and page statements. Pure: the choices are made on the
 * query alone, and the page's on the count too.
 *
 * - The count of a query whose only condition is a bbox comes from the R*Tree alone, and that of
 *   one whose only condition is the free text from the text index alone, without reading a
 *   record.
 * - The page first picks the page's rowids (reading only what the conditions and sort keys
 *   need) and then reads the wide record columns of those rows only.
 * - When the first sort key is an indexed column (or the id), the conditions include an R*Tree
 *   prefilter or a time range and the matches are dense enough that walking the index in
 *   order and checking each record (its boxes probed) reads fewer rows than fetching and
 *   sorting every match (rows read about (offset + limit) * size / total against total), the
 *   page walks the index and a LIMIT stops it early.
 */
export function compileSearch(query: SearchQuery, options: SearchOptions): SearchStatements {
  const compiled = compileQuery(query, options.compileFilter);
  // Without conditions the count is SQLite's B-tree count and the page an index walk stopped by
  // its LIMIT and OFFSET: both bounded, and a guard would turn the count into a row-by-row scan.
  const unconditioned = compiled.where.sql === '1' && compiled.join === '';
  const guardOn = (rowid: string): string => options.guard?.(rowid) ?? '';
  const guard = unconditioned ? '' : guardOn('r.rid');
  const params: SqlValue[] = [...compiled.joinParams, ...compiled.where.params];
  // Matches looked up from the R*Tree read their small columns from the span index.
  const span = compiled.drivenByBoxes && compiled.join === '' ? `INDEXED BY ${SPAN_INDEX}` : '';
  // The catalogue's size comes with the count, for the page's choice.
  const counted = 'SELECT count(*) AS n, (SELECT max(rid) FROM records) AS size';
  let count: SqlFragment;
  let halve: (() => [SqlFragment, SqlFragment]) | undefined;
  if (compiled.boxesOnly) {
    count = sql`${raw(counted)} ${boxMatchesFrom(compiled.boxesOnly, guardOn('t.id >> 1'))}`;
  } else if (compiled.textOnly !== undefined) {
    count = {
      sql: `${counted} FROM records_fts WHERE ${guardOn('rowid')}records_fts MATCH ?`,
      params: [compiled.textOnly],
    };
  } else {
    // The probe index unless the conditions read a column only the span index holds.
    const probe = span !== '' && !readsAny(compiled.where.sql, SPAN_ONLY_COLUMNS);
    const counting = (where: string): SqlFragment => ({
      sql: `${counted} FROM records r ${probe ? `INDEXED BY ${PROBE_INDEX}` : span} ${compiled.join} WHERE ${guard}(${where})`,
      params,
    });
    count = counting(compiled.where.sql);
    halve = () => [
      counting(halfForm(compiled.where.sql, 'lower')),
      counting(halfForm(compiled.where.sql, 'upper')),
    ];
  }
  const keys = compiled.order;
  const [firstKey] = keys;
  const indexed = firstKey !== undefined && /^r\.\w+$/.test(firstKey.sql) && compiled.join === '';
  // Most of an R*Tree-driven count is looking up each R*Tree match; each half looks up half of
  // them. Halved only when the page is cheap (no text to score, sorted on a column), as the page
  // is read beside one of the halves.
  const countHalves =
    halve && indexed && compiled.where.sql.includes(RTREE_DRIVE) ? halve() : undefined;
  // A time range is as broad as a box: its matches can be dense in any order too.
  const probeable =
    indexed && (compiled.where.sql.includes(RTREE_DRIVE) || query.temporal !== undefined);
  // Free text alone, by relevance: the page's rows are among those scoring at least the
  // (offset + limit)-th best score, so only those are looked up for their id (the tie-break).
  const relevanceMatch =
    keys.length === 2 && firstKey?.sql === RELEVANCE ? compiled.textOnly : undefined;
  const page = (total: number, catalogueSize: number): SqlFragment => {
    const wanted = query.offset + query.limit;
    const probe = probeable && wanted * catalogueSize <= total * total;
    // Walking: `+(…)` hides the conditions from the planner, so no other index (a time range,
    // say) is chosen to drive the page instead of the sort's.
    const where = probe ? `+(${probeForm(compiled.where.sql)})` : compiled.where.sql;
    const fromSpan = !probe && span !== '';
    const selected = keys
      .map((key, index) => `${(fromSpan && key.computed) || key.sql} AS k${index}`)
      .join(', ');
    const outer = (inner: string, innerParams: SqlValue[]): SqlFragment => ({
      sql: `SELECT ${options.columns} FROM (${inner}) p CROSS JOIN records r ON r.rid = p.rid ORDER BY ${orderByClause(keys, (_, index) => `p.k${index}`)}`,
      params: [...innerParams, query.limit, query.offset],
    });
    if (relevanceMatch !== undefined) {
      return outer(relevancePage(guard), [relevanceMatch, wanted - 1]);
    }
    const inner = `SELECT r.rid AS rid, ${selected} FROM records r ${fromSpan ? span : ''} ${compiled.join} WHERE ${guard}(${where}) ORDER BY ${orderByClause(keys, (_, index) => `k${index}`)} LIMIT ? OFFSET ?`;
    return outer(inner, params);
  };
  return { count, page, pageDependsOnCount: probeable, countHalves };
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
  let drivenByBoxes = false;
  if (query.spatial) {
    const spatial = compileSpatial(query.spatial, compileFilter);
    drivenByBoxes = query.spatial.bbox
      ? query.spatial.relation === 'intersects'
      : spatial.drivenByBoxes === true;
    conditions.push(spatial);
  }
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
    const filter = compileFilter(query.filter);
    drivenByBoxes ||= filter.drivenByBoxes === true;
    conditions.push(filter);
  }
  const where: SqlFragment = {
    sql: conditions.length > 0 ? conditions.map((c) => `(${c.sql})`).join(' AND ') : '1',
    params: conditions.flatMap((c) => c.params),
  };
  const boxesOnly =
    conditions.length === 1 &&
    join === '' &&
    query.spatial?.bbox &&
    query.spatial.relation === 'intersects'
      ? splitAntimeridian(query.spatial.bbox)
      : undefined;
  const textOnly = conditions.length === 0 && join !== '' ? String(joinParams[0]) : undefined;
  return {
    join,
    joinParams,
    where,
    order: compileSort(query, join !== ''),
    drivenByBoxes,
    ...(boxesOnly && { boxesOnly }),
    ...(textOnly !== undefined && { textOnly }),
  };
}
