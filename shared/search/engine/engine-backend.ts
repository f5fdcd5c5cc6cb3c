/**
 * The SearchBackend on Elasticsearch 8 or OpenSearch 2: one class for both, talking to a thin
 * EngineAdapter. Reads go through an alias (`cairn-records`) over a versioned index
 * (`cairn-records-v1`, …) created from the templates in `es-mappings/`; writes are batched
 * bulk requests keyed by record id; pages beyond the result window continue with
 * `search_after` from cached sort checkpoints (in this process, and shared by every API process
 * through Redis in scaled mode), reached by walks in strides of sort values over an index
 * sorted by the default sort key; `reindex()` builds the next version from the
 * stored source documents and moves the alias atomically.
 */
import {
  FilterError,
  InternalError,
  InvalidParameterError,
  InvalidRecordError,
  QueryTimeoutError,
  ServiceUnavailableError,
  UnsupportedFilterError,
} from '../../errors/index.js';
import type { SearchQuery } from '../../query/search-query.js';
import type { CoreRecord } from '../../records/core-record.js';
import { buildIndexDocument } from '../../records/index-document.js';
import type {
  AtomicChanges,
  AtomicResult,
  BackendHealth,
  CatalogueExtent,
  DomainOptions,
  DomainValue,
  SearchBackend,
  SearchResult,
  UpsertResult,
  WriteFailure,
} from '../backend.js';
import type { FilterContext } from './compile-filter.js';
import { compileSearchQuery, ID_FIELD, type CompiledSearch } from './compile-search.js';
import { allOf, matchAll, range, type Query, type RangeBounds } from './dsl.js';
import {
  BlockWidths,
  FIRST_BLOCK_DROP,
  idBlockEnd,
  isIndexOrder,
  MAX_BLOCKS,
} from './id-blocks.js';
import {
  BulkBody,
  classifyClientError,
  type BulkItemResult,
  type EngineAdapter,
  type EngineHit,
  type EngineName,
  type EngineSearchRequest,
  type EngineSearchResponse,
  type JsonObject,
  type RefreshPolicy,
  type SortValue,
} from './engine-adapter.js';
import { buildEngineDocument, readStoredRecord, type StoredParts } from './engine-document.js';
import { toReadError, toWriteError, RETRY_AFTER_SECONDS } from './engine-errors.js';
import { fieldOf, type FieldKind } from './engine-fields.js';
import { canonicalPropertyName } from '../../query/queryables.js';
import { ElasticsearchAdapter } from './elasticsearch-adapter.js';
import {
  buildIngestLogTemplate,
  buildRecordsTemplates,
  parseIndexVersion,
  versionedIndexName,
  type IndexLayout,
  type RecordsIndexMeta,
  type SpatialMode,
  type TextAnalysis,
} from './index-templates.js';
import { EngineIngestLog } from './engine-ingest-log.js';
import { OpenSearchAdapter } from './opensearch-adapter.js';
import { rebuildIndex, type ReindexResult } from './reindex.js';
import {
  DEFAULT_REFINE_MAX_CANDIDATES,
  refineSearch,
  selectInDoubt,
  type RefineTarget,
} from './refine-search.js';
import {
  SortCheckpoints,
  type Checkpoint,
  type CheckpointStats,
  type CheckpointStore,
} from './sort-checkpoints.js';

export interface EngineBackendOptions {
  engine: EngineName;
  /** The engine's URL; required unless an adapter is given. */
  url?: string;
  /** A ready adapter (tests); otherwise one is built for `engine` and `url`. */
  adapter?: EngineAdapter;
  /** The alias clients use. Default `cairn-records`. */
  alias?: string;
  /** The ingest log index. Default: the alias with `records` replaced by `ingest-log`. */
  ingestLog?: string;
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
  refreshInterval?: string;
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
  /** Hits per request when walking to a deep offset. Default: the result window. */
  walkBatchSize?: number;
  /** Queries whose deep-paging checkpoints are kept. Default 1,000. */
  checkpointQueries?: number;
  /**
   * Checkpoints shared with the other API processes (scaled mode: Redis), consulted when this
   * process has none; the backend closes it. Unset: this process's own only.
   */
  sharedCheckpoints?: CheckpointStore;
  /** Keep the previous index version (write-blocked) after a reindex. Default false. */
  keepPreviousIndex?: boolean;
  requestTimeout?: number;
  maxRetries?: number;
  /**
   * Milliseconds a search or facet count may run: sent as the search `timeout`, and a response
   * that timed out is a QueryTimeoutError (503) rather than partial results. Unset: no budget.
   */
  queryTimeBudgetMs?: number;
  /**
   * Most candidates a search whose filter the engine cannot decide alone may check in Node
   * (refine-search.ts); more is a 400. Default 10,000 (SEARCH_REFINE_MAX_CANDIDATES).
   */
  refineMaxCandidates?: number;
}

const STORED_FIELDS = ['record', 'source'];
/**
 * What every page reads: the whole stored `_source`, not `STORED_FIELDS`, nor the record alone
 * for pages that present no source document. Naming fields makes the engine parse each hit's
 * source and write the named parts anew, where the whole of it is copied as stored: on 10-hit
 * pages, naming `record` alone cost the engine 1.8–2.1 ms more a page than the whole source,
 * and 3.2–3.4 ms more with 30 KB source documents, about twice what the API then spends parsing
 * the larger answer (docs/decisions.md, eleventh session).
 */
const WHOLE_SOURCE = true;
/**
 * Walks read sort values only: no `_source` and no stored fields, not even `_id`, whose
 * reading would decompress a stored-fields block per hit.
 */
const NO_STORED_FIELDS = '_none_';

/** Ids sampled for a jump in the index order (jumpInIndexOrder). */
const JUMP_SAMPLES = 500;
/** A jump replaces a walk of more than this many strides. */
const JUMP_MIN_STRIDES = 2;
/**
 * Candidates fetched per request when a search is refined in Node: small enough that parsing one
 * response and evaluating it never holds the event loop for long.
 */
