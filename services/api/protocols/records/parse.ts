/**
 * OGC API – Records request parsing: query parameters → SearchQuery. Pure.
 */
import {
  checkBucketCount,
  checkFacetCount,
  type QueryLimits,
} from '../../../../shared/query/query-limits.js';
import {
  FilterError,
  InvalidParameterError,
  UnknownParameterError,
} from '../../../../shared/errors/index.js';
import { parseCql2Json, parseCql2Text } from '../../../../shared/query/cql2/index.js';
import { resolveAxisOrder, type AxisOrder } from '../../../../shared/query/fes/crs-axis-order.js';
import type { Expression } from '../../../../shared/query/filter-ast.js';
import { checkFilter } from '../../../../shared/query/check-filter.js';
import {
  parseBbox,
  parseDatetime,
  parseFreeText,
  parseLimit,
  parseList,
  parseOffset,
  parseSortby,
} from '../../../../shared/query/params.js';
import { findQueryable } from '../../../../shared/query/queryables.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import {
  CALENDAR_INTERVALS,
  PERCENT_RANGES,
  type CalendarInterval,
  type NumericRange,
} from '../../../../shared/search/aggregations.js';
import { CRS84_URI, EPSG_4326_URI, SUPPORTED_CRS } from '../../common/media-types.js';
import { negotiateFormat, type OutputFormat } from '../../common/negotiation.js';

export type QueryParameters = Record<string, unknown>;

export interface ItemsLimits {
  defaultLimit: number;
  maxLimit: number;
  /** Query cost limits: a filter far over them is refused before it is parsed. */
  query?: QueryLimits;
  /**
   * The properties a filter may name beyond the core queryables (learned from the records);
   * unset: any (see checkFilter).
   */
  properties?: ReadonlySet<string>;
  /** The learned properties `sortby` may name beyond the core sortables; unset: none. */
  sortable?: ReadonlySet<string>;
}

/** Parameters that choose how records are presented, on the items and on one record. */
export const PRESENTATION_PARAMETER_NAMES = ['crs', 'properties', 'skipGeometry', 'lang'] as const;

/** Parameters the items endpoint understands besides queryable names, in documented order. */
export const ITEMS_PARAMETER_NAMES = [
  'f',
  'q',
  'bbox',
  'bbox-crs',
  'datetime',
  'ids',
  'type',
  'externalIds',
  'limit',
  'offset',
  'startindex',
  'sortby',
  'filter',
  'filter-lang',
  'filter-crs',
  'facets',
  ...PRESENTATION_PARAMETER_NAMES,
] as const;
export type ItemsParameterName = (typeof ITEMS_PARAMETER_NAMES)[number];

/** Parameters the items endpoint understands besides queryable names. */
export const ITEMS_PARAMETERS: ReadonlySet<string> = new Set(ITEMS_PARAMETER_NAMES);

/**
 * The items parameters that are comma-separated lists (as are the queryables'): an empty value
 * is refused, not read as an empty list.
 */
const LIST_PARAMETERS: ReadonlySet<string> = new Set([
  'q',
  'ids',
  'type',
  'externalIds',
  'sortby',
  'facets',
  'properties',
]);

/** An item of `sortby`: a name, optionally prefixed by + or -. */
export const SORTBY_ITEM_PATTERN = /^\s*[+-]?\s*[A-Za-z_].*$/;
/** An item of `facets`: name[:bucketCount[:order or interval]]. */
export const FACET_ITEM_PATTERN = /^[A-Za-z_:.-]+(:\d*(:[a-z_]+)?)?$/;
/** An item of `externalIds`: `scheme:value`, `value` or `scheme:`. */
export const EXTERNAL_ID_PATTERN = /^([^:]+:)?[^:]*$/;

/**
 * The filter encodings the items endpoint reads (`filter-lang`). `cql-text` is the name the
 * CQL2 text encoding had in the drafts of OGC API – Features Part 3; GDAL up to 3.6 (and so
 * QGIS) only sends a filter to the server when the API definition lists it.
 */
export const FILTER_LANGUAGES = ['cql2-text', 'cql2-json', 'cql-text'] as const;

/** A filter sent as the body of `POST …/items`: the CQL2 JSON, already parsed from JSON. */
export interface FilterBody {
  json: unknown;
}

/** The CRSs the parameters read (`crs`, `bbox-crs`), as the OpenAPI document lists them. */
export { CRS84_URI, EPSG_4326_URI, SUPPORTED_CRS };

