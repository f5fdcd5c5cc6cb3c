/**
 * Search requests under the request's one deadline (QUERY_TIME_BUDGET_MS, counted from the
 * request's first search: shared/search/search-scope.ts), shared by the reads, the deep paging
 * and the refining of one backend. Each request to the engine gets what is left of the
 * deadline three ways: as the search `timeout` (the engine stops collecting at it, and an answer
 * that says it stopped is refused as a QueryTimeoutError, 503, rather than served as partial
 * results), as the HTTP request's timeout, and through the request's abort signal, which closes
 * the connection when the deadline passes or the client leaves (the engines cancel a search
 * whose connection closes). Whatever fails once the deadline has passed fails as the deadline's
 * QueryTimeoutError.
 */
import { QueryTimeoutError } from '../../errors/index.js';
import type { SearchScope } from '../search-scope.js';
import type {
  EngineAdapter,
  EngineCallLimits,
  EngineSearchRequest,
  EngineTextSearchRequest,
  EngineSearchResponse,
  JsonObject,
} from './engine-adapter.js';

/** The step the search `timeout` is rounded up to (see BudgetedSearch.timeout). */
const TIMEOUT_STEP_MS = 1000;

/** The searches of one request: BudgetedSearch's calls bound to the request's scope. */
export interface ScopedSearch {
  readonly scope: SearchScope;
  search(request: EngineSearchRequest): Promise<EngineSearchResponse>;
  searchText(request: EngineTextSearchRequest): Promise<string>;
  searchMany(bodies: JsonObject[]): Promise<EngineSearchResponse[]>;
  searchPair(
    first: JsonObject,
    second: JsonObject,
  ): Promise<[EngineSearchResponse, EngineSearchResponse]>;
  count(query: JsonObject | undefined): Promise<number>;
  /** The limits of another engine call of the request (see BudgetedSearch.call). */
  call<T>(run: (limits: EngineCallLimits) => Promise<T>): Promise<T>;
}

/** Searches of one alias, each held to its request's deadline. */
export class BudgetedSearch {
  constructor(
    private readonly adapter: EngineAdapter,
    private readonly alias: string,
    /** Milliseconds a request's searches may run in all; undefined: no budget. */
    readonly budgetMs: number | undefined,
  ) {}

  /** The searches of the request of `scope`. */
  within(scope: SearchScope): ScopedSearch {
    return {
      scope,
      search: (request) => this.search(request, scope),
      searchText: (request) => this.searchText(request, scope),
      searchMany: (bodies) => this.searchMany(bodies, scope),
      searchPair: (first, second) => this.searchPair(first, second, scope),
      count: (query) => this.count(query, scope),
      call: (run) => this.call(scope, run),
    };
  }

  /** The limits of one engine call of the request: its signal and the rest of its deadline. */
  limits(scope: SearchScope): EngineCallLimits {
    scope.check();
    const remaining = scope.remainingMs();
    return { signal: scope.signal, ...(remaining === undefined ? {} : { timeoutMs: remaining }) };
  }

  /** Runs an engine call of the request; a failure past the deadline is the deadline's. */
  async call<T>(scope: SearchScope, run: (limits: EngineCallLimits) => Promise<T>): Promise<T> {
    const limits = this.limits(scope);
    try {
      return await run(limits);
    } catch (error) {
      scope.check();
      throw error;
    }
  }

  /**
   * The search `timeout` for what is left of the deadline, rounded up to whole seconds. The
   * timeout is part of the request body, and the body is the key of the engine's shard request
   * cache: to the millisecond, no two requests of an aggregation (its bounds, then its buckets)
   * ever had the same key, so a repeated aggregation was computed afresh every time (690 ms
   * where the engine answered the same request from its cache in 70 ms, 1,000,000 records,
   * docs/decisions/million-record-benchmarks.md). The deadline itself is still kept to the
   * millisecond by the HTTP request's timeout and abort signal (the engines cancel a search
   * whose connection closes); the engine stops on its own at most a second later.
   */
  private static timeout(limits: EngineCallLimits): string | undefined {
    if (limits.timeoutMs === undefined) return undefined;
    return `${Math.max(1, Math.ceil(limits.timeoutMs / TIMEOUT_STEP_MS)) * TIMEOUT_STEP_MS}ms`;
  }

  /** Refuses an answer the engine cut short at its timeout. */
  private refuseTimedOut(scope: SearchScope, timedOut: boolean): void {
    if (timedOut) throw new QueryTimeoutError(scope.budgetMs ?? this.budgetMs ?? 0);
  }

  /** One search request, refused when it stopped at the deadline. */
  async search(request: EngineSearchRequest, scope: SearchScope): Promise<EngineSearchResponse> {
    return this.call(scope, async (limits) => {
      const timeout = BudgetedSearch.timeout(limits);
      if (timeout === undefined) return this.adapter.search({ ...request, ...limits });
      const response = await this.adapter.search({
        ...request,
        ...limits,
        body: { ...request.body, timeout },
        ...(request.filterPath ? { filterPath: [...request.filterPath, 'timed_out'] } : {}),
      });
      this.refuseTimedOut(scope, response.timed_out === true);
      return response;
    });
  }

  /**
   * One search request answered as the engine's JSON text, unparsed, with the rest of the
   * deadline as its `timeout`. The answer is not read here, so the caller that parses it must
   * refuse one with `timed_out: true` (shared/search/engine/refine-batch.ts does).
   */
  async searchText(request: EngineTextSearchRequest, scope: SearchScope): Promise<string> {
    return this.call(scope, (limits) => {
      const timeout = BudgetedSearch.timeout(limits);
      return this.adapter.searchText({
        ...request,
        ...limits,
        body: timeout === undefined ? request.body : { ...request.body, timeout },
      });
    });
  }

  /**
   * Several searches of the alias in one round trip (`_msearch`), each with the rest of the
   * deadline; refused as a whole when any of them stopped at it.
   */
  async searchMany(bodies: JsonObject[], scope: SearchScope): Promise<EngineSearchResponse[]> {
    return this.call(scope, async (limits) => {
      const timeout = BudgetedSearch.timeout(limits);
      const responses = await this.adapter.searchMany(
        this.alias,
        timeout === undefined ? bodies : bodies.map((body) => ({ ...body, timeout })),
        limits,
      );
      this.refuseTimedOut(
        scope,
        responses.some((response) => response.timed_out === true),
      );
      return responses;
    });
  }

  /** Two searches in one round trip (a count beside a page), as `searchMany`. */
  async searchPair(
    first: JsonObject,
    second: JsonObject,
    scope: SearchScope,
  ): Promise<[EngineSearchResponse, EngineSearchResponse]> {
    const [a, b] = await this.searchMany([first, second], scope);
    if (a === undefined || b === undefined) {
      throw new Error('The engine answered fewer searches than it was sent');
    }
    return [a, b];
  }

  /** The count of a query's matches in the alias, under the request's deadline. */
  count(query: JsonObject | undefined, scope: SearchScope): Promise<number> {
    return this.call(scope, (limits) => this.adapter.count(this.alias, query, limits));
  }
}
