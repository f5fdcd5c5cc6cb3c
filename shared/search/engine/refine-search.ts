/**
 * Exact answers on the engines for filters they cannot decide alone: narrow on the engine,
 * decide in Node. The engine counts the candidates of a relaxed query (relax-filter.ts: a
 * superset of the answer); when they are at most the cap, it hands them over in the search's
 * own order (sort values, then the id: a point in time and `search_after`, record parts only),
 * Node evaluates the whole filter on each exactly (shared/query/evaluate-filter.ts, the SQLite
 * backend's semantics, three-valued: only TRUE selects) and pages the survivors, so the count
 * and every page are exact. Above the cap the search is refused with a 400 naming both
 * numbers: an exact answer would cost too much, and an approximate one is never given.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { UnsupportedFilterError } from '../../errors/index.js';
import { compileRecordPredicate } from '../../query/evaluate-filter.js';
import { andChecked, checkFilter } from '../../query/check-filter.js';
import type { CheckedFilter } from '../../query/checked-filter.js';
import { operator, propertyRef } from '../../query/filter-ast.js';
import type { SearchQuery } from '../../query/search-query.js';
import type { CoreRecord } from '../../records/core-record.js';
import type { SearchResult } from '../backend.js';
import type { SearchScope } from '../search-scope.js';
import type { FilterContext } from './compile-filter.js';
import { compileSearchQuery, ID_FIELD, type SortClause } from './compile-search.js';
import { isMatchAll, terms, type Query } from './dsl.js';
import type {
  EngineAdapter,
  EngineSearchRequest,
  EngineTextSearchRequest,
  EngineSearchResponse,
  SortValue,
} from './engine-adapter.js';
import { readStoredRecord, type StoredParts } from './engine-document.js';
import { relaxFilter } from './relax-filter.js';
import { lastSortInAnswer } from './refine-batch.js';
import { inThreadDecider, type CandidateDecider, type DecidedBatch } from './refine-pool.js';
import type { SurvivorStore } from './refine-survivors.js';

/** The default cap on the candidates a search may refine (SEARCH_REFINE_MAX_CANDIDATES). */
export const DEFAULT_REFINE_MAX_CANDIDATES = 10_000;

const POINT_IN_TIME_KEEP_ALIVE = '2m';

/** What refining needs from the backend. */
export interface RefineTarget {
  adapter: EngineAdapter;
  alias: string;
  /** "Elasticsearch" or "OpenSearch", for messages. */
  engineName: string;
  /** Candidates at most; more is a 400. */
  maxCandidates: number;
  /** Candidates per request (at most the index's result window). */
  batchSize: number;
  /** The record parts a page returns. */
  storedFields: string[];
  /** One search request, under the query time budget. */
  search(request: EngineSearchRequest): Promise<EngineSearchResponse>;
  /**
   * The same, answered as the engine's JSON text for the decider to parse, which refuses an
   * answer the engine cut at its timeout.
   */
  searchText(request: EngineTextSearchRequest): Promise<string>;
  /**
   * The request: its one deadline (QUERY_TIME_BUDGET_MS) holds the evaluation in Node too, and
   * a search past it is a QueryTimeoutError (503); an aborted request stops between batches.
   */
  scope: SearchScope;
  /**
   * Where the candidates are decided: the refinement threads (refine-pool.ts) or, unset, the
   * event loop.
   */
  decider?: CandidateDecider | undefined;
  /**
   * Where the survivors of a query are kept for its later pages at the request's catalogue
   * generation (refine-survivors.ts); unset, or no generation known: decided every time.
   */
  survivors?: SurvivorStore | undefined;
}

/** The filter the refinement decides: the query's filter and its geometry constraint. */
export function refinedFilter(query: SearchQuery): CheckedFilter | undefined {
  const geometry = query.spatial?.geometry;
  return andChecked(
    query.filter,
    geometry &&
      checkFilter(
        operator(`s_${query.spatial!.relation}`, propertyRef('geometry'), {
          kind: 'geometry',
          geometry,
        }),
      ),
  );
}

