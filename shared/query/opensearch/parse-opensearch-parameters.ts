/**
 * OpenSearch 1.1 + Geo and Time (OGC 10-032r8) + EO (OGC 13-026r9) template parameters →
 * SearchQuery fragments. The protocol layer maps its URL parameter names onto the qualified
 * template names (`searchTerms`, `geo:box`, `eo:cloudCover`, …) and handles paging and formats;
 * this function handles the search parameters, purely.
 *
 * Decisions:
 * - An empty value means "not given" (OpenSearch clients substitute '' for optional parameters
 *   they have no value for). Names this function does not know are ignored, as OpenSearch asks
 *   (the caller can check them against OPENSEARCH_PARAMETERS).
 * - `searchTerms` follows OGC API – Records `q`: comma-separated alternatives, words ANDed.
 * - `geo:uid` is a comma-separated list of record identifiers (as pycsw and CSW 3 `recordIds`).
 * - `geo:box`, `geo:geometry` and `geo:lat`/`geo:lon` are one spatial constraint; giving two
 *   of them is an error. `geo:lat`/`geo:lon` alone are a point; with `geo:radius` (metres) they
 *   are a circle approximated by a polygon (see circle.ts), not a distance operator, so that
 *   every backend and every `geo:relation` handles it.
 * - `time:start`/`time:end` accept RFC 3339 date-times and dates (a start date is the start of
 *   its day, an end date the end of it); either end may be absent.
 * - The EO parameters become filter expressions on canonical queryable names, ANDed.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { andAll, type Expression } from '../filter-ast.js';
import { checkFilter } from '../check-filter.js';
import { parseBbox, parseDatetime, parseFreeText, parseList } from '../params.js';
import type {
  SearchQuery,
  SpatialConstraint,
  SpatialRelation,
  TemporalConstraint,
  TemporalRelation,
} from '../search-query.js';
import { buildCircleArea, MAX_CIRCLE_RADIUS_METRES } from './circle.js';
import { EO_PARAMETERS } from './eo-parameters.js';
import { DEFAULT_EO_VALUE_LIMITS, parseEoValue } from './parse-eo-value.js';
import { DEFAULT_WKT_LIMITS, parseWkt } from './parse-wkt.js';

/** The parts of a SearchQuery that OpenSearch search parameters fill in. */
export type OpenSearchQueryFragment = Pick<
  SearchQuery,
  'text' | 'spatial' | 'temporal' | 'ids' | 'filter'
>;

/** Limits on OpenSearch parameters; callers take them from configuration. */
export interface OpenSearchLimits {
  /** Maximum positions in a `geo:geometry`. */
  maxVertices: number;
  /** Maximum values in a `geo:uid` list or an EO set / list. */
  maxListValues: number;
  /** Largest accepted `geo:radius`, in metres. */
  maxRadiusMetres: number;
}

/** Default limits. */
export const DEFAULT_OPENSEARCH_LIMITS: Readonly<OpenSearchLimits> = Object.freeze({
  maxVertices: DEFAULT_WKT_LIMITS.maxVertices,
  maxListValues: DEFAULT_EO_VALUE_LIMITS.maxListValues,
  maxRadiusMetres: MAX_CIRCLE_RADIUS_METRES,
});

/** Every template parameter this module understands. */
export const OPENSEARCH_PARAMETERS: readonly string[] = [
  'searchTerms',
  'geo:box',
  'geo:geometry',
  'geo:uid',
  'geo:lat',
  'geo:lon',
  'geo:radius',
  'geo:relation',
  'time:start',
  'time:end',
  'time:relation',
  ...EO_PARAMETERS.map((entry) => entry.parameter),
];

/** `geo:relation` values, the default first. */
export const SPATIAL_RELATIONS: readonly [SpatialRelation, ...SpatialRelation[]] = [
  'intersects',
  'contains',
  'disjoint',
  'within',
  'equals',
];
/** `time:relation` values, the default first. */
export const TEMPORAL_RELATIONS: readonly [TemporalRelation, ...TemporalRelation[]] = [
  'intersects',
  'during',
  'disjoint',
  'equals',
];
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function parseRelation<T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly [T, ...T[]],
): T {
  if (value === undefined) return allowed[0];
  const relation = value.trim().toLowerCase();
  const found = allowed.find((item) => item === relation);
  if (found === undefined) {
    throw new InvalidParameterError(name, `${name} "${value}" is not one of ${allowed.join(', ')}`);
  }
  return found;
}

function parseDecimal(value: string, name: string, min: number, max: number): number {
  const text = value.trim();
  const number = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(number)) {
    throw new InvalidParameterError(name, `${name} "${value}" is not a decimal number`);
  }
  if (number < min || number > max) {
    throw new InvalidParameterError(name, `${name} ${number} is outside ${min}…${max}`);
  }
  return number;
}

type Spatial = Omit<SpatialConstraint, 'relation'>;

