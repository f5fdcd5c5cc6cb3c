/**
 * View helpers: turn the JSON documents the Records endpoints serve into what the HTML
 * templates show. Pure; the templates only print what these build (and escape it).
 */
import type { MapConfig, ServiceMetadata } from '../../../shared/config/index.js';
import { parseTimestamp } from '../../../shared/records/time.js';
import { CATALOG_REL, OPENAPI_JSON } from '../common/media-types.js';
import { catalogueUrl, collectionUrl } from '../common/urls.js';
import { STATIC_PATH } from './assets.js';

export interface ViewLink {
  href: string;
  rel?: string | undefined;
  type?: string | undefined;
  title?: string | undefined;
  hreflang?: string | undefined;
}

export interface Breadcrumb {
  title: string;
  href?: string;
}

/** What every page shows: titles, navigation, alternates and autodiscovery links. */
export interface PageView {
  title: string;
  serviceTitle: string;
  root: string;
  staticPath: string;
  breadcrumbs: Breadcrumb[];
  /** Other representations of this resource (JSON, XML …). */
  alternates: ViewLink[];
  /** `<link>` elements for the head (autodiscovery, Records /req/autodiscovery). */
  headLinks: ViewLink[];
  nav: { title: string; href: string; current: boolean }[];
  /** The page's structured data (schema.org JSON-LD), escaped for its script element. */
  jsonLd?: string;
}

const NAMES: Readonly<Record<string, string>> = {
  'application/json': 'JSON',
  'application/geo+json': 'GeoJSON',
  'application/schema+json': 'JSON Schema',
  'application/facets+json': 'JSON',
  'application/xml': 'XML',
  'text/html': 'HTML',
  [OPENAPI_JSON]: 'OpenAPI (JSON)',
};

/** A short human name for a media type. */
export function describeMediaType(type: string | undefined): string {
  if (type === undefined) return 'link';
  return NAMES[type] ?? type;
}

function asLinks(value: unknown): ViewLink[] {
  return Array.isArray(value)
    ? (value as unknown[]).filter(
        (link): link is ViewLink =>
          typeof link === 'object' &&
          link !== null &&
          typeof (link as { href?: unknown }).href === 'string',
      )
    : [];
}

export interface PageOptions {
  baseUrl: string;
  service: Pick<ServiceMetadata, 'title'>;
  title: string;
  /** The JSON document of the resource, whose self/alternate links give the alternates. */
  links: unknown;
  breadcrumbs?: Breadcrumb[];
  /** Which navigation entry is current. */
  section?: 'home' | 'search' | 'collections' | 'conformance' | 'api';
}

/** Builds the common page view of an HTML page. */
export function buildPage(options: PageOptions): PageView {
  const root = catalogueUrl(options.baseUrl);
  const collection = collectionUrl(options.baseUrl);
  const alternates = asLinks(options.links)
    .filter(
      (link) => (link.rel === 'self' || link.rel === 'alternate') && link.type !== 'text/html',
    )
    .map((link) => ({ ...link, title: describeMediaType(link.type) }));
  const headLinks: ViewLink[] = [
    ...alternates.map((link) => ({ rel: 'alternate', type: link.type, href: link.href })),
    { rel: 'service-desc', type: OPENAPI_JSON, href: `${root}/openapi?f=json` },
    { rel: 'service-doc', type: 'text/html', href: `${root}/openapi?f=html` },
    { rel: CATALOG_REL, type: 'application/geo+json', href: `${collection}/items` },
  ];
  const section = options.section;
  return {
    title: options.title,
    serviceTitle: options.service.title,
    root,
    staticPath: `${options.baseUrl}${STATIC_PATH}`,
    breadcrumbs: [{ title: 'Home', href: `${root}?f=html` }, ...(options.breadcrumbs ?? [])],
    alternates,
    headLinks,
    nav: [
      { title: 'Search', href: `${collection}/items?f=html`, current: section === 'search' },
      {
        title: 'Collections',
        href: `${root}/collections?f=html`,
        current: section === 'collections',
      },
      {
        title: 'Conformance',
        href: `${root}/conformance?f=html`,
        current: section === 'conformance',
      },
      { title: 'API', href: `${root}/openapi?f=html`, current: section === 'api' },
    ],
  };
}

