/**
 * STAC API Aggregation extension (v0.3.0): the aggregations `/catalogue/aggregate` offers, the
 * parsing of a request (the item search's parameters, `filter` included, plus `aggregations`,
 * `datetime_frequency_interval` and `centroid_geohash_grid_frequency_precision`), running it on
 * the backend (SearchBackend.aggregate, one contract on every backend) with the bucket bounds
 * checked first, and the AggregationCollection it answers.
 */
import { InvalidParameterError } from '../../../../shared/errors/index.js';
import { checkBucketCount, type QueryLimits } from '../../../../shared/query/query-limits.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import {
  CALENDAR_INTERVALS,
  countCalendarPeriods,
  countGridCells,
  MAX_GRID_PRECISION,
  PERCENT_RANGES,
  type AggregationAnswer,
  type AggregationRequest,
  type AggregationStats,
  type CalendarInterval,
  type NumericRange,
} from '../../../../shared/search/aggregations.js';
import type { SearchBackend, SearchOptions } from '../../../../shared/search/backend.js';
import type { Link } from '../../common/links.js';
import { catalogueUrl } from '../../common/urls.js';
import { stacRootUrl } from './capabilities.js';
import {
  extractStringList,
  parseSearchGet,
  parseSearchPost,
  type SearchLimits,
  type SearchMethod,
} from './parse.js';

/** How a named aggregation is computed and what its answer is. */
interface AggregationDefinition {
  name: string;
  data_type: 'integer' | 'datetime' | 'frequency_distribution';
  description: string;
}

/** The cloud cover bands of `cloud_cover_frequency`: tens of percent, the last one open above. */
export const CLOUD_COVER_RANGES: readonly NumericRange[] = PERCENT_RANGES;

/** The term frequencies offered: aggregation name → queryable. */
const TERM_FREQUENCIES: Readonly<Record<string, string>> = {
  collection_frequency: 'parentId',
  platform_frequency: 'platform',
  instruments_frequency: 'instrument',
  type_frequency: 'type',
  keywords_frequency: 'keywords',
};

/** Every aggregation `/aggregate` computes, in the order `/aggregations` lists them. */
export const AGGREGATIONS: readonly AggregationDefinition[] = [
  { name: 'total_count', data_type: 'integer', description: 'How many records match.' },
  {
    name: 'datetime_min',
    data_type: 'datetime',
    description: 'The earliest start of the matched records’ times.',
  },
  {
    name: 'datetime_max',
    data_type: 'datetime',
    description: 'The latest end of the matched records’ times.',
  },
  {
    name: 'datetime_frequency',
    data_type: 'frequency_distribution',
    description:
      'Records by the calendar period (UTC) their time starts in: datetime_frequency_interval ' +
      `(${CALENDAR_INTERVALS.join(', ')}; default month).`,
  },
  {
    name: 'collection_frequency',
    data_type: 'frequency_distribution',
    description: 'Records by parent collection.',
  },
  { name: 'platform_frequency', data_type: 'frequency_distribution', description: 'By platform.' },
  {
    name: 'instruments_frequency',
    data_type: 'frequency_distribution',
    description: 'By instrument.',
  },
  {
    name: 'type_frequency',
    data_type: 'frequency_distribution',
    description: 'By record type.',
  },
  {
    name: 'keywords_frequency',
    data_type: 'frequency_distribution',
    description: 'By keyword (a record counts once for each of its keywords).',
  },
  {
    name: 'cloud_cover_frequency',
    data_type: 'frequency_distribution',
    description: 'By eo:cloud_cover band of 10 (from inclusive, to exclusive; the last open).',
  },
  {
    name: 'centroid_geohash_grid_frequency',
    data_type: 'frequency_distribution',
    description:
      'By the geohash cell of the centre of each record’s box: ' +
      `centroid_geohash_grid_frequency_precision (1-${MAX_GRID_PRECISION}; default 1).`,
  },
];

const NAMES = AGGREGATIONS.map((definition) => definition.name);

/** The parameters an aggregate request adds to the item search's. */
export const AGGREGATE_PARAMETER_NAMES = [
  'aggregations',
  'datetime_frequency_interval',
  'centroid_geohash_grid_frequency_precision',
] as const;