const REFINE_BATCH_SIZE = 1_000;
const MAPPING_RELOAD_INTERVAL_MS = 2_000;
const TRANSIENT_RETRIES = 5;
/** A write request's body starts at 1 MiB and doubles as needed (about 200 records of 5 KB). */
const BULK_BODY_CAPACITY = 1024 * 1024;

/** The names the engine uses in messages to clients. */
const ENGINE_TITLES: Record<EngineName, string> = {
  elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch',
};

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** A short, engine-message-free reason for a record the engine refused. */
export function describeBulkFailure(error: { type: string; reason?: string }): string {
  const field = /failed to parse field \[([^\]]+)\]/.exec(error.reason ?? '')?.[1];
  const property = field?.startsWith('props.')
    ? decodeURIComponent(field.slice('props.'.length).replace(/\.keyword$/, ''))
    : field;
  return `rejected by the search engine (${error.type}${property ? ` at "${property}"` : ''})`;
}

function isTransient(item: BulkItemResult): boolean {
  return (
    item.status === 429 ||
    item.status === 502 ||
    item.status === 503 ||
    item.status === 504 ||
    item.error?.type === 'cluster_block_exception'
  );
}

/** Flattens the mapping of `props.*` into the kinds of its fields. */
function readPropertyKinds(mappings: JsonObject): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  const props = (mappings.properties as Record<string, JsonObject> | undefined)?.props;
  const fields = (props?.properties ?? {}) as Record<string, { type?: string }>;
  for (const [name, field] of Object.entries(fields)) {
    const kind: FieldKind =
      field.type === 'double' || field.type === 'long' || field.type === 'float'
        ? 'number'
        : field.type === 'date'
          ? 'time'
          : 'string';
    kinds.set(`props.${name}`, kind);
  }
  return kinds;
}

/** Elasticsearch and OpenSearch SearchBackend. */
export class EngineBackend implements SearchBackend {
  readonly kind: EngineName;
  readonly alias: string;
  readonly ingestLog: string;
  /** The spatial mode new index versions are built with. */
  readonly spatial: SpatialMode;
  readonly analysis: TextAnalysis;
  private readonly adapter: EngineAdapter;
  private readonly refreshPolicy: RefreshPolicy;
  private readonly refreshInterval: string | undefined;
  private readonly layout: IndexLayout;
  private readonly bulkMaxRecords: number;
  private readonly bulkMaxBytes: number;
  private readonly maxResultWindow: number;
  private readonly walkBatchSize: number;
  private readonly keepPreviousIndex: boolean;
  private readonly checkpoints: SortCheckpoints;
  private readonly blockWidths: BlockWidths;
  private readonly sharedCheckpoints: CheckpointStore | undefined;
  private readonly stats: CheckpointStats = { hits: 0, walks: 0, walkedHits: 0, jumps: 0 };
  private readonly queryTimeBudgetMs: number | undefined;
  private readonly refineMaxCandidates: number;
  /** The physical index behind the alias, and what it was built with. */
  private live: { index: string; spatial: SpatialMode } | undefined;
  private propertyKinds = new Map<string, FieldKind>();
  private kindsLoadedAt = 0;
  /** While a reindex runs: the index being built, which in-process writes also reach. */
  private building: { index: string; spatial: SpatialMode } | undefined;

  constructor(options: EngineBackendOptions) {
    this.kind = options.engine;
    this.alias = options.alias ?? 'cairn-records';
    this.ingestLog =
      options.ingestLog ??
      (this.alias.endsWith('records')
        ? `${this.alias.slice(0, -'records'.length)}ingest-log`
        : `${this.alias}-ingest-log`);
    this.spatial = options.spatial ?? (options.engine === 'opensearch' ? 'shape' : 'envelope');
    this.analysis = options.analysis ?? 'standard';
    this.refreshPolicy = options.refresh ?? false;
    this.refreshInterval = options.refreshInterval;
    this.layout = options.layout ?? {};
    this.bulkMaxRecords = options.bulkMaxRecords ?? 500;
    this.bulkMaxBytes = options.bulkMaxBytes ?? 5 * 1024 * 1024;
    this.maxResultWindow = options.maxResultWindow ?? 10_000;
    this.walkBatchSize = Math.min(
      options.walkBatchSize ?? this.maxResultWindow,
      this.maxResultWindow,
    );
    this.keepPreviousIndex = options.keepPreviousIndex ?? false;
    this.checkpoints = new SortCheckpoints(options.checkpointQueries ?? 1000);
    this.blockWidths = new BlockWidths(options.checkpointQueries ?? 1000);
    this.sharedCheckpoints = options.sharedCheckpoints;
    this.queryTimeBudgetMs = options.queryTimeBudgetMs;
    this.refineMaxCandidates = options.refineMaxCandidates ?? DEFAULT_REFINE_MAX_CANDIDATES;
    if (options.adapter) {
      this.adapter = options.adapter;
    } else {
      if (!options.url) throw new InternalError(`The ${options.engine} backend needs a URL`);
      const connection = {
        url: options.url,
        requestTimeout: options.requestTimeout,
        maxRetries: options.maxRetries,
      };
      this.adapter =
        options.engine === 'elasticsearch'
          ? new ElasticsearchAdapter(connection)
          : new OpenSearchAdapter(connection);
    }
  }

  /** Deep paging counters (for tests and metrics). */
  get pagingStats(): Readonly<CheckpointStats> {
    return this.stats;
  }

  /** The checkpoint at `offset`: this process's, else the shared store's (kept here too). */
  private async checkpointAt(key: string, offset: number): Promise<SortValue[] | undefined> {
    const local = this.checkpoints.get(key, offset);
    if (local || !this.sharedCheckpoints) return local;
    const shared = await this.sharedCheckpoints.get(key, offset);
    if (shared) this.checkpoints.set(key, offset, shared);
    return shared;
  }

  /** The closest checkpoint below or at `offset`, here or in the shared store. */
  private async nearestCheckpoint(key: string, offset: number): Promise<Checkpoint | undefined> {
    const local = this.checkpoints.nearestBelow(key, offset);
    if (!this.sharedCheckpoints || local?.offset === offset) return local;
    const shared = await this.sharedCheckpoints.nearestBelow(key, offset);
    return shared && (!local || shared.offset > local.offset) ? shared : local;
  }

