/**
 * Worker-thread half of the refinement pool (refine-pool.ts): evaluates a checked filter exactly
 * on a batch of candidate records (shared/query/evaluate-filter.ts) and answers the positions of
 * those it selects, so that the evaluation, jsts geometry relations included, never holds the
 * API's event loop. The filter is compiled once per distinct filter and kept for the next
 * batches of the same search. The clock is read every few candidates: a batch past its
 * request's deadline stops and says so.
 */
import { parentPort } from 'node:worker_threads';
import {
  buildFilterSubject,
  compileRecordPredicate,
  type RecordPredicate,
} from '../../query/evaluate-filter.js';
import type { PoolAnswer, PoolTask } from '../../threads/task-pool.js';
import type { RefineBatch, RefineBatchResult } from './refine-pool.js';

const PREDICATES_KEPT = 16;
const CLOCK_EVERY = 64;
const predicates = new Map<string, RecordPredicate>();

function predicateOf(batch: RefineBatch): RecordPredicate {
  const key = JSON.stringify(batch.filter);
  let predicate = predicates.get(key);
  if (!predicate) {
    predicate = compileRecordPredicate(batch.filter);
    if (predicates.size >= PREDICATES_KEPT) predicates.delete(predicates.keys().next().value!);
    predicates.set(key, predicate);
  }
  return predicate;
}

/** The positions of the candidates the filter selects, or a timeout. */
export function runBatch(batch: RefineBatch): RefineBatchResult {
  const predicate = predicateOf(batch);
  const selected: number[] = [];
  for (const [position, record] of batch.candidates.entries()) {
    if (
      position % CLOCK_EVERY === 0 &&
      batch.deadlineAt !== undefined &&
      Date.now() > batch.deadlineAt
    ) {
      return { timedOut: true };
    }
    if (predicate(buildFilterSubject(record)) === true) selected.push(position);
  }
  return { selected };
}

parentPort!.on('message', (task: PoolTask<RefineBatch>) => {
  let answer: PoolAnswer<RefineBatchResult>;
  try {
    answer = { id: task.id, result: runBatch(task.payload) };
  } catch (error) {
    answer = { id: task.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(answer);
});
parentPort!.postMessage({ ready: true });