const CRS84 = new Set([CRS84_URI, '[OGC:CRS84]', 'urn:ogc:def:crs:OGC:1.3:CRS84']);

/** How items are presented: the output CRS, the properties kept and whether geometry is kept. */
export interface ItemsPresentation {
  /** Axis order of the output coordinates, and the CRS URI the Content-Crs header names. */
  axisOrder: AxisOrder;
  crs: string;
  /** Only these properties (by name) are kept; undefined keeps every property. */
  properties?: readonly string[];
  skipGeometry: boolean;
  /** The language asked for by `lang` (a language tag); records in it are shown in it. */
  lang?: string;
}

/**
 * Reads a CRS parameter (`crs`, `bbox-crs`): CRS84 or WGS 84 geographic (EPSG:4326, latitude
 * first when named by its OGC URI or URN; the legacy bare `EPSG:4326` is read longitude first,
 * as everywhere in Cairn). Any other CRS is a 400 naming the parameter and the supported ones.
 */
export function parseCrsParameter(value: string, name: string): AxisOrder {
  try {
    // A CRS is a URI (or a URN, or a bare code): never empty, never with white space in it.
    return resolveAxisOrder(value === '' || /\s/.test(value) ? 'invalid' : value);
  } catch {
    throw new InvalidParameterError(
      name,
      `${name} "${value}" is not supported; use one of ${SUPPORTED_CRS.join(', ')}`,
    );
  }
}

const BOOLEAN_VALUES: Readonly<Record<string, boolean>> = { true: true, false: false };

/** A property name in `properties` (as queryables and record properties are named). */
export const PROPERTY_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;
/** A language tag in `lang` (BCP 47 shape: en, fr-CA). */
export const LANGUAGE_TAG_PATTERN = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Parses how an items (or record) request wants its features presented: `crs` (Features
 * Part 2), `properties` (a comma-separated list of property names, as pygeoapi offers it) and
 * `skipGeometry` (true or false) and `lang` (a language tag: the language a multilingual
 * record is shown in, services/api/common/language.ts).
 */
export function parseItemsPresentation(query: QueryParameters): ItemsPresentation {
  const get = (name: string): string | undefined => singleParameter(query, name);
  const crs = get('crs');
  const axisOrder = crs === undefined ? 'lon-lat' : parseCrsParameter(crs, 'crs');
  const result: ItemsPresentation = {
    axisOrder,
    crs: axisOrder === 'lat-lon' ? EPSG_4326_URI : CRS84_URI,
    skipGeometry: false,
  };
  const skipGeometry = get('skipGeometry');
  if (skipGeometry !== undefined) {
    const flag = Object.hasOwn(BOOLEAN_VALUES, skipGeometry)
      ? BOOLEAN_VALUES[skipGeometry]
      : undefined;
    if (flag === undefined) {
      throw new InvalidParameterError(
        'skipGeometry',
        `skipGeometry must be true or false, got "${skipGeometry}"`,
      );
    }
    result.skipGeometry = flag;
  }
  const properties = get('properties');
  if (properties !== undefined) {
    const names = parseList(properties);
    const bad = names.find((item) => !PROPERTY_NAME_PATTERN.test(item));
    if (bad !== undefined) {
      throw new InvalidParameterError('properties', `properties: "${bad}" is not a property name`);
    }
    result.properties = names;
  }
  const lang = get('lang');
  if (lang !== undefined && !LANGUAGE_TAG_PATTERN.test(lang.trim())) {
    throw new InvalidParameterError(
      'lang',
      `lang must be a language tag (e.g. en, fr-CA), got "${lang}"`,
    );
  }
  if (lang !== undefined && lang.trim() !== '') result.lang = lang.trim();
  return result;
}

/** Reads `bbox` in the CRS `bbox-crs` names (CRS84 by default; EPSG:4326 is latitude first). */
function parseBboxInCrs(value: string, crs: string | undefined): ReturnType<typeof parseBbox> {
  const order = crs === undefined ? 'lon-lat' : parseCrsParameter(crs, 'bbox-crs');
  if (order === 'lon-lat') return parseBbox(value);
  const parts = value.split(',');
  // lat/lon → lon/lat: swap each corner's first two ordinates (4 numbers, or 6 with heights).
  const half = parts.length / 2;
  if (parts.length === 4 || parts.length === 6) {
    parts.splice(0, 2, ...parts.slice(0, 2).reverse());
    parts.splice(half, 2, ...parts.slice(half, half + 2).reverse());
  }
  return parseBbox(parts.join(','));
}