  /**
   * Remembers a checkpoint here and, when `share`, in the shared store (one Redis round trip:
   * only for checkpoints a deep page may start from).
   */
  private async remember(
    key: string,
    offset: number,
    after: SortValue[],
    share = true,
  ): Promise<void> {
    this.checkpoints.set(key, offset, after);
    if (share) await this.sharedCheckpoints?.set(key, offset, after);
  }

  /** The physical index the alias points to (after init). */
  get liveIndex(): string | undefined {
    return this.live?.index;
  }

  // -------------------------------------------------------------------------------------------
  // Set-up

  /** Installs (or updates) the index templates from `es-mappings/`. */
  async installTemplates(): Promise<void> {
    const records = buildRecordsTemplates(this.alias, {
      spatial: this.spatial,
      analysis: this.analysis,
      refreshInterval: this.refreshInterval,
      ...this.layout,
    });
    try {
      for (const component of records.components) {
        await this.adapter.putComponentTemplate(component.name, component.body);
      }
      await this.adapter.putIndexTemplate(records.indexTemplate.name, records.indexTemplate.body);
      const ingestLog = buildIngestLogTemplate(this.ingestLog);
      await this.adapter.putIndexTemplate(ingestLog.name, ingestLog.body);
    } catch (error) {
      const engineError = classifyClientError(error);
      if (engineError.kind === 'rejected' && this.spatial === 'shape') {
        throw new InternalError(
          `The ${ENGINE_TITLES[this.kind]} at this URL refused the records templates; spatial mode "shape" needs the geo_shape field type (OpenSearch: the geo module; Elasticsearch: x-pack spatial), which minimal distributions lack. Use spatial mode "envelope" there.`,
          { cause: engineError },
        );
      }
      throw toWriteError(error);
    }
  }