/** A parsed aggregate request. */
export interface AggregateRequest {
  query: SearchQuery;
  names: string[];
  interval: CalendarInterval;
  precision: number;
}

function readInterval(value: unknown): CalendarInterval {
  if (value === undefined) return 'month';
  if (typeof value === 'string' && (CALENDAR_INTERVALS as readonly string[]).includes(value)) {
    return value as CalendarInterval;
  }
  throw new InvalidParameterError(
    'datetime_frequency_interval',
    `datetime_frequency_interval must be one of ${CALENDAR_INTERVALS.join(', ')}, got ${JSON.stringify(value)}`,
  );
}

function readPrecision(value: unknown, method: SearchMethod): number {
  if (value === undefined) return 1;
  const number =
    method === 'GET' && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (
    typeof number !== 'number' ||
    !Number.isInteger(number) ||
    number < 1 ||
    number > MAX_GRID_PRECISION
  ) {
    throw new InvalidParameterError(
      'centroid_geohash_grid_frequency_precision',
      `centroid_geohash_grid_frequency_precision must be an integer from 1 to ${MAX_GRID_PRECISION}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/**
 * Parses an aggregate request: GET query parameters or a POST body, the item search's members
 * (paging and fields are read but mean nothing here) plus the aggregation members. Every
 * aggregation when `aggregations` is absent; an unknown name is a 400 naming it.
 */
export function parseAggregateRequest(
  members: Record<string, unknown>,
  method: SearchMethod,
  limits: SearchLimits,
): AggregateRequest {
  const search: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(members)) {
    if (!(AGGREGATE_PARAMETER_NAMES as readonly string[]).includes(name)) search[name] = value;
    else if (method === 'GET' && typeof value !== 'string') {
      throw new InvalidParameterError(name, `Parameter "${name}" must be given once`);
    }
  }
  const { query } =
    method === 'GET' ? parseSearchGet(search, limits) : parseSearchPost(search, limits);
  const names = extractStringList(members.aggregations, 'aggregations', method) ?? NAMES;
  const unknown = names.find((name) => !NAMES.includes(name));
  if (unknown !== undefined) {
    throw new InvalidParameterError(
      'aggregations',
      `Unknown aggregation "${unknown}"; /catalogue/aggregations lists the ${NAMES.length} offered: ${NAMES.join(', ')}`,
    );
  }
  return {
    query: { ...query, offset: 0 },
    names: [...new Set(names)],
    interval: readInterval(members.datetime_frequency_interval),
    precision: readPrecision(members.centroid_geohash_grid_frequency_precision, method),
  };
}

/** The backend request of one named aggregation (stats-based ones share `stats`). */
function requestOf(
  name: string,
  request: AggregateRequest,
  limits: QueryLimits,
): AggregationRequest {
  const field = TERM_FREQUENCIES[name];
  if (field !== undefined) return { kind: 'terms', field, size: limits.maxAggregationBuckets };
  switch (name) {
    case 'datetime_frequency':
      return { kind: 'histogram', interval: request.interval };
    case 'cloud_cover_frequency':
      return { kind: 'ranges', field: 'cloudCover', ranges: CLOUD_COVER_RANGES };
    case 'centroid_geohash_grid_frequency':
      return { kind: 'grid', precision: request.precision };
    default:
      return { kind: 'stats' };
  }
}

/** An Aggregation of the AggregationCollection. */
export type Aggregation = Record<string, unknown> & { name: string; data_type: string };

function present(
  name: string,
  answer: AggregationAnswer | undefined,
  stats: AggregationStats | undefined,
): Aggregation {
  const definition = AGGREGATIONS.find((candidate) => candidate.name === name)!;
  const base = { name, data_type: definition.data_type };
  if (definition.data_type !== 'frequency_distribution') {
    const value =
      name === 'total_count'
        ? stats?.count
        : name === 'datetime_min'
          ? stats?.minStart
          : stats?.maxEnd;
    return { ...base, value: value ?? null };
  }
  const buckets = answer?.kind === 'buckets' ? answer : { buckets: [], overflow: 0 };
  return {
    ...base,
    overflow: buckets.overflow,
    buckets: buckets.buckets.map((bucket) => ({
      key: bucket.key,
      data_type: 'frequency_distribution',
      frequency: bucket.count,
      ...(bucket.from !== undefined && { from: bucket.from }),
      ...(bucket.to !== undefined && { to: bucket.to }),
    })),
  };
}

/**
 * Runs an aggregate request: the matched records' stats first when a histogram or a grid is
 * asked for (their bucket counts are bounded by QUERY_MAX_AGGREGATION_BUCKETS over the span the
 * stats give, a 400 before anything heavier runs), then the other aggregations in one request.
 */
export async function runAggregate(
  backend: SearchBackend,
  request: AggregateRequest,
  limits: QueryLimits,
  options: SearchOptions = {},
): Promise<Aggregation[]> {
  const wantsStats = request.names.some(
    (name) => requestOf(name, request, limits).kind === 'stats',
  );
  const bounded = request.names.some(
    (name) => name === 'datetime_frequency' || name === 'centroid_geohash_grid_frequency',
  );
  let stats: AggregationStats | undefined;
  if (wantsStats || bounded) {
    const answer = (await backend.aggregate(request.query, { stats: { kind: 'stats' } }, options))
      .stats;
    stats = answer?.kind === 'stats' ? answer.stats : undefined;
  }
  if (stats && request.names.includes('datetime_frequency') && stats.minStart && stats.maxStart) {
    checkBucketCount(
      'datetime_frequency_interval',
      countCalendarPeriods(stats.minStart, stats.maxStart, request.interval),
      `datetime_frequency_interval=${request.interval}: datetime_frequency over ${stats.minStart}/${stats.maxStart}`,
      limits,
    );
  }
  if (stats && request.names.includes('centroid_geohash_grid_frequency')) {
    checkBucketCount(
      'centroid_geohash_grid_frequency_precision',
      countGridCells(stats, request.precision),
      `centroid_geohash_grid_frequency_precision=${request.precision}: centroid_geohash_grid_frequency over the matched records`,
      limits,
    );
  }
  const requests: Record<string, AggregationRequest> = {};
  for (const name of request.names) {
    const backendRequest = requestOf(name, request, limits);
    if (backendRequest.kind !== 'stats') requests[name] = backendRequest;
  }
  const answers =
    Object.keys(requests).length > 0
      ? await backend.aggregate(request.query, requests, options)
      : {};
  return request.names.map((name) => present(name, answers[name], stats));
}

/** Where the aggregations are (both landing pages link them). */
export function aggregateUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/aggregate`;
}

export function aggregationsUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/aggregations`;
}

/** The landing pages' links to the aggregations (rel `aggregate` GET and POST, `aggregations`). */
export function aggregationLinks(baseUrl: string): Link[] {
  const href = aggregateUrl(baseUrl);
  return [
    {
      rel: 'aggregate',
      type: 'application/json',
      href,
      method: 'GET',
      title: 'Aggregate the item search',
    },
    {
      rel: 'aggregate',
      type: 'application/json',
      href,
      method: 'POST',
      title: 'Aggregate the item search',
    },
    {
      rel: 'aggregations',
      type: 'application/json',
      href: aggregationsUrl(baseUrl),
      title: 'The aggregations offered',
    },
  ];
}

/** An AggregationCollection with its links. */
export function presentAggregationCollection(
  baseUrl: string,
  aggregations: Aggregation[],
  self: string,
): Record<string, unknown> {
  return {
    type: 'AggregationCollection',
    aggregations,
    links: [
      { rel: 'self', type: 'application/json', href: self },
      { rel: 'root', type: 'application/json', href: stacRootUrl(baseUrl) },
    ],
  };
}

/** The `/aggregations` document: every aggregation offered, by name and data type. */
export function presentAggregationsList(baseUrl: string): Record<string, unknown> {
  return presentAggregationCollection(
    baseUrl,
    AGGREGATIONS.map(({ name, data_type, description }) => ({ name, data_type, description })),
    aggregationsUrl(baseUrl),
  );
}
