/**
 * Value mappings shared by the XML parsers and writers, kept in one place so that what a parser
 * reads a writer writes back the same way (ISO function codes ↔ link relations, protocols ↔
 * media types, EO keywords, constraints ↔ license/rights, bbox unions, date spans).
 */
import type { Bbox, EoProperties, TimeExtent } from '../../core-record.js';
import { snapCrs84 } from '../../../query/crs84.js';
import { parseTimeValue } from '../../time.js';

/** Theme scheme for ISO topic categories (MD_TopicCategoryCode). */
export const TOPIC_CATEGORY_SCHEME =
  'http://standards.iso.org/iso/19139/resources/gmxCodelists.xml#MD_TopicCategoryCode';

/** Other spellings of the topic category scheme that writers also recognise. */
export const TOPIC_CATEGORY_SCHEMES = new Set([
  TOPIC_CATEGORY_SCHEME,
  'https://standards.iso.org/iso/19115/resources/Codelists/cat/codelists.xml#MD_TopicCategoryCode',
  'http://standards.iso.org/iso/19115/resources/Codelists/cat/codelists.xml#MD_TopicCategoryCode',
]);

/** ISO CI_OnLineFunctionCode → link relation. */
const FUNCTION_RELATIONS: Record<string, string> = {
  download: 'enclosure',
  fileAccess: 'enclosure',
  information: 'describedby',
  'information.content': 'describedby',
  search: 'search',
  browseGraphic: 'preview',
  completeMetadata: 'alternate',
  browsing: 'related',
  offlineAccess: 'related',
  order: 'related',
  upload: 'related',
  emailService: 'related',
};

/** Link relation → the ISO function code a writer uses (only where the mapping is one-to-one). */
const RELATION_FUNCTIONS: Record<string, string> = {
  enclosure: 'download',
  describedby: 'information',
  search: 'search',
  preview: 'browseGraphic',
  alternate: 'completeMetadata',
};

const MEDIA_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/** True when the text has the shape of a media type (type/subtype). */
export function isMediaType(value: string | undefined): boolean {
  return value !== undefined && MEDIA_TYPE.test(value.trim());
}

/** The link relation for an ISO online resource: from its function, else its protocol. */
export function relationForOnlineResource(func?: string, protocol?: string): string {
  if (func !== undefined && FUNCTION_RELATIONS[func] !== undefined) return FUNCTION_RELATIONS[func];
  if (protocol !== undefined && /^WWW:DOWNLOAD/i.test(protocol)) return 'enclosure';
  return 'related';
}

/** The ISO function code to write for a link relation, when there is an unambiguous one. */
export function functionForRelation(rel: string | undefined): string | undefined {
  return rel === undefined ? undefined : RELATION_FUNCTIONS[rel];
}

/** The media type an access protocol implies, where it is well known. */
export function mediaTypeForProtocol(protocol: string | undefined): string | undefined {
  if (protocol === undefined) return undefined;
  const value = protocol.trim();
  if (isMediaType(value)) return value.toLowerCase();
  const upper = value.toUpperCase();
  if (upper.startsWith('WWW:LINK') || upper === 'HTTP' || upper === 'HTTPS' || upper === 'WWW:URL')
    return 'text/html';
  if (upper.startsWith('OGC:KML')) return 'application/vnd.google-earth.kml+xml';
  if (upper.startsWith('OGC:GEOPACKAGE')) return 'application/geopackage+sqlite3';
  if (upper.startsWith('OGC:GEOTIFF') || upper.startsWith('OGC:COG')) return 'image/tiff';
  return undefined;
}