/** One displayed value: text, a date or timestamp, a list of texts, a link, or JSON. */
export type DisplayValue =
  | { kind: 'text'; text: string }
  | { kind: 'time'; instant: InstantView }
  | { kind: 'list'; items: string[] }
  | { kind: 'link'; href: string; text: string }
  | { kind: 'json'; json: string };

type Item = Record<string, unknown>;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const items = (value: unknown): Item[] =>
  Array.isArray(value) ? value.filter((v): v is Item => typeof v === 'object' && v !== null) : [];

/** Readable one-line forms of the structured core properties (themes, contacts …). */
const READABLE: Readonly<Record<string, (value: unknown) => string[] | undefined>> = {
  themes: (value) =>
    items(value).flatMap((theme) =>
      items(theme.concepts).map((concept) => text(concept.title) ?? String(concept.id)),
    ),
  formats: (value) =>
    items(value).map((format) =>
      [text(format.name), text(format.mediaType)].filter(Boolean).join(' · '),
    ),
  contacts: (value) =>
    items(value).map((contact) => {
      const who = [text(contact.name), text(contact.organization)].filter(Boolean).join(', ');
      const roles = Array.isArray(contact.roles) ? ` (${contact.roles.join(', ')})` : '';
      const email = items(contact.emails)
        .map((e) => text(e.value))
        .filter(Boolean)
        .join(', ');
      return `${who || 'unnamed'}${roles}${email ? ` · ${email}` : ''}`;
    }),
  externalIds: (value) =>
    items(value).map((id) => (text(id.scheme) ? `${id.scheme}: ${id.value}` : String(id.value))),
  language: (value) =>
    typeof value === 'object' && value !== null && text((value as Item).code)
      ? [[text((value as Item).name), (value as Item).code].filter(Boolean).join(' ')]
      : undefined,
};

/** How a named property is shown: a readable list for the structured core properties. */
export function buildPropertyValue(name: string, value: unknown): DisplayValue {
  const readable = READABLE[name]?.(value);
  if (readable && readable.length > 0 && readable.every((item) => item !== '')) {
    const [only] = readable;
    return readable.length === 1 && name === 'language' && only !== undefined
      ? { kind: 'text', text: only }
      : { kind: 'list', items: readable };
  }
  return buildDisplayValue(value);
}

/** How a property value is shown on a record page. */
export function buildDisplayValue(value: unknown): DisplayValue {
  if (typeof value === 'string') {
    const instant = buildInstantView(value);
    if (instant.datetime) return { kind: 'time', instant };
    if (/^https?:\/\/\S+$/.test(value)) return { kind: 'link', href: value, text: value };
    return { kind: 'text', text: value };
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return { kind: 'text', text: String(value) };
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return { kind: 'list', items: value };
  }
  return { kind: 'json', json: JSON.stringify(value, null, 2) };
}

/** One point in time as pages show it: `datetime` (machine-readable) when it is one. */
export interface InstantView {
  /** The date (YYYY-MM-DD) or the UTC timestamp, for `<time datetime>`; absent for other text. */
  datetime?: string;
  text: string;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * How a date or timestamp is shown, the same way on every page: a date as YYYY-MM-DD; a
 * timestamp in UTC as its date alone when it is midnight or the day's last millisecond (as
 * dates stored as timestamps are), else as YYYY-MM-DD HH:MM UTC (with :SS when there are
 * seconds). Other text is kept as it is.
 */
export function buildInstantView(value: string): InstantView {
  if (DATE_ONLY.test(value)) return { datetime: value, text: value };
  const timestamp = parseTimestamp(value);
  if (!timestamp) return { text: value };
  const date = timestamp.slice(0, 10);
  const clock = timestamp.slice(11, 19);
  // Midnight, or the last millisecond of a day (how Cairn stores the end of a date): a date.
  if (timestamp.endsWith('T00:00:00.000Z') || timestamp.endsWith('T23:59:59.999Z')) {
    return { datetime: date, text: date };
  }
  const shown = timestamp.slice(17, 23) === '00.000' ? clock.slice(0, 5) : clock;
  return { datetime: timestamp, text: `${date} ${shown} UTC` };
}

