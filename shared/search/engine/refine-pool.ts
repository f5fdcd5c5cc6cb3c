/**
 * Where the candidates of a refinement (refine-search.ts) are decided: in a small pool of
 * worker threads (SEARCH_REFINE_WORKERS; refine-worker.ts) when there is one, so that parsing
 * the engine's answer and the exact evaluation of a filter on thousands of candidates run
 * beside the event loop rather than on it; else on the event loop, yielding to it every few
 * hundred candidates. Both give the same answer: the same checked filter (plain data, which is
 * what crosses to a thread, with the answer's text) and the same evaluator
 * (shared/query/evaluate-filter.ts), batch by batch as the engine hands the candidates over.
 */
import { QueryTimeoutError } from '../../errors/index.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import { compileRecordPredicate } from '../../query/evaluate-filter.js';
import { TaskPool } from '../../threads/task-pool.js';
import type { SearchScope } from '../search-scope.js';
import type { SortValue } from './engine-adapter.js';
import {
  batchResult,
  readCandidateAnswer,
  selectsHit,
  type RefineBatch,
  type RefineBatchResult,
} from './refine-batch.js';

/** What one decided batch gave: the selected ids, the hits it held, where the next starts. */
export interface DecidedBatch {
  ids: string[];
  hits: number;
  lastSort?: SortValue[] | undefined;
}

/** Decides which candidates of an engine answer a filter selects. */
export interface CandidateDecider {
  /**
   * The ids of the candidates of `answer` (the JSON text of a candidate search) that `filter`
   * selects (none: all), in the answer's order; a QueryTimeoutError when the request's
   * deadline passes or the engine stopped the search at it.
   */
  decide(
    filter: CheckedFilter | undefined,
    answer: string,
    sortLength: number,
    scope: SearchScope,
  ): Promise<DecidedBatch>;
  close(): Promise<void>;
}

/** The batch's outcome, or the deadline's QueryTimeoutError. */
function decided(result: RefineBatchResult, scope: SearchScope): DecidedBatch {
  if (result.timedOut) {
    scope.check();
    throw new QueryTimeoutError(scope.budgetMs ?? 0);
  }
  return result;
}

/**
 * How many candidates are evaluated on the event loop between two looks at the clock; after
 * each such run the evaluation yields to the event loop, so other requests are served.
 */
const CLOCK_EVERY = 256;

/** Lets the event loop serve what is waiting before the evaluation goes on. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The evaluation on the event loop (no threads configured). */
export const inThreadDecider: CandidateDecider = {
  async decide(filter, answer, sortLength, scope) {
    const hits = readCandidateAnswer(answer);
    if (hits === undefined) return decided({ timedOut: true }, scope);
    const predicate = filter && compileRecordPredicate(filter);
    const selected: number[] = [];
    for (const [position, hit] of hits.entries()) {
      if (position % CLOCK_EVERY === 0) {
        if (position > 0) await yieldToEventLoop();
        scope.check();
      }
      if (selectsHit(predicate, hit)) selected.push(position);
    }
    return decided(batchResult(hits, selected, sortLength), scope);
  },
  close: async () => undefined,
};

/** The evaluation on a pool of worker threads. */
export class RefinePool implements CandidateDecider {
  private readonly pool: TaskPool<RefineBatch, RefineBatchResult>;

  constructor(size: number) {
    this.pool = new TaskPool({
      callerUrl: import.meta.url,
      name: 'refine-worker',
      size,
      label: 'refinement',
    });
  }

  /** Batches the threads have decided (for tests and metrics). */
  get batches(): number {
    return this.pool.completed;
  }

  async decide(
    filter: CheckedFilter | undefined,
    answer: string,
    sortLength: number,
    scope: SearchScope,
  ): Promise<DecidedBatch> {
    scope.check();
    const result = await this.pool.run(
      { filter, answer, sortLength, deadlineAt: scope.deadlineAt },
      scope.signal,
    );
    return decided(result, scope);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
