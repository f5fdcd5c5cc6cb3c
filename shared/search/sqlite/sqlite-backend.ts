/**
 * The embedded SearchBackend on SQLite (better-sqlite3): WAL, prepared statements, batched
 * transactional upserts, FTS5 free text ranked by bm25, an R*Tree prefilter on boxes.
 */
import type Database from 'better-sqlite3';
import {
  CairnError,
  FilterError,
  InternalError,
  InvalidRecordError,
  QueryTimeoutError,
} from '../../errors/index.js';
import type { CoreRecord } from '../../records/core-record.js';
import type { SearchQuery } from '../../query/search-query.js';
import type { LearnedProperty } from '../../query/queryables.js';
import type { AggregationAnswer, AggregationRequest } from '../aggregations.js';
import type {
  AtomicChanges,
  AtomicResult,
  BackendHealth,
  ChangeEntry,
  ChangePage,
  ChangeQuery,
  CatalogueExtent,
  ChildrenExtent,
  DomainOptions,
  DomainValue,
  IdWalkEntry,
  IdWalkQuery,
  SearchBackend,
  SearchOptions,
  SearchResult,
  UpsertResult,
  WriteFailure,
} from '../backend.js';
import { mergeChangePages } from '../change-feed.js';
import { compileChangeCount, compileChangePage, type ChangeTable } from './compile-changes.js';
import { compileIdWalk } from './compile-id-walk.js';
import { compileFilter } from './compile-filter.js';
import {
  compileQuery,
  compileSearch,
  propertyPath,
  type FilterCompiler,
  type SqlValue,
} from './compile-query.js';
import {
  CHILDREN_EXTENTS_SQL,
  readChildrenExtentRow,
  type ChildrenExtentRow,
} from './children-extents.js';
import { compileAggregations } from './compile-aggregate.js';
import { toSqliteRow, type SqliteRow } from './rows.js';
import { openDatabase } from './open-database.js';
import { migrateSchema } from './migrate-schema.js';
import {
  hasLearnedProperties,
  LEARNED_PROPERTIES_SQL,
  SqliteLearnedProperties,
} from './learned-properties.js';
import { SqliteReadPool, type ReadStatement } from './read-pool.js';
import { withinScope, type SearchScope } from '../search-scope.js';
import {
  PROBE_INDEX,
  RECORDS_CHANGES_ROW_SQL,
  RECORDS_CHANGES_SQL,
  SCHEMA_SQL,
  SPAN_INDEX,
} from './schema.js';
import {
  type DeadlineGuard,
  StatementDeadline,
  deadlineGuard,
  registerSqlFunctions,
} from './sql-functions.js';

/** A stored record as ROW_COLUMNS reads it, in raw (array) mode. */
type StoredRow = [
  record: string,
  sourceFormat: CoreRecord['source']['format'],
  sourceMediaType: string,
  source: string,
];

/** A change listing's row (compileChangePage), in raw mode, with the record's columns on `records` when asked. */
type ChangeRow = [
  id: string,
  changed: string,
  type: string | null,
  parentId: string | null,
  ...stored: [] | StoredRow,
];

/** A ChangeEntry of a change listing's row. */
function toChangeEntry(row: ChangeRow, deleted: boolean): ChangeEntry {
  const [id, changed, type, parentId, ...stored] = row;
  const entry: ChangeEntry = { id, changed, deleted, type, parentId };
  if (stored.length === 4) entry.record = toRecord(stored);
  return entry;
}

/** The change time of writes made now: ISO 8601 UTC with milliseconds. */
function now(): string {
  return new Date().toISOString();
}

const STATEMENT_CACHE_SIZE = 256;
/** Own properties learned at most when the options do not say (QUERYABLES_MAX_LEARNED). */
export const DEFAULT_MAX_LEARNED = 1000;
const ROW_COLUMNS = 'r.record, r.source_format, r.source_media_type, r.source';
const DEFAULT_READ_QUEUE_LIMIT = 256;
const EXTENT_SQL =
  'SELECT min(minx) AS west, min(miny) AS south, max(maxx) AS east, max(maxy) AS north FROM records_rtree';