/**
 * An OGC record `time` object as pages show it: one instant, or the two ends of an interval
 * (an open end as text); undefined when there is none.
 */
export function describeTime(time: unknown): InstantView[] | undefined {
  if (typeof time !== 'object' || time === null) return undefined;
  const { date, timestamp, interval } = time as {
    date?: string;
    timestamp?: string;
    interval?: string[];
  };
  if (date) return [buildInstantView(date)];
  if (timestamp) return [buildInstantView(timestamp)];
  if (Array.isArray(interval) && interval.length === 2) {
    const end = (value: string | null | undefined, open: string) =>
      value === '..' || value === null || value === undefined
        ? { text: open }
        : buildInstantView(value);
    return [end(interval[0], 'open start'), end(interval[1], 'open end')];
  }
  return undefined;
}

/**
 * The footprint to draw for a record: its geometry, or else a polygon of its bbox (two when
 * the box crosses the antimeridian); null when it has neither.
 */
export function buildFootprint(feature: { geometry?: unknown; bbox?: unknown }): unknown {
  if (feature.geometry) return feature.geometry;
  const bbox = feature.bbox;
  if (!Array.isArray(bbox) || bbox.length < 4 || !bbox.every((n) => typeof n === 'number')) {
    return null;
  }
  const [west, south, east, north] = (
    bbox.length === 6 ? [bbox[0], bbox[1], bbox[3], bbox[4]] : bbox
  ) as number[];
  if (west === undefined || south === undefined || east === undefined || north === undefined) {
    return null;
  }
  const ring = (w: number, e: number) => [
    [
      [w, south],
      [e, south],
      [e, north],
      [w, north],
      [w, south],
    ],
  ];
  if (west > east) {
    return { type: 'MultiPolygon', coordinates: [ring(west, 180), ring(-180, east)] };
  }
  return { type: 'Polygon', coordinates: ring(west, east) };
}

type Geometry = { type: string; coordinates?: unknown; geometries?: Geometry[] };

function mapPositions(value: unknown, move: (lon: number) => number): unknown {
  if (Array.isArray(value) && typeof value[0] === 'number') {
    return [move(value[0]), ...(value as unknown[]).slice(1)];
  }
  return Array.isArray(value) ? value.map((item) => mapPositions(item, move)) : value;
}

function moveGeometry(geometry: Geometry, move: (lon: number) => number): Geometry {
  if (Array.isArray(geometry.geometries)) {
    return { ...geometry, geometries: geometry.geometries.map((g) => moveGeometry(g, move)) };
  }
  return { ...geometry, coordinates: mapPositions(geometry.coordinates, move) };
}

type Line = number[][];

/** The connected parts of a geometry (a polygon, a line, a point), each as its lines or rings. */
function partsOf(geometry: Geometry): Line[][] {
  if (Array.isArray(geometry.geometries)) return geometry.geometries.flatMap(partsOf);
  const coordinates = geometry.coordinates;
  if (!Array.isArray(coordinates)) return [];
  switch (geometry.type) {
    case 'Point':
      return [[[coordinates as number[]]]];
    case 'MultiPoint':
      return (coordinates as number[][]).map((point) => [[point]]);
    case 'LineString':
      return [[coordinates as Line]];
    case 'MultiLineString':
      return (coordinates as Line[]).map((line) => [line]);
    case 'Polygon':
      return [coordinates as Line[]];
    case 'MultiPolygon':
      return coordinates as Line[][];
    default:
      return [];
  }
}

/** Whether a part has a position at or beyond 180° on one side (+1 east, −1 west). */
function reaches(part: Line[], side: 1 | -1): boolean {
  return (Array.isArray(part) ? part : []).some(
    (line) =>
      Array.isArray(line) &&
      line.some(
        (point) => Array.isArray(point) && typeof point[0] === 'number' && point[0] * side >= 180,
      ),
  );
}

/**
 * A footprint as the maps draw it. One split at the antimeridian, as GeoJSON writes shapes that
 * cross it (a part ending at +180° and another at −180°, none reaching both), has its
 * western-hemisphere longitudes moved by +360°, so it is drawn in one piece east of 180° and
 * the map frames that piece, not the whole world. Others are returned as they are: an unsplit
 * ring with a long edge (−100° to 100°) goes the long way round, as RFC 7946 reads it.
 */