function parseCircle(
  get: (name: string) => string | undefined,
  limits: OpenSearchLimits,
): Spatial | undefined {
  const latText = get('geo:lat');
  const lonText = get('geo:lon');
  const radiusText = get('geo:radius');
  if (latText === undefined && lonText === undefined) {
    if (radiusText !== undefined) {
      throw new InvalidParameterError('geo:radius', 'geo:radius needs geo:lat and geo:lon');
    }
    return undefined;
  }
  if (latText === undefined || lonText === undefined) {
    const missing = latText === undefined ? 'geo:lat' : 'geo:lon';
    throw new InvalidParameterError(missing, 'geo:lat and geo:lon must be given together');
  }
  const lat = parseDecimal(latText, 'geo:lat', -90, 90);
  const lon = parseDecimal(lonText, 'geo:lon', -180, 180);
  if (radiusText === undefined) return { geometry: { type: 'Point', coordinates: [lon, lat] } };
  const radius = parseDecimal(radiusText, 'geo:radius', 0, limits.maxRadiusMetres);
  if (radius === 0) return { geometry: { type: 'Point', coordinates: [lon, lat] } };
  return buildCircleArea(lat, lon, radius);
}

function parseSpatial(
  get: (name: string) => string | undefined,
  limits: OpenSearchLimits,
): SpatialConstraint | undefined {
  const candidates: Array<[string, Spatial]> = [];
  const box = get('geo:box');
  if (box !== undefined) candidates.push(['geo:box', { bbox: parseBbox(box, 'geo:box') }]);
  const geometry = get('geo:geometry');
  if (geometry !== undefined) {
    candidates.push([
      'geo:geometry',
      {
        geometry: parseWkt(geometry, 'geo:geometry', {
          maxVertices: limits.maxVertices,
          maxDepth: DEFAULT_WKT_LIMITS.maxDepth,
        }),
      },
    ]);
  }
  const circle = parseCircle(get, limits);
  if (circle !== undefined) candidates.push(['geo:lat', circle]);
  const relation = parseRelation(get('geo:relation'), 'geo:relation', SPATIAL_RELATIONS);
  const [chosen, second] = candidates;
  if (chosen === undefined) return undefined;
  if (second !== undefined) {
    throw new InvalidParameterError(
      second[0],
      `Give only one of geo:box, geo:geometry or geo:lat/geo:lon (got ${candidates.map(([name]) => name).join(' and ')})`,
    );
  }
  return { ...chosen[1], relation };
}

function parseTimeEnd(value: string, name: string, side: 'start' | 'end'): string {
  if (value.includes('/')) {
    throw new InvalidParameterError(name, `${name} is one date or date-time, not an interval`);
  }
  const interval = parseDatetime(value, { allowDates: true, name });
  return (side === 'start' ? interval.start : interval.end) as string;
}

function parseTemporal(get: (name: string) => string | undefined): TemporalConstraint | undefined {
  const startText = get('time:start');
  const endText = get('time:end');
  const relation = parseRelation(get('time:relation'), 'time:relation', TEMPORAL_RELATIONS);
  if (startText === undefined && endText === undefined) return undefined;
  const start = startText === undefined ? null : parseTimeEnd(startText, 'time:start', 'start');
  const end = endText === undefined ? null : parseTimeEnd(endText, 'time:end', 'end');
  if (start !== null && end !== null && start > end) {
    throw new InvalidParameterError(
      'time:start',
      `time:start (${start}) is after time:end (${end})`,
    );
  }
  return { start, end, relation };
}

function parseIds(value: string, limits: OpenSearchLimits): string[] {
  const ids = parseList(value);
  if (ids.length === 0) throw new InvalidParameterError('geo:uid', 'geo:uid names no identifier');
  if (ids.length > limits.maxListValues) {
    throw new InvalidParameterError(
      'geo:uid',
      `geo:uid lists more than ${limits.maxListValues} identifiers`,
    );
  }
  return ids;
}

/**
 * Parses OpenSearch search parameters (keyed by their template names: `searchTerms`, `geo:*`,
 * `time:*`, `eo:*`) into the text, spatial, temporal, ids and filter parts of a SearchQuery.
 * Invalid values throw an InvalidParameterError naming the parameter.
 */
export function parseOpenSearchParameters(
  params: Readonly<Record<string, string | undefined>>,
  limits: Partial<OpenSearchLimits> = {},
): OpenSearchQueryFragment {
  const effective: OpenSearchLimits = { ...DEFAULT_OPENSEARCH_LIMITS, ...limits };
  const get = (name: string): string | undefined => {
    const value = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
    return value === undefined || value.trim() === '' ? undefined : value;
  };
  const result: OpenSearchQueryFragment = {};

  const searchTerms = get('searchTerms');
  const text = searchTerms === undefined ? undefined : parseFreeText(searchTerms);
  if (text !== undefined) result.text = text;

  const spatial = parseSpatial(get, effective);
  if (spatial !== undefined) result.spatial = spatial;

  const temporal = parseTemporal(get);
  if (temporal !== undefined) result.temporal = temporal;

  const uid = get('geo:uid');
  if (uid !== undefined) result.ids = parseIds(uid, effective);

  const filters: Expression[] = [];
  for (const { parameter } of EO_PARAMETERS) {
    const value = get(parameter);
    if (value !== undefined) {
      filters.push(parseEoValue(parameter, value, { maxListValues: effective.maxListValues }));
    }
  }
  const filter = andAll(filters);
  if (filter !== undefined) result.filter = checkFilter(filter);
  return result;
}
