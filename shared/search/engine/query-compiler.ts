/**
 * Compiles searches against the live index's mapping and settles the records for which the
 * engine's answer is unproven. A property the mapping as last read does not know may have
 * appeared since (another process wrote it), so unless that read began after the search did,
 * the mapping is read again (one read shared by the searches waiting for it) and the query
 * compiled again: a property absent from a read begun after the search began matches nothing,
 * one mapped by then is searched. A compiled search may carry records in doubt (an
 * intersects geometry near footprints the engine cannot relate exactly): few of them are
 * decided in Node (refine-search.ts) and the engine answers for the rest; where no count may be
 * given without deciding them, the search is refused rather than answered approximately.
 */
import { performance } from 'node:perf_hooks';
import { FilterError, UnsupportedFilterError } from '../../errors/index.js';
import type { SearchQuery } from '../../query/search-query.js';
import type { FilterContext } from './compile-filter.js';
import { compileSearchQuery, type CompiledSearch } from './compile-search.js';
import type { EngineAdapter, EngineName } from './engine-adapter.js';
import { STORED_FIELDS } from './engine-document.js';
import { ENGINE_TITLES } from './engine-errors.js';
import type { IndexLifecycle, RecordsIndex } from './index-lifecycle.js';
import type { SpatialMode } from './index-templates.js';
import { selectInDoubt, type RefineTarget } from './refine-search.js';
import type { ScopedSearch } from './budgeted-search.js';
import type { CandidateDecider } from './refine-pool.js';
import type { SurvivorStore } from './refine-survivors.js';

/** What the compiler is given. */
export interface QueryCompilerOptions {
  adapter: EngineAdapter;
  engine: EngineName;
  alias: string;
  /** The live index and its mapping. */
  lifecycle: IndexLifecycle;
  /** Most candidates a search may check in Node. */
  refineMaxCandidates: number;
  /** The index's max_result_window. */
  maxResultWindow: number;
  /** Where refined candidates are decided (unset: on the event loop). */
  decider?: CandidateDecider | undefined;
  /** Where refined searches keep their survivors for later pages (unset: decided every time). */
  survivors?: SurvivorStore | undefined;
}

/** A search compiled against the live index, with that index. */
export interface LiveCompiled {
  compiled: CompiledSearch;
  live: RecordsIndex;
}

/**
 * Candidates fetched per request when a search is refined in Node: small enough that parsing one
 * response and evaluating it never holds the event loop for long.
 */
const REFINE_BATCH_SIZE = 1_000;

/** Searches compiled for the live index, and their records in doubt settled. */
export class QueryCompiler {
  private readonly options: QueryCompilerOptions;
  private readonly engineName: string;
  /**
   * Searches compiled at the door (`refinesInNode`), kept for the search itself: the lanes ask
   * before the search runs, with the same query object, and compiling a spatial CQL2 filter
   * twice cost about 0.35 ms a request. Keyed by the query object, used once, and only for the
   * live index it was compiled against with nothing missing from the mapping (a mapping only
   * gains properties, so such a compilation stays right until the live index changes).
   */
  private readonly compiledAtDoor = new WeakMap<SearchQuery, LiveCompiled>();

  constructor(options: QueryCompilerOptions) {
    this.options = options;
    this.engineName = ENGINE_TITLES[options.engine];
  }

  /** The filter context of an index built with `spatial`; names the unmapped paths in `missing`. */
  filterContext(spatial: SpatialMode, missing: Set<string>): FilterContext {
    const { lifecycle } = this.options;
    return {
      spatial,
      engineName: this.engineName,
      mappedKind: (path) => {
        const kind = lifecycle.mappedKind(path);
        if (kind) return kind;
        missing.add(path);
        return 'absent';
      },
    };
  }

  /** Compiles a query the engine must answer exactly; refuses one with records in doubt. */
  async compile(query: SearchQuery, search: ScopedSearch): Promise<CompiledSearch> {
    const { compiled, live } = await this.compileUnproven(query);
    if (compiled.doubt) await this.refuseUnproven(compiled.doubt, live.spatial, search);
    return compiled;
  }

