/**
 * STAC API item search request parsing: GET query parameters or a POST JSON body →
 * SearchQuery, field selection and paging. Pure. Every invalid value is an
 * InvalidParameterError (400) naming the parameter.
 */
import type { Geometry, Position } from 'geojson';
import {
  FilterError,
  InvalidParameterError,
  UnknownParameterError,
} from '../../../../shared/errors/index.js';
import { parseCql2Json, parseCql2Text } from '../../../../shared/query/cql2/index.js';
import type { Expression } from '../../../../shared/query/filter-ast.js';
import { checkFilter } from '../../../../shared/query/check-filter.js';
import type { CheckedFilter } from '../../../../shared/query/checked-filter.js';
import { findPositionFault, snapGeometry } from '../../../../shared/query/crs84.js';
import type { QueryLimits } from '../../../../shared/query/query-limits.js';
import {
  parseBbox,
  parseDatetime,
  parseLimit,
  parseList,
  parseOffset,
  resolveSortKey,
} from '../../../../shared/query/params.js';
import type { SearchQuery, SortKey } from '../../../../shared/query/search-query.js';
import type { Bbox } from '../../../../shared/records/core-record.js';

export type SearchMethod = 'GET' | 'POST';

export interface SearchLimits {
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

/**
 * Which members of each item to return (Fields extension). `base` says what a path no rule
 * covers does: `default` keeps only the default set, `full` keeps everything.
 */
export interface FieldsSelection {
  base: 'default' | 'full';
  /** The default set `base: 'default'` keeps (absent: an item's, DEFAULT_FIELDS). */
  defaults?: readonly string[];
  include: string[];
  exclude: string[];
}

export interface StacSearch {
  query: SearchQuery;
  /** Absent: whole items. */
  fields?: FieldsSelection;
}

/** The members of a search, as GET parameters and POST body members alike, in documented order. */
export const SEARCH_PARAMETER_NAMES = [
  'bbox',
  'intersects',
  'datetime',
  'ids',
  'collections',
  'limit',
  'q',
  'filter',
  'filter-lang',
  'filter-crs',
  'sortby',
  'fields',
  'token',
] as const;
export type SearchParameterName = (typeof SEARCH_PARAMETER_NAMES)[number];

/** The members of a search, as GET parameters and POST body members alike. */
export const SEARCH_PARAMETERS: ReadonlySet<string> = new Set(SEARCH_PARAMETER_NAMES);

/** The filter encodings a search reads (`filter-lang`); GET defaults to the first. */
export const STAC_FILTER_LANGUAGES = ['cql2-text', 'cql2-json'] as const;

/**
 * The parameters of `GET /stac/collections`: paging, and the Collection Search extension's
 * `bbox`, `datetime`, free text, filter, sort and fields.
 */
export const COLLECTIONS_PARAMETER_NAMES = [
  'bbox',
  'datetime',
  'limit',
  'offset',
  'q',
  'filter',
  'filter-lang',
  'filter-crs',
  'sortby',
  'fields',
  'lang',
] as const;

const CRS84 = new Set([
  'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  'https://www.opengis.net/def/crs/OGC/1.3/CRS84',
  'urn:ogc:def:crs:OGC:1.3:CRS84',
  '[OGC:CRS84]',
]);

/** The default field set: what keeps an item a valid STAC Item (Fields extension). */
export const DEFAULT_FIELDS: readonly string[] = [
  'type',
  'stac_version',
  'id',
  'geometry',
  'bbox',
  'links',
  'assets',
  'collection',
  'properties.datetime',
  'properties.start_datetime',
  'properties.end_datetime',
];

/** The default field set of a collection: what keeps it a valid STAC Collection. */
export const COLLECTION_DEFAULT_FIELDS: readonly string[] = [
  'type',
  'stac_version',
  'id',
  'description',
  'license',
  'extent',
  'links',
];

/** Top-level members of a STAC Item; any other bare field name is a property. */
const ITEM_MEMBERS = new Set([
  'type',
  'stac_version',
  'stac_extensions',
  'id',
  'geometry',
  'bbox',
  'properties',
  'links',
  'assets',
  'collection',
]);

const MAX_GEOMETRY_DEPTH = 8;

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function fail(name: string, message: string): never {
  throw new InvalidParameterError(name, message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads a list member: a comma-separated string in GET, an array of strings in POST (where a
 * single string is accepted too, as some clients send one).
 */
export function extractStringList(
  value: unknown,
  name: string,
  method: SearchMethod,
): string[] | undefined {
  if (value === undefined) return undefined;
  let items: string[];
  if (typeof value === 'string') {
    items = parseList(value);
  } else if (
    method === 'POST' &&
    Array.isArray(value) &&
    value.every((item) => typeof item === 'string')
  ) {
    items = value.map((item) => item.trim()).filter((item) => item !== '');
  } else {
    fail(
      name,
      method === 'GET'
        ? `${name} must be a comma-separated list`
        : `${name} must be an array of strings, got ${describe(value)}`,
    );
  }
  return items.length > 0 ? items : undefined;
}

/** Reads `limit`: a positive integer; larger than the maximum gives the maximum. */
export function extractLimit(value: unknown, method: SearchMethod, limits: SearchLimits): number {
  if (value === undefined) return limits.defaultLimit;
  if (method === 'GET' && typeof value === 'string') {
    return parseLimit(value, limits.defaultLimit, limits.maxLimit);
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    fail('limit', `limit must be a positive integer, got ${describe(value)}`);
  }
  if (value < 1) fail('limit', 'limit must be at least 1');
  return Math.min(value, limits.maxLimit);
}

/** Reads `bbox`: 4 or 6 numbers (comma-separated in GET, an array in POST). */
export function extractBbox(value: unknown, method: SearchMethod): Bbox | undefined {
  if (value === undefined) return undefined;
  if (method === 'GET' && typeof value === 'string') return parseBbox(value);
  if (
    method === 'POST' &&
    Array.isArray(value) &&
    value.every((item) => typeof item === 'number' && Number.isFinite(item))
  ) {
    return parseBbox(value.map(String).join(','));
  }
  return fail(
    'bbox',
    method === 'GET'
      ? 'bbox must be 4 or 6 comma-separated numbers'
      : `bbox must be an array of 4 or 6 numbers, got ${describe(value)}`,
  );
}

function checkPosition(value: unknown, path: string): Position {
  const fault = findPositionFault(value, 2, 3);
  if (fault === 'shape') {
    fail('intersects', `intersects: ${path} must be a position of 2 or 3 numbers`);
  }
  if (fault === 'range') {
    fail('intersects', `intersects: ${path} is outside CRS84 (longitude ±180, latitude ±90)`);
  }
  return value as Position;
}

function checkArray(value: unknown, path: string, min: number): unknown[] {
  if (!Array.isArray(value) || value.length < min) {
    fail('intersects', `intersects: ${path} must be an array of at least ${min} item(s)`);
  }
  return value;
}

function checkLine(value: unknown, path: string, min: number): void {
  checkArray(value, path, min).forEach((position, index) =>
    checkPosition(position, `${path}[${index}]`),
  );
}

function checkRing(value: unknown, path: string): void {
  checkLine(value, path, 4);
  const ring = value as number[][];
  const [first, last] = [ring[0], ring[ring.length - 1]];
  if (!first || !last || first.length !== last.length || first.some((n, i) => n !== last[i])) {
    fail('intersects', `intersects: ${path} is not a closed linear ring`);
  }
}

function checkPolygon(value: unknown, path: string): void {
  checkArray(value, path, 1).forEach((ring, index) => checkRing(ring, `${path}[${index}]`));
}

/** Checks a GeoJSON geometry object (RFC 7946) of any type, with CRS84 coordinates. */
export function checkGeometry(value: unknown, path = 'geometry', depth = 0): Geometry {
  if (!isObject(value) || typeof value.type !== 'string') {
    fail('intersects', `intersects: ${path} must be a GeoJSON geometry object`);
  }
  const coordinates = value.coordinates;
  const at = `${path}.coordinates`;
  switch (value.type) {
    case 'Point':
      checkPosition(coordinates, at);
      break;
    case 'MultiPoint':
      checkLine(coordinates, at, 1);
      break;
    case 'LineString':
      checkLine(coordinates, at, 2);
      break;
    case 'MultiLineString':
      checkArray(coordinates, at, 1).forEach((line, i) => checkLine(line, `${at}[${i}]`, 2));
      break;
    case 'Polygon':
      checkPolygon(coordinates, at);
      break;
    case 'MultiPolygon':
      checkArray(coordinates, at, 1).forEach((polygon, i) => checkPolygon(polygon, `${at}[${i}]`));
      break;
    case 'GeometryCollection': {
      if (depth >= MAX_GEOMETRY_DEPTH) fail('intersects', 'intersects: nested too deeply');
      const members = checkArray(value.geometries, `${path}.geometries`, 1);
      const geometries = members.map((member, i) =>
        checkGeometry(member, `${path}.geometries[${i}]`, depth + 1),
      );
      return { type: 'GeometryCollection', geometries };
    }
    default:
      fail('intersects', `intersects: "${value.type}" is not a GeoJSON geometry type`);
  }
  // Positions within the tolerance beyond a CRS84 bound are read as the bound.
  return snapGeometry({ type: value.type, coordinates } as Geometry);
}

/** Reads `intersects`: a GeoJSON geometry (an object in POST, JSON text in GET). */
export function extractIntersects(value: unknown, method: SearchMethod): Geometry | undefined {
  if (value === undefined) return undefined;
  let geometry: unknown = value;
  if (method === 'GET') {
    if (typeof value !== 'string') fail('intersects', 'intersects must be given once');
    try {
      geometry = JSON.parse(value);
    } catch {
      fail('intersects', 'intersects must be a GeoJSON geometry in JSON');
    }
  }
  return checkGeometry(geometry);
}

/** Reads `datetime`: an RFC 3339 instant or interval with at most one open end. */
export function extractDatetime(value: unknown): SearchQuery['temporal'] {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail('datetime', 'datetime must be a string');
  return { ...parseDatetime(value.toUpperCase()), relation: 'intersects' };
}

/** Reads `q` (Free-text extension): GET comma-separated terms; POST a string or an array. */
export function extractFreeText(value: unknown, method: SearchMethod): string[][] | undefined {
  if (value === undefined) return undefined;
  let terms: string[];
  if (typeof value === 'string') terms = value.split(',');
  else if (
    method === 'POST' &&
    Array.isArray(value) &&
    value.every((item) => typeof item === 'string')
  ) {
    terms = value;
  } else {
    return fail('q', `q must be a string or an array of strings, got ${describe(value)}`);
  }
  const words = terms
    .map((term) => term.split(/\s+/).filter((word) => word !== ''))
    .filter((term) => term.length > 0);
  return words.length > 0 ? words : undefined;
}

/** A STAC field or property name without the optional `properties.` prefix. */
export function stripPropertiesPrefix(name: string): string {
  return name.startsWith('properties.') ? name.slice('properties.'.length) : name;
}

/** Rewrites property names in a filter tree: `properties.x` → `x`. */
function normaliseFilterNames(expression: Expression): Expression {
  switch (expression.kind) {
    case 'property':
      return { kind: 'property', name: stripPropertiesPrefix(expression.name) };
    case 'op':
      return { ...expression, args: expression.args.map(normaliseFilterNames) };
    case 'array':
      return { ...expression, items: expression.items.map(normaliseFilterNames) };
    case 'interval':
      return {
        ...expression,
        start: normaliseFilterNames(expression.start),
        end: normaliseFilterNames(expression.end),
      };
    default:
      return expression;
  }
}

/**
 * Accepts the pre-1.0 CQL2 JSON `between` (`[value, [low, high]]`) that clients such as
 * stac-api-validator still send, as the 1.0 form (`[value, low, high]`).
 */
export function upgradeLegacyCql2Json(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(upgradeLegacyCql2Json);
  if (!isObject(value)) return value;
  const upgraded = Object.fromEntries(
    Object.entries(value).map(([key, member]) => [key, upgradeLegacyCql2Json(member)]),
  );
  const args = upgraded.args;
  if (
    upgraded.op === 'between' &&
    Array.isArray(args) &&
    args.length === 2 &&
    Array.isArray(args[1]) &&
    args[1].length === 2
  ) {
    upgraded.args = [args[0], ...(args[1] as unknown[])];
  }
  return upgraded;
}

function parseFilterValue(
  value: unknown,
  language: string,
  method: SearchMethod,
  limits?: QueryLimits,
): Expression {
  if (language === 'cql2-text') {
    if (typeof value !== 'string') fail('filter', 'filter in cql2-text must be a string');
    return parseCql2Text(value, limits);
  }
  let json = value;
  if (method === 'GET') {
    try {
      json = JSON.parse(value as string);
    } catch {
      fail('filter', 'filter in cql2-json must be JSON');
    }
  }
  return parseCql2Json(upgradeLegacyCql2Json(json), limits);
}

/**
 * Reads `filter` with `filter-lang` (default cql2-text for GET, cql2-json for POST) and
 * `filter-crs` (CRS84 only).
 */
export function extractFilter(
  filter: unknown,
  language: unknown,
  crs: unknown,
  method: SearchMethod,
  limits?: QueryLimits,
): Expression | undefined {
  if (language !== undefined && !(STAC_FILTER_LANGUAGES as readonly unknown[]).includes(language)) {
    fail(
      'filter-lang',
      `filter-lang ${describe(language)} is not supported: use ${STAC_FILTER_LANGUAGES.join(' or ')}`,
    );
  }
  if (crs !== undefined && (typeof crs !== 'string' || !CRS84.has(crs))) {
    fail('filter-crs', `filter-crs ${describe(crs)} is not supported: use CRS84`);
  }
  if (filter === undefined) return undefined;
  const lang = (language as string | undefined) ?? (method === 'GET' ? 'cql2-text' : 'cql2-json');
  try {
    return normaliseFilterNames(parseFilterValue(filter, lang, method, limits));
  } catch (error) {
    if (error instanceof FilterError) throw new FilterError(`filter: ${error.message}`);
    if (error instanceof RangeError) throw new FilterError('filter: nested too deeply');
    throw error;
  }
}

function sortKey(
  field: unknown,
  direction: unknown,
  sortable: ReadonlySet<string> | undefined,
): SortKey {
  if (typeof field !== 'string' || field.trim() === '') {
    fail('sortby', `sortby field must be a non-empty string, got ${describe(field)}`);
  }
  if (direction !== undefined && direction !== 'asc' && direction !== 'desc') {
    fail('sortby', `sortby direction must be "asc" or "desc", got ${describe(direction)}`);
  }
  const name = stripPropertiesPrefix(field.trim());
  return resolveSortKey(name, direction === 'desc' ? 'desc' : 'asc', sortable);
}

/**
 * Reads `sortby`: GET `+a,-b`; POST `[{field, direction}]` (the GET form is accepted too). A
 * field is a sortable core queryable or a sortable property learned from the records
 * (`sortable`), with or without `properties.`.
 */
export function extractSortby(
  value: unknown,
  method: SearchMethod,
  sortable?: ReadonlySet<string>,
): SortKey[] {
  if (value === undefined) return [];
  if (typeof value === 'string') {
    return parseList(value).map((part) => {
      const descending = part.startsWith('-');
      return sortKey(part.replace(/^[+-]/, ''), descending ? 'desc' : 'asc', sortable);
    });
  }
  if (method === 'POST' && Array.isArray(value)) {
    return value.map((item) => {
      if (!isObject(item)) fail('sortby', 'sortby must be an array of {field, direction}');
      const unknown = Object.keys(item).find((key) => key !== 'field' && key !== 'direction');
      if (unknown) fail('sortby', `sortby: unknown member "${unknown}"`);
      return sortKey(item.field, item.direction, sortable);
    });
  }
  return fail('sortby', `sortby must be a list of fields, got ${describe(value)}`);
}

/** A field name as a path in the item: bare property names gain `properties.`. */
export function normaliseFieldPath(name: string): string {
  const root = name.split('.')[0];
  return root !== undefined && ITEM_MEMBERS.has(root) ? name : `properties.${name}`;
}

function fieldNames(value: unknown, name: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    fail('fields', `fields.${name} must be an array of strings`);
  }
  return value
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map(normaliseFieldPath);
}

/**
 * Reads `fields`. GET: comma-separated names, `-` excludes, `+` or nothing includes. POST:
 * `{include, exclude}`. Empty: the default set. Only includes: default set plus those. Only
 * excludes: the whole item minus those (POST with `include: []` or null: the default set minus
 * those). Both: the default set plus includes, minus excludes; the most specific path wins.
 */
export function extractFields(value: unknown, method: SearchMethod): FieldsSelection | undefined {
  if (value === undefined) return undefined;
  if (method === 'GET') {
    if (typeof value !== 'string') fail('fields', 'fields must be given once');
    const include: string[] = [];
    const exclude: string[] = [];
    for (const part of parseList(value)) {
      const name = part.replace(/^[+-]/, '').trim();
      if (name === '') continue;
      (part.startsWith('-') ? exclude : include).push(normaliseFieldPath(name));
    }
    const base = include.length === 0 && exclude.length > 0 ? 'full' : 'default';
    return { base, include, exclude };
  }
  if (!isObject(value)) fail('fields', `fields must be an object {include, exclude}`);
  const unknown = Object.keys(value).find((key) => key !== 'include' && key !== 'exclude');
  if (unknown) fail('fields', `fields: unknown member "${unknown}"`);
  const include = fieldNames(value.include, 'include');
  const exclude = fieldNames(value.exclude, 'exclude') ?? [];
  const base = !('include' in value) && exclude.length > 0 ? 'full' : 'default';
  return { base, include: include ?? [], exclude };
}

/** Encodes a page position as an opaque `token`. */
export function encodePageToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset }), 'utf8').toString('base64url');
}