/** Reads a single-valued parameter; repeating it is a client error. */
export function singleParameter(query: QueryParameters, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new InvalidParameterError(name, `Parameter "${name}" must be given once`);
}

/** Reads the output format from `f`, or undefined. */
export function parseFormatParameter(query: QueryParameters): string | undefined {
  return singleParameter(query, 'f');
}

/**
 * Refuses every parameter but `f` (the landing page, conformance, collections, queryables …
 * take no other): an unknown parameter is a 400 (Features /req/core/query-param-unknown).
 */
export function parseFormatOnlyQuery(query: QueryParameters): void {
  for (const name of Object.keys(query)) {
    if (name !== 'f') throw new UnknownParameterError(name);
  }
}

/** The encodings the Records endpoints offer (`f` values). */
export type { OutputFormat };

/**
 * Chooses the encoding of a response: `f` when given (it must be one of `offered`, else 400),
 * otherwise the Accept header (common/negotiation.ts: text/html → HTML, JSON types → JSON),
 * falling back to the first offered encoding (JSON) when nothing offered is acceptable.
 */
export function parseOutputFormat<T extends OutputFormat>(
  query: QueryParameters,
  accept: string | undefined,
  offered: readonly T[],
): T {
  const f = parseFormatParameter(query);
  if (f !== undefined) {
    if ((offered as readonly string[]).includes(f)) return f as T;
    // INVALID_PARAMETER, as the OpenAPI request validator answers where it runs.
    throw new InvalidParameterError(
      'f',
      `Unsupported format "f=${f}"; supported: ${offered.join(', ')}`,
    );
  }
  return negotiateFormat(accept, offered);
}

/** What every facet asked for by `facets` has: its name as asked, and the queryable counted. */
interface FacetRequestBase {
  name: string;
  /** Canonical queryable name the counts are taken from. */
  property: string;
}

/** A term facet: the distinct values of a property, how many buckets, and their order. */
export interface TermFacetRequest extends FacetRequestBase {
  kind: 'term';
  bucketCount: number;
  sortedBy: 'count_desc' | 'count_asc' | 'value_asc' | 'value_desc';
}

/**
 * A date histogram facet: the records by the calendar period (UTC) their time starts in, in
 * time order; the first `bucketCount` non-empty periods (all when undefined).
 */
export interface DateHistogramFacetRequest extends FacetRequestBase {
  kind: 'date-histogram';
  interval: CalendarInterval;
  bucketCount: number | undefined;
}

/** A numeric range facet: the records by band of a number; the first `bucketCount` bands. */
export interface RangeFacetRequest extends FacetRequestBase {
  kind: 'ranges';
  ranges: readonly NumericRange[];
  bucketCount: number | undefined;
}

/** One facet asked for by `facets`. */
export type FacetRequest = TermFacetRequest | DateHistogramFacetRequest | RangeFacetRequest;

/** Queryables offered as facets (term facets over distinct values). */
export const FACET_PROPERTIES: readonly string[] = [
  'type',
  'keywords',
  'themes',
  'formats',
  'organisations',
  'language',
  'license',
  'parentId',
  'platform',
  'instrument',
  'sensorType',
  'productType',
  'processingLevel',
  'orbitDirection',
];

/** Queryables offered as date histogram facets (by the calendar period their time starts in). */
export const DATE_HISTOGRAM_FACETS: readonly string[] = ['start_datetime'];
/** The interval of a date histogram facet unless the request names one. */
export const DEFAULT_FACET_INTERVAL: CalendarInterval = 'month';

/** Queryables offered as numeric range facets, with their bands. */
export const RANGE_FACETS: Readonly<Record<string, readonly NumericRange[]>> = {
  cloudCover: PERCENT_RANGES,
  snowCover: PERCENT_RANGES,
};

/** Every facet offered, by kind. */
const ALL_FACETS = [...FACET_PROPERTIES, ...DATE_HISTOGRAM_FACETS, ...Object.keys(RANGE_FACETS)];

/** Buckets per term facet unless the request says otherwise, and the most it may ask for. */
export const DEFAULT_BUCKET_COUNT = 10;
export const MAX_BUCKET_COUNT = 100;
/** Orders of facet buckets (`facets=property:count:order`), the default first. */
export const FACET_ORDERS = ['count_desc', 'count_asc', 'value_asc', 'value_desc'] as const;