  /** Compiles a query, with the documents for which its answer is unproven (if any). */
  private async compileUnproven(query: SearchQuery): Promise<LiveCompiled> {
    const { lifecycle } = this.options;
    const began = performance.now();
    const live = await lifecycle.requireLive();
    const atDoor = this.compiledAtDoor.get(query);
    if (atDoor) {
      this.compiledAtDoor.delete(query);
      if (atDoor.live === live) return atDoor;
    }
    const missing = new Set<string>();
    let compiled = compileSearchQuery(query, this.filterContext(live.spatial, missing));
    if (missing.size > 0) {
      // Absent from the mapping as last read: read it again unless that read began after this
      // search did, so a property written before the search is never taken for absent.
      await lifecycle.readKindsSince(began);
      compiled = compileSearchQuery(query, this.filterContext(live.spatial, new Set()));
    }
    return { compiled, live };
  }

  /**
   * Whether the engine cannot decide the query's filter alone, so that answering it means
   * refining candidates in Node (refine-search.ts), as far as the mapping last read tells (a
   * property mapped since is seen once a search naming it reads the mapping again).
   * Synchronous: the lanes ask it at the door (shared/query/search-lanes.ts). False before the
   * live index is known.
   */
  refinesInNode(query: SearchQuery): boolean {
    // Only a filter or a query geometry compiles through the filter compiler, the one place
    // that refuses a predicate: without either there is nothing to compile twice.
    if (query.filter === undefined && query.spatial?.geometry === undefined) return false;
    const live = this.options.lifecycle.liveRecords;
    if (!live) return false;
    try {
      const missing = new Set<string>();
      const compiled = compileSearchQuery(query, this.filterContext(live.spatial, missing));
      if (missing.size === 0) this.compiledAtDoor.set(query, { compiled, live });
      return false;
    } catch (error) {
      // Any other error is the search's own, thrown again when it runs.
      return error instanceof UnsupportedFilterError;
    }
  }

  /**
   * Compiles a search the engine may answer exactly (see CompiledSearch.doubt for the records
   * for which it may not); undefined when the compiler refuses a predicate.
   */
  async compileCandidate(query: SearchQuery): Promise<CompiledSearch | undefined> {
    try {
      return (await this.compileUnproven(query)).compiled;
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
  async settleDoubt(
    query: SearchQuery,
    doubt: NonNullable<CompiledSearch['doubt']>,
    compiled: CompiledSearch,
    inDoubt: number,
    spatial: SpatialMode,
    search: ScopedSearch,
  ): Promise<CompiledSearch> {
    const selected = await selectInDoubt(this.refineTarget(search), query, {
      query: doubt.query,
      sort: compiled.sort,
      count: inDoubt,
    });
    return compileSearchQuery(query, this.filterContext(spatial, new Set()), selected);
  }

  /** What refining a search needs from this backend, within the request of `search`. */
  refineTarget(search: ScopedSearch): RefineTarget {
    const { adapter, alias, refineMaxCandidates, maxResultWindow } = this.options;
    return {
      adapter,
      alias,
      engineName: this.engineName,
      maxCandidates: refineMaxCandidates,
      batchSize: Math.min(REFINE_BATCH_SIZE, maxResultWindow),
      storedFields: STORED_FIELDS,
      search: (request) => search.search(request),
      searchText: (request) => search.searchText(request),
      scope: search.scope,
      decider: this.options.decider,
      survivors: this.options.survivors,
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
    search: ScopedSearch,
  ): Promise<void> {
    if ((await search.count(doubt.query)) === 0) return;
    const operators = doubt.operators.join(', ');
    throw new FilterError(
      spatial === 'envelope'
        ? `The ${this.engineName} backend cannot answer ${operators} exactly here: in spatial mode "envelope" only each record's bounding box is indexed, and records in scope have footprints that are not boxes (or the geometry is not a box) near the operand`
        : `The ${this.engineName} backend cannot answer ${operators} exactly here: records in scope have a footprint the engine could not index or that lies on the edge of the operand, within its coordinate precision`,
    );
  }
}