/** The EXTENT_SQL row: all null when no record has a footprint. */
interface ExtentRow {
  west: number | null;
  south: number | null;
  east: number | null;
  north: number | null;
}
const TIME_EXTENT_SQL =
  'SELECT min(time_start) AS start, max(time_end) AS end FROM records WHERE has_time = 1';

export interface SqliteBackendOptions {
  /** File path, or ':memory:'. */
  path: string;
  /** Translates filter trees; defaults to the CQL2 compiler (compile-filter.ts). */
  compileFilter?: FilterCompiler;
  /** Registers extra SQL functions on the connection, after the filter functions. */
  registerFunctions?: (db: Database.Database) => void;
  /**
   * Milliseconds one search or facet count may run before it is cancelled with
   * QueryTimeoutError (503); unset: no budget. See StatementDeadline.
   */
  timeBudgetMs?: number | undefined;
  /**
   * Worker threads with a read-only connection each that run searches and facet counts off the
   * event loop (read-pool.ts); 0 or unset: on the event loop, on the one connection. A
   * ':memory:' database cannot be shared between threads and always reads in-process.
   */
  readWorkers?: number;
  /** Searches that may wait for a read worker before one more is refused (503); default 256. */
  readQueueLimit?: number;
  /**
   * Distinct own properties of records the catalogue learns at most (QUERYABLES_MAX_LEARNED);
   * default DEFAULT_MAX_LEARNED.
   */
  maxLearnedProperties?: number;
}

function toRecord([text, format, mediaType, content]: StoredRow): CoreRecord {
  const record = JSON.parse(text) as CoreRecord;
  record.source = { format, mediaType, content };
  return record;
}

/**
 * SQLite's refusals of a statement too large to compile: a filter's size or depth, not a fault
 * of the database (SQLITE_ERROR with these messages).
 */
const QUERY_SIZE_ERRORS = [
  'Expression tree is too large',
  'parser stack overflow',
  'too many terms in compound SELECT',
  'LIKE or GLOB pattern too complex',
  'too many SQL variables',
];

/** Wraps a driver error so no SQL text or driver message crosses the backend boundary. */
function wrapDriverError(error: unknown): never {
  if (error instanceof CairnError) throw error;
  const message = error instanceof Error ? error.message : '';
  if (QUERY_SIZE_ERRORS.some((text) => message.startsWith(text)))
    throw new FilterError('The filter is too large or too deeply nested to be evaluated', {
      cause: error,
    });
  throw new InternalError('SQLite operation failed', { cause: error });
}

/** A search's count: its matches, and the catalogue's largest rowid (see compileSearch). */
interface CountRow {
  n: number;
  size: number | null;
}

/** The catalogue's change number (RECORDS_CHANGES_SQL). */
interface ChangesRow {
  n: number;
}

const CHANGES_STATEMENT: ReadStatement = { sql: RECORDS_CHANGES_SQL, params: [], mode: 'get' };

export class SqliteBackend implements SearchBackend {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly compileFilter: FilterCompiler;
  private readonly statements;
  private readonly statementCache = new Map<string, Database.Statement>();
  private readonly deadline = new StatementDeadline();
  private readonly timeBudgetMs: number | undefined;
  /** Put in front of every search condition when there is a budget (see deadlineGuard). */
  private readonly deadlineCheck: DeadlineGuard | undefined;
  /** Read connections on worker threads; undefined: reads run here. */
  private readonly readPool?: SqliteReadPool;
  /**
   * Counts and pages read on two connections at once (readCountAndPage), how many of those
   * counts were split in two halves, and how many counts and pages read apart were read again
   * together because a write came between them (there and in readCountThenPage), for tests and
   * benches.
   */
  readonly splitReads = { split: 0, halved: 0, repeated: 0 };
  /** The records' own properties learned as they are written (learned-properties.ts). */
  private readonly learned: SqliteLearnedProperties;

