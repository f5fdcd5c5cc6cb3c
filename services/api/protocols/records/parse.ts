/**
 * OGC API – Records request parsing: query parameters → SearchQuery. Pure.
 */
import type { QueryLimits } from '../../../../shared/query/query-limits.js';
import {
  FilterError,
  InvalidParameterError,
  UnknownParameterError,
  UnsupportedFormatError,
} from '../../../../shared/errors/index.js';
import { parseCql2Json, parseCql2Text } from '../../../../shared/query/cql2/index.js';
import type { Expression } from '../../../../shared/query/filter-ast.js';
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

export type QueryParameters = Record<string, unknown>;

export interface ItemsLimits {
  defaultLimit: number;
  maxLimit: number;
  /** Query cost limits: a filter far over them is refused before it is parsed. */
  query?: QueryLimits;
}

/** Parameters the items endpoint understands besides queryable names. */
const ITEMS_PARAMETERS = new Set([
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
]);

/** The filter encodings the items endpoint reads (`filter-lang`). */
export const FILTER_LANGUAGES = ['cql2-text', 'cql2-json'] as const;
export type FilterLanguage = (typeof FILTER_LANGUAGES)[number];

/** A filter sent as the body of `POST …/items`: the CQL2 JSON, already parsed from JSON. */
export interface FilterBody {
  json: unknown;
}

const CRS84 = new Set([
  'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  '[OGC:CRS84]',
  'urn:ogc:def:crs:OGC:1.3:CRS84',
]);

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
export type OutputFormat = 'json' | 'html' | 'xml';

/** Media types that select each encoding through the Accept header. */
const FORMAT_MEDIA_TYPES: Readonly<Record<OutputFormat, readonly string[]>> = {
  json: [
    'application/json',
    'application/geo+json',
    'application/schema+json',
    'application/ogc-catalog+json',
    'application/vnd.oai.openapi+json',
    'application/facets+json',
  ],
  html: ['text/html', 'application/xhtml+xml'],
  xml: ['application/xml', 'text/xml'],
};

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  index: number;
}