function readBucketCount(count: string | undefined, name: string): number | undefined {
  if (count === undefined || count === '') return undefined;
  if (!/^\d+$/.test(count) || Number(count) < 1) {
    throw new InvalidParameterError(
      'facets',
      `facets: the bucket count of "${name}" must be a positive integer, got "${count}"`,
    );
  }
  return Number(count);
}

/**
 * Reads one item of `facets` (already split at its colons) for the queryable it names: a term
 * facet's third part is an order, a date histogram's a calendar interval, a range facet has
 * none. The bucket count of a histogram or range facet may not exceed
 * QUERY_MAX_AGGREGATION_BUCKETS (when `limits` are given).
 */
function readFacetItem(
  item: string,
  [name, count, option]: [string, string | undefined, string | undefined],
  property: string,
  limits: Partial<Pick<QueryLimits, 'maxAggregationBuckets'>>,
): FacetRequest {
  const bucketCount = readBucketCount(count, name);
  if (FACET_PROPERTIES.includes(property)) {
    if (option !== undefined && !(FACET_ORDERS as readonly string[]).includes(option)) {
      throw new InvalidParameterError(
        'facets',
        `facets: order "${option}" of "${name}" is not one of ${FACET_ORDERS.join(', ')}`,
      );
    }
    return {
      kind: 'term',
      name,
      property,
      bucketCount: Math.min(bucketCount ?? DEFAULT_BUCKET_COUNT, MAX_BUCKET_COUNT),
      sortedBy: (option as TermFacetRequest['sortedBy'] | undefined) ?? 'count_desc',
    };
  }
  if (bucketCount !== undefined && limits.maxAggregationBuckets !== undefined) {
    checkBucketCount(
      'facets',
      bucketCount,
      `facets=${item}`,
      limits as Pick<QueryLimits, 'maxAggregationBuckets'>,
    );
  }
  if (DATE_HISTOGRAM_FACETS.includes(property)) {
    if (option !== undefined && !(CALENDAR_INTERVALS as readonly string[]).includes(option)) {
      throw new InvalidParameterError(
        'facets',
        `facets: interval "${option}" of the date histogram "${name}" is not one of ${CALENDAR_INTERVALS.join(', ')}`,
      );
    }
    return {
      kind: 'date-histogram',
      name,
      property,
      interval: (option as CalendarInterval | undefined) ?? DEFAULT_FACET_INTERVAL,
      bucketCount,
    };
  }
  if (option !== undefined) {
    throw new InvalidParameterError(
      'facets',
      `facets: the range facet "${name}" takes a bucket count only (name[:bucketCount]), got "${item}"`,
    );
  }
  return { kind: 'ranges', name, property, ranges: RANGE_FACETS[property]!, bucketCount };
}

/**
 * Parses `facets`: a comma-separated list of `name[:bucketCount[:option]]` (Records Part 2
 * syntax, the option after the bucket count chosen by the facet's kind), where name is a
 * facet offered (by queryable name or alias, in any case):
 *
 * - a term facet (FACET_PROPERTIES), the option an order: count_desc (default), count_asc,
 *   value_asc, value_desc; the bucket count is at most MAX_BUCKET_COUNT;
 * - a date histogram (DATE_HISTOGRAM_FACETS), the option a calendar interval (year, quarter,
 *   month (default), week, day, hour);
 * - a numeric range facet (RANGE_FACETS), no option.
 *
 * A histogram or range facet gives every bucket unless a bucket count is given, which may not
 * exceed QUERY_MAX_AGGREGATION_BUCKETS. A property asked for again, under any spelling, is
 * counted once: its first mention wins. With `limits`, more distinct facets than
 * QUERY_MAX_FACETS are a QueryLimitError.
 */
export function parseFacetsParameter(
  value: string,
  limits?: Pick<QueryLimits, 'maxFacets' | 'maxAggregationBuckets'>,
): FacetRequest[] {
  const requests: FacetRequest[] = [];
  for (const item of parseList(value)) {
    const [name = '', count, option, ...rest] = item.split(':'); // split gives at least one
    const queryable = findQueryable(name);
    if (!queryable || !ALL_FACETS.includes(queryable.name) || rest.length > 0) {
      throw new InvalidParameterError(
        'facets',
        `facets: "${item}" is not a facet; use one of ${ALL_FACETS.join(', ')}, optionally with :bucketCount[:order or interval]`,
      );
    }
    const request = readFacetItem(item, [name, count, option], queryable.name, limits ?? {});
    if (requests.some((earlier) => earlier.property === queryable.name)) continue;
    if (limits) checkFacetCount(requests.length + 1, limits);
    requests.push(request);
  }
  return requests;
}