export function buildMapGeometry(geometry: unknown): unknown {
  if (typeof geometry !== 'object' || geometry === null) return geometry;
  const parts = partsOf(geometry as Geometry);
  const split =
    parts.some((part) => reaches(part, 1) && !reaches(part, -1)) &&
    parts.some((part) => reaches(part, -1) && !reaches(part, 1));
  if (!split) return geometry;
  return moveGeometry(geometry as Geometry, (lon) => (lon < 0 ? lon + 360 : lon));
}

/** What the map script needs: the offline basemap, or tiles when the operator set them. */
export interface MapView {
  /** The world outline (GeoJSON) drawn under the footprints, when no tiles are set. */
  basemapUrl?: string;
  tileUrl?: string;
  tileAttribution?: string;
}

/** Builds the map settings a page hands to map.js (through data attributes). */
export function buildMapView(staticPath: string, settings: MapConfig | undefined): MapView {
  if (settings?.tileUrl) {
    return { tileUrl: settings.tileUrl, tileAttribution: settings.tileAttribution ?? '' };
  }
  return { basemapUrl: `${staticPath}/world-110m.json` };
}

interface FeatureLike {
  id: string | number;
  geometry: unknown;
  bbox?: unknown;
  time?: unknown;
  properties: Record<string, unknown> | null;
  links?: unknown;
}

const PROPERTY_LABELS: Readonly<Record<string, string>> = {
  type: 'Resource type',
  title: 'Title',
  description: 'Description',
  keywords: 'Keywords',
  themes: 'Themes',
  formats: 'Formats',
  contacts: 'Contacts',
  externalIds: 'External identifiers',
  language: 'Language',
  license: 'License',
  rights: 'Rights',
  created: 'Record created',
  updated: 'Record updated',
  parentId: 'Parent',
};

/**
 * A readable label for a property name without a fixed one: camelCase and snake_case split
 * into words, a namespace prefix (`eo:`) put after them, acronyms kept
 * (`metadataStandardName` → "Metadata standard name", `eo:cloud_cover` → "Cloud cover (eo)").
 */
export function humanizePropertyName(name: string): string {
  const colon = name.lastIndexOf(':');
  const prefix = colon > 0 ? name.slice(0, colon) : '';
  const words = name
    .slice(colon + 1)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => (/^[A-Z0-9]{2,}$/.test(word) ? word : word.toLowerCase()));
  if (words.length === 0) return name;
  const text = words.join(' ');
  const label = text.charAt(0).toUpperCase() + text.slice(1);
  return prefix ? `${label} (${prefix})` : label;
}

/** What a record page shows: title, description, time, every property, links, footprint. */
export interface RecordView {
  id: string;
  title: string;
  description?: string | undefined;
  time?: InstantView[] | undefined;
  properties: { name: string; label: string; value: DisplayValue }[];
  links: (ViewLink & { typeName: string; safeHref?: string | undefined })[];
  /** The language the record is shown in (a language tag), when it names one. */
  language?: string | undefined;
  /** The record in its other languages: hreflang alternate links. */
  translations: { language: string; href: string }[];
  /** The footprint as the record gives it (its geometry, or a polygon of its bbox). */
  geometry: unknown;
  /** The footprint as the map draws it (in one piece across the antimeridian). */
  mapGeometry: unknown;
}

/** The href when it is safe to make a link of (http, https, ftp, mailto), else undefined. */
export function safeHref(href: string): string | undefined {
  return /^(https?|ftp):\/\/|^mailto:/i.test(href.trim()) ? href : undefined;
}

/** The code of a record's `language` member (`{code}` in OGC API Records), if any. */
function languageCode(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(code)
    ? code
    : undefined;
}