/** Parses an Accept header into media ranges (invalid parts are skipped). */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  accept.split(',').forEach((part, index) => {
    const [range, ...parameters] = part.split(';').map((item) => item.trim().toLowerCase());
    const match = /^([a-z0-9!#$&^_.+*-]+)\/([a-z0-9!#$&^_.+*-]+)$/.exec(range ?? '');
    if (!match) return;
    const qParameter = parameters.find((item) => item.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    ranges.push({ type: match[1], subtype: match[2], q: Number.isFinite(q) ? q : 0, index });
  });
  return ranges;
}

/** How well one media range matches a media type: 3 exact, 2 type/*, 1 * /*, 0 none. */
function specificity(range: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  if (range.type === type && range.subtype === subtype) return 3;
  if (range.type === type && range.subtype === '*') return 2;
  if (range.type === '*' && range.subtype === '*') return 1;
  return 0;
}

/**
 * Chooses the encoding of a response: `f` when given (it must be one of `offered`, else 400),
 * otherwise the Accept header ranked by quality (text/html → HTML, JSON types → JSON), falling
 * back to the first offered encoding (JSON) when nothing offered is acceptable.
 */
export function parseOutputFormat<T extends OutputFormat>(
  query: QueryParameters,
  accept: string | undefined,
  offered: readonly T[],
): T {
  const f = parseFormatParameter(query);
  if (f !== undefined) {
    if ((offered as readonly string[]).includes(f)) return f as T;
    throw new UnsupportedFormatError(
      `Unsupported format "f=${f}"; supported: ${offered.join(', ')}`,
    );
  }
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  let best: { format: T; q: number; specificity: number; index: number } | undefined;
  for (const format of offered) {
    for (const mediaType of FORMAT_MEDIA_TYPES[format]) {
      // The most specific range that matches decides the quality of this media type.
      let chosen: MediaRange | undefined;
      let chosenSpecificity = 0;
      for (const range of ranges) {
        const score = specificity(range, mediaType);
        if (score > chosenSpecificity) {
          chosen = range;
          chosenSpecificity = score;
        }
      }
      if (!chosen || chosen.q <= 0) continue;
      const better =
        !best ||
        chosen.q > best.q ||
        (chosen.q === best.q && chosenSpecificity > best.specificity) ||
        (chosen.q === best.q &&
          chosenSpecificity === best.specificity &&
          chosen.index < best.index);
      if (better) {
        best = { format, q: chosen.q, specificity: chosenSpecificity, index: chosen.index };
      }
    }
  }
  return best?.format ?? offered[0];
}

/** One facet asked for by `facets`: the property, how many buckets, and their order. */
export interface FacetRequest {
  name: string;
  /** Canonical queryable name the counts are taken from. */
  property: string;
  bucketCount: number;
  sortedBy: 'count_desc' | 'count_asc' | 'value_asc' | 'value_desc';
}

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

/** Buckets per facet unless the request says otherwise, and the most it may ask for. */
export const DEFAULT_BUCKET_COUNT = 10;
export const MAX_BUCKET_COUNT = 100;
const FACET_ORDERS = ['count_desc', 'count_asc', 'value_asc', 'value_desc'] as const;

/**
 * Parses `facets`: a comma-separated list of `property[:bucketCount[:order]]` (Records Part 2
 * syntax), where property is one of FACET_PROPERTIES (by name or alias) and order one of
 * count_desc (default), count_asc, value_asc, value_desc.
 */
export function parseFacetsParameter(value: string): FacetRequest[] {
  const requests: FacetRequest[] = [];
  for (const item of parseList(value)) {
    const [name, count, order, ...rest] = item.split(':');
    const queryable = findQueryable(name);
    if (!queryable || !FACET_PROPERTIES.includes(queryable.name) || rest.length > 0) {
      throw new InvalidParameterError(
        'facets',
        `facets: "${item}" is not a facet; use one of ${FACET_PROPERTIES.join(', ')}, optionally with :bucketCount[:order]`,
      );
    }
    let bucketCount = DEFAULT_BUCKET_COUNT;
    if (count !== undefined && count !== '') {
      if (!/^\d+$/.test(count) || Number(count) < 1) {
        throw new InvalidParameterError(
          'facets',
          `facets: the bucket count of "${name}" must be a positive integer, got "${count}"`,
        );
      }
      bucketCount = Math.min(Number(count), MAX_BUCKET_COUNT);
    }
    if (order !== undefined && !(FACET_ORDERS as readonly string[]).includes(order)) {
      throw new InvalidParameterError(
        'facets',
        `facets: order "${order}" of "${name}" is not one of ${FACET_ORDERS.join(', ')}`,
      );
    }
    if (requests.some((request) => request.name === name)) continue;
    requests.push({
      name,
      property: queryable.name,
      bucketCount,
      sortedBy: (order as FacetRequest['sortedBy'] | undefined) ?? 'count_desc',
    });
  }
  return requests;
}

function parseFilterLanguage(value: string | undefined): FilterLanguage | undefined {
  if (value === undefined) return undefined;
  if ((FILTER_LANGUAGES as readonly string[]).includes(value)) return value as FilterLanguage;
  throw new InvalidParameterError(
    'filter-lang',
    `filter-lang "${value}" is not supported; use ${FILTER_LANGUAGES.join(' or ')}`,
  );
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
  const crs = get('filter-crs');
  if (crs !== undefined && !CRS84.has(crs)) {
    throw new InvalidParameterError(
      'filter-crs',
      `filter-crs "${crs}" is not supported; filters are in CRS84 (http://www.opengis.net/def/crs/OGC/1.3/CRS84)`,
    );
  }
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
    return parseCql2Json(body.json, limits);
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
 * Parses an items request's query parameters (and, for `POST …/items`, its CQL2 JSON body)
 * into a SearchQuery; the filter is ANDed with every other parameter.
 */
export function parseItemsQuery(
  query: QueryParameters,
  limits: ItemsLimits,
  body?: FilterBody,
): SearchQuery {
  const get = (name: string): string | undefined => singleParameter(query, name);
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
  if (q !== undefined) result.text = parseFreeText(q);
  const bbox = get('bbox');
  const bboxCrs = get('bbox-crs');
  if (bboxCrs !== undefined && !CRS84.has(bboxCrs)) {
    throw new InvalidParameterError(
      'bbox-crs',
      `bbox-crs "${bboxCrs}" is not supported; use CRS84`,
    );
  }
  if (bbox !== undefined) result.spatial = { bbox: parseBbox(bbox), relation: 'intersects' };
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
  if (sortby !== undefined) result.sort = parseSortby(sortby);
  const filter = parseFilterParameters(query, body, limits.query);
  if (filter !== undefined) result.filter = filter;

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

/** The facets an items request asks for (none when `facets` is absent or empty). */
export function parseFacetsQuery(query: QueryParameters): FacetRequest[] {
  const value = singleParameter(query, 'facets');
  return value === undefined ? [] : parseFacetsParameter(value);
}
