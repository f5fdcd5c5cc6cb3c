/**
 * Worker-thread half of the refinement pool (refine-pool.ts): parses the engine's answer to one
 * candidate search (refine-batch.ts), evaluates a checked filter exactly on each candidate
 * record (shared/query/evaluate-filter.ts) and answers the ids of those it selects, so that
 * neither the parse nor the evaluation, jsts geometry relations included, holds the API's event
 * loop. The filter is compiled once per distinct filter and kept for the next batches of the
 * same search. The clock is read every few candidates: a batch past its request's deadline
 * stops and says so.
 */
import { parentPort } from 'node:worker_threads';
import { compileRecordPredicate, type RecordPredicate } from '../../query/evaluate-filter.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import type { PoolAnswer, PoolTask } from '../../threads/task-pool.js';
import {
  batchResult,
  readCandidateAnswer,
  selectsHit,
  type RefineBatch,
  type RefineBatchResult,
} from './refine-batch.js';

const PREDICATES_KEPT = 16;
const CLOCK_EVERY = 64;
const predicates = new Map<string, RecordPredicate>();

function predicateOf(filter: CheckedFilter): RecordPredicate {
  const key = JSON.stringify(filter);
  let predicate = predicates.get(key);
  if (!predicate) {
    predicate = compileRecordPredicate(filter);
    if (predicates.size >= PREDICATES_KEPT) predicates.delete(predicates.keys().next().value!);
    predicates.set(key, predicate);
  }
  return predicate;
}

/** The ids of the candidates the filter selects, or a timeout. */
export function runBatch(batch: RefineBatch): RefineBatchResult {
  const hits = readCandidateAnswer(batch.answer);
  if (hits === undefined) return { timedOut: true };
  const predicate = batch.filter && predicateOf(batch.filter);
  const selected: number[] = [];
  for (const [position, hit] of hits.entries()) {
    if (
      position % CLOCK_EVERY === 0 &&
      batch.deadlineAt !== undefined &&
      Date.now() > batch.deadlineAt
    ) {
      return { timedOut: true };
    }
    if (selectsHit(predicate, hit)) selected.push(position);
  }
  return batchResult(hits, selected, batch.sortLength);
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