  constructor(options: SqliteBackendOptions) {
    this.db = openDatabase(options.path);
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -65536');
    this.db.pragma('temp_store = MEMORY');
    registerSqlFunctions(this.db, this.deadline);
    migrateSchema(this.db);
    const learnedBefore = hasLearnedProperties(this.db);
    this.db.exec(SCHEMA_SQL);
    if (this.db.prepare(RECORDS_CHANGES_SQL).get() === undefined)
      this.db.prepare(RECORDS_CHANGES_ROW_SQL).run();
    this.db.exec(LEARNED_PROPERTIES_SQL);
    this.learned = new SqliteLearnedProperties(
      this.db,
      options.maxLearnedProperties ?? DEFAULT_MAX_LEARNED,
    );
    // A file written before properties were learned: learn those of its stored records once.
    if (!learnedBefore) this.learned.learnStored();
    options.registerFunctions?.(this.db);
    this.timeBudgetMs = options.timeBudgetMs;
    this.deadlineCheck = this.timeBudgetMs === undefined ? undefined : deadlineGuard;
    this.compileFilter = options.compileFilter ?? compileFilter;
    this.statements = {
      upsert: this.db.prepare(`
        INSERT INTO records (id, type, title, title_key, parent_id, created, updated, time_start, time_end, has_time,
                             time_lo, time_hi, geocell, centre_lon, centre_lat, box_west, box_south, box_east, box_north,
                             bbox_west, bbox_south, bbox_east, bbox_north,
                             props, geometry, record, source_format, source_media_type, source, changed)
        VALUES (@id, @type, @title, @titleKey, @parentId, @created, @updated, @timeStart, @timeEnd, @hasTime,
                @timeLo, @timeHi, @geocell, @centreLon, @centreLat, @boxWest, @boxSouth, @boxEast, @boxNorth,
                @bboxWest, @bboxSouth, @bboxEast, @bboxNorth,
                @props, @geometry, @record, @sourceFormat, @sourceMediaType, @source, @changed)
        ON CONFLICT(id) DO UPDATE SET type = excluded.type, title = excluded.title,
          title_key = excluded.title_key, parent_id = excluded.parent_id, created = excluded.created, updated = excluded.updated,
          time_start = excluded.time_start, time_end = excluded.time_end, has_time = excluded.has_time,
          time_lo = excluded.time_lo, time_hi = excluded.time_hi, geocell = excluded.geocell,
          centre_lon = excluded.centre_lon, centre_lat = excluded.centre_lat,
          box_west = excluded.box_west, box_south = excluded.box_south,
          box_east = excluded.box_east, box_north = excluded.box_north,
          bbox_west = excluded.bbox_west, bbox_south = excluded.bbox_south,
          bbox_east = excluded.bbox_east, bbox_north = excluded.bbox_north,
          props = excluded.props, geometry = excluded.geometry, record = excluded.record,
          source_format = excluded.source_format, source_media_type = excluded.source_media_type,
          source = excluded.source, changed = excluded.changed
        RETURNING rid`),
      deleteTombstone: this.db.prepare('DELETE FROM tombstones WHERE id = ?'),
      insertTombstone: this.db.prepare(
        `INSERT INTO tombstones (id, changed, type, parent_id) VALUES (?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET changed = excluded.changed, type = excluded.type, parent_id = excluded.parent_id`,
      ),
      getTombstone: this.db
        .prepare('SELECT id, changed, type, parent_id FROM tombstones WHERE id = ?')
        .raw(),
      getChange: this.db
        .prepare(
          `SELECT r.id, r.changed, r.type, r.parent_id, ${ROW_COLUMNS} FROM records r WHERE r.id = ?`,
        )
        .raw(),
      earliestChange: this.db
        .prepare(
          'SELECT min(changed) FROM (SELECT min(changed) AS changed FROM records UNION ALL SELECT min(changed) FROM tombstones)',
        )
        .pluck(),
      purgeTombstones: this.db.prepare('DELETE FROM tombstones WHERE changed < ?'),
      deleteFts: this.db.prepare('DELETE FROM records_fts WHERE rowid = ?'),
      insertFts: this.db.prepare('INSERT INTO records_fts (rowid, anytext) VALUES (?, ?)'),
      deleteBoxes: this.db.prepare('DELETE FROM records_rtree WHERE id IN (? * 2, ? * 2 + 1)'),
      insertBox: this.db.prepare(
        'INSERT INTO records_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)',
      ),
      findRid: this.db.prepare('SELECT rid, type, parent_id FROM records WHERE id = ?'),
      deleteRecord: this.db.prepare('DELETE FROM records WHERE rid = ?'),
      get: this.db.prepare(`SELECT ${ROW_COLUMNS} FROM records r WHERE r.id = ?`).raw(),
      count: this.db.prepare('SELECT count(*) AS n FROM records'),
      anyRecord: this.db.prepare('SELECT 1 FROM records LIMIT 1'),
      secondaryIndexes: this.db
        .prepare(
          `SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL AND name NOT IN ('${SPAN_INDEX}', '${PROBE_INDEX}')`,
        )
        .pluck(),
    };
    const readWorkers = options.path === ':memory:' ? 0 : (options.readWorkers ?? 0);
    if (readWorkers > 0) {
      if (options.registerFunctions) {
        this.db.close();
        throw new Error('registerFunctions cannot be combined with read workers');
      }
      this.readPool = new SqliteReadPool({
        path: options.path,
        size: readWorkers,
        queueLimit: options.readQueueLimit ?? DEFAULT_READ_QUEUE_LIMIT,
      });
    }
  }

