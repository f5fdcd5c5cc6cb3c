/**
 * Where the candidates of a refinement (refine-search.ts) are decided: in a small pool of
 * worker threads (SEARCH_REFINE_WORKERS; refine-worker.ts) when there is one, so that the exact
 * evaluation of a filter on thousands of candidates runs beside the event loop rather than on
 * it; else on the event loop, yielding to it every few hundred candidates. Both give the same
 * answer: the same checked filter (plain data, which is what crosses to a thread) and the same
 * evaluator (shared/query/evaluate-filter.ts), batch by batch as the engine hands the
 * candidates over.
 */
import { QueryTimeoutError } from '../../errors/index.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import { buildFilterSubject, compileRecordPredicate } from '../../query/evaluate-filter.js';
import type { CoreRecord } from '../../records/core-record.js';
import { TaskPool } from '../../threads/task-pool.js';
import type { SearchScope } from '../search-scope.js';

/** One batch for a thread: the filter, the candidates, and the request's deadline. */
export interface RefineBatch {
  filter: CheckedFilter;
  candidates: CoreRecord[];
  /** Epoch milliseconds after which the batch stops; unset: no deadline. */
  deadlineAt?: number | undefined;
}

/** The positions of the selected candidates, or that the deadline passed. */
export type RefineBatchResult = { selected: number[]; timedOut?: undefined } | { timedOut: true };

/** Decides which candidates a filter selects: their positions in the batch. */
export interface CandidateDecider {
  select(filter: CheckedFilter, candidates: CoreRecord[], scope: SearchScope): Promise<number[]>;
  close(): Promise<void>;
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
  async select(filter, candidates, scope) {
    const predicate = compileRecordPredicate(filter);
    const selected: number[] = [];
    for (const [position, record] of candidates.entries()) {
      if (position % CLOCK_EVERY === 0) {
        if (position > 0) await yieldToEventLoop();
        scope.check();
      }
      if (predicate(buildFilterSubject(record)) === true) selected.push(position);
    }
    return selected;
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

  async select(
    filter: CheckedFilter,
    candidates: CoreRecord[],
    scope: SearchScope,
  ): Promise<number[]> {
    scope.check();
    const result = await this.pool.run(
      { filter, candidates, deadlineAt: scope.deadlineAt },
      scope.signal,
    );
    if (result.timedOut) {
      scope.check();
      throw new QueryTimeoutError(scope.budgetMs ?? 0);
    }
    return result.selected;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
