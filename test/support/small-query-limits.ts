/**
 * Query limits small enough for tests to reach each bound with a few values; a test changes
 * the one bound it is about.
 */
import type { QueryLimits } from '../../shared/query/query-limits.js';

/** Small limits for unit tests of the query cost checks, with `overrides` applied. */
export function smallQueryLimits(overrides: Partial<QueryLimits> = {}): QueryLimits {
  return {
    maxFilterDepth: 8,
    maxFilterNodes: 50,
    maxArrayItems: 10,
    maxGeometryParts: 3,
    maxGeometryVertices: 20,
    maxTextWords: 5,
    maxTextLength: 40,
    maxSortKeys: 3,
    maxOffset: 100,
    maxFacets: 2,
    maxAggregationBuckets: 10,
    maxWildcardPatterns: 2,
    maxPatternWildcards: 12,
    ...overrides,
  };
}
