/**
 * Counting the facets of an items request (Records Part 2): term facets from the backend's
 * distinct values (SearchBackend.domain), date histograms and numeric ranges from the one
 * aggregation operation every backend answers alike (SearchBackend.aggregate, the STAC
 * Aggregation extension's), so that they give the same buckets on SQLite and the engines. A date
 * histogram is first bounded: the calendar periods between the least and greatest start of the
 * matched records (one `stats` aggregation) may not exceed QUERY_MAX_AGGREGATION_BUCKETS, a 400
 * naming `facets` before the histogram runs.
 */
import { checkBucketCount, type QueryLimits } from '../../../../shared/query/query-limits.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import {
  countCalendarPeriods,
  nextPeriodStart,
  type AggregationAnswer,
  type AggregationBucket,
  type AggregationRequest,
} from '../../../../shared/search/aggregations.js';
import type { SearchBackend, SearchOptions } from '../../../../shared/search/backend.js';
import type {
  DateHistogramFacetRequest,
  FacetRequest,
  RangeFacetRequest,
  TermFacetRequest,
} from './parse.js';
import type { FacetResult, HistogramBucket } from './present.js';

/** Values fetched when term buckets are ordered by value or least frequent first. */
const VALUE_ORDER_WINDOW = 1000;

/** The distinct values of a term facet among the records the query matches. */
async function countTerms(
  backend: SearchBackend,
  query: SearchQuery,
  facet: TermFacetRequest,
  options: SearchOptions,
): Promise<FacetResult> {
  const byValue = facet.sortedBy.startsWith('value');
  const values = await backend.domain(facet.property, {
    ...options,
    query,
    limit: byValue || facet.sortedBy === 'count_asc' ? VALUE_ORDER_WINDOW : facet.bucketCount,
  });
  const sorted = [...values];
  if (facet.sortedBy === 'value_asc') sorted.sort((a, b) => a.value.localeCompare(b.value));
  if (facet.sortedBy === 'value_desc') sorted.sort((a, b) => b.value.localeCompare(a.value));
  if (facet.sortedBy === 'count_asc') sorted.reverse();
  return {
    kind: 'term',
    name: facet.name,
    property: facet.property,
    buckets: sorted.slice(0, facet.bucketCount),
  };
}

type AggregatedFacet = DateHistogramFacetRequest | RangeFacetRequest;

/** The backend request of a histogram or range facet. */
function aggregationOf(facet: AggregatedFacet): AggregationRequest {
  return facet.kind === 'date-histogram'
    ? { kind: 'histogram', interval: facet.interval }
    : { kind: 'ranges', field: facet.property, ranges: facet.ranges };
}

/** A bucket of a histogram or range facet: its key, bounds (max exclusive) and count. */
function histogramBucket(facet: AggregatedFacet, bucket: AggregationBucket): HistogramBucket {
  if (facet.kind === 'date-histogram') {
    return {
      value: bucket.key,
      min: bucket.key,
      max: nextPeriodStart(bucket.key, facet.interval),
      count: bucket.count,
    };
  }
  return {
    value: bucket.key,
    ...(bucket.from !== undefined && { min: bucket.from }),
    ...(bucket.to !== undefined && { max: bucket.to }),
    count: bucket.count,
  };
}

/**
 * A histogram or range facet from its aggregation: the non-empty buckets in order (time, or
 * band), the first `bucketCount` of them, and how many more there are.
 */
function presentAggregated(
  facet: AggregatedFacet,
  answer: AggregationAnswer | undefined,
): FacetResult {
  const found = answer?.kind === 'buckets' ? answer.buckets : [];
  const buckets = found
    .filter((bucket) => bucket.count > 0)
    .map((bucket) => histogramBucket(facet, bucket));
  const kept = buckets.slice(0, facet.bucketCount ?? buckets.length);
  return {
    kind: 'histogram',
    name: facet.name,
    property: facet.property,
    ...(facet.kind === 'date-histogram' && { interval: facet.interval }),
    buckets: kept,
    more: buckets.length - kept.length,
  };
}

/**
 * Counts the histogram and range facets in one aggregation request, after the `stats` that
 * bound the date histograms' periods (when any is asked for).
 */
async function countAggregated(
  backend: SearchBackend,
  query: SearchQuery,
  facets: AggregatedFacet[],
  limits: Pick<QueryLimits, 'maxAggregationBuckets'>,
  options: SearchOptions,
): Promise<FacetResult[]> {
  if (facets.length === 0) return [];
  const histograms = facets.filter((facet) => facet.kind === 'date-histogram');
  if (histograms.length > 0) {
    const answer = (await backend.aggregate(query, { stats: { kind: 'stats' } }, options)).stats;
    const stats = answer?.kind === 'stats' ? answer.stats : undefined;
    if (stats?.minStart && stats.maxStart) {
      for (const facet of histograms) {
        checkBucketCount(
          'facets',
          countCalendarPeriods(stats.minStart, stats.maxStart, facet.interval),
          `facets=${facet.name}::${facet.interval} over ${stats.minStart}/${stats.maxStart}`,
          limits,
        );
      }
    }
  }
  const requests = Object.fromEntries(
    facets.map((facet, index) => [`f${index}`, aggregationOf(facet)]),
  );
  const answers = await backend.aggregate(query, requests, options);
  return facets.map((facet, index) => presentAggregated(facet, answers[`f${index}`]));
}

/**
 * Counts each requested facet among the records the query matches (its paging ignored), in
 * the order asked for.
 */
export async function countFacets(
  backend: SearchBackend,
  query: SearchQuery,
  facets: readonly FacetRequest[],
  limits: Pick<QueryLimits, 'maxAggregationBuckets'>,
  options: SearchOptions = {},
): Promise<FacetResult[]> {
  const counted = { ...query, offset: 0, sort: [] };
  const aggregated = facets.filter((facet): facet is AggregatedFacet => facet.kind !== 'term');
  const [terms, others] = await Promise.all([
    Promise.all(
      facets
        .filter((facet): facet is TermFacetRequest => facet.kind === 'term')
        .map((facet) => countTerms(backend, counted, facet, options)),
    ),
    countAggregated(backend, counted, aggregated, limits, options),
  ]);
  const results = [...terms, ...others];
  return facets.map((facet) => results.find((result) => result.property === facet.property)!);
}