function parseFilterLanguage(value: string | undefined): 'cql2-text' | 'cql2-json' | undefined {
  if (value === undefined) return undefined;
  if (value === 'cql-text') return 'cql2-text';
  if (value === 'cql2-text' || value === 'cql2-json') return value;
  throw new InvalidParameterError(
    'filter-lang',
    `Invalid parameter filter-lang=${value}: filter-lang must be one of the allowed values: ${FILTER_LANGUAGES.join(', ')}`,
  );
}

/** Members a STAC-style search body (`{"filter": …}`) may have on `POST …/items`. */
const BODY_FILTER_MEMBERS = new Set(['filter', 'filter-lang', 'filter-crs']);

/**
 * Reads the body of `POST …/items`: a CQL2 JSON expression (an object with `op`), or, as STAC
 * clients send it, an object with `filter` (CQL2 JSON, or CQL2 text when `filter-lang` is
 * cql2-text) and optionally `filter-lang` and `filter-crs`.
 */
function parseFilterBody(json: unknown, limits?: QueryLimits): Expression {
  const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
  if (!isObject || 'op' in json || !('filter' in json)) return parseCql2Json(json, limits);
  const body = json as Record<string, unknown>;
  const extra = Object.keys(body).find((name) => !BODY_FILTER_MEMBERS.has(name));
  if (extra !== undefined) {
    throw new InvalidParameterError(
      extra,
      `Body member "${extra}" is not supported; POST …/items takes a CQL2 JSON filter, or {"filter", "filter-lang", "filter-crs"}`,
    );
  }
  const text = (name: string): string | undefined => {
    const value = body[name];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    throw new InvalidParameterError(name, `Body member "${name}" must be a string`);
  };
  checkFilterCrs(text('filter-crs'));
  const language = parseFilterLanguage(text('filter-lang'));
  if (language === 'cql2-text') {
    const filter = body.filter;
    if (typeof filter !== 'string') {
      throw new InvalidParameterError('filter', 'A cql2-text filter must be a string');
    }
    return parseCql2Text(filter, limits);
  }
  return parseCql2Json(body.filter, limits);
}

function checkFilterCrs(crs: string | undefined): void {
  if (crs !== undefined && !CRS84.has(crs)) {
    throw new InvalidParameterError(
      'filter-crs',
      `filter-crs "${crs}" is not supported; filters are in CRS84 (http://www.opengis.net/def/crs/OGC/1.3/CRS84)`,
    );
  }
}

/**
 * Reads the CQL2 filter of an items request: `filter` in `filter-lang` (cql2-text by default)
 * from the query string, or a CQL2 JSON body of `POST …/items`. `filter-crs` may only name
 * CRS84. Parse failures are FilterErrors that say what is wrong and where.
 */
export function parseFilterParameters(
  query: QueryParameters,
  body?: FilterBody,
  limits?: QueryLimits,
): Expression | undefined {
  const get = (name: string): string | undefined => singleParameter(query, name);
  checkFilterCrs(get('filter-crs'));
  const language = parseFilterLanguage(get('filter-lang'));
  const text = get('filter');
  if (body) {
    if (text !== undefined) {
      throw new InvalidParameterError(
        'filter',
        'Give the filter either as the request body or as the filter parameter, not both',
      );
    }
    if (language === 'cql2-text') {
      throw new InvalidParameterError(
        'filter-lang',
        'A filter in the request body must be CQL2 JSON (filter-lang=cql2-json)',
      );
    }
    return parseFilterBody(body.json, limits);
  }
  if (text === undefined) return undefined;
  if (language === 'cql2-json') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new FilterError(`filter is not valid JSON: ${(error as Error).message}`);
    }
    return parseCql2Json(json, limits);
  }
  return parseCql2Text(text, limits);
}

/**
 * Refuses an empty list parameter and a list item of the wrong shape (the rules the OpenAPI
 * document gives these parameters; the searches skip the request validator, see app.ts).
 */
