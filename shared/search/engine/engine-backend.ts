/**
 * The SearchBackend on Elasticsearch 8 or OpenSearch 2: one class for both, talking to a thin
 * EngineAdapter, built from parts that each do one job (README.md in this folder): the index
 * set-up and reindex (index-lifecycle.ts), bulk writes with retry and rollback
 * (bulk-writer.ts), compiling against the live mapping and settling records in doubt
 * (query-compiler.ts), reads (record-reads.ts) and pages past the result window
 * (deep-paging.ts). This class only builds them and delegates; the adapter it is given is
 * chosen in shared/search/create-backend.ts.
 */
import type { SearchQuery } from '../../query/search-query.js';
import type { LearnedProperty } from '../../query/queryables.js';
import type { AggregationAnswer, AggregationRequest } from '../aggregations.js';
import type { CoreRecord } from '../../records/core-record.js';
import type {
  AtomicChanges,
  AtomicResult,
  BackendHealth,
  CatalogueExtent,
  ChildrenExtent,
  ChangeEntry,
  ChangePage,
  ChangeQuery,
  DomainOptions,
  DomainValue,
  IdWalkEntry,
  IdWalkQuery,
  SearchBackend,
  SearchOptions,
  SearchResult,
  UpsertResult,
} from '../backend.js';
import { BulkWriter } from './bulk-writer.js';
import { EngineChangeFeed, tombstonesBeside } from './change-feed.js';
import { DeepPaging } from './deep-paging.js';
import {
  classifyClientError,
  type EngineAdapter,
  type EngineName,
  type RefreshPolicy,
} from './engine-adapter.js';
import { EngineIngestLog } from './engine-ingest-log.js';
import { EngineIdWalk } from './id-walk.js';
import { toReadError } from './engine-errors.js';
import { IndexLifecycle } from './index-lifecycle.js';
import { readLearnedProperties } from './learned-properties.js';
import type { IndexLayout, SpatialMode, TextAnalysis } from './index-templates.js';
import { QueryCompiler } from './query-compiler.js';
import { RecordReads } from './record-reads.js';
import { DEFAULT_REFINE_MAX_CANDIDATES } from './refine-search.js';
import { RefinePool } from './refine-pool.js';
import { SurvivorStore } from './refine-survivors.js';
import type { ReindexResult } from './reindex.js';
import { BudgetedSearch } from './budgeted-search.js';
import { withinScope } from '../search-scope.js';
import type { CheckpointStats, CheckpointStore } from './sort-checkpoints.js';