/** The engine query and sort of the candidates: the exact scope AND the relaxed filter. */
export function buildCandidateSearch(
  query: SearchQuery,
  context: FilterContext,
): { query: Query; sort: SortClause[]; operators: string[]; filter: CheckedFilter | undefined } {
  const filter = refinedFilter(query);
  // The scope leaves out what the refinement decides: the filter and a geometry constraint.
  const unrefined: SearchQuery = { ...query };
  delete unrefined.filter;
  if (unrefined.spatial?.geometry) delete unrefined.spatial;
  const scope = compileSearchQuery(unrefined, context);
  if (!filter) return { query: scope.query, sort: scope.sort, operators: [], filter };
  const relaxed = relaxFilter(filter, context);
  const combined = isMatchAll(scope.query)
    ? { bool: { filter: [relaxed.query] } }
    : { bool: { must: [scope.query], filter: [relaxed.query] } };
  return { query: combined, sort: scope.sort, operators: relaxed.operators, filter };
}

/**
 * Answers a search exactly by refining the engine's candidates in Node (see the file comment).
 * Throws UnsupportedFilterError (400) when the candidates are more than the cap.
 */
export async function refineSearch(
  target: RefineTarget,
  query: SearchQuery,
  context: FilterContext,
): Promise<SearchResult> {
  const candidates = buildCandidateSearch(query, context);
  // Compiled before the engine is asked: a filter invalid on every backend fails at once.
  if (candidates.filter) compileRecordPredicate(candidates.filter);
  const matched = await survivorsOf(target, 'search', candidates, async () => {
    const counted = await target.search({
      index: target.alias,
      body: { query: candidates.query, size: 0, track_total_hits: true },
    });
    const count = counted.hits.total?.value ?? 0;
    if (count > target.maxCandidates) {
      const operators = candidates.operators.join(', ') || 'this filter';
      throw new UnsupportedFilterError(
        target.engineName,
        candidates.operators[0] ?? 'filter',
        `The ${target.engineName} backend cannot answer ${operators} exactly on its own, and deciding it exactly here would mean checking ${count} candidate records, more than the ${target.maxCandidates} this server checks for one search (SEARCH_REFINE_MAX_CANDIDATES); narrow the search (a smaller area, a collection, a time range, more conditions)`,
      );
    }
    return count === 0 ? [] : await collectMatches(target, candidates, candidates.filter, count);
  });
  const { offset, limit } = query;
  const pageIds = limit === 0 ? [] : matched.slice(offset, offset + limit);
  return { total: matched.length, records: await fetchRecords(target, pageIds) };
}

/**
 * The ids of the records in doubt (a search's `doubt` query, `count` of them, at most the cap)
 * that the query's filter selects, decided in Node as refining decides its candidates.
 */
export async function selectInDoubt(
  target: RefineTarget,
  query: SearchQuery,
  doubt: { query: Query; sort: SortClause[]; count: number },
): Promise<string[]> {
  const filter = refinedFilter(query);
  if (filter) compileRecordPredicate(filter);
  if (doubt.count === 0) return [];
  return [
    ...(await survivorsOf(target, 'doubt', { ...doubt, filter }, () =>
      collectMatches(target, doubt, filter, doubt.count),
    )),
  ];
}

/**
 * The survivors of a refinement: kept ones when the store holds them for this query at the
 * request's catalogue generation, else `decide()`'s, kept for the later pages. The generation
 * is read before anything is decided (the scope reads it once per request, first).
 */
async function survivorsOf(
  target: RefineTarget,
  kind: 'search' | 'doubt',
  candidates: { query: Query; sort: SortClause[]; filter: CheckedFilter | undefined },
  decide: () => Promise<string[]>,
): Promise<readonly string[]> {
  const store = target.survivors;
  const generation = store && (await target.scope.generation());
  if (!store || generation === undefined) return decide();
  // The engine query, its order and the filter decided in Node name the survivors on this alias.
  const key = createHash('sha1')
    .update(
      JSON.stringify([target.alias, kind, candidates.query, candidates.sort, candidates.filter]),
    )
    .digest('base64');
  const kept = store.get(key, generation);
  if (kept) return kept;
  const ids = await decide();
  store.set(key, generation, ids);
  return ids;
}

