/**
 * OpenSearch URL parameters → SearchQuery fragments and paging, for CSW `mode=opensearch`, the
 * CSW 3.0 KVP shortcuts (q, bbox, recordIds, time) and the EO parameters. Pure.
 *
 * The description document's templates name each URL parameter (see ./capabilities.ts); the
 * qualified template names (`searchTerms`, `geo:box`, `count`, …) are accepted as URL
 * parameters too. Names are case-insensitive (the keys given here are lower-cased); unknown
 * names are ignored, as OpenSearch asks. Errors name the parameter as the client wrote it.
 */
import { InvalidParameterError } from '../../../../shared/errors/index.js';
import {
  EO_PARAMETERS,
  parseOpenSearchParameters,
  type OpenSearchQueryFragment,
} from '../../../../shared/query/opensearch/index.js';
import { resolveAxisOrder } from '../../../../shared/query/fes/index.js';

/** Lower-cased URL parameter name → OpenSearch template parameter name. */
const URL_PARAMETERS: ReadonlyMap<string, string> = new Map([
  ['q', 'searchTerms'],
  ['searchterms', 'searchTerms'],
  ['bbox', 'geo:box'],
  ['box', 'geo:box'],
  ['geo:box', 'geo:box'],
  ['geometry', 'geo:geometry'],
  ['geo:geometry', 'geo:geometry'],
  ['recordids', 'geo:uid'],
  ['uid', 'geo:uid'],
  ['geo:uid', 'geo:uid'],
  ['lat', 'geo:lat'],
  ['geo:lat', 'geo:lat'],
  ['lon', 'geo:lon'],
  ['geo:lon', 'geo:lon'],
  ['radius', 'geo:radius'],
  ['geo:radius', 'geo:radius'],
  ['relation', 'geo:relation'],
  ['geo:relation', 'geo:relation'],
  ['start', 'time:start'],
  ['time:start', 'time:start'],
  ['end', 'time:end'],
  ['stop', 'time:end'],
  ['time:end', 'time:end'],
  ['timerelation', 'time:relation'],
  ['time:relation', 'time:relation'],
  ...EO_PARAMETERS.map(({ parameter }): [string, string] => [parameter.toLowerCase(), parameter]),
]);

/** The URL names the description document's templates use, by template parameter. */
export const TEMPLATE_URL_NAMES: Readonly<Record<string, string>> = {
  searchTerms: 'q',
  count: 'maxRecords',
  startIndex: 'startPosition',
  startPage: 'startPage',
  'geo:box': 'bbox',
  'geo:geometry': 'geometry',
  'geo:uid': 'recordIds',
  'geo:lat': 'lat',
  'geo:lon': 'lon',
  'geo:radius': 'radius',
  'geo:relation': 'relation',
  'time:start': 'start',
  'time:end': 'end',
  'time:relation': 'timeRelation',
  ...Object.fromEntries(EO_PARAMETERS.map(({ parameter }) => [parameter, parameter])),
};

/** Parameters of an OpenSearch search as the response echoes them (os:Query, paging links). */
export interface OpenSearchEcho {
  /** Template parameter name → value, for `os:Query role="request"`. */
  parameters: Record<string, string>;
  /** The request's own query parameters, in order, as written (for paging links). */
  query: [string, string][];
}

/** The search part of an OpenSearch request. */
export interface OpenSearchSearch {
  fragment: OpenSearchQueryFragment;
  /** Template parameter name → value of each search parameter given. */
  parameters: Record<string, string>;
}

const CRS84_URIS =
  /^(urn:ogc:def:crs:ogc:(1\.3)?:crs84|https?:\/\/www\.opengis\.net\/def\/crs\/ogc\/1\.3\/crs84)$/i;

/**
 * Reads `bbox=minx,miny,maxx,maxy[,crs]` (CSW 3.0 Table 6): CRS84 longitude/latitude without a
 * CRS; `urn:ogc:def:crs:EPSG::4326` (and its URI forms) in latitude/longitude order. Returns
 * the box as CRS84 `west,south,east,north` text for the geo:box reader.
 */
export function normaliseBboxParameter(value: string, name: string): string {
  const parts = value.split(',').map((part) => part.trim());
  const crs = parts[4];
  if (parts.length !== 5 || crs === undefined) return value;
  let order: 'lon-lat' | 'lat-lon';
  try {
    order = CRS84_URIS.test(crs) ? 'lon-lat' : resolveAxisOrder(crs);
  } catch {
    throw new InvalidParameterError(
      name,
      `${name}: unsupported CRS "${crs}"; use CRS84 (the default) or EPSG:4326`,
    );
  }
  const [a, b, c, d] = parts;
  return (order === 'lat-lon' ? [b, a, d, c] : [a, b, c, d]).join(',');
}

/** Splits `time=start/end` (either end may be empty or `..`) into time:start and time:end. */
function splitTime(value: string, name: string): [string | undefined, string | undefined] {
  const parts = value.split('/');
  if (parts.length > 2) throw new InvalidParameterError(name, `${name} has more than one "/"`);
  const open = (text: string | undefined): string | undefined =>
    text === undefined || text.trim() === '' || text.trim() === '..' ? undefined : text.trim();
  if (parts.length === 1) return [open(parts[0]), open(parts[0])];
  return [open(parts[0]), open(parts[1])];
}