function checkListParameters(query: QueryParameters): void {
  const itemPatterns: Readonly<Record<string, RegExp>> = {
    sortby: SORTBY_ITEM_PATTERN,
    facets: FACET_ITEM_PATTERN,
    properties: PROPERTY_NAME_PATTERN,
    externalIds: EXTERNAL_ID_PATTERN,
  };
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string' || (ITEMS_PARAMETERS.has(name) && !LIST_PARAMETERS.has(name))) {
      continue;
    }
    if (value === '') {
      throw new InvalidParameterError(
        name,
        `Invalid parameter ${name}=: ${name} must not be empty`,
      );
    }
    const pattern = Object.hasOwn(itemPatterns, name) ? itemPatterns[name] : undefined;
    const bad = pattern && value.split(',').find((item) => !pattern.test(item));
    if (bad !== undefined) {
      throw new InvalidParameterError(
        name,
        `Invalid parameter ${name}=${value}: "${bad}" must match ${pattern?.source ?? ''}`,
      );
    }
  }
}

/**
 * Parses an items request's query parameters (and, for `POST …/items`, its CQL2 JSON body)
 * into a SearchQuery; the filter is ANDed with every other parameter.
 */
export function parseItemsQuery(
  query: QueryParameters,
  limits: ItemsLimits,
  body?: FilterBody,
): SearchQuery {
  const get = (name: string): string | undefined => singleParameter(query, name);
  checkListParameters(query);
  const result: SearchQuery = {
    sort: [],
    offset: 0,
    limit: parseLimit(get('limit'), limits.defaultLimit, limits.maxLimit),
  };

  const offset = get('offset');
  const startindex = get('startindex');
  if (offset !== undefined && startindex !== undefined && offset !== startindex) {
    throw new InvalidParameterError('offset', 'Give either "offset" or "startindex", not both');
  }
  result.offset = parseOffset(offset ?? startindex, offset !== undefined ? 'offset' : 'startindex');

  const q = get('q');
  const freeText = q === undefined ? undefined : parseFreeText(q);
  if (freeText !== undefined) result.text = freeText;
  const bbox = get('bbox');
  const bboxCrs = get('bbox-crs');
  if (bboxCrs !== undefined && bbox === undefined) parseCrsParameter(bboxCrs, 'bbox-crs');
  if (bbox !== undefined) {
    result.spatial = { bbox: parseBboxInCrs(bbox, bboxCrs), relation: 'intersects' };
  }
  const datetime = get('datetime');
  if (datetime !== undefined) {
    result.temporal = { ...parseDatetime(datetime, { allowDates: true }), relation: 'intersects' };
  }
  const ids = get('ids');
  if (ids !== undefined) result.ids = parseList(ids);
  const type = get('type');
  if (type !== undefined) result.types = parseList(type);
  const externalIds = get('externalIds');
  if (externalIds !== undefined) result.externalIds = parseList(externalIds);
  const sortby = get('sortby');
  if (sortby !== undefined) result.sort = parseSortby(sortby, 'sortby', limits.sortable);
  const filter = parseFilterParameters(query, body, limits.query);
  if (filter !== undefined) result.filter = checkFilter(filter, limits.query, limits.properties);
  parseItemsPresentation(query);

  for (const name of Object.keys(query)) {
    if (ITEMS_PARAMETERS.has(name)) continue;
    const queryable = findQueryable(name);
    if (!queryable) throw new UnknownParameterError(name);
    if (queryable.type === 'geometry') {
      throw new InvalidParameterError(
        name,
        `"${name}" cannot be compared by equality; use bbox or filter`,
      );
    }
    const value = get(name) ?? '';
    result.properties = [
      ...(result.properties ?? []),
      { name: queryable.name, values: parseList(value) },
    ];
  }
  return result;
}

/**
 * The facets an items request asks for (none when `facets` is absent or empty), at most
 * QUERY_MAX_FACETS distinct properties when `limits` are given.
 */
export function parseFacetsQuery(
  query: QueryParameters,
  limits?: Pick<QueryLimits, 'maxFacets' | 'maxAggregationBuckets'>,
): FacetRequest[] {
  const value = singleParameter(query, 'facets');
  return value === undefined ? [] : parseFacetsParameter(value, limits);
}

/**
 * The buckets the facets ask for, together, for the expensive lane (QUERY_EXPENSIVE_FACET_BUCKETS):
 * a term facet's bucket count, a range facet's count or its number of bands, and a date
 * histogram's count or, when it asks for every period, MAX_BUCKET_COUNT.
 */
export function facetBucketsAsked(facets: readonly FacetRequest[]): number {
  let buckets = 0;
  for (const facet of facets) {
    if (facet.kind === 'term') buckets += facet.bucketCount;
    else if (facet.kind === 'ranges') buckets += facet.bucketCount ?? facet.ranges.length;
    else buckets += facet.bucketCount ?? MAX_BUCKET_COUNT;
  }
  return buckets;
}