/** Decodes a `token` from a `next` or `prev` link into an offset. */
export function decodePageToken(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(value)) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
      const offset = isObject(decoded) ? decoded.offset : undefined;
      if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return offset;
    } catch {
      // falls through to the error below
    }
  }
  return fail('token', 'token is not a paging token issued by this server');
}

/** Builds a search from its members, shared by GET and POST. */
function buildSearch(
  members: Record<string, unknown>,
  method: SearchMethod,
  limits: SearchLimits,
): StacSearch {
  const query: SearchQuery = {
    sort: extractSortby(members.sortby, method, limits.sortable),
    offset: decodePageToken(members.token),
    limit: extractLimit(members.limit, method, limits),
  };
  const bbox = extractBbox(members.bbox, method);
  const intersects = extractIntersects(members.intersects, method);
  if (bbox && intersects) {
    fail('intersects', 'bbox and intersects cannot be used together; give one of them');
  }
  if (bbox) query.spatial = { bbox, relation: 'intersects' };
  if (intersects) query.spatial = { geometry: intersects, relation: 'intersects' };
  const temporal = extractDatetime(members.datetime);
  if (temporal) query.temporal = temporal;
  const ids = extractStringList(members.ids, 'ids', method);
  if (ids) query.ids = ids;
  const collections = extractStringList(members.collections, 'collections', method);
  if (collections) query.collections = collections;
  const text = extractFreeText(members.q, method);
  if (text) query.text = text;
  const filter = extractFilter(
    members.filter,
    members['filter-lang'],
    members['filter-crs'],
    method,
    limits.query,
  );
  if (filter) query.filter = checkFilter(filter, limits.query, limits.properties);
  const fields = extractFields(members.fields, method);
  return fields ? { query, fields } : { query };
}

