/**
 * Which lane a search runs in, decided at the door beside the cost model (query-limits.ts): a
 * query within the limits may still cost a backend far more than an ordinary page, and such
 * queries share a small number of places (shared/search/expensive-lane.ts) so that they cannot
 * crowd out the cheap ones, which never wait. A search is expensive when its filter must be
 * decided in Node (the engine cannot decide it alone: its candidates are fetched and refined),
 * when its page must be walked to (a deep offset that no earlier page ended at), when its
 * filter holds more than a few costly LIKE patterns, when it counts many facets or asks for
 * many facet buckets (a broad page's facets aggregate every record it matches, and the buckets
 * are what such a request asks for beyond an ordinary page), or when the engine's own search
 * threads would be held by it: a sorted or relevance page beyond a modest offset (the engine
 * collects every record before it to sort them), a sort by several keys, or free text of many
 * words (each analysed token is a term the engine matches and scores).
 */
import {
  countFreeTextTokens,
  distinctSortKeys,
  isIndexOrder,
  measureFilter,
  type QueryLimits,
} from './query-limits.js';
import type { SearchQuery } from './search-query.js';

/** The thresholds beyond which a search is expensive (QUERY_EXPENSIVE_* in shared/config). */
export interface LaneThresholds extends Pick<QueryLimits, 'maxOffset'> {
  /** Costly LIKE patterns (isCostlyLikePattern) a cheap search may have. */
  cheapWildcardPatterns: number;
  /** Facets a cheap request may count. */
  cheapFacets: number;
  /** Buckets a cheap request's facets may ask for, together. */
  cheapFacetBuckets: number;
  /**
   * The deepest offset of a cheap page in a sorted or relevance order (index-order pages are
   * found without sorting what lies before them).
   */
  cheapOffset: number;
  /** Distinct sort keys (besides `id`, the tie-breaker of every order) a cheap search may have. */
  cheapSortKeys: number;
  /** Words of free text (counted as the engine's analyzer splits them) a cheap search may have. */
  cheapTextWords: number;
}

/** What the door knows of a search besides its query. */
export interface LaneFacts {
  /** The backend cannot decide the filter alone: it refines candidates in Node. */
  refines?: boolean | undefined;
  /** The page continues an earlier page of the query (a `next` link): no walk to reach it. */
  continued?: boolean | undefined;
  /** Facets the request counts (Records `facets`), this count among them. */
  facets?: number | undefined;
  /** Buckets those facets ask for, together (facetBucketsAsked). */
  facetBuckets?: number | undefined;
}

/** Why a search is expensive. */
export type ExpensiveReason =
  'refinement' | 'deep-walk' | 'deep-page' | 'sort-keys' | 'wildcards' | 'facets' | 'text-words';

/** A search's lane: cheap (no reasons) or expensive (and why). */
export interface SearchLane {
  lane: 'cheap' | 'expensive';
  reasons: ExpensiveReason[];
}

/**
 * Classifies a search as cheap or expensive (see the file comment). Pure: the query, the
 * thresholds and what the backend and the paging store said of it.
 */
export function classifySearch(
  query: SearchQuery,
  thresholds: LaneThresholds,
  facts: LaneFacts = {},
): SearchLane {
  const reasons: ExpensiveReason[] = [];
  if (facts.refines) reasons.push('refinement');
  if (query.limit > 0 && query.offset > thresholds.maxOffset && !facts.continued) {
    reasons.push('deep-walk');
  } else if (
    query.limit > 0 &&
    query.offset > thresholds.cheapOffset &&
    query.offset <= thresholds.maxOffset &&
    !isIndexOrder(query)
  ) {
    reasons.push('deep-page');
  }
  const sortKeys = distinctSortKeys(query.sort).filter((key) => key.field !== 'id');
  if (query.limit > 0 && sortKeys.length > thresholds.cheapSortKeys) reasons.push('sort-keys');
  if (
    query.filter &&
    measureFilter(query.filter).wildcardPatterns > thresholds.cheapWildcardPatterns
  ) {
    reasons.push('wildcards');
  }
  if (
    (facts.facets ?? 0) > thresholds.cheapFacets ||
    (facts.facetBuckets ?? 0) > thresholds.cheapFacetBuckets
  ) {
    reasons.push('facets');
  }
  if (query.text && countFreeTextTokens(query.text) > thresholds.cheapTextWords)
    reasons.push('text-words');
  return { lane: reasons.length > 0 ? 'expensive' : 'cheap', reasons };
}