  /** Prepares a dynamic statement once and reuses it (bounded cache, oldest evicted first). */
  private prepareCached(sql: string): Database.Statement {
    let statement = this.statementCache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statementCache.size >= STATEMENT_CACHE_SIZE) {
        this.statementCache.delete(this.statementCache.keys().next().value as string);
      }
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  /** Waits for the read workers to open the file (the schema is created in the constructor). */
  async init(): Promise<void> {
    await this.readPool?.ready();
  }

  /**
   * Runs read statements in one snapshot, within the request's deadline when a scope is given
   * (the reads of one request share it: a page read after its count, the facet counts beside
   * a page): on the read pool when there is one (in arrival order; refused unrun when the
   * deadline passes while it waits), else here on the one connection.
   */
  private async read(
    statements: readonly ReadStatement[],
    scope: SearchScope | undefined,
  ): Promise<unknown[]> {
    try {
      scope?.check();
      // What is left of the request's deadline: all of it for its first read.
      const budgetMs = scope?.remainingMs();
      if (this.readPool) {
        return await this.readPool.run(statements, {
          deadlineAt: scope?.deadlineAt,
          budgetMs,
          reportedBudgetMs: scope?.budgetMs,
        });
      }
      return this.deadline.run(budgetMs, () =>
        statements.map(({ sql, params, mode }) => {
          const statement = this.prepareCached(sql).raw(mode === 'raw');
          return mode === 'get' ? statement.get(...params) : statement.all(...params);
        }),
      );
    } catch (error) {
      // Cut at what was left of it, the request's deadline is its whole budget.
      if (error instanceof QueryTimeoutError && scope?.budgetMs !== undefined) {
        throw new QueryTimeoutError(scope.budgetMs, { cause: error });
      }
      return wrapDriverError(error);
    }
  }