/** Parses the query parameters of `GET /search`. Unknown or repeated parameters are refused. */
export function parseSearchGet(
  parameters: Record<string, unknown>,
  limits: SearchLimits,
): StacSearch {
  for (const [name, value] of Object.entries(parameters)) {
    if (!SEARCH_PARAMETERS.has(name)) throw new UnknownParameterError(name);
    if (typeof value !== 'string') fail(name, `Parameter "${name}" must be given once`);
    // Comma-separated lists: an empty value is refused, as the OpenAPI document says.
    if (value === '' && (name === 'ids' || name === 'collections')) {
      fail(name, `Invalid parameter ${name}=: ${name} must not be empty`);
    }
  }
  return buildSearch(parameters, 'GET', limits);
}

/**
 * A request of the STAC Collections list (Collection Search extension): the page, and what
 * the collections must match. `text`, `filter` and `sort` apply to the collection records;
 * `bbox` and `datetime` to the extents the collections are served with.
 */
export interface CollectionSearch {
  offset: number;
  limit: number;
  bbox?: Bbox;
  datetime?: { start: string | null; end: string | null };
  text?: string[][];
  filter?: CheckedFilter;
  sort: SortKey[];
  /** Absent: whole collections. */
  fields?: FieldsSelection;
}

/** Whether a collections request narrows the list (any parameter but paging, sort and fields). */
export function isCollectionSearch(search: CollectionSearch): boolean {
  return (
    search.bbox !== undefined ||
    search.datetime !== undefined ||
    search.text !== undefined ||
    search.filter !== undefined
  );
}

