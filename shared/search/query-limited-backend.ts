/**
 * A SearchBackend that checks every query against the configured limits (shared/query/
 * query-limits.ts) before the backend sees it, and hands it the query in its normal form
 * (repeated sort keys dropped): searches and facet counts alike, whichever protocol built the
 * query. A page beyond QUERY_MAX_OFFSET in a sorted or relevance order is run only where an
 * earlier page of the same query ended (where its `next` link points): the ends of such pages
 * are remembered here. Everything else passes through unchanged.
 */
import {
  distinctSortKeys,
  isDeepPage,
  pagingKey,
  prepareQuery,
  type QueryLimits,
} from '../query/query-limits.js';
import type { SearchQuery } from '../query/search-query.js';
import type { DomainOptions, SearchBackend } from './backend.js';
import { localNextPages, type NextPageStore } from './next-page-offsets.js';

/** Wraps a backend so that a query over the limits is a QueryLimitError (400), never run. */
export function withQueryLimits<B extends SearchBackend>(
  backend: B,
  limits: QueryLimits,
  nextPages: NextPageStore = localNextPages(),
): B {
  /** Whether a deep page continues an earlier page of its query (asked only for deep pages). */
  const continues = async (query: SearchQuery): Promise<boolean> => {
    const normal = { ...query, sort: distinctSortKeys(query.sort) };
    return isDeepPage(normal, limits) && nextPages.has(pagingKey(normal), normal.offset);
  };
  return new Proxy(backend, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'search') {
        return async (query: SearchQuery) => {
          const continued = await continues(query);
          const prepared = prepareQuery(query, limits, () => continued);
          const result = await target.search(prepared);
          const next = { ...prepared, offset: prepared.offset + prepared.limit };
          if (result.records.length === prepared.limit && isDeepPage(next, limits)) {
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
        return async (field: string, options?: DomainOptions) => {
          // Counts are not paged: the query's offset costs them nothing.
          const query = options?.query && prepareQuery(options.query, limits, () => true);
          return target.domain(field, query ? { ...options, query } : options);
        };
      }
      if (property === 'aggregate') {
        return (query: SearchQuery, requests: Parameters<SearchBackend['aggregate']>[1]) =>
          target.aggregate(
            prepareQuery(query, limits, () => true),
            requests,
          );
      }
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
