/**
 * A SearchBackend that checks every query against the configured limits (shared/query/
 * query-limits.ts) before the backend sees it, and hands it the query in its normal form
 * (repeated sort keys dropped): searches and facet counts alike, whichever protocol built the
 * query. A page beyond QUERY_MAX_OFFSET in a sorted or relevance order is run only where an
 * earlier page of the same query ended (where its `next` link points): the ends of such pages
 * are remembered here (in any order: a page that continues one is not a walk). With lanes, an
 * expensive search (shared/query/search-lanes.ts) runs only in a free place of the expensive
 * lane (expensive-lane.ts), else it is refused at once (503); cheap searches pass straight on.
 * Everything else passes through unchanged.
 */
import {
  distinctSortKeys,
  pagingKey,
  prepareQuery,
  type QueryLimits,
} from '../query/query-limits.js';
import { classifySearch, type LaneFacts, type LaneThresholds } from '../query/search-lanes.js';
import type { SearchQuery } from '../query/search-query.js';
import type { DomainOptions, SearchBackend, SearchOptions } from './backend.js';
import type { ExpensiveLane } from './expensive-lane.js';
import { localNextPages, type NextPageStore } from './next-page-offsets.js';

/** The expensive lane and what sends a search to it. */
export interface SearchLanes {
  lane: ExpensiveLane;
  thresholds: LaneThresholds;
}

/** A page whose end is remembered: one beyond QUERY_MAX_OFFSET, in any order. */
function isRememberedPage(query: SearchQuery, limits: QueryLimits): boolean {
  return query.limit > 0 && query.offset > limits.maxOffset;
}

/** Wraps a backend so that a query over the limits is a QueryLimitError (400), never run. */
export function withQueryLimits<B extends SearchBackend>(
  backend: B,
  limits: QueryLimits,
  nextPages: NextPageStore = localNextPages(),
  lanes?: SearchLanes,
): B {
  /** Whether a page beyond QUERY_MAX_OFFSET continues an earlier page of its query. */
  const continues = async (query: SearchQuery): Promise<boolean> => {
    const normal = { ...query, sort: distinctSortKeys(query.sort) };
    return isRememberedPage(normal, limits) && nextPages.has(pagingKey(normal), normal.offset);
  };
  /**
   * Takes a place in the expensive lane when the search is expensive (throws 503 when none is
   * free); returns what gives it back.
   */
  const admit = async (
    query: SearchQuery,
    options: SearchOptions,
    facts: LaneFacts,
  ): Promise<() => void> => {
    if (!lanes) return () => undefined;
    const { lane, reasons } = classifySearch(query, lanes.thresholds, {
      ...facts,
      refines: backend.refinesInNode?.(query) ?? false,
      facets: options.facets,
      facetBuckets: options.facetBuckets,
    });
    return lane === 'cheap' ? () => undefined : lanes.lane.enter(options.scope, reasons);
  };
  return new Proxy(backend, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'search') {
        return async (query: SearchQuery, options: SearchOptions = {}) => {
          const continued = await continues(query);
          const prepared = prepareQuery(query, limits, () => continued);
          const leave = await admit(prepared, options, { continued });
          let result;
          try {
            result = await target.search(prepared, options);
          } finally {
            leave();
          }
          const next = { ...prepared, offset: prepared.offset + prepared.limit };
          if (result.records.length === prepared.limit && isRememberedPage(next, limits)) {
            await nextPages.add(pagingKey(next), next.offset);
          }
          return result;
        };
      }
      if (property === 'close') {
        return async () => {
          await nextPages.close();
          return target.close();
        };
      }
      if (property === 'domain') {
        return async (field: string, options: DomainOptions = {}) => {
          // Counts are not paged: the query's offset costs them nothing.
          const query = options.query && prepareQuery(options.query, limits, () => true);
          const leave = await admit({ ...query, sort: [], offset: 0, limit: 0 }, options, {});
          try {
            return await target.domain(field, query ? { ...options, query } : options);
          } finally {
            leave();
          }
        };
      }
      if (property === 'aggregate') {
        return async (
          query: SearchQuery,
          requests: Parameters<SearchBackend['aggregate']>[1],
          options: SearchOptions = {},
        ) => {
          // Aggregations are counts: paging costs them nothing, and they share the lane (and
          // the request's place in it) with the search and facet counts of their request.
          const prepared = prepareQuery(query, limits, () => true);
          const leave = await admit({ ...prepared, sort: [], offset: 0, limit: 0 }, options, {});
          try {
            return await target.aggregate(prepared, requests, options);
          } finally {
            leave();
          }
        };
      }
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