/**
 * Reads `fields` of the collections list: comma-separated member paths (no `properties.`
 * prefix: a collection has none), `-` excludes. Includes only: the default set
 * (COLLECTION_DEFAULT_FIELDS) plus those; excludes only: the whole collection minus those.
 */
export function extractCollectionFields(value: unknown): FieldsSelection | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail('fields', 'fields must be given once');
  const include: string[] = [];
  const exclude: string[] = [];
  for (const part of parseList(value)) {
    const name = part.replace(/^[+-]/, '').trim();
    if (name === '') continue;
    (part.startsWith('-') ? exclude : include).push(name);
  }
  const base = include.length === 0 && exclude.length > 0 ? 'full' : 'default';
  return { base, defaults: COLLECTION_DEFAULT_FIELDS, include, exclude };
}

/**
 * Parses `GET /stac/collections`: `limit` and `offset`, and the Collection Search parameters
 * (`bbox`, `datetime`, `q`, `filter` with `filter-lang` and `filter-crs`, `sortby`, `fields`),
 * each read as the item search reads it, and `lang` (the language the collections are shown
 * in, which the route negotiates). Unknown or repeated parameters are refused.
 */
export function parseCollectionsQuery(
  parameters: Record<string, unknown>,
  limits: SearchLimits,
): CollectionSearch {
  for (const [name, value] of Object.entries(parameters)) {
    if (!(COLLECTIONS_PARAMETER_NAMES as readonly string[]).includes(name)) {
      throw new UnknownParameterError(name);
    }
    if (typeof value !== 'string') fail(name, `Parameter "${name}" must be given once`);
  }
  const search: CollectionSearch = {
    offset: parseOffset(parameters.offset as string | undefined),
    limit: parseLimit(parameters.limit as string | undefined, limits.defaultLimit, limits.maxLimit),
    sort: extractSortby(parameters.sortby, 'GET', limits.sortable),
  };
  const bbox = extractBbox(parameters.bbox, 'GET');
  if (bbox) search.bbox = bbox;
  const temporal = extractDatetime(parameters.datetime);
  if (temporal) search.datetime = { start: temporal.start, end: temporal.end };
  const text = extractFreeText(parameters.q, 'GET');
  if (text) search.text = text;
  const filter = extractFilter(
    parameters.filter,
    parameters['filter-lang'],
    parameters['filter-crs'],
    'GET',
    limits.query,
  );
  if (filter) search.filter = checkFilter(filter, limits.query, limits.properties);
  const fields = extractCollectionFields(parameters.fields);
  if (fields) search.fields = fields;
  return search;
}

