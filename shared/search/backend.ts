/**
 * SearchBackend: the one interface every search implementation provides
 * (docs/architecture.md, seam 3). Backends translate driver errors into project errors at
 * this boundary; no engine message, URL or SQL text crosses it.
 */
import type { IngestLog } from '../ingest/ingest-log.js';
import type { Bbox, CoreRecord } from '../records/core-record.js';
import type { LearnedProperty } from '../query/queryables.js';
import type { SearchQuery } from '../query/search-query.js';
import type { AggregationAnswer, AggregationRequest } from './aggregations.js';
import type { SearchScope } from './search-scope.js';

export type BackendKind = 'sqlite' | 'elasticsearch' | 'opensearch';

/** The outcome of one record in a batch write. */
export interface WriteFailure {
  id: string;
  reason: string;
}

export interface UpsertResult {
  written: number;
  failures: WriteFailure[];
}

/** Writes applied as one unit by `SearchBackend.applyAtomically`. */
export interface AtomicChanges {
  /** Records to insert or replace by id. */
  upsert: CoreRecord[];
  /** Ids to delete (ids that do not exist are skipped); disjoint from the upserted ids. */
  delete: string[];
}

/** What an atomic write did. */
export interface AtomicResult {
  written: number;
  /** How many of the ids to delete existed. */
  deleted: number;
}

export interface SearchResult {
  /** Exact number of records matching the query, ignoring paging. */
  total: number;
  records: CoreRecord[];
}

export interface DomainValue {
  value: string;
  count: number;
}

/** What a search call is told of the request it serves. */
export interface SearchOptions {
  /**
   * The request: its client, and the one deadline and abort signal of all its calls
   * (search-scope.ts). Unset: the call is a request of its own.
   */
  scope?: SearchScope | undefined;
  /** Facets the request counts beside this search (Records `facets`), for its lane. */
  facets?: number | undefined;
  /** Buckets those facets ask for, together, for its lane. */
  facetBuckets?: number | undefined;
}

export interface DomainOptions extends SearchOptions {
  /** Restrict the counts to records matching this query (facets). */
  query?: SearchQuery;
  /** Maximum number of distinct values, most frequent first. */
  limit?: number;
}

export interface BackendHealth {
  ok: boolean;
  kind: BackendKind;
  records?: number;
  detail?: string;
}

/** The spatial and temporal extent of everything in the catalogue. */
export interface CatalogueExtent {
  bbox?: [number, number, number, number];
  start?: string;
  end?: string;
}

/**
 * The records that name one parent (a collection's items): how many, and the union of their
 * extents, computed from the index when asked, so it follows every write, replacement, delete
 * and harvest without being stored anywhere (docs/decisions/collection-search.md).
 */
export interface ChildrenExtent {
  parentId: string;
  /** How many records name the parent. */
  count: number;
  /**
   * [least west, least south, greatest east, greatest north] of the children's boxes, a box
   * that crosses the antimeridian counting as -180..180; absent when no child has a box.
   */
  bbox?: Bbox;
  /**
   * The earliest start and the latest end of the children's times (UTC, milliseconds), null at
   * an end some child leaves open; absent when no child has a time.
   */
  time?: { start: string | null; end: string | null };
}

/** What a reindex did (search engines; see shared/search/engine/reindex.ts). */
export interface ReindexResult {
  /** The physical index the alias pointed to, and the one it points to now. */
  from: string;
  to: string;
  /** Records written to the new version. */
  written: number;
  /** Records read again from their source document with the current parsers. */
  reparsed: number;
  /** Records whose source no longer parses, carried over from their stored CoreRecord. */
  carried: WriteFailure[];
  /** Records the new mapping refused (they are not in the new version). */
  failures: WriteFailure[];
  /** Records deleted from the old version during the build, removed from the new one. */
  removed: number;
  durationMs: number;
}

/**
 * Where a listing of changes stopped: the change time and id of the last entry given. Entries
 * are ordered by (change time, id), so the next page starts strictly after it (keyset paging:
 * each page costs what the first does).
 */
export interface ChangeCheckpoint {
  /** ISO 8601 UTC with milliseconds, as `ChangeEntry.changed`. */
  changed: string;
  id: string;
}

/** A set of records a change listing is restricted to: by resource type or parent collection. */
export interface ChangeSet {
  field: 'type' | 'parentId';
  /** The value; absent: every record that has one. */
  value?: string;
}

/**
 * A listing of the catalogue's changes (OAI-PMH): live records and tombstones together, in
 * (change time, id) order.
 */
export interface ChangeQuery {
  /** Inclusive lower bound on the change time (ISO 8601 UTC). */
  from?: string;
  /** Exclusive upper bound on the change time (ISO 8601 UTC). */
  before?: string;
  set?: ChangeSet;
  after?: ChangeCheckpoint;
  limit: number;
  /** Count every entry the listing matches, ignoring `after` and `limit`. */
  count?: boolean;
  /** Read the live records themselves (ListRecords), not only their headers. */
  withRecords?: boolean;
}

/** One entry of a change listing: a live record or a tombstone. */
export interface ChangeEntry {
  id: string;
  /** When the record was last written or deleted here: ISO 8601 UTC with milliseconds. */
  changed: string;
  deleted: boolean;
  type: string | null;
  parentId: string | null;
  /** The record, when asked for and live. */
  record?: CoreRecord;
}

export interface ChangePage {
  entries: ChangeEntry[];
  /** Live records plus tombstones matching the listing, when `count` was asked. */
  total?: number;
}