/** Builds the record page view from a GeoJSON record. */
export function buildRecordView(feature: FeatureLike): RecordView {
  const properties = feature.properties ?? {};
  const footprint = buildFootprint(feature);
  return {
    id: String(feature.id),
    title: typeof properties.title === 'string' ? properties.title : String(feature.id),
    description: typeof properties.description === 'string' ? properties.description : undefined,
    time: describeTime(feature.time),
    properties: Object.entries(properties)
      .filter(([name]) => name !== 'title' && name !== 'description')
      .map(([name, value]) => ({
        name,
        label: PROPERTY_LABELS[name] ?? humanizePropertyName(name),
        value: buildPropertyValue(name, value),
      })),
    links: asLinks(feature.links).map((link) => ({
      ...link,
      typeName: describeMediaType(link.type),
      safeHref: safeHref(link.href),
    })),
    language: languageCode(properties.language),
    translations: asLinks(feature.links).flatMap((link) =>
      link.rel === 'alternate' && link.hreflang !== undefined && safeHref(link.href)
        ? [{ language: link.hreflang, href: link.href }]
        : [],
    ),
    geometry: footprint,
    mapGeometry: buildMapGeometry(footprint),
  };
}

/** One search hit as the results list shows it. */
export interface ResultView {
  id: string;
  title: string;
  href: string;
  type?: string | undefined;
  time?: InstantView[] | undefined;
  snippet?: string | undefined;
  keywords: string[];
}

const SNIPPET_LENGTH = 240;

/** Shortens a description to a snippet on a word boundary. */
export function buildSnippet(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_LENGTH) return flat;
  const cut = flat.slice(0, SNIPPET_LENGTH);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), SNIPPET_LENGTH / 2))} …`;
}

/** Builds one result of the search page. */
export function buildResultView(feature: FeatureLike, recordHref: string): ResultView {
  const properties = feature.properties ?? {};
  return {
    id: String(feature.id),
    title: typeof properties.title === 'string' ? properties.title : String(feature.id),
    href: recordHref,
    type: typeof properties.type === 'string' ? properties.type : undefined,
    time: describeTime(feature.time),
    snippet: buildSnippet(
      typeof properties.description === 'string' ? properties.description : undefined,
    ),
    keywords: Array.isArray(properties.keywords)
      ? (properties.keywords as unknown[])
          .filter((k): k is string => typeof k === 'string')
          .slice(0, 8)
      : [],
  };
}

/** A footprint for the results map: the record's geometry (or its bbox) and where it links. */
export interface Footprint {
  id: string;
  title: string;
  href: string;
  geometry: unknown;
}

/** The current values of the search form, as the request gave them. */
export interface SearchFormView {
  q: string;
  bbox: string;
  datetime: string;
  sortby: string;
  limit: string;
  /** Other parameters of the request, kept as hidden fields. */
  hidden: { name: string; value: string }[];
}

const FORM_FIELDS = new Set([
  'q',
  'bbox',
  'datetime',
  'sortby',
  'limit',
  'f',
  'offset',
  'startindex',
]);

/** Builds the search form's values from the request's query parameters. */
export function buildSearchForm(query: Record<string, string>): SearchFormView {
  return {
    q: query.q ?? '',
    bbox: query.bbox ?? '',
    datetime: query.datetime ?? '',
    sortby: query.sortby ?? '',
    limit: query.limit ?? '',
    hidden: Object.entries(query)
      .filter(([name]) => !FORM_FIELDS.has(name))
      .map(([name, value]) => ({ name, value })),
  };
}

/** Rewrites a link of a JSON document to its HTML page (`f=json` → `f=html`). */
export function toHtmlHref(href: string): string {
  const url = new URL(href);
  url.searchParams.set('f', 'html');
  return url.toString();
}

/** A collection's extent as its page shows it: the box rounded, the interval as instants. */
export function buildExtentView(extent: unknown): {
  bbox?: string | undefined;
  interval?: InstantView[] | undefined;
} {
  const { spatial, temporal } = (extent ?? {}) as {
    spatial?: { bbox?: unknown[] };
    temporal?: { interval?: unknown[] };
  };
  const box = spatial?.bbox?.[0];
  const interval = temporal?.interval?.[0];
  return {
    bbox:
      Array.isArray(box) && box.every((n) => typeof n === 'number')
        ? box.map((n: number) => Number(n.toFixed(4))).join(', ')
        : undefined,
    interval: Array.isArray(interval)
      ? describeTime({ interval: interval.map((end) => (typeof end === 'string' ? end : '..')) })
      : undefined,
  };
}
