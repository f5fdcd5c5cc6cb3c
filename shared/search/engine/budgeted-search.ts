/**
 * Search requests under the query time budget (QUERY_TIME_BUDGET_MS), shared by the reads, the
 * deep paging and the refining of one backend: the engine is told to stop at the budget
 * (`timeout`), and an answer that says it stopped is refused as a QueryTimeoutError (503)
 * rather than served as partial results.
 */
import { QueryTimeoutError } from '../../errors/index.js';
import type {
  EngineAdapter,
  EngineSearchRequest,
  EngineSearchResponse,
  JsonObject,
} from './engine-adapter.js';

/** Searches of one alias, each held to the same time budget. */
export class BudgetedSearch {
  constructor(
    private readonly adapter: EngineAdapter,
    private readonly alias: string,
    /** Milliseconds a search may run; undefined: no budget. */
    readonly budgetMs: number | undefined,
  ) {}

  /** One search request, refused when it stopped at the budget. */
  async search(request: EngineSearchRequest): Promise<EngineSearchResponse> {
    const budget = this.budgetMs;
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
   * Several searches of the alias in one round trip (`_msearch`), each with the budget; refused
   * as a whole when any of them stopped at it.
   */
  async searchMany(bodies: JsonObject[]): Promise<EngineSearchResponse[]> {
    const budget = this.budgetMs;
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

  /** Two searches in one round trip (a count beside a page), as `searchMany`. */
  async searchPair(
    first: JsonObject,
    second: JsonObject,
  ): Promise<[EngineSearchResponse, EngineSearchResponse]> {
    const [a, b] = await this.searchMany([first, second]);
    if (a === undefined || b === undefined) {
      throw new Error('The engine answered fewer searches than it was sent');
    }
    return [a, b];
  }
}
