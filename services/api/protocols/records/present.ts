/**
 * OGC API – Records presentation: CoreRecord → GeoJSON record, search results →
 * FeatureCollection with paging links. Pure.
 */
import type { Geometry, Position } from 'geojson';
import type { CoreRecord, TimeExtent } from '../../../../shared/records/core-record.js';
import { bboxToGeometry } from '../../../../shared/records/formats/json/json-values.js';
import {
  recordLanguages,
  recordLanguageTag,
  toLanguageTag,
} from '../../../../shared/records/languages.js';
import type { SearchResult } from '../../../../shared/search/backend.js';
import type {
  FacetCounts,
  HistogramFacetCounts,
  ItemsPage,
  RecordFeature,
  RecordTime,
} from '../../common/documents.js';
import type { Link } from '../../common/links.js';
import { GEOJSON, HTML, JSON_TYPE, RECORD_PROFILE, XML } from '../../common/media-types.js';
import { collectionUrl, itemsUrl, recordUrl } from '../../common/urls.js';

const isDayStart = (value: string): boolean => value.endsWith('T00:00:00.000Z');
const isDayEnd = (value: string): boolean => value.endsWith('T23:59:59.999Z');

/** Renders a TimeExtent as the OGC record `time` object ({date} | {timestamp} | {interval}). */
export function presentTime(time: TimeExtent | undefined): RecordTime | null {
  if (!time) return null;
  const { start, end, dateOnly } = time;
  if (
    dateOnly &&
    start &&
    end &&
    start.slice(0, 10) === end.slice(0, 10) &&
    isDayStart(start) &&
    isDayEnd(end)
  ) {
    return { date: start.slice(0, 10) };
  }
  if (!dateOnly && start !== null && start === end) return { timestamp: start };
  const asDates =
    dateOnly && (start === null || isDayStart(start)) && (end === null || isDayEnd(end));
  const format = (value: string | null): string =>
    value === null ? '..' : asDates ? value.slice(0, 10) : value;
  return { interval: [format(start), format(end)] };
}

/**
 * The object without its undefined, null and empty-array members, in the same order. A loop,
 * not entries → filter → fromEntries: it runs for every record of every page, and the arrays
 * that chain allocates made it 3–6× slower (`npx tsx scripts/bench/compact-objects.ts`).
 */
function compact<T extends Record<string, unknown>>(object: T): Partial<T> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
      continue;
    }
    kept[key] = value;
  }
  return kept as Partial<T>;
}

/** Renders the record's properties: the core properties, EO properties and extras. */
export function presentProperties(record: CoreRecord): Record<string, unknown> {
  // Object.assign, not `{ ...record.extra, ...record.eo, type, … }`: see buildStacItem
  // (shared/records/writers/stac-item.ts).
  return compact(
    Object.assign({}, record.extra, record.eo, {
      type: record.type,
      // The standard requires a title; a source without one gets an empty title, as the
      // csw:Record writer gives it an empty dc:title.
      title: record.title ?? '',
      description: record.description,
      keywords: record.keywords,
      themes: record.themes,
      formats: record.formats,
      contacts: record.contacts,
      externalIds: record.externalIds,
      ...presentLanguages(record),
      license: record.license,
      rights: record.rights,
      created: record.created,
      updated: record.updated,
      parentId: record.parentId,
    }),
  );
}

/** True when the record's stored source document is XML (ISO 19139, ISO 19115-3, csw:Record). */
export function hasXmlSource(record: CoreRecord): boolean {
  return /[/+]xml$/.test(record.source.mediaType);
}

/**
 * How features are written: coordinates in CRS84 order (lon-lat) or EPSG:4326 order (lat-lon),
 * only some properties, or no geometry (Features Part 2 `crs`; pygeoapi's `properties` and
 * `skipGeometry`). The default writes everything in CRS84.
 */
export interface FeatureOptions {
  axisOrder?: 'lon-lat' | 'lat-lon';
  properties?: readonly string[];
  skipGeometry?: boolean;
}

/**
 * The footprint of a record as GeoJSON: its geometry, else the polygon of its bbox (a
 * MultiPolygon of the two halves when the box crosses the antimeridian), else null. Clients
 * such as GDAL and QGIS drop features without a geometry; STAC, CSW and the HTML map already
 * show the box.
 */
export function recordFootprint(record: CoreRecord): Geometry | null {
  return record.geometry ?? (record.bbox ? bboxToGeometry(record.bbox) : null);
}

function swapPositions(value: unknown): unknown {
  if (Array.isArray(value) && typeof value[0] === 'number') {
    const [x, y, ...rest] = value as Position;
    return [y, x, ...rest];
  }
  return Array.isArray(value) ? value.map(swapPositions) : value;
}

/** The geometry with its first two ordinates swapped (CRS84 → EPSG:4326 axis order). */
export function swapGeometryAxes(geometry: Geometry): Geometry {
  if (geometry.type === 'GeometryCollection') {
    return { ...geometry, geometries: geometry.geometries.map(swapGeometryAxes) };
  }
  return { ...geometry, coordinates: swapPositions(geometry.coordinates) } as Geometry;
}

/** A CRS84 bbox in EPSG:4326 axis order: [minLat, minLon, maxLat, maxLon] (6 with heights). */
function swapBboxAxes(bbox: number[]): number[] {
  const half = bbox.length / 2;
  const swapped = [...bbox];
  swapped.splice(0, 2, ...bbox.slice(0, 2).reverse());
  swapped.splice(half, 2, ...bbox.slice(half, half + 2).reverse());
  return swapped;
}