  private writeRow(row: SqliteRow, changed: string): void {
    this.statements.deleteTombstone.run(row.id);
    const existing = this.statements.findRid.get(row.id) as { rid: number } | undefined;
    if (existing) {
      this.statements.deleteFts.run(existing.rid);
      this.statements.deleteBoxes.run(existing.rid, existing.rid);
    }
    const { anytext, boxes, learned, ...columns } = row;
    this.learned.learn(learned);
    const { rid } = this.statements.upsert.get({ ...columns, changed }) as { rid: number };
    this.statements.insertFts.run(rid, anytext);
    boxes.forEach(([west, south, east, north], part) => {
      this.statements.insertBox.run(rid * 2 + part, west, east, south, north);
    });
  }

  async upsert(records: CoreRecord[]): Promise<UpsertResult> {
    const failures: WriteFailure[] = [];
    const rows: SqliteRow[] = [];
    for (const record of records) {
      try {
        rows.push(toSqliteRow(record));
      } catch (error) {
        failures.push({ id: record.id, reason: (error as Error).message });
      }
    }
    return { written: this.upsertRows(rows), failures };
  }

  /**
   * Runs a bulk load. Into an empty catalogue the secondary B-tree indexes are dropped for the
   * load and built once at the end: sorting once is cheaper than updating seven indexes a row.
   * They come back when the load fails too, and at the next open if the process dies.
   */
  async bulkLoad<T>(load: () => Promise<T>): Promise<T> {
    if (this.statements.anyRecord.get() !== undefined) return load();
    const indexes = this.statements.secondaryIndexes.all() as string[];
    for (const name of indexes) this.db.exec(`DROP INDEX "${name}"`);
    try {
      return await load();
    } finally {
      this.db.exec(SCHEMA_SQL);
    }
  }

  /**
   * Writes rows built by toSqliteRow (possibly on another thread) in one transaction: all of
   * them or, on a driver error, none. Returns the number written.
   */
  upsertRows(rows: readonly SqliteRow[]): number {
    try {
      this.db.transaction(() => {
        const changed = now();
        for (const row of rows) this.writeRow(row, changed);
      })();
    } catch (error) {
      wrapDriverError(error);
    }
    return rows.length;
  }

  /**
   * Deletes one record with its text and boxes, leaving its tombstone; false when it does not
   * exist.
   */
  private deleteRow(id: string, changed: string): boolean {
    const row = this.statements.findRid.get(id) as
      { rid: number; type: string | null; parent_id: string | null } | undefined;
    if (!row) return false;
    this.statements.deleteFts.run(row.rid);
    this.statements.deleteBoxes.run(row.rid, row.rid);
    this.statements.deleteRecord.run(row.rid);
    this.statements.insertTombstone.run(id, changed, row.type, row.parent_id);
    return true;
  }

  async delete(ids: string[]): Promise<number> {
    try {
      return this.db.transaction(() => {
        const changed = now();
        return ids.filter((id) => this.deleteRow(id, changed)).length;
      })();
    } catch (error) {
      return wrapDriverError(error);
    }
  }

  /** Every row is built first (a record that cannot be stored refuses the whole unit), then one transaction writes them all. */
  async applyAtomically(changes: AtomicChanges): Promise<AtomicResult> {
    const rows = changes.upsert.map((record) => {
      try {
        return toSqliteRow(record);
      } catch (error) {
        throw new InvalidRecordError(`record "${record.id}": ${(error as Error).message}`);
      }
    });
    try {
      return this.db.transaction(() => {
        const changed = now();
        for (const row of rows) this.writeRow(row, changed);
        return {
          written: rows.length,
          deleted: changes.delete.filter((id) => this.deleteRow(id, changed)).length,
        };
      })();
    } catch (error) {
      return wrapDriverError(error);
    }
  }

  async learnedProperties(): Promise<LearnedProperty[]> {
    try {
      return this.learned.list();
    } catch (error) {
      return wrapDriverError(error);
    }
  }