/**
 * Parses the search parameters of an OpenSearch-style request (keys lower-cased) into the
 * text, spatial, temporal, ids and EO filter parts of a SearchQuery. `time=start/end` is read
 * as time:start and time:end; a bbox may carry a CRS. `spelling` maps lower-cased names to the
 * names as the client wrote them, for error locators.
 */
export function parseOpenSearchSearch(
  kvp: Readonly<Record<string, string>>,
  spelling: Readonly<Record<string, string>> = {},
): OpenSearchSearch {
  const params: Record<string, string> = {};
  const written: Record<string, string> = {};
  for (const [key, value] of Object.entries(kvp)) {
    const template = URL_PARAMETERS.get(key);
    if (template === undefined || value.trim() === '') continue;
    if (params[template] !== undefined && params[template] !== value) {
      throw new InvalidParameterError(key, `"${written[template]}" and "${key}" are both given`);
    }
    const name = spelling[key] ?? key;
    params[template] = template === 'geo:box' ? normaliseBboxParameter(value, name) : value;
    written[template] = name;
  }
  const time = kvp.time;
  if (time !== undefined && time.trim() !== '') {
    const [start, end] = splitTime(time, 'time');
    if (params['time:start'] !== undefined || params['time:end'] !== undefined) {
      throw new InvalidParameterError('time', 'Give either time or start/end, not both');
    }
    if (start !== undefined) params['time:start'] = start;
    if (end !== undefined) params['time:end'] = end;
    if (start !== undefined) written['time:start'] = 'time';
    if (end !== undefined) written['time:end'] = 'time';
  }
  try {
    const fragment = parseOpenSearchParameters(params);
    return { fragment, parameters: params };
  } catch (error) {
    if (error instanceof InvalidParameterError && error.locator !== undefined) {
      const locator = written[error.locator] ?? error.locator;
      throw new InvalidParameterError(locator, error.message.split(error.locator).join(locator));
    }
    throw error;
  }
}

/** Paging of an OpenSearch-style request, 1-based. */
export interface OpenSearchPaging {
  startPosition: number;
  maxRecords: number;
  /** Template parameter name → value, for os:Query. */
  parameters: Record<string, string>;
}

function parseCount(value: string, name: string): number {
  if (!/^\+?\d{1,15}$/.test(value.trim())) {
    throw new InvalidParameterError(name, `${name} must be a non-negative integer, got "${value}"`);
  }
  return Number(value);
}

/**
 * Reads page size and start (`maxRecords`/`count`, `startPosition`/`startIndex`, `startPage`);
 * startIndex wins over startPage (CEOS-BP-007). A size above `maxLimit` is clamped; `0` asks
 * for counts only.
 */
export function parseOpenSearchPaging(
  kvp: Readonly<Record<string, string>>,
  limits: { defaultLimit: number; maxLimit: number },
): OpenSearchPaging {
  const pick = (...names: string[]): [string, string] | undefined => {
    const found: [string, string][] = [];
    for (const name of names) {
      const value = kvp[name];
      if (value !== undefined && value.trim() !== '') found.push([name, value]);
    }
    const [first, second] = found;
    if (first === undefined) return undefined;
    if (second !== undefined && new Set(found.map(([, value]) => value)).size > 1) {
      throw new InvalidParameterError(second[0], `"${first[0]}" and "${second[0]}" are both given`);
    }
    return first;
  };
  const parameters: Record<string, string> = {};
  const size = pick('maxrecords', 'count');
  let maxRecords = limits.defaultLimit;
  if (size !== undefined) {
    const [name, value] = size;
    maxRecords =
      value.trim() === 'unlimited' && name === 'maxrecords'
        ? limits.maxLimit
        : Math.min(parseCount(value, name === 'count' ? 'count' : 'maxRecords'), limits.maxLimit);
    parameters.count = String(maxRecords);
  }
  let startPosition = 1;
  const start = pick('startposition', 'startindex');
  if (start !== undefined) {
    const [name, value] = start;
    const locator = name === 'startindex' ? 'startIndex' : 'startPosition';
    startPosition = parseCount(value, locator);
    if (startPosition < 1) throw new InvalidParameterError(locator, `${locator} must be 1 or more`);
    parameters.startIndex = String(startPosition);
  } else if (kvp.startpage !== undefined && kvp.startpage.trim() !== '') {
    const page = parseCount(kvp.startpage, 'startPage');
    if (page < 1) throw new InvalidParameterError('startPage', 'startPage must be 1 or more');
    startPosition = (page - 1) * maxRecords + 1;
    parameters.startPage = String(page);
  }
  if (!Number.isSafeInteger(startPosition + maxRecords)) {
    throw new InvalidParameterError('startPosition', 'startPosition is too large');
  }
  return { startPosition, maxRecords, parameters };
}