/**
 * A walk over the live records in id order (the sitemaps): those after `after` (exclusive)
 * through `through` (inclusive), the first `skip` of them passed over, at most `limit` listed.
 * Ids compare as their UTF-8 bytes, the order of every backend's id index; tombstones are never
 * walked. Nothing is counted and no record is read beyond its id (and, when asked, `updated`),
 * so a walk deep in the catalogue costs what one at its start does, but for the records
 * skipped.
 */
export interface IdWalkQuery {
  after?: string | undefined;
  through?: string | undefined;
  /** Records passed over before the first one listed; default 0. */
  skip?: number | undefined;
  limit: number;
  /** Read each record's `updated` too (IdWalkEntry.updated); default: ids alone. */
  withUpdated?: boolean | undefined;
}

/** One record of an id walk. */
export interface IdWalkEntry {
  id: string;
  /**
   * When asked for and the record has one: its `updated`. SQLite gives it as stored; the search
   * engines, which index it as an instant, give that instant as ISO 8601 UTC with milliseconds,
   * which is the text every record format's reader stores (a date alone becomes its midnight).
   */
  updated?: string;
}

export interface SearchBackend {
  readonly kind: BackendKind;
  /**
   * Search engines: how footprints are indexed (`shape`: exact geometries; `envelope`: bounding
   * boxes), which decides the spatial relations they evaluate. Absent on SQLite.
   */
  readonly spatial?: 'shape' | 'envelope';
  /**
   * Whether a write is visible to searches once `upsert`, `delete` or `applyAtomically`
   * resolves (absent: it is). Search engines: only with a refresh policy that waits for it.
   */
  readonly writesSearchableOnReturn?: boolean;
  /** Creates tables or indices if they do not exist. Idempotent. */
  init(): Promise<void>;
  /** Inserts or replaces records by id, in batches; one bad record never fails the rest. */
  upsert(records: CoreRecord[]): Promise<UpsertResult>;
  /** Deletes records by id; returns how many existed. */
  delete(ids: string[]): Promise<number>;
  /**
   * Applies upserts and deletes as one unit (a CSW-T Transaction): all of them, or none. Any
   * refused record or failure throws, and the catalogue is left as it was.
   */
  applyAtomically(changes: AtomicChanges): Promise<AtomicResult>;
  /** One record by id, or null. */
  get(id: string): Promise<CoreRecord | null>;
  /** A page of the records a query matches and their exact count. */
  search(query: SearchQuery, options?: SearchOptions): Promise<SearchResult>;
  /** Distinct values of a queryable with their counts, most frequent first. */
  domain(field: string, options?: DomainOptions): Promise<DomainValue[]>;
  /** Overall extent of the records, for the collection description. */
  extent(): Promise<CatalogueExtent>;
  /**
   * For each of these parent ids that some record names as parent: the count and the extent of
   * those records (parents no record names are left out).
   */
  childrenExtents(parentIds: readonly string[], options?: SearchOptions): Promise<ChildrenExtent[]>;
  /**
   * Aggregations over the records the query matches (its paging ignored), each answered as
   * ./aggregations.ts defines, alike on every backend; by the request's names.
   */
  aggregate(
    query: SearchQuery,
    requests: Readonly<Record<string, AggregationRequest>>,
    options?: SearchOptions,
  ): Promise<Record<string, AggregationAnswer>>;
  /**
   * The properties the catalogue learned from the records written to it (their own, beyond the
   * core queryables): name, JSON types, whether sortable; by name, at most the configured number
   * (QUERYABLES_MAX_LEARNED). Read from where every process writes (SQLite: a table of the
   * file; engines: the index mapping), so a property one process wrote is known to all.
   */
  learnedProperties(): Promise<LearnedProperty[]>;
  health(): Promise<BackendHealth>;
  close(): Promise<void>;
  /**
   * Lists live records and tombstones in (change time, id) order. Tombstones are left by every
   * delete (and by nothing else); writing a record again removes its tombstone. They are kept
   * apart from the records, so searches, counts, facets and `get` never see them.
   */
  changes(query: ChangeQuery): Promise<ChangePage>;
  /**
   * Live records in id order, ids alone or with `updated`, without a count (the sitemaps:
   * IdWalkQuery). Within the request's deadline, as `search`.
   */
  walkIds(query: IdWalkQuery, options?: SearchOptions): Promise<IdWalkEntry[]>;
  /** One record's latest change (live with its record, or its tombstone), or null. */
  change(id: string): Promise<ChangeEntry | null>;
  /** The earliest change time of any record or tombstone, or null for an empty catalogue. */
  earliestChange(): Promise<string | null>;
  /** Removes tombstones whose deletion time is before `before` (ISO); returns how many. */
  purgeTombstones(before: string): Promise<number>;
  /**
   * Capabilities a backend may have; callers test for them instead of for a concrete class.
   * Search engines: rebuilds the index from the stored sources and moves the alias (absent: the
   * backend keeps its indexes up to date on every write, so there is nothing to rebuild).
   */
  reindex?(): Promise<ReindexResult>;
  /**
   * Search engines: whether the backend cannot decide the query's filter alone and refines
   * candidates in Node (absent: it decides every filter itself). Synchronous; for the lanes.
   */
  refinesInNode?(query: SearchQuery): boolean;
  /** Search engines: the ingest log kept beside the records (absent: the SQLite file). */
  createIngestLog?(): IngestLog;
}