  async get(id: string): Promise<CoreRecord | null> {
    const row = this.statements.get.get(id) as StoredRow | undefined;
    return row ? toRecord(row) : null;
  }

  search(query: SearchQuery, options: SearchOptions = {}): Promise<SearchResult> {
    return withinScope(options.scope, this.timeBudgetMs, (scope) => this.searchIn(query, scope));
  }

  private async searchIn(query: SearchQuery, scope: SearchScope): Promise<SearchResult> {
    const statements = compileSearch(query, {
      compileFilter: this.compileFilter,
      guard: this.deadlineCheck,
      columns: ROW_COLUMNS,
    });
    const countStatement: ReadStatement = { ...statements.count, mode: 'get' };
    const pageStatement = (total: number, size: number): ReadStatement => ({
      ...statements.page(total, size),
      mode: 'raw',
    });
    const halves = statements.countHalves?.map((half): ReadStatement => ({
      ...half,
      mode: 'get',
    })) as [ReadStatement, ReadStatement] | undefined;
    const [count, rows] = statements.pageDependsOnCount
      ? await this.readCountThenPage(countStatement, pageStatement, scope, halves)
      : await this.readCountAndPage(countStatement, pageStatement(0, 0), scope, halves);
    return { total: count.n, records: rows.map(toRecord) };
  }

  /**
   * A count (in halves, see readCount), then the page whose plan is chosen on it (see
   * compileSearch), each beside the change number (RECORDS_CHANGES_SQL). When a write came between them, both are read
   * again in one transaction, the page on the plan the first count chose (a plan changes the
   * time a page takes, never its rows).
   */
  private async readCountThenPage(
    countStatement: ReadStatement,
    pageStatement: (total: number, size: number) => ReadStatement,
    scope: SearchScope,
    countHalves: [ReadStatement, ReadStatement] | undefined,
  ): Promise<[CountRow, StoredRow[]]> {
    const [count, countChanges] = await this.readCount(countStatement, scope, countHalves);
    const page = pageStatement(count.n, count.size ?? 0);
    const [rows, pageChanges] = (await this.read([page, CHANGES_STATEMENT], scope)) as [
      StoredRow[],
      ChangesRow,
    ];
    if (countChanges.n === pageChanges.n) return [count, rows];
    this.splitReads.repeated += 1;
    return (await this.read([countStatement, page], scope)) as [CountRow, StoredRow[]];
  }

  /**
   * A count beside the change number: with halves and two read connections idle, one half on
   * each at once, added up when both read the same change number (else the whole count again).
   */
  private async readCount(
    countStatement: ReadStatement,
    scope: SearchScope,
    countHalves: [ReadStatement, ReadStatement] | undefined,
  ): Promise<[CountRow, ChangesRow]> {
    if (countHalves && (this.readPool?.idle ?? 0) >= 2) {
      const [[lower, lowerChanges], [upper, upperChanges]] = (await Promise.all([
        this.read([countHalves[0], CHANGES_STATEMENT], scope),
        this.read([countHalves[1], CHANGES_STATEMENT], scope),
      ])) as [[CountRow, ChangesRow], [CountRow, ChangesRow]];
      this.splitReads.halved += 1;
      if (lowerChanges.n === upperChanges.n)
        return [{ ...upper, n: lower.n + upper.n }, upperChanges];
      this.splitReads.repeated += 1;
    }
    return (await this.read([countStatement, CHANGES_STATEMENT], scope)) as [CountRow, ChangesRow];
  }