  async init(): Promise<void> {
    await this.installTemplates();
    try {
      let targets = await this.adapter.aliasTargets(this.alias);
      if (targets.length === 0) {
        const first = versionedIndexName(this.alias, 1);
        if (!(await this.adapter.indexExists(first))) {
          await this.adapter.createIndex(first, {
            aliases: { [this.alias]: { is_write_index: true } },
          });
        } else {
          await this.adapter.updateAliases([
            { add: { index: first, alias: this.alias, is_write_index: true } },
          ]);
        }
        targets = [first];
      }
      if (targets.length !== 1) {
        throw new InternalError(`The alias ${this.alias} points to ${targets.length} indices`);
      }
      if (!(await this.adapter.indexExists(this.ingestLog))) {
        await this.adapter.createIndex(this.ingestLog, {}).catch((error: unknown) => {
          // Another process may have created it in between.
          if (classifyClientError(error).kind !== 'rejected') throw error;
        });
      }
      await this.loadLiveIndex(targets[0]);
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /** Reads what the live index was built with, and its dynamic property kinds. */
  private async loadLiveIndex(index: string): Promise<void> {
    const mappings = (await this.adapter.getMappings(index))[index] ?? {};
    const meta = ((mappings._meta as JsonObject | undefined)?.cairn ??
      {}) as Partial<RecordsIndexMeta>;
    this.live = { index, spatial: meta.spatial ?? this.spatial };
    this.propertyKinds = readPropertyKinds(mappings);
    this.kindsLoadedAt = Date.now();
  }

  private async reloadPropertyKinds(): Promise<void> {
    if (!this.live) return;
    const mappings = (await this.adapter.getMappings(this.live.index))[this.live.index] ?? {};
    this.propertyKinds = readPropertyKinds(mappings);
    this.kindsLoadedAt = Date.now();
  }

  /**
   * The live index. When init() could not reach the engine (it was down at start-up), the
   * first use tries again, so the backend recovers without a restart.
   */
  private async requireLive(): Promise<{ index: string; spatial: SpatialMode }> {
    if (!this.live) {
      const targets = await this.adapter.aliasTargets(this.alias);
      if (targets.length !== 1) {
        throw new InternalError(`The alias ${this.alias} points to ${targets.length} indices`);
      }
      await this.loadLiveIndex(targets[0]);
    }
    return this.live!;
  }

  /** Makes everything written so far visible to search (after bulk loads with refresh off). */
  async refresh(): Promise<void> {
    try {
      await this.adapter.refresh(this.alias);
    } catch (error) {
      throw toWriteError(error);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Compiling

  private filterContext(spatial: SpatialMode, missing: Set<string>): FilterContext {
    return {
      spatial,
      engineName: ENGINE_TITLES[this.kind],
      mappedKind: (path) => {
        const kind = this.propertyKinds.get(path);
        if (kind) return kind;
        missing.add(path);
        return 'absent';
      },
    };
  }

  /**
   * Compiles a query against the live index. A property the cached mapping does not know may
   * have appeared since (another process wrote it): the mapping is re-read, at most every
   * couple of seconds, and the query compiled again.
   */
  private async compile(query: SearchQuery): Promise<CompiledSearch> {
    const compiled = await this.compileUnproven(query);
    if (compiled.doubt) await this.refuseUnproven(compiled.doubt, this.live!.spatial);
    return compiled;
  }

  /** Compiles a query, with the documents for which its answer is unproven (if any). */
  private async compileUnproven(query: SearchQuery): Promise<CompiledSearch> {
    const { spatial } = await this.requireLive();
    const missing = new Set<string>();
    let compiled = compileSearchQuery(query, this.filterContext(spatial, missing));
    if (missing.size > 0 && Date.now() - this.kindsLoadedAt >= MAPPING_RELOAD_INTERVAL_MS) {
      await this.reloadPropertyKinds();
      compiled = compileSearchQuery(query, this.filterContext(spatial, new Set()));
    }
    return compiled;
  }

  /**
   * Compiles a search the engine may answer exactly (see CompiledSearch.doubt for the records
   * for which it may not); undefined when the compiler refuses a predicate.
   */
  private async compileCandidate(query: SearchQuery): Promise<CompiledSearch | undefined> {
    try {
      return await this.compileUnproven(query);
    } catch (error) {
      if (error instanceof UnsupportedFilterError) return undefined;
      throw error;
    }
  }

  /**
   * The search compiled again with its records in doubt decided: they are fetched (at most the
   * refine cap), the query's filter is evaluated on each in Node, and the engine query selects
   * its own answer outside the doubt and the chosen records inside it. Exact at any page and in
   * any order, where refining the whole search would check every candidate.
   */
  private async settleDoubt(
    query: SearchQuery,
    compiled: CompiledSearch,
    inDoubt: number,
  ): Promise<CompiledSearch> {
    const selected = await selectInDoubt(this.refineTarget(), query, {
      query: compiled.doubt!.query,
      sort: compiled.sort,
      count: inDoubt,
    });
    const context = this.filterContext(this.live!.spatial, new Set());
    return compileSearchQuery(query, context, selected);
  }

  /** What refining a search needs from this backend. */
  private refineTarget(): RefineTarget {
    return {
      adapter: this.adapter,
      alias: this.alias,
      engineName: ENGINE_TITLES[this.kind],
      maxCandidates: this.refineMaxCandidates,
      batchSize: Math.min(REFINE_BATCH_SIZE, this.maxResultWindow),
      storedFields: STORED_FIELDS,
      search: (request) => this.searchWithinBudget(request),
      timeBudgetMs: this.queryTimeBudgetMs,
    };
  }

  /**
   * Refuses (400) a search for which some record in its scope has a footprint the engine
   * cannot relate exactly to the filter's geometry (compile-spatial.ts): a count it cannot
   * prove is never given.
   */
  private async refuseUnproven(
    doubt: NonNullable<CompiledSearch['doubt']>,
    spatial: SpatialMode,
  ): Promise<void> {
    if ((await this.adapter.count(this.alias, doubt.query)) === 0) return;
    const operators = doubt.operators.join(', ');
    throw new FilterError(
      spatial === 'envelope'
        ? `The ${ENGINE_TITLES[this.kind]} backend cannot answer ${operators} exactly here: in spatial mode "envelope" only each record's bounding box is indexed, and records in scope have footprints that are not boxes (or the geometry is not a box) near the operand`
        : `The ${ENGINE_TITLES[this.kind]} backend cannot answer ${operators} exactly here: records in scope have a footprint the engine could not index or that lies on the edge of the operand, within its coordinate precision`,
    );
  }

  // -------------------------------------------------------------------------------------------
  // Writes

  /** Sends one bulk request, retrying the operations the engine refused for transient reasons. */
  private async sendBulk(
    body: BulkBody,
    refresh: RefreshPolicy = this.refreshPolicy,
  ): Promise<BulkItemResult[]> {
    const results: BulkItemResult[] = new Array(body.count);
    let pending = Array.from(results, (_, position) => position);
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 0) await sleep(200 * 2 ** (attempt - 1));
      const items = await this.adapter.bulk(
        body.toBuffer(attempt === 0 ? undefined : pending),
        refresh,
      );
      const retry: number[] = [];
      items.forEach((item, i) => {
        if (isTransient(item)) retry.push(pending[i]);
        else results[pending[i]] = item;
      });
      if (retry.length === 0) return results;
      if (attempt + 1 >= TRANSIENT_RETRIES) {
        // Still refused after backing off: an infrastructure problem the caller should retry.
        throw new ServiceUnavailableError('The search engine is not accepting writes', {
          retryAfter: RETRY_AFTER_SECONDS,
        });
      }
      pending = retry;
    }
  }

  /**
   * Writes documents built for `spatial` into `index`; returns the failures. An index being
   * built by reindex has refresh off, so writes to it never wait for a refresh.
   *
   * Each document is serialised once and encoded into the bulk body at once, so neither its
   * text nor its intermediate objects outlive the loop turn that built them: with several jobs
   * in flight, documents kept until the engine answered were what the worker's garbage
   * collector spent its time copying. Requests are bounded by count and by bytes (a document
   * is measured in UTF-16 code units before it is added: exact for ASCII).
   */
  private async writeDocuments(
    records: CoreRecord[],
    index: string,
    spatial: SpatialMode,
    refresh: RefreshPolicy = this.refreshPolicy,
  ): Promise<{ written: number; failures: WriteFailure[] }> {
    const failures: WriteFailure[] = [];
    let written = 0;
    let body = new BulkBody(BULK_BODY_CAPACITY);
    let ids: string[] = [];
    const send = async (): Promise<void> => {
      const items = await this.sendBulk(body, refresh);
      items.forEach((item, position) => {
        if (item.error)
          failures.push({ id: ids[position], reason: describeBulkFailure(item.error) });
        else written += 1;
      });
      body = new BulkBody(BULK_BODY_CAPACITY);
      ids = [];
    };
    for (const record of records) {
      let document: string;
      try {
        document = JSON.stringify(buildEngineDocument(buildIndexDocument(record), record, spatial));
      } catch (error) {
        failures.push({ id: record.id, reason: (error as Error).message });
        continue;
      }
      if (
        ids.length > 0 &&
        (ids.length >= this.bulkMaxRecords || body.bytes + document.length > this.bulkMaxBytes)
      ) {
        await send();
      }
      body.add({ index: { _id: record.id, _index: index } }, document);
      ids.push(record.id);
    }
    if (ids.length > 0) await send();
    return { written, failures };
  }

  async upsert(records: CoreRecord[]): Promise<UpsertResult> {
    try {
      const live = await this.requireLive();
      const building = this.building;
      const result = await this.writeDocuments(records, this.alias, live.spatial);
      if (building) await this.writeDocuments(records, building.index, building.spatial, false);
      // New properties may have extended the mapping: let the next query re-read it if needed.
      this.kindsLoadedAt = 0;
      return result;
    } catch (error) {
      throw toWriteError(error);
    }
  }

  async delete(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    try {
      await this.requireLive();
      const unique = [...new Set(ids)];
      const deletions = (batch: string[], index: string): BulkBody => {
        const body = new BulkBody();
        for (const id of batch) body.add({ delete: { _id: id, _index: index } });
        return body;
      };
      let deleted = 0;
      for (let start = 0; start < unique.length; start += this.bulkMaxRecords) {
        const batch = unique.slice(start, start + this.bulkMaxRecords);
        const items = await this.sendBulk(deletions(batch, this.alias));
        deleted += items.filter((item) => item.result === 'deleted').length;
        if (this.building) await this.sendBulk(deletions(batch, this.building.index), false);
      }
      return deleted;
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /**
   * The engines have no multi-document transaction: the current version of every record the
   * changes touch is read first, the changes are written in bulk, and on any refused record or
   * failure the read versions are put back (records that did not exist are deleted again).
   * Readers may see the changes for the moment between a failed write and its rollback.
   */
  async applyAtomically(changes: AtomicChanges): Promise<AtomicResult> {
    const touched = [...new Set([...changes.upsert.map((record) => record.id), ...changes.delete])];
    const before = new Map<string, CoreRecord | null>();
    for (const id of touched) before.set(id, await this.get(id));
    try {
      const result = await this.upsert(changes.upsert);
      if (result.failures.length > 0)
        throw new InvalidRecordError(
          `the search engine refused: ${result.failures.map((failure) => `${failure.id}: ${failure.reason}`).join('; ')}`,
        );
      return { written: result.written, deleted: await this.delete(changes.delete) };
    } catch (error) {
      await this.restore(before);
      throw error;
    }
  }

  /** Puts records back as they were read (null: the record did not exist). */
  private async restore(before: ReadonlyMap<string, CoreRecord | null>): Promise<void> {
    const previous = [...before.values()].filter((record): record is CoreRecord => record !== null);
    const absent = [...before].filter(([, record]) => record === null).map(([id]) => id);
    const result = await this.upsert(previous);
    await this.delete(absent);
    if (result.failures.length > 0)
      throw new InternalError('The search engine refused to restore records after a failed write');
  }

  /** The ingest log kept in this engine's ingest-log index (created by init()). */
  createIngestLog(): EngineIngestLog {
    return new EngineIngestLog(this.adapter, this.ingestLog);
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  async get(id: string): Promise<CoreRecord | null> {
    try {
      await this.requireLive();
      const stored = await this.adapter.getSource(this.alias, id, STORED_FIELDS);
      return stored ? readStoredRecord(stored as unknown as StoredParts) : null;
    } catch (error) {
      throw toReadError(error);
    }
  }

  /** The records of a page's hits (each read with its whole stored `_source`). */
  private toRecords(hits: EngineHit[]): CoreRecord[] {
    return hits.map((hit) => readStoredRecord(hit._source as unknown as StoredParts));
  }

  /** The sort values of a hit, without an engine-added tiebreaker (ES adds `_shard_doc` under a PIT). */
  private sortValues(hit: EngineHit, sortLength: number): SortValue[] {
    return (hit.sort ?? []).slice(0, sortLength);
  }

  /**
   * One search request of a query, under the query time budget: the engine stops at the
   * budget (`timeout`), and a response that says it timed out is refused instead of being
   * served as partial results.
   */
  private async searchWithinBudget(request: EngineSearchRequest): Promise<EngineSearchResponse> {
    const budget = this.queryTimeBudgetMs;
    if (budget === undefined) return this.adapter.search(request);
    const response = await this.adapter.search({
      ...request,
      body: { ...request.body, timeout: `${budget}ms` },
      ...(request.filterPath ? { filterPath: [...request.filterPath, 'timed_out'] } : {}),
    });
    if (response.timed_out === true) throw new QueryTimeoutError(budget);
    return response;
  }

  /**
   * Several searches in one round trip (`_msearch`), each with the time budget; refused as a
   * whole when any of them stopped at it.
   */
  private async searchManyWithinBudget(bodies: JsonObject[]): Promise<EngineSearchResponse[]> {
    const budget = this.queryTimeBudgetMs;
    if (budget === undefined) return this.adapter.searchMany(this.alias, bodies);
    const timeout = `${budget}ms`;
    const responses = await this.adapter.searchMany(
      this.alias,
      bodies.map((body) => ({ ...body, timeout })),
    );
    if (responses.some((response) => response.timed_out === true)) {
      throw new QueryTimeoutError(budget);
    }
    return responses;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const hasFilter = query.filter !== undefined;
    try {
      const candidate = await this.compileCandidate(query);
      const { offset, limit } = query;
      if (limit > this.maxResultWindow) {
        throw new InvalidParameterError(
          'limit',
          `A page holds at most ${this.maxResultWindow} records on this backend`,
        );
      }
      const firstPageBody = (search: CompiledSearch): JsonObject | undefined =>
        offset + limit > this.maxResultWindow && limit !== 0
          ? undefined
          : {
              query: search.query,
              sort: search.sort,
              track_total_hits: true,
              from: limit === 0 ? 0 : offset,
              size: limit,
              _source: WHOLE_SOURCE,
            };
      let firstPage: Promise<EngineSearchResponse> | undefined;
      let inDoubt: number | undefined;
      if (candidate) {
        const body = firstPageBody(candidate);
        if (candidate.doubt && body) {
          // A first page is sent with the count of records in doubt, in one round trip (e.g.
          // for an intersects geometry), and used only when that count is 0.
          const [counted, page] = await this.searchManyWithinBudget([
            { query: candidate.doubt.query, size: 0, track_total_hits: true },
            body,
          ]);
          inDoubt = counted.hits.total?.value ?? 0;
          firstPage = Promise.resolve(page);
        } else {
          if (body) firstPage = this.searchWithinBudget({ index: this.alias, body });
          inDoubt = candidate.doubt
            ? await this.adapter.count(this.alias, candidate.doubt.query)
            : 0;
        }
      }
      let exact = inDoubt === 0 ? candidate : undefined;
      if (!exact && inDoubt !== undefined && inDoubt <= this.refineMaxCandidates) {
        // Few records in doubt: those are decided in Node, the engine answers for the rest.
        exact = await this.settleDoubt(query, candidate!, inDoubt);
        const body = firstPageBody(exact);
        firstPage = body && this.searchWithinBudget({ index: this.alias, body });
      }
      if (!exact) {
        const context = this.filterContext(this.live!.spatial, new Set());
        return await refineSearch(this.refineTarget(), query, context);
      }
      const compiled = exact;
      // The live index version is part of the key: checkpoints of an index a reindex replaced
      // are never used against its successor, in this process or any other.
      const key = JSON.stringify([this.live?.index, this.alias, compiled.query, compiled.sort]);
      const base = { query: compiled.query, sort: compiled.sort, track_total_hits: true };
      if (firstPage) {
        const response = await firstPage;
        const hits = response.hits.hits;
        if (hits.length === limit && limit > 0) {
          // Shared only when the next page of this size lies beyond the window: discovery
          // queries' first pages cost no Redis round trip.
          await this.remember(
            key,
            offset + limit,
            this.sortValues(hits[hits.length - 1], compiled.sort.length),
            offset + 2 * limit > this.maxResultWindow,
          );
        }
        return { total: response.hits.total?.value ?? 0, records: this.toRecords(hits) };
      }
      let after = await this.checkpointAt(key, offset);
      if (after) this.stats.hits += 1;
      else {
        const jumped = (await this.worthJumping(key, compiled, offset))
          ? await this.jumpInIndexOrder(compiled, offset)
          : undefined;
        if (Array.isArray(jumped)) await this.remember(key, offset, jumped);
        after =
          jumped === undefined ? await this.walkTo(key, compiled, offset) : (jumped ?? undefined);
      }
      if (after === undefined) {
        // The offset lies beyond the last hit: only the count is needed.
        const response = await this.searchWithinBudget({
          index: this.alias,
          body: { query: compiled.query, size: 0, track_total_hits: true },
        });
        return { total: response.hits.total?.value ?? 0, records: [] };
      }
      let hits: EngineHit[];
      let total: number;
      if (isIndexOrder(compiled.sort)) {
        ({ hits, total } = await this.hitsAfterInIndexOrder(key, compiled.query, after, limit));
      } else {
        const response = await this.searchWithinBudget({
          index: this.alias,
          body: { ...base, size: limit, search_after: after, _source: WHOLE_SOURCE },
        });
        hits = response.hits.hits;
        total = response.hits.total?.value ?? 0;
      }
      if (hits.length === limit) {
        await this.remember(
          key,
          offset + limit,
          this.sortValues(hits[hits.length - 1], compiled.sort.length),
        );
      }
      return { total, records: this.toRecords(hits) };
    } catch (error) {
      throw toReadError(error, hasFilter);
    }
  }

  /**
   * Finds the sort values of the hit just before `offset`: from the nearest checkpoint below
   * (or the start), in strides of sort values only, leaving checkpoints behind. Undefined when
   * the offset lies beyond the last hit.
   *
   * A stride asks for `walkBatchSize` hits after the last sort values with no `_source`, no
   * stored fields (not even `_id`), no hit counting and no point in time: on an index sorted
   * by the walk's sort (the default, `id`; mapping version 6) the engine stops each segment
   * after the stride's hits, so a stride costs about its own length, not the matches before
   * it. A point in time would make Elasticsearch add its `_shard_doc` tiebreaker to the sort,
   * which then no longer matches the index sort, and it measured slower on both engines
   * (docs/decisions.md). Without one, each stride sees the latest refresh, as the pages a
   * harvester fetches one after another do.
   */
  private async walkTo(
    key: string,
    compiled: CompiledSearch,
    offset: number,
  ): Promise<SortValue[] | undefined> {
    this.stats.walks += 1;
    const start = await this.nearestCheckpoint(key, offset);
    if (!start && offset <= this.maxResultWindow) {
      // Inside the window: one request for the boundary hit.
      const response = await this.searchWithinBudget({
        index: this.alias,
        body: {
          query: compiled.query,
          sort: compiled.sort,
          from: offset - 1,
          size: 1,
          stored_fields: NO_STORED_FIELDS,
          track_total_hits: false,
        },
        filterPath: ['hits.hits.sort'],
      });
      const hit = response.hits?.hits?.[0];
      this.stats.walkedHits += offset;
      return hit ? this.sortValues(hit, compiled.sort.length) : undefined;
    }
    let position = start?.offset ?? 0;
    let after = start?.after;
    while (position < offset) {
      const size = Math.min(this.walkBatchSize, offset - position);
      const response = await this.searchWithinBudget({
        index: this.alias,
        body: {
          query: compiled.query,
          sort: compiled.sort,
          size,
          stored_fields: NO_STORED_FIELDS,
          track_total_hits: false,
          ...(after ? { search_after: after } : {}),
        },
        filterPath: ['hits.hits.sort'],
      });
      const hits = response.hits?.hits ?? [];
      if (hits.length === 0) return undefined;
      after = this.sortValues(hits[hits.length - 1], compiled.sort.length);
      position += hits.length;
      this.stats.walkedHits += hits.length;
      await this.remember(key, position, after);
      if (hits.length < size && position < offset) return undefined;
    }
    return after;
  }

  /**
   * True when a deep page in the index order lies more than two walk strides beyond the
   * nearest checkpoint below it: a sampled jump costs about what two strides cost.
   */
  private async worthJumping(
    key: string,
    compiled: CompiledSearch,
    offset: number,
  ): Promise<boolean> {
    if (!isIndexOrder(compiled.sort)) return false;
    const start = await this.nearestCheckpoint(key, offset);
    return offset - (start?.offset ?? 0) > JUMP_MIN_STRIDES * this.walkBatchSize;
  }

  /**
   * The sort values of the hit just before `offset` in the index order, found without walking
   * (no stride collects 10,000 hits to step over them): ids sampled at random among the
   * matches, beside the exact count, give the ids whose ranks should lie near the offset; counts
   * of the matches before a few of them (in parallel; a count of a range on `id` costs the terms
   * in the range, no hit collection) give their exact ranks; a page with `from` = the distance
   * from the closest one at or below the offset (within the result window) gives the hit.
   * Undefined when no counted sample lies within a window below the offset (the caller walks
   * then), and `null` when the offset lies beyond the last match.
   */
  private async jumpInIndexOrder(
    compiled: CompiledSearch,
    offset: number,
  ): Promise<SortValue[] | null | undefined> {
    const [counted, sampled] = await Promise.all([
      this.searchWithinBudget({
        index: this.alias,
        body: { query: compiled.query, size: 0, track_total_hits: true },
        filterPath: ['hits.total'],
      }),
      this.searchWithinBudget({
        index: this.alias,
        body: {
          query: {
            function_score: { query: compiled.query, random_score: {}, boost_mode: 'replace' },
          },
          size: JUMP_SAMPLES,
          stored_fields: NO_STORED_FIELDS,
          docvalue_fields: [ID_FIELD],
          track_total_hits: false,
        },
        filterPath: ['hits.hits.fields'],
      }),
    ]);
    const total = counted.hits?.total?.value ?? 0;
    if (offset > total) return null;
    this.stats.jumps += 1;
    const samples = (sampled.hits?.hits ?? [])
      .map((hit) => hit.fields?.[ID_FIELD]?.[0])
      .filter((id): id is string => typeof id === 'string')
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    // The rank (0-based) of the hit just before the offset; the sample of about that rank is
    // known only within a few standard deviations of its index (σ ≈ √(n·p·(1 − p)) samples).
    const target = offset - 1;
    const share = Math.min(1, target / total);
    const estimate = Math.floor(share * samples.length);
    const step = Math.max(1, Math.ceil(Math.sqrt(samples.length * share * (1 - share))));
    const before = 2 * target < total;
    const ranked = new Map<number, number>();
    const countRange = async (bounds: RangeBounds): Promise<number> => {
      const response = await this.searchWithinBudget({
        index: this.alias,
        body: {
          query: allOf([compiled.query, range(ID_FIELD, bounds)]),
          size: 0,
          track_total_hits: true,
        },
        filterPath: ['hits.total'],
      });
      return response.hits?.total?.value ?? 0;
    };
    // Ranks of samples from counts in parallel: one from the nearer end of the matches (the start
    // below the middle, the end above it) or from a counted sample, then the matches between
    // consecutive samples; a count of a range on id costs the terms in it, so narrow counts.
    const rankAll = async (indices: number[]): Promise<void> => {
      const fresh = [...new Set(indices)]
        .filter((index) => index >= 0 && index < samples.length && !ranked.has(index))
        .sort((a, b) => a - b);
      if (fresh.length === 0) return;
      const counted = [...ranked.keys()];
      if (before) {
        const anchor = Math.max(-1, ...counted.filter((index) => index < fresh[0]));
        const lows = [anchor, ...fresh.slice(0, -1)];
        const counts = await Promise.all(
          fresh.map((index, k) =>
            countRange(
              lows[k] >= 0 ? { gte: samples[lows[k]], lt: samples[index] } : { lt: samples[index] },
            ),
          ),
        );
        let rank = anchor >= 0 ? ranked.get(anchor)! : 0;
        fresh.forEach((index, k) => ranked.set(index, (rank += counts[k])));
      } else {
        const last = fresh[fresh.length - 1];
        const anchor = Math.min(samples.length, ...counted.filter((index) => index > last));
        const highs = [...fresh.slice(1), anchor];
        const counts = await Promise.all(
          fresh.map((index, k) =>
            countRange(
              highs[k] < samples.length
                ? { gte: samples[index], lt: samples[highs[k]] }
                : { gte: samples[index] },
            ),
          ),
        );
        let rank = anchor < samples.length ? ranked.get(anchor)! : total;
        for (let k = fresh.length - 1; k >= 0; k -= 1) ranked.set(fresh[k], (rank -= counts[k]));
      }
    };
    // The closest counted sample at or below the target (none: the start, rank 0).
    const closest = (): { index: number; rank: number } =>
      [...ranked].reduce(
        (best, [index, rank]) => (rank <= target && rank > best.rank ? { index, rank } : best),
        { index: -1, rank: 0 },
      );
    // Two rounds of counts in parallel: samples 4σ either side a σ apart, then those between
    // the closest below the target and the next counted one above it.
    await rankAll(Array.from({ length: 9 }, (_, k) => estimate + (k - 4) * step));
    const below = closest();
    const above = [...ranked]
      .filter(([index, rank]) => index > below.index && rank > target)
      .reduce((lowest, [index]) => Math.min(lowest, index), samples.length);
    await rankAll(
      Array.from(
        { length: Math.min(above - below.index - 1, 2 * step) },
        (_, k) => below.index + 1 + k,
      ),
    );
    const best = closest();
    const start = { id: best.index >= 0 ? samples[best.index] : undefined, rank: best.rank };
    if (target - start.rank >= this.maxResultWindow) return undefined;
    const response = await this.searchWithinBudget({
      index: this.alias,
      body: {
        query:
          start.id === undefined
            ? compiled.query
            : allOf([compiled.query, range(ID_FIELD, { gte: start.id })]),
        sort: [{ [ID_FIELD]: { order: 'asc' } }],
        from: target - start.rank,
        size: 1,
        stored_fields: NO_STORED_FIELDS,
        track_total_hits: false,
      },
      filterPath: ['hits.hits.sort'],
    });
    const hit = response.hits?.hits?.[0];
    this.stats.walkedHits += target - start.rank + 1;
    // No hit: the matches changed between the counts; the caller walks.
    return hit ? this.sortValues(hit, 1) : undefined;
  }

  /**
   * The first `size` hits after `after` in the index order (`id` ascending), without counting:
   * a range on `id` bounded by the end of a block of ids that share a prefix with `after`,
   * wider blocks while a block holds fewer than `size` matches (id-blocks.ts), and at last
   * `search_after`, whose cost is known (the matches before `after`), rather than an open range
   * (the terms after it). The first block tried is one narrower than the block that held the
   * query's last page of this size, so a page that needed a wide block (at the end of a block
   * of ids: after `…0899999`, the block of `…09`) does not make the next ones wide.
   */
  private async hitsAfterInIndexOrder(
    key: string,
    query: Query,
    after: SortValue[],
    size: number,
  ): Promise<{ hits: EngineHit[]; total: number }> {
    // A range on id cannot count the matches: the first request carries the count beside it
    // (`_msearch`, one round trip).
    let total: number | undefined;
    const send = async (body: JsonObject): Promise<EngineHit[]> => {
      if (total !== undefined) {
        return (await this.searchWithinBudget({ index: this.alias, body })).hits?.hits ?? [];
      }
      const [counted, page] = await this.searchManyWithinBudget([
        { query, size: 0, track_total_hits: true },
        body,
      ]);
      total = counted.hits?.total?.value ?? 0;
      return page.hits?.hits ?? [];
    };
    const id = String(after[0]);
    let drop = Math.max(FIRST_BLOCK_DROP, this.blockWidths.get(key, size) - 1);
    for (let block = 0; block < MAX_BLOCKS; block += 1) {
      const end = idBlockEnd(id, drop);
      if (end === undefined) break;
      const hits = await send({
        query: allOf([query, range(ID_FIELD, { gt: id, lt: end })]),
        sort: [{ [ID_FIELD]: { order: 'asc' } }],
        size,
        track_total_hits: false,
        _source: WHOLE_SOURCE,
      });
      if (hits.length >= size) {
        this.blockWidths.set(key, size, drop);
        return { hits, total: total! };
      }
      // Each wider block drops one more code point than the last, then two.
      drop += block + 1;
    }
    const hits = await send({
      query,
      sort: [{ [ID_FIELD]: { order: 'asc' } }],
      size,
      track_total_hits: false,
      search_after: after,
      _source: WHOLE_SOURCE,
    });
    return { hits, total: total! };
  }

  async domain(field: string, options: DomainOptions = {}): Promise<DomainValue[]> {
    const hasFilter = options.query?.filter !== undefined;
    try {
      const query: Query = options.query ? (await this.compile(options.query)).query : matchAll();
      const engineField = fieldOf(canonicalPropertyName(field));
      const size = options.limit ?? 100;
      const response = await this.searchWithinBudget({
        index: this.alias,
        body: {
          query,
          size: 0,
          aggs: {
            values: {
              terms: {
                field: engineField.path,
                size,
                shard_size: Math.max(size * 2, 100),
                order: [{ _count: 'desc' }, { _key: 'asc' }],
              },
            },
          },
        },
      });
      const buckets = ((response.aggregations?.values as JsonObject | undefined)?.buckets ??
        []) as {
        key: string | number;
        key_as_string?: string;
        doc_count: number;
      }[];
      return buckets.map((bucket) => ({
        value: bucket.key_as_string ?? String(bucket.key),
        count: bucket.doc_count,
      }));
    } catch (error) {
      throw toReadError(error, hasFilter);
    }
  }

  async extent(): Promise<CatalogueExtent> {
    try {
      await this.requireLive();
      const aggs: JsonObject = {};
      for (const part of [0, 1]) {
        aggs[`west${part}`] = { min: { field: `box${part}.minx` } };
        aggs[`south${part}`] = { min: { field: `box${part}.miny` } };
        aggs[`east${part}`] = { max: { field: `box${part}.maxx` } };
        aggs[`north${part}`] = { max: { field: `box${part}.maxy` } };
      }
      aggs.start = { min: { field: 'time.start' } };
      aggs.end = { max: { field: 'time.end' } };
      const response = await this.adapter.search({
        index: this.alias,
        body: { size: 0, query: matchAll(), aggs },
      });
      const values = (response.aggregations ?? {}) as Record<
        string,
        { value: number | null; value_as_string?: string }
      >;
      const pick = (name: string, choose: (a: number, b: number) => number): number | undefined => {
        const found = [values[`${name}0`]?.value, values[`${name}1`]?.value].filter(
          (value): value is number => typeof value === 'number',
        );
        return found.length === 0 ? undefined : found.reduce((a, b) => choose(a, b));
      };
      const extent: CatalogueExtent = {};
      const west = pick('west', Math.min);
      if (west !== undefined) {
        extent.bbox = [
          west,
          pick('south', Math.min)!,
          pick('east', Math.max)!,
          pick('north', Math.max)!,
        ];
      }
      if (values.start?.value !== null && values.start?.value !== undefined) {
        extent.start = new Date(values.start.value).toISOString();
      }
      if (values.end?.value !== null && values.end?.value !== undefined) {
        extent.end = new Date(values.end.value).toISOString();
      }
      return extent;
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

  // -------------------------------------------------------------------------------------------
  // Reindex

  /**
   * Builds the next index version from the stored source documents with the current parsers
   * and mapping, then moves the alias to it atomically; reads never see a half-built index.
   */
  async reindex(): Promise<ReindexResult> {
    if (this.building) throw new InternalError('A reindex is already running');
    try {
      const live = await this.requireLive();
      await this.installTemplates();
      const existing = Object.keys(await this.adapter.getMappings(`${this.alias}-v*`));
      const version =
        Math.max(0, ...existing.map((index) => parseIndexVersion(this.alias, index) ?? 0)) + 1;
      const target = { index: versionedIndexName(this.alias, version), spatial: this.spatial };
      return await rebuildIndex({
        adapter: this.adapter,
        alias: this.alias,
        from: live.index,
        to: target.index,
        keepPrevious: this.keepPreviousIndex,
        refreshInterval: this.refreshInterval,
        write: (records) => this.writeDocuments(records, target.index, target.spatial, false),
        onBuildStart: () => {
          this.building = target;
        },
        onSwapped: async () => {
          this.building = undefined;
          await this.loadLiveIndex(target.index);
          this.checkpoints.clear();
          this.blockWidths.clear();
        },
      });
    } catch (error) {
      throw toWriteError(error);
    } finally {
      this.building = undefined;
    }
  }

  /** Removes the alias, every index version and the templates (tests, teardown). */
  async destroy(): Promise<void> {
    try {
      const indices = Object.keys(await this.adapter.getMappings(`${this.alias}-v*`));
      for (const index of indices) await this.adapter.deleteIndex(index);
      await this.adapter.deleteIndex(this.ingestLog);
      await this.adapter.deleteIndexTemplate(this.alias);
      await this.adapter.deleteIndexTemplate(this.ingestLog);
      for (const suffix of ['base', 'shape', 'analysis-full']) {
        await this.adapter.deleteComponentTemplate(`${this.alias}-${suffix}`);
      }
    } catch (error) {
      throw toWriteError(error);
    }
  }

  async close(): Promise<void> {
    await this.sharedCheckpoints?.close();
    await this.adapter.close();
  }
}