/**
 * Parses `GET /stac/collections/{id}/items` (STAC API Features): the item search parameters,
 * restricted to the collection's items — the records naming it as parent, or every record for
 * the catalogue collection. A `collections` parameter (pystac-client repeats the collection
 * there) may only name this collection.
 */
export function parseCollectionItemsGet(
  parameters: Record<string, unknown>,
  collectionId: string,
  catalogueId: string,
  limits: SearchLimits,
): StacSearch {
  const search = parseSearchGet(parameters, limits);
  const named = search.query.collections;
  if (named && named.some((name) => name !== collectionId)) {
    fail('collections', `collections may only name "${collectionId}" on its items`);
  }
  const query = { ...search.query };
  delete query.collections;
  if (collectionId !== catalogueId) query.collections = [collectionId];
  return { ...search, query };
}

/** Parses the JSON body of `POST /search`. Unknown or null members are refused. */
export function parseSearchPost(body: unknown, limits: SearchLimits): StacSearch {
  if (body === undefined) return buildSearch({}, 'POST', limits);
  if (!isObject(body)) fail('body', 'The search body must be a JSON object');
  for (const [name, value] of Object.entries(body)) {
    if (!SEARCH_PARAMETERS.has(name)) fail(name, `Unknown search member "${name}"`);
    if (value === null) fail(name, `${name} must not be null; leave it out instead`);
  }
  return buildSearch(body, 'POST', limits);
}

/**
 * True when a request for one record asks for a STAC Item: `f=stac`, or an Accept header
 * naming GeoJSON with a `profile` that mentions STAC.
 */
export function isStacItemRequest(format: unknown, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'stac';
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [mediaType, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    return (
      mediaType === 'application/geo+json' &&
      parameters.some((parameter) => parameter.startsWith('profile=') && parameter.includes('stac'))
    );
  });
}