  /**
   * A count and its page. With two read connections idle (a quiet server) they run at once, one
   * on each, each beside the catalogue's change number (RECORDS_CHANGES_SQL): when both read the
   * same number they read the same records, else (a write committed between the two starts)
   * both are read again in one transaction. A count with halves (an R*Tree-driven count, whose
   * time goes on looking up each R*Tree match) is itself split: one half on each connection,
   * the page beside the second. Otherwise (no pool, or the pool busy, where running
   * them apart would only add a task) both run in one transaction.
   */
  private async readCountAndPage(
    countStatement: ReadStatement,
    pageStatement: ReadStatement,
    scope: SearchScope,
    countHalves: [ReadStatement, ReadStatement] | undefined,
  ): Promise<[CountRow, StoredRow[]]> {
    if ((this.readPool?.idle ?? 0) >= 2 && countHalves) {
      // The count in two halves of the rowids, the page beside the second (compileSearch).
      const [[lower, lowerChanges], [upper, rows, pageChanges]] = (await Promise.all([
        this.read([countHalves[0], CHANGES_STATEMENT], scope),
        this.read([countHalves[1], pageStatement, CHANGES_STATEMENT], scope),
      ])) as [[CountRow, ChangesRow], [CountRow, StoredRow[], ChangesRow]];
      this.splitReads.split += 1;
      this.splitReads.halved += 1;
      if (lowerChanges.n === pageChanges.n) return [{ ...upper, n: lower.n + upper.n }, rows];
      this.splitReads.repeated += 1;
    } else if ((this.readPool?.idle ?? 0) >= 2) {
      const [[count, countChanges], [rows, pageChanges]] = (await Promise.all([
        this.read([countStatement, CHANGES_STATEMENT], scope),
        this.read([pageStatement, CHANGES_STATEMENT], scope),
      ])) as [[CountRow, ChangesRow], [StoredRow[], ChangesRow]];
      this.splitReads.split += 1;
      if (countChanges.n === pageChanges.n) return [count, rows];
      this.splitReads.repeated += 1;
    }
    return (await this.read([countStatement, pageStatement], scope)) as [CountRow, StoredRow[]];
  }

  domain(field: string, options: DomainOptions = {}): Promise<DomainValue[]> {
    return withinScope(options.scope, this.timeBudgetMs, (scope) =>
      this.domainIn(field, options, scope),
    );
  }

  private async domainIn(
    field: string,
    options: DomainOptions,
    scope: SearchScope,
  ): Promise<DomainValue[]> {
    const compiled = options.query ? compileQuery(options.query, this.compileFilter) : undefined;
    const sql = `SELECT CAST(e.value AS TEXT) AS value, count(*) AS count
      FROM records r ${compiled?.join ?? ''} JOIN json_each(r.props, '${propertyPath(field)}') e
      WHERE ${this.deadlineCheck?.('r.rid') ?? ''}(${compiled?.where.sql ?? '1'}) AND e.value IS NOT NULL
      GROUP BY 1 ORDER BY count DESC, value ASC LIMIT ?`;
    const params: SqlValue[] = compiled ? [...compiled.joinParams, ...compiled.where.params] : [];
    const [values] = await this.read(
      [{ sql, params: [...params, options.limit ?? 100], mode: 'all' }],
      scope,
    );
    return values as DomainValue[];
  }

  async extent(): Promise<CatalogueExtent> {
    // Both scan a whole table (about half a second at 100,000 records): off the event loop.
    const [box, time] = (await this.read(
      [
        { sql: EXTENT_SQL, params: [], mode: 'get' },
        { sql: TIME_EXTENT_SQL, params: [], mode: 'get' },
      ],
      undefined,
    )) as [ExtentRow, { start: string | null; end: string | null }];
    const extent: CatalogueExtent = {};
    if (box.west !== null) extent.bbox = [box.west, box.south!, box.east!, box.north!];
    if (time.start) extent.start = time.start;
    if (time.end) extent.end = time.end;
    return extent;
  }