/** How an EngineBackend is set up: the engine, its adapter, index names and limits. */
export interface EngineBackendOptions {
  engine: EngineName;
  /** The client adapter for `engine` (shared/search/create-backend.ts builds one from a URL). */
  adapter: EngineAdapter;
  /** The alias clients use. Default `cairn-records`. */
  alias?: string;
  /** The ingest log index. Default: the alias with `records` replaced by `ingest-log`. */
  ingestLog?: string;
  /** The tombstones index. Default: the alias with `records` replaced by `tombstones`. */
  tombstones?: string;
  /** Spatial indexing. Default `shape` on OpenSearch, `envelope` on Elasticsearch. */
  spatial?: SpatialMode;
  /** Text analysis of searched text; `full` needs analysis-common. Default `standard`. */
  analysis?: TextAnalysis;
  /** Refresh after writes: false (default), true, or `wait_for` (tests). */
  refresh?: RefreshPolicy;
  /**
   * How often the engine makes new writes searchable (`index.refresh_interval` of the index
   * versions this backend creates: the first one and each reindex). Unset: the engine's default,
   * every second while the index is searched and on the next search once it has been idle.
   */
  refreshInterval?: string | undefined;
  /**
   * Shards and replicas of the index versions this backend creates (SEARCH_SHARDS,
   * SEARCH_REPLICAS); unset: one shard, one replica once a second node is there.
   */
  layout?: IndexLayout;
  /** Largest bulk request, in records and in characters of documents. Defaults 500 and 5 Mi. */
  bulkMaxRecords?: number;
  bulkMaxBytes?: number;
  /** The index's max_result_window (es-mappings/records.base.json). Default 10,000. */
  maxResultWindow?: number;
  /**
   * The windows of change times a change-listing page is first asked within (narrowest first);
   * default CHANGE_WINDOWS_MS.
   */
  changeWindowsMs?: readonly number[];
  /** Hits per request when walking to a deep offset. Default: the result window. */
  walkBatchSize?: number;
  /** Queries whose deep-paging checkpoints are kept. Default 1,000. */
  checkpointQueries?: number;
  /**
   * Checkpoints shared with the other API processes (scaled mode: Redis), consulted when this
   * process has none; the backend closes it. Unset: this process's own only.
   */
  sharedCheckpoints?: CheckpointStore | undefined;
  /** Keep the previous index version (write-blocked) after a reindex. Default false. */
  keepPreviousIndex?: boolean;
  /**
   * Milliseconds a search or facet count may run: sent as the search `timeout`, and a response
   * that timed out is a QueryTimeoutError (503) rather than partial results. Unset: no budget.
   */
  queryTimeBudgetMs?: number | undefined;
  /**
   * Most candidates a search whose filter the engine cannot decide alone may check in Node
   * (refine-search.ts); more is a 400. Default 10,000 (SEARCH_REFINE_MAX_CANDIDATES).
   */
  refineMaxCandidates?: number;
  /**
   * Worker threads that decide refined candidates off the event loop (refine-pool.ts),
   * started on the first refinement. Default 0: on the event loop (SEARCH_REFINE_WORKERS).
   */
  refineWorkers?: number | undefined;
  /** Own properties of records listed as learned at most (QUERYABLES_MAX_LEARNED); default 1000. */
  maxLearnedProperties?: number | undefined;
}

/** The ingest log index beside an alias: `…records` → `…ingest-log`, else `<alias>-ingest-log`. */
function ingestLogBeside(alias: string): string {
  return alias.endsWith('records')
    ? `${alias.slice(0, -'records'.length)}ingest-log`
    : `${alias}-ingest-log`;
}

/** Elasticsearch and OpenSearch SearchBackend. */
export class EngineBackend implements SearchBackend {
  readonly kind: EngineName;
  readonly alias: string;
  readonly ingestLog: string;
  readonly tombstones: string;
  /** The spatial mode new index versions are built with. */
  readonly spatial: SpatialMode;
  readonly analysis: TextAnalysis;
  /** SEARCH_REFRESH `true` or `wait_for`: a write is searchable once its call resolves. */
  readonly writesSearchableOnReturn: boolean;
  /** QUERY_TIME_BUDGET_MS: the deadline a request's searches share, from its first. */
  private readonly budgetMs: number | undefined;
  private readonly adapter: EngineAdapter;
  private readonly lifecycle: IndexLifecycle;
  private readonly writer: BulkWriter;
  private readonly reads: RecordReads;
  private readonly paging: DeepPaging;
  private readonly compiler: QueryCompiler;
  private readonly refinePool: RefinePool | undefined;
  private readonly survivors = new SurvivorStore();
  private readonly changeFeed: EngineChangeFeed;
  /** The alias's searches under the request's deadline. */
  private readonly budgeted: BudgetedSearch;
  private readonly idWalk: EngineIdWalk;
  private readonly maxLearnedProperties: number;

