/**
 * One batch of a refinement (refine-search.ts), decided from the engine's answer as it came:
 * the JSON text of a candidate search crosses to the thread that decides it (refine-pool.ts),
 * which parses it there, so a batch of 1,000 hits costs the API's event loop neither the parse
 * nor a structured copy of 1,000 records. The same functions decide a batch on the event loop
 * when no threads are configured.
 */
import type { CheckedFilter } from '../../query/checked-filter.js';
import { buildFilterSubject, type RecordPredicate } from '../../query/evaluate-filter.js';
import type { CoreRecord } from '../../records/core-record.js';
import { sortValues, type EngineHit, type SortValue } from './engine-adapter.js';
import { sourceWithoutContent, type StoredParts } from './engine-document.js';
import { parseEngineJson } from './engine-reads.js';

/** One batch: the filter (none: every candidate survives) and the engine's answer text. */
export interface RefineBatch {
  filter: CheckedFilter | undefined;
  /** The JSON text of the engine's answer to one candidate search. */
  answer: string;
  /** Sort values of the search's own sort (the engine may add a tiebreaker). */
  sortLength: number;
  /** Epoch milliseconds after which the batch stops; unset: no deadline. */
  deadlineAt?: number | undefined;
}

/**
 * What a batch gave: the ids of the candidates the filter selects, in the answer's order; how
 * many hits the answer held; the sort values of its last hit, where the next batch starts.
 * Or that the request's deadline passed: the clock ran out while deciding, or the engine
 * stopped the search at its `timeout` (a partial batch would lose candidates).
 */
export type RefineBatchResult =
  | { ids: string[]; hits: number; lastSort?: SortValue[] | undefined; timedOut?: undefined }
  | { timedOut: true };

/** The hits of a candidate answer, or undefined when the engine stopped at its timeout. */
export function readCandidateAnswer(answer: string): EngineHit[] | undefined {
  const parsed = parseEngineJson(answer) as {
    timed_out?: boolean;
    hits?: { hits?: EngineHit[] };
  };
  if (parsed.timed_out === true) return undefined;
  return parsed.hits?.hits ?? [];
}

/**
 * The sort values of the last hit of a candidate answer, read from the end of its text without
 * parsing the rest, or undefined when they cannot be read so. The engines write a hit's `sort`
 * after its `_source`, so the last `"sort":[` of the text is the last hit's own: a guess the
 * caller checks against the parsed answer (`lastSort`) before it relies on it.
 */
export function lastSortInAnswer(answer: string, sortLength: number): SortValue[] | undefined {
  const key = '"sort":[';
  const start = answer.lastIndexOf(key);
  if (start < 0) return undefined;
  const end = answer.indexOf(']', start);
  if (end < 0) return undefined;
  try {
    // A `]` inside a string value ends the slice inside that string, which fails to parse.
    const values = JSON.parse(answer.slice(start + key.length - 1, end + 1)) as unknown;
    return Array.isArray(values) ? (values.slice(0, sortLength) as SortValue[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The record of a hit that carries the `record` part (its source content left empty). */
export function candidateRecord(hit: EngineHit): CoreRecord {
  const record = (hit._source as { record?: StoredParts['record'] } | undefined)?.record;
  return { ...record, source: sourceWithoutContent(record) } as CoreRecord;
}

/** Whether the filter's predicate (none: every candidate) selects a hit: only TRUE selects. */
export function selectsHit(predicate: RecordPredicate | undefined, hit: EngineHit): boolean {
  return !predicate || predicate(buildFilterSubject(candidateRecord(hit))) === true;
}

/** A batch's result from its hits and the positions the filter selected. */
export function batchResult(
  hits: EngineHit[],
  selected: readonly number[],
  sortLength: number,
): RefineBatchResult {
  const last = hits.at(-1);
  return {
    ids: selected.map((position) => hits[position]!._id),
    hits: hits.length,
    lastSort: last === undefined ? undefined : sortValues(last, sortLength),
  };
}