/** Keeps only the named properties (every property when no list is given). */
function selectProperties(
  properties: Record<string, unknown>,
  names: readonly string[] | undefined,
): Record<string, unknown> {
  if (names === undefined) return properties;
  return Object.fromEntries(Object.entries(properties).filter(([name]) => names.includes(name)));
}

/**
 * `language` and `languages` of a record: for a multilingual record the language shown (a BCP 47
 * tag) and, as OGC API Records defines `languages`, the other languages it is available in;
 * else the record's language code as the source gave it.
 */
function presentLanguages(record: CoreRecord): {
  language?: { code: string } | undefined;
  languages?: { code: string }[] | undefined;
} {
  if (record.languages === undefined) {
    return { language: record.language ? { code: record.language } : undefined };
  }
  const shown = toLanguageTag(record.language) ?? recordLanguageTag(record);
  return {
    language: shown === undefined ? undefined : { code: shown },
    languages: recordLanguages(record)
      .filter((tag) => tag !== shown)
      .map((code) => ({ code })),
  };
}

/** Renders one record as an OGC API – Records GeoJSON feature with its links. */
export function presentRecord(
  record: CoreRecord,
  baseUrl: string,
  options: FeatureOptions = {},
): RecordFeature {
  const latLon = options.axisOrder === 'lat-lon';
  const footprint = options.skipGeometry ? null : recordFootprint(record);
  const self = recordUrl(baseUrl, record.id);
  const links: Link[] = [
    { rel: 'self', type: GEOJSON, href: `${self}?f=json`, title: 'This record as GeoJSON' },
    { rel: 'alternate', type: HTML, href: `${self}?f=html`, title: 'This record as HTML' },
    {
      rel: 'alternate',
      type: XML,
      href: `${self}?f=xml`,
      title: hasXmlSource(record)
        ? 'The source metadata document (XML)'
        : 'This record as csw:Record (CSW 3.0, full)',
    },
    {
      rel: 'collection',
      type: JSON_TYPE,
      href: collectionUrl(baseUrl),
      title: 'The catalogue',
    },
    { rel: 'profile', href: RECORD_PROFILE, title: 'OGC record' },
    ...record.links,
  ];
  return {
    type: 'Feature',
    id: record.id,
    conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
    geometry: footprint && latLon ? swapGeometryAxes(footprint) : footprint,
    ...(record.bbox && { bbox: latLon ? swapBboxAxes(record.bbox) : record.bbox }),
    time: presentTime(record.time),
    properties: selectProperties(presentProperties(record), options.properties),
    links,
  };
}

export interface PageContext {
  baseUrl: string;
  /** The request's query parameters, carried into paging links. */
  query: Record<string, string>;
  offset: number;
  limit: number;
  timeStamp: string;
}

/** A bucket of a histogram facet: its key, from `min` (inclusive) to `max` (exclusive). */
export type HistogramBucket = HistogramFacetCounts['buckets'][number];

/**
 * One facet of an items response: distinct values of a property with their counts (term), or
 * the records by calendar period or numeric band (histogram).
 */
export type FacetResult =
  | { kind: 'term'; name: string; property: string; buckets: { value: string; count: number }[] }
  | ({ kind: 'histogram'; name: string } & Omit<HistogramFacetCounts, 'type'>);

/** A facet's counts as the items response gives them. */
function presentFacet(facet: FacetResult): FacetCounts {
  if (facet.kind === 'term') {
    return { type: 'term', property: facet.property, buckets: facet.buckets };
  }
  return {
    type: 'histogram',
    property: facet.property,
    ...(facet.interval !== undefined && { interval: facet.interval }),
    buckets: facet.buckets,
    more: facet.more,
  };
}

/** URL of the items endpoint with the request's parameters and the given overrides. */
export function itemsLink(context: PageContext, overrides: Record<string, string>): string {
  const parameters = new URLSearchParams({ ...context.query, ...overrides });
  parameters.delete('startindex');
  return `${itemsUrl(context.baseUrl)}?${parameters.toString()}`;
}

/**
 * Renders a search result as a GeoJSON FeatureCollection with self, alternate (HTML),
 * collection, next and prev links, and the requested facets (Records Part 2).
 */
export function presentItems(
  result: SearchResult,
  context: PageContext,
  facets: FacetResult[] = [],
  options: FeatureOptions = {},
): ItemsPage {
  const { offset, limit } = context;
  const page = (at: number, f: string): Record<string, string> => ({
    limit: String(limit),
    offset: String(at),
    f,
  });
  const links: Link[] = [
    {
      rel: 'self',
      type: GEOJSON,
      href: itemsLink(context, page(offset, 'json')),
      title: 'This page',
    },
    {
      rel: 'alternate',
      type: HTML,
      href: itemsLink(context, page(offset, 'html')),
      title: 'This page as HTML',
    },
    {
      rel: 'collection',
      type: JSON_TYPE,
      href: collectionUrl(context.baseUrl),
      title: 'The catalogue',
    },
  ];
  if (offset + result.records.length < result.total) {
    links.push({
      rel: 'next',
      type: GEOJSON,
      href: itemsLink(context, page(offset + limit, 'json')),
      title: 'Next page',
    });
  }
  if (offset > 0) {
    links.push({
      rel: 'prev',
      type: GEOJSON,
      href: itemsLink(context, page(Math.max(0, offset - limit), 'json')),
      title: 'Previous page',
    });
  }
  return {
    type: 'FeatureCollection',
    numberMatched: result.total,
    numberReturned: result.records.length,
    timeStamp: context.timeStamp,
    features: result.records.map((record) => presentRecord(record, context.baseUrl, options)),
    ...(facets.length > 0 && {
      facets: Object.fromEntries(
        facets.map((facet): [string, FacetCounts] => [facet.name, presentFacet(facet)]),
      ),
    }),
    links,
  };
}