  async aggregate(
    query: SearchQuery,
    requests: Readonly<Record<string, AggregationRequest>>,
    options: SearchOptions = {},
  ): Promise<Record<string, AggregationAnswer>> {
    const statements = Object.entries(
      compileAggregations(query, requests, this.compileFilter, this.deadlineCheck?.('r.rid') ?? ''),
    );
    if (statements.length === 0) return {};
    const rows = await withinScope(options.scope, this.timeBudgetMs, (scope) =>
      this.read(
        statements.map(([, { sql, params, mode }]) => ({ sql, params, mode })),
        scope,
      ),
    );
    return Object.fromEntries(
      statements.map(([name, statement], i) => [name, statement.read(rows[i])]),
    );
  }

  async childrenExtents(
    parentIds: readonly string[],
    options: SearchOptions = {},
  ): Promise<ChildrenExtent[]> {
    if (parentIds.length === 0) return [];
    const [rows] = (await withinScope(options.scope, this.timeBudgetMs, (scope) =>
      this.read(
        [{ sql: CHILDREN_EXTENTS_SQL, params: [JSON.stringify(parentIds)], mode: 'all' }],
        scope,
      ),
    )) as [ChildrenExtentRow[]];
    return rows.map(readChildrenExtentRow);
  }

  async changes(query: ChangeQuery): Promise<ChangePage> {
    const page = (table: ChangeTable): ReadStatement => ({
      ...compileChangePage(
        query,
        table,
        table === 'records' && query.withRecords
          ? 'record, source_format, source_media_type, source'
          : '',
      ),
      mode: 'raw',
    });
    const count = (table: ChangeTable): ReadStatement => ({
      ...compileChangeCount(query, table),
      mode: 'get',
    });
    const statements = [page('records'), page('tombstones')];
    if (query.count) statements.push(count('records'), count('tombstones'));
    const [live, deleted, liveCount, deletedCount] = (await withinScope(
      undefined,
      this.timeBudgetMs,
      (scope) => this.read(statements, scope),
    )) as [ChangeRow[], ChangeRow[], { n: number } | undefined, { n: number } | undefined];
    const entries = mergeChangePages(
      live.map((row) => toChangeEntry(row, false)),
      deleted.map((row) => toChangeEntry(row, true)),
      query.limit,
    );
    return query.count
      ? { entries, total: (liveCount?.n ?? 0) + (deletedCount?.n ?? 0) }
      : { entries };
  }

  /** One statement on the unique id index, on the read pool when there is one. */
  walkIds(query: IdWalkQuery, options: SearchOptions = {}): Promise<IdWalkEntry[]> {
    return withinScope(options.scope, this.timeBudgetMs, async (scope) => {
      const statement = compileIdWalk(query, this.deadlineCheck?.('r.rid'));
      const [rows] = (await this.read([{ ...statement, mode: 'raw' }], scope)) as [
        [id: string, updated?: string | null][],
      ];
      return rows.map(([id, updated]) =>
        updated === undefined || updated === null ? { id } : { id, updated },
      );
    });
  }

  async change(id: string): Promise<ChangeEntry | null> {
    try {
      const live = this.statements.getChange.get(id) as ChangeRow | undefined;
      if (live) return toChangeEntry(live, false);
      const tombstone = this.statements.getTombstone.get(id) as ChangeRow | undefined;
      return tombstone ? toChangeEntry(tombstone, true) : null;
    } catch (error) {
      return wrapDriverError(error);
    }
  }

  async earliestChange(): Promise<string | null> {
    return (this.statements.earliestChange.get() as string | null | undefined) ?? null;
  }

  async purgeTombstones(before: string): Promise<number> {
    try {
      return this.statements.purgeTombstones.run(before).changes;
    } catch (error) {
      return wrapDriverError(error);
    }
  }

  async health(): Promise<BackendHealth> {
    try {
      const { n } = this.statements.count.get() as { n: number };
      return { ok: true, kind: this.kind, records: n };
    } catch {
      return { ok: false, kind: this.kind, detail: 'database unavailable' };
    }
  }

  async close(): Promise<void> {
    await this.readPool?.close();
    if (this.db.open) this.db.close();
  }
}