const IMAGE_EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The media type of a browse graphic, from its declared file type or its file name. */
export function mediaTypeForGraphic(fileType?: string, fileName?: string): string | undefined {
  if (fileType !== undefined && isMediaType(fileType)) return fileType.trim().toLowerCase();
  const key = (
    fileType ??
    fileName
      ?.replace(/[?#][\s\S]*/, '')
      .split('.')
      .pop() ??
    ''
  ).toLowerCase();
  return IMAGE_EXTENSIONS[key];
}

/** The media type an INSPIRE media-type URI names (…/media-types/application/x-shapefile). */
export function mediaTypeForFormatUri(uri: string | undefined): string | undefined {
  const match = uri?.match(/\/media-types\/([\w.+-]+\/[\w.+-]+)\/?$/);
  return match ? match[1] : undefined;
}

/** EO properties that records carry as `eo:<name>:<value>` keywords (the pycsw convention). */
const EO_KEYWORD_KINDS: Record<string, 'string' | 'number'> = {
  platform: 'string',
  instrument: 'string',
  sensorType: 'string',
  cloudCover: 'number',
  snowCover: 'number',
  orbitNumber: 'number',
  orbitDirection: 'string',
  processingLevel: 'string',
  productType: 'string',
  illuminationAzimuthAngle: 'number',
  illuminationElevationAngle: 'number',
  spectralRange: 'string',
};

/** The EO properties a keyword may carry, in the order writers emit them. */
export const EO_KEYWORD_NAMES = Object.keys(EO_KEYWORD_KINDS) as (keyof EoProperties)[];

/** A parsed `eo:<name>:<value>` keyword. */
export type EoKeyword =
  | { kind: 'known'; name: keyof EoProperties; value: string | number }
  | { kind: 'other'; name: string; value: string };

/** Reads an `eo:<name>:<value>` keyword, or undefined for an ordinary keyword. */
export function parseEoKeyword(keyword: string): EoKeyword | undefined {
  const match = /^eo:([A-Za-z][A-Za-z0-9]*):(.+)$/.exec(keyword.trim());
  if (!match) return undefined;
  const [, name, raw] = match;
  if (name === undefined || raw === undefined) return undefined;
  const value = raw.trim();
  const kind = EO_KEYWORD_KINDS[name];
  if (kind === undefined) return { kind: 'other', name, value };
  if (kind === 'number') {
    const number = Number(value);
    return Number.isFinite(number)
      ? { kind: 'known', name: name as keyof EoProperties, value: number }
      : undefined;
  }
  return { kind: 'known', name: name as keyof EoProperties, value };
}

/** Formats an EO property as an `eo:<name>:<value>` keyword. */
export function formatEoKeyword(name: string, value: string | number): string {
  return `eo:${name}:${value}`;
}

/** ISO constraint statements as read from a record (kept in `extra` under these names). */
export interface ConstraintValues {
  useLimitation: string[];
  accessConstraints: string[];
  useConstraints: string[];
  otherConstraints: string[];
}

/** `extra` keys holding ISO constraint statements. */
export const CONSTRAINT_KEYS = [
  'useLimitation',
  'accessConstraints',
  'useConstraints',
  'otherConstraints',
] as const;

const UNINFORMATIVE_RESTRICTIONS = new Set(['otherRestrictions', 'license', 'licence']);

/**
 * The licence statement of a record: its use limitations, or (when the use constraint is
 * `license`) its other constraints.
 */
export function deriveLicense(values: ConstraintValues): string | undefined {
  if (values.useLimitation.length > 0) return values.useLimitation.join('; ');
  const licensed = values.useConstraints.some((code) => /^licen[cs]e/i.test(code));
  if (licensed && values.otherConstraints.length > 0) return values.otherConstraints.join('; ');
  return undefined;
}

/** The rights statement of a record: other constraints (when not the licence) or access codes. */
export function deriveRights(values: ConstraintValues): string | undefined {
  const license = deriveLicense(values);
  if (values.otherConstraints.length > 0 && license !== values.otherConstraints.join('; ')) {
    return values.otherConstraints.join('; ');
  }
  const codes = values.accessConstraints.filter((code) => !UNINFORMATIVE_RESTRICTIONS.has(code));
  return codes.length > 0 ? codes.join('; ') : undefined;
}

/**
 * The numbers as a valid CRS84 box (west may exceed east across the antimeridian), edges within
 * the tolerance beyond a bound snapped onto it (shared/query/crs84.ts); undefined when they are
 * not one.
 */
export function toValidBbox([west, south, east, north]: Bbox): Bbox | undefined {
  const lower = snapCrs84(west, south);
  const upper = snapCrs84(east, north);
  return lower && upper && lower[1] <= upper[1]
    ? [lower[0], lower[1], upper[0], upper[1]]
    : undefined;
}

/**
 * The union of boxes. Without antimeridian crossings it is the plain min/max box; when a box
 * crosses, longitudes are merged on the circle and the result is the smallest arc covering them.
 */
export function unionBboxes(boxes: Bbox[]): Bbox | undefined {
  if (boxes.length === 0) return undefined;
  const south = Math.min(...boxes.map((box) => box[1]));
  const north = Math.max(...boxes.map((box) => box[3]));
  if (boxes.every((box) => box[0] <= box[2])) {
    return [
      Math.min(...boxes.map((box) => box[0])),
      south,
      Math.max(...boxes.map((box) => box[2])),
      north,
    ];
  }
  const arcs = boxes
    .map(([west, , east]) => [west, west <= east ? east : east + 360] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const arc of arcs) {
    const last = merged[merged.length - 1];
    if (last !== undefined && arc[0] <= last[1]) last[1] = Math.max(last[1], arc[1]);
    else merged.push([arc[0], arc[1]]);
  }
  // The largest gap between consecutive arcs (including the wrap-around one) is left out.
  const [first] = merged;
  if (first === undefined) return undefined;
  let bestGap = -1;
  let result: Bbox = [-180, south, 180, north];
  for (const [i, [, end]] of merged.entries()) {
    const nextStart = merged[i + 1]?.[0] ?? first[0] + 360;
    const gap = nextStart - end;
    if (gap > bestGap) {
      bestGap = gap;
      result = [wrapLongitude(nextStart), south, wrapLongitude(end), north];
    }
  }
  return bestGap <= 0 ? [-180, south, 180, north] : result;
}

function wrapLongitude(value: number): number {
  let lon = value;
  while (lon > 180) lon -= 360;
  while (lon < -180) lon += 360;
  return lon;
}

/** A metadata date normalised to a UTC timestamp (the start of the day for a date). */
export function normaliseInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : parseTimeValue(value)?.start;
}

/** The union of time extents (an open end anywhere makes that end open). */
export function unionTimeExtents(extents: TimeExtent[]): TimeExtent | undefined {
  if (extents.length === 0) return undefined;
  if (extents.length === 1) return extents[0];
  const starts = extents.map((extent) => extent.start);
  const ends = extents.map((extent) => extent.end);
  const result: TimeExtent = {
    start: starts.includes(null) ? null : (starts as string[]).reduce((a, b) => (b < a ? b : a)),
    end: ends.includes(null) ? null : (ends as string[]).reduce((a, b) => (b > a ? b : a)),
  };
  if (extents.some((extent) => extent.dateOnly)) result.dateOnly = true;
  return result;
}

/** Adds a string to a list unless it is already there. */
export function pushUnique(list: string[], value: string | undefined): void {
  if (value !== undefined && value !== '' && !list.includes(value)) list.push(value);
}
