/**
 * OGC API – Records request parsing: query parameters → SearchQuery. Pure.
 */
import { InvalidParameterError, UnknownParameterError } from '../../../../shared/errors/index.js';
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
]);

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

/** Parses an items request's query parameters into a SearchQuery. */
export function parseItemsQuery(query: QueryParameters, limits: ItemsLimits): SearchQuery {
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