  constructor(options: EngineBackendOptions) {
    const { adapter } = options;
    this.kind = options.engine;
    this.adapter = adapter;
    this.alias = options.alias ?? 'cairn-records';
    this.ingestLog = options.ingestLog ?? ingestLogBeside(this.alias);
    this.tombstones = options.tombstones ?? tombstonesBeside(this.alias);
    this.changeFeed = new EngineChangeFeed(
      adapter,
      this.alias,
      this.tombstones,
      options.changeWindowsMs,
    );
    this.spatial = options.spatial ?? (options.engine === 'opensearch' ? 'shape' : 'envelope');
    this.analysis = options.analysis ?? 'standard';
    this.writesSearchableOnReturn = (options.refresh ?? false) !== false;
    this.budgetMs = options.queryTimeBudgetMs;
    this.maxLearnedProperties = options.maxLearnedProperties ?? 1000;
    const alias = this.alias;
    const maxResultWindow = options.maxResultWindow ?? 10_000;
    const checkpointQueries = options.checkpointQueries ?? 1000;
    const refineMaxCandidates = options.refineMaxCandidates ?? DEFAULT_REFINE_MAX_CANDIDATES;
    const search = new BudgetedSearch(adapter, alias, options.queryTimeBudgetMs);
    this.budgeted = search;
    this.idWalk = new EngineIdWalk(alias, maxResultWindow);
    this.refinePool =
      (options.refineWorkers ?? 0) > 0 ? new RefinePool(options.refineWorkers!) : undefined;
    this.lifecycle = new IndexLifecycle({
      adapter,
      engine: this.kind,
      alias,
      ingestLog: this.ingestLog,
      tombstones: this.tombstones,
      spatial: this.spatial,
      analysis: this.analysis,
      refreshInterval: options.refreshInterval,
      layout: options.layout ?? {},
      keepPreviousIndex: options.keepPreviousIndex ?? false,
    });
    this.writer = new BulkWriter({
      adapter,
      alias,
      lifecycle: this.lifecycle,
      refresh: options.refresh ?? false,
      maxRecords: options.bulkMaxRecords ?? 500,
      maxBytes: options.bulkMaxBytes ?? 5 * 1024 * 1024,
      tombstones: this.tombstones,
      setsOf: (ids) => this.changeFeed.setsOf(ids),
    });
    this.paging = new DeepPaging({
      alias,
      maxResultWindow,
      walkBatchSize: Math.min(options.walkBatchSize ?? maxResultWindow, maxResultWindow),
      checkpointQueries,
      sharedCheckpoints: options.sharedCheckpoints,
    });
    const compiler = (this.compiler = new QueryCompiler({
      adapter,
      engine: this.kind,
      alias,
      lifecycle: this.lifecycle,
      refineMaxCandidates,
      maxResultWindow,
      decider: this.refinePool,
      survivors: this.survivors,
    }));
    this.reads = new RecordReads({
      adapter,
      alias,
      lifecycle: this.lifecycle,
      compiler,
      paging: this.paging,
      search,
      maxResultWindow,
      refineMaxCandidates,
    });
  }

  /** Candidate batches decided in the refinement threads (for tests and metrics). */
  get refinedInThreads(): number {
    return this.refinePool?.batches ?? 0;
  }

  /** Refined searches answered from kept survivors, and decided and kept (for tests and metrics). */
  get survivorStats(): SurvivorStore['stats'] {
    return this.survivors.stats;
  }

  /** Deep paging counters (for tests and metrics). */
  get pagingStats(): Readonly<CheckpointStats> {
    return this.paging.stats;
  }

  /** The physical index the alias points to (after init). */
  get liveIndex(): string | undefined {
    return this.lifecycle.liveIndex;
  }

  /** Installs (or updates) the index templates from `es-mappings/`. */
  installTemplates(): Promise<void> {
    return this.lifecycle.installTemplates();
  }

  init(): Promise<void> {
    return this.lifecycle.init();
  }

  /** Makes everything written so far visible to search (after bulk loads with refresh off). */
  refresh(): Promise<void> {
    return this.lifecycle.refresh();
  }

  upsert(records: CoreRecord[]): Promise<UpsertResult> {
    return this.writer.upsert(records);
  }

  delete(ids: string[]): Promise<number> {
    return this.writer.delete(ids);
  }

  /** Writes and deletes all or nothing (bulk-writer.ts: read, write, roll back on failure). */
  applyAtomically(changes: AtomicChanges): Promise<AtomicResult> {
    return this.writer.applyAtomically(changes, (id) => this.get(id));
  }

  /** The ingest log kept in this engine's ingest-log index (created by init()). */
  createIngestLog(): EngineIngestLog {
    return new EngineIngestLog(this.adapter, this.ingestLog);
  }

  get(id: string): Promise<CoreRecord | null> {
    return this.reads.get(id);
  }

