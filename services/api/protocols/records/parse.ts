/**
 * OGC API – Records request parsing: query parameters → SearchQuery. Pure.
 */
import {
  FilterError,
  InvalidParameterError,
  UnknownParameterError,
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
    return parseCql2Json(body.json);
  }
  if (text === undefined) return undefined;
  if (language === 'cql2-json') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new FilterError(`filter is not valid JSON: ${(error as Error).message}`);
    }
    return parseCql2Json(json);
  }
  return parseCql2Text(text);
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
  const filter = parseFilterParameters(query, body);
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