/**
 * The ids of the candidates the filter selects, in the search's order: in one request when they
 * fit in one batch, else in batches through a point in time.
 */
async function collectMatches(
  target: RefineTarget,
  candidates: { query: Query; sort: SortClause[] },
  filter: CheckedFilter | undefined,
  count: number,
): Promise<string[]> {
  const matched: string[] = [];
  const decider = target.decider ?? inThreadDecider;
  const select = async (answer: string): Promise<DecidedBatch> => {
    target.scope.check();
    const batch = await decider.decide(filter, answer, candidates.sort.length, target.scope);
    for (const id of batch.ids) matched.push(id);
    return batch;
  };
  if (count < target.batchSize) {
    // Room to spare: a record written since the count is fetched too, as it would be in batches.
    const batch = await select(await candidateBatch(target, candidates, { index: target.alias }));
    if (batch.hits < target.batchSize) return matched;
    matched.length = 0;
  }
  const pit = await target.adapter.openPointInTime(target.alias, POINT_IN_TIME_KEEP_ALIVE);
  const batchAfter = (after: SortValue[] | undefined): Promise<string> =>
    candidateBatch(target, candidates, {
      pit: { id: pit, keep_alive: POINT_IN_TIME_KEEP_ALIVE },
      ...(after ? { search_after: after } : {}),
    });
  try {
    let answer = await batchAfter(undefined);
    for (let fetched = 1; ; fetched += 1) {
      // The next batch is asked for while this one is decided, after the last sort values read
      // from the end of this answer's text; it is used only when they are the ones the decided
      // batch gives, else asked for again. Not when the count says this batch is the last.
      const guess =
        fetched * target.batchSize < count
          ? lastSortInAnswer(answer, candidates.sort.length)
          : undefined;
      const next = guess && batchAfter(guess);
      // A batch asked for in vain (or failing after its search failed) is no unhandled rejection.
      next?.catch(() => undefined);
      const batch = await select(answer);
      if (batch.lastSort === undefined || batch.hits < target.batchSize) return matched;
      answer =
        next && isDeepStrictEqual(guess, batch.lastSort)
          ? await next
          : await batchAfter(batch.lastSort);
    }
  } finally {
    await target.adapter.closePointInTime(pit).catch(() => undefined);
  }
}

/**
 * One batch of candidates in the search's order, as the engine's answer text: from the alias,
 * or from a point in time (`pit`, then `search_after` the last batch's sort values). The whole
 * `_source` of each hit, and no `filter_path`: naming parts of the source, or filtering the
 * answer, makes the engine parse and write again each hit's source, which cost it more than
 * sending the whole (docs/decisions/refine-batches-without-filter-path.md).
 */
async function candidateBatch(
  target: RefineTarget,
  candidates: { query: Query; sort: SortClause[] },
  where:
    { index: string } | { pit: { id: string; keep_alive: string }; search_after?: SortValue[] },
): Promise<string> {
  return target.searchText({
    ...('index' in where ? { index: where.index } : {}),
    body: {
      query: candidates.query,
      sort: candidates.sort,
      size: target.batchSize,
      _source: true,
      track_total_hits: false,
      ...('pit' in where ? where : {}),
    },
  });
}

/** The full records of a page, in the page's order. */
async function fetchRecords(target: RefineTarget, ids: string[]): Promise<CoreRecord[]> {
  if (ids.length === 0) return [];
  const response = await target.search({
    index: target.alias,
    body: {
      query: { bool: { filter: [terms(ID_FIELD, ids)] } },
      size: ids.length,
      _source: target.storedFields,
    },
  });
  const byId = new Map(
    response.hits.hits.map((hit) => [
      hit._id,
      readStoredRecord(hit._source as unknown as StoredParts),
    ]),
  );
  return ids.flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
}