  search(query: SearchQuery, options: SearchOptions = {}): Promise<SearchResult> {
    return withinScope(options.scope, this.budgetMs, (scope) => this.reads.search(query, scope));
  }

  /** Whether the engine cannot decide the query's filter alone (see QueryCompiler). */
  refinesInNode(query: SearchQuery): boolean {
    return this.compiler.refinesInNode(query);
  }

  domain(field: string, options: DomainOptions = {}): Promise<DomainValue[]> {
    return withinScope(options.scope, this.budgetMs, (scope) =>
      this.reads.domain(field, options, scope),
    );
  }

  extent(): Promise<CatalogueExtent> {
    return this.reads.extent();
  }

  aggregate(
    query: SearchQuery,
    requests: Readonly<Record<string, AggregationRequest>>,
    options: SearchOptions = {},
  ): Promise<Record<string, AggregationAnswer>> {
    return withinScope(options.scope, this.budgetMs, (scope) =>
      this.reads.aggregate(query, requests, scope),
    );
  }

  childrenExtents(
    parentIds: readonly string[],
    options: SearchOptions = {},
  ): Promise<ChildrenExtent[]> {
    return withinScope(options.scope, this.budgetMs, (scope) =>
      this.reads.childrenExtents(parentIds, scope),
    );
  }

  /** The id walk of the sitemaps (id-walk.ts): ranges on the sorted `id`, no count, no source. */
  walkIds(query: IdWalkQuery, options: SearchOptions = {}): Promise<IdWalkEntry[]> {
    return withinScope(options.scope, this.budgetMs, async (scope) => {
      try {
        await this.lifecycle.requireLive();
        return await this.idWalk.walk(query, this.budgeted.within(scope));
      } catch (error) {
        throw toReadError(error);
      }
    });
  }

  changes(query: ChangeQuery): Promise<ChangePage> {
    return this.changeFeed.changes(query).catch((error: unknown) => {
      throw toReadError(error);
    });
  }

  change(id: string): Promise<ChangeEntry | null> {
    return this.changeFeed.change(id).catch((error: unknown) => {
      throw toReadError(error);
    });
  }

  earliestChange(): Promise<string | null> {
    return this.changeFeed.earliestChange().catch((error: unknown) => {
      throw toReadError(error);
    });
  }

  purgeTombstones(before: string): Promise<number> {
    return this.writer.purgeTombstones(this.changeFeed.tombstonesBefore(before));
  }

  /** The `props.*` fields of the live index's mapping (learned-properties.ts). */
  async learnedProperties(): Promise<LearnedProperty[]> {
    try {
      const mappings = await this.adapter.getMappings(this.alias);
      const [mapping] = Object.values(mappings);
      return mapping ? readLearnedProperties(mapping, this.maxLearnedProperties) : [];
    } catch (error) {
      throw toReadError(error);
    }
  }

  async health(): Promise<BackendHealth> {
    try {
      const { status } = await this.adapter.clusterHealth();
      const records = await this.adapter.count(this.alias);
      return { ok: status !== 'red', kind: this.kind, records, detail: `cluster ${status}` };
    } catch (error) {
      const engineError = classifyClientError(error);
      return {
        ok: false,
        kind: this.kind,
        detail:
          engineError.kind === 'unavailable' ? 'search engine unavailable' : 'search engine error',
      };
    }
  }

  /**
   * Builds the next index version from the stored source documents with the current parsers
   * and mapping, then moves the alias to it atomically; reads never see a half-built index.
   * The deep-paging state of the replaced version is forgotten.
   */
  reindex(): Promise<ReindexResult> {
    return this.lifecycle.reindex(
      (records, index, spatial, changed) =>
        this.writer.writeDocuments(records, index, spatial, false, changed),
      () => {
        this.paging.clear();
        this.idWalk.clear();
      },
    );
  }

  /** Removes the alias, every index version and the templates (tests, teardown). */
  destroy(): Promise<void> {
    return this.lifecycle.destroy();
  }

  async close(): Promise<void> {
    await this.refinePool?.close();
    await this.paging.close();
    await this.adapter.close();
  }
}
