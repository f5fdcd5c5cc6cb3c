/**
 * A SearchBackend that checks every query against the configured limits (shared/query/
 * query-limits.ts) before the backend sees it, and hands it the query in its normal form
 * (repeated sort keys dropped): searches and facet counts alike, whichever protocol built the
 * query. Everything else passes through unchanged.
 */
import { prepareQuery, type QueryLimits } from '../query/query-limits.js';
import type { SearchQuery } from '../query/search-query.js';
import type { DomainOptions, SearchBackend } from './backend.js';

/** Wraps a backend so that a query over the limits is a QueryLimitError (400), never run. */
export function withQueryLimits<B extends SearchBackend>(backend: B, limits: QueryLimits): B {
  return new Proxy(backend, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'search') {
        return async (query: SearchQuery) => {
          return target.search(prepareQuery(query, limits));
        };
      }
      if (property === 'domain') {
        return async (field: string, options?: DomainOptions) => {
          const query = options?.query && prepareQuery(options.query, limits);
          return target.domain(field, query ? { ...options, query } : options);
        };
      }
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
