/**
 * CoreRecord → STAC Item 1.0.0. Pure: the caller gives the URLs of the item, the root and the
 * parent collection, so the writer knows nothing about routes.
 *
 * Decisions (see docs/decisions/stac-api.md):
 * - A record whose stored source is a STAC Item is written from that source (every property,
 *   extension and asset key as published), with its hierarchy links (self, root, parent,
 *   collection) replaced by this catalogue's and relative hrefs resolved against its old self.
 * - Any other record is built from its CoreRecord fields. Time: an instant is `datetime`; a
 *   closed interval is `datetime: null` with `start_datetime`/`end_datetime`. STAC 1.0 needs
 *   both ends of a range, so a half-open interval gives `datetime` = its one closed end. A
 *   record without a temporal extent falls back to its resource (then record) dates, and one
 *   without any date to `datetime: null` from 0001-01-01 to 9999-12-31, so that every item is
 *   valid STAC; a fallback is marked `cairn:time_fallback` and is not what `datetime`
 *   searches match.
 * - A record with a bbox but no geometry gets the box as its footprint; `bbox` is only written
 *   with a geometry, as STAC requires.
 * - Links with rel `enclosure` or `data` become assets, keyed by a slug of their title (or
 *   file name), made unique; all other links stay links.
 * - A record that names a language ICU knows declares the STAC Language extension, with
 *   `language` (the language shown) and `languages` (its others) as language objects
 *   (docs/decisions/multilingual-records.md).
 */
import type { Geometry } from 'geojson';
import type { Bbox, CoreRecord, Link } from '../core-record.js';
import { bboxToGeometry, computeBbox } from '../formats/json/json-values.js';
import { recordLanguageObjects } from '../languages.js';
import { parseTimeValue } from '../time.js';

export const STAC_VERSION = '1.0.0';

/** The extension schemas the writer declares when the matching fields are present. */
export const STAC_EXTENSION_SCHEMAS = {
  eo: 'https://stac-extensions.github.io/eo/v1.1.0/schema.json',
  sat: 'https://stac-extensions.github.io/sat/v1.0.0/schema.json',
  view: 'https://stac-extensions.github.io/view/v1.0.0/schema.json',
  processing: 'https://stac-extensions.github.io/processing/v1.1.0/schema.json',
} as const;

/**
 * The STAC Language extension, declared by an item or collection written from a record that
 * names its language: `language` (the language shown) and `languages` (the others).
 */
export const STAC_LANGUAGE_EXTENSION =
  'https://stac-extensions.github.io/language/v1.0.0/schema.json';

/**
 * The Language extension's members for a record (empty when it names no known language), and
 * whether to declare the extension.
 */
export function buildStacLanguages(record: CoreRecord): {
  members: JsonObject;
  extensions: string[];
} {
  const objects = recordLanguageObjects(record);
  if (objects === undefined) return { members: {}, extensions: [] };
  return {
    members: {
      language: objects.language,
      ...(objects.languages.length > 0 && { languages: objects.languages }),
    },
    extensions: [STAC_LANGUAGE_EXTENSION],
  };
}

/** A STAC link: a Link object with a required `rel`. */
export interface StacLink {
  rel: string;
  href: string;
  type?: string;
  title?: string;
  hreflang?: string;
}

export interface StacAsset {
  href: string;
  type?: string;
  title?: string;
  description?: string;
  roles?: string[];
}

export interface StacItem {
  type: 'Feature';
  stac_version: string;
  stac_extensions: string[];
  id: string;
  geometry: Geometry | null;
  bbox?: number[];
  properties: Record<string, unknown>;
  links: StacLink[];
  assets: Record<string, StacAsset>;
  collection?: string;
  [member: string]: unknown;
}

/** Where the item's hierarchy links point. */
export interface StacItemLinks {
  /** Absolute URL of this item. */
  self: string;
  /** Absolute URL of the root catalogue (the STAC landing page). */
  root: string;
  /**
   * URL of a parent collection by its id; without it, no parent/collection links. Undefined
   * for a parent that is not a collection this catalogue serves: then the item has neither the
   * links nor a `collection` member (STAC allows the member only with the link).
   */
  collection?: (parentId: string) => string | undefined;
  /** Media type of the parent collection resource. */
  collectionType?: string;
  /** Further links (alternate encodings …), added after the hierarchy links. */
  extra?: StacLink[];
}

export interface StacItemOptions {
  /** Write a STAC-sourced record from its source document (default true). */
  preferSource?: boolean;
}

const GEOJSON = 'application/geo+json';
/** Link relations the catalogue writes itself (a source document's own are dropped). */
export const HIERARCHY_RELS = new Set(['self', 'root', 'parent', 'collection']);
const ASSET_RELS = new Set(['enclosure', 'data']);
const PROVIDER_ROLES = new Set(['licensor', 'producer', 'processor', 'host']);
const ORBIT_STATES = new Set(['ascending', 'descending', 'geostationary']);
/** STAC 1.0 `license`: an SPDX identifier or expression, `various` or `proprietary`. */
const LICENSE_TOKEN = /^[\w\-.+]+$/;

type JsonObject = Record<string, unknown>;

/** True for a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The item's `collection` member and the URL of its parent collection, where it has one. */
function resolveCollection(
  record: CoreRecord,
  links: StacItemLinks,
): { id?: string; href?: string } {
  if (!record.parentId) return {};
  if (!links.collection) return { id: record.parentId };
  const href = links.collection(record.parentId);
  return href === undefined ? {} : { id: record.parentId, href };
}

function buildHierarchyLinks(record: CoreRecord, links: StacItemLinks): StacLink[] {
  const hierarchy: StacLink[] = [
    { rel: 'self', href: links.self, type: GEOJSON },
    { rel: 'root', href: links.root, type: 'application/json', title: 'Catalogue' },
  ];
  const { href } = resolveCollection(record, links);
  if (href !== undefined) {
    const type = links.collectionType ?? 'application/json';
    hierarchy.push(
      { rel: 'parent', href, type, title: 'Parent collection' },
      { rel: 'collection', href, type, title: 'Parent collection' },
    );
  }
  return [...hierarchy, ...(links.extra ?? [])];
}

/** A timestamp for a written date, or undefined when it is not a date. */
function normaliseDate(value: string | undefined): string | undefined {
  return value ? parseTimeValue(value)?.start : undefined;
}

/**
 * The property marking an item whose time is not the record's temporal extent: the CoreRecord
 * date it was taken from (`resourceCreated` … `updated`), or `unknown` for the open range.
 */
export const TIME_FALLBACK_PROPERTY = 'cairn:time_fallback';

/** The range written for a record with no date at all (STAC 1.0 needs both ends). */
export const UNKNOWN_TIME_RANGE = {
  start: '0001-01-01T00:00:00Z',
  end: '9999-12-31T23:59:59Z',
} as const;

const FALLBACK_DATES = [
  'resourceCreated',
  'resourcePublished',
  'resourceUpdated',
  'created',
  'updated',
] as const;

/**
 * The STAC time properties of a record (datetime, or a range with datetime null). Every record
 * gets a time STAC 1.0 accepts: without a temporal extent, its first resource or record date
 * (marked with {@link TIME_FALLBACK_PROPERTY}); without any date, `datetime: null` over the
 * whole representable range, marked `unknown`.
 */
export function buildStacTime(record: CoreRecord): Record<string, string | null> {
  const time = record.time;
  if (time && (time.start !== null || time.end !== null)) {
    if (time.start !== null && time.end !== null) {
      return time.start === time.end
        ? { datetime: time.start }
        : { datetime: null, start_datetime: time.start, end_datetime: time.end };
    }
    return { datetime: time.start ?? time.end };
  }
  for (const field of FALLBACK_DATES) {
    const value = normaliseDate(record[field]);
    if (value !== undefined) return { datetime: value, [TIME_FALLBACK_PROPERTY]: field };
  }
  return {
    datetime: null,
    start_datetime: UNKNOWN_TIME_RANGE.start,
    end_datetime: UNKNOWN_TIME_RANGE.end,
    [TIME_FALLBACK_PROPERTY]: 'unknown',
  };
}

function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

function fileName(href: string): string {
  const path = href.replace(/[?#][\s\S]*/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}

function isAssetLink(link: Link): boolean {
  return ASSET_RELS.has((link.rel ?? '').toLowerCase());
}

/** Turns the record's data links into assets with unique keys. */
export function buildStacAssets(links: Link[]): Record<string, StacAsset> {
  const assets: Record<string, StacAsset> = {};
  for (const link of links.filter(isAssetLink)) {
    const base = slug(link.title ?? '') || slug(fileName(link.href)) || 'data';
    let key = base;
    for (let n = 2; key in assets; n += 1) key = `${base}-${n}`;
    assets[key] = {
      href: link.href,
      ...(link.type && { type: link.type }),
      ...(link.title && { title: link.title }),
      ...(link.description && { description: link.description }),
      roles: link.roles && link.roles.length > 0 ? link.roles : ['data'],
    };
  }
  return assets;
}

function toStacLink(link: Link): StacLink {
  return {
    rel: link.rel ?? 'related',
    href: link.href,
    ...(link.type && { type: link.type }),
    ...(link.title && { title: link.title }),
    ...(link.hreflang && { hreflang: link.hreflang }),
  };
}

function isUrl(text: string): boolean {
  return /^https?:\/\/\S+$/i.test(text);
}

/** The STAC `license` value and, for a license given by URL, a `license` link. */
export function buildLicense(license: string | undefined): { value?: string; link?: StacLink } {
  if (!license) return {};
  if (LICENSE_TOKEN.test(license)) return { value: license };
  if (isUrl(license)) {
    return { value: 'proprietary', link: { rel: 'license', href: license, title: 'License' } };
  }
  return { value: 'proprietary' };
}

/** STAC `providers` from the record's resource contacts. */
export function buildProviders(record: CoreRecord): JsonObject[] {
  return record.contacts
    .filter((contact) => contact.scope !== 'metadata' && (contact.organization || contact.name))
    .map((contact) => {
      const roles = (contact.roles ?? []).filter((role) => PROVIDER_ROLES.has(role));
      const url = contact.links?.find((link) => isUrl(link.href))?.href;
      return {
        name: (contact.organization ?? contact.name) as string,
        ...(roles.length > 0 && { roles }),
        ...(url && { url }),
      };
    });
}

function inRange(value: number | undefined, min: number, max: number): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= min && value <= max
    ? value
    : undefined;
}

/** The EO, sat, view and processing properties, each only when valid for its schema. */
function buildEoProperties(record: CoreRecord): JsonObject {
  const { eo } = record;
  const orbitState = eo.orbitDirection?.toLowerCase();
  const orbit = eo.orbitNumber;
  return {
    'eo:cloud_cover': inRange(eo.cloudCover, 0, 100),
    'eo:snow_cover': inRange(eo.snowCover, 0, 100),
    'sat:orbit_state': orbitState && ORBIT_STATES.has(orbitState) ? orbitState : undefined,
    'sat:absolute_orbit':
      orbit !== undefined && Number.isInteger(orbit) && orbit >= 1 ? orbit : undefined,
    'processing:level': eo.processingLevel,
    'view:sun_azimuth': inRange(eo.illuminationAzimuthAngle, 0, 360),
    'view:sun_elevation': inRange(eo.illuminationElevationAngle, -90, 90),
  };
}

/**
 * The object without its undefined, empty-array and empty-string members, in the same order (a
 * loop: see compact in services/api/protocols/records/present.ts).
 */
function withoutEmpty(object: JsonObject): JsonObject {
  const kept: JsonObject = {};
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0) || value === '') {
      continue;
    }
    kept[key] = value;
  }
  return kept;
}

function declaredExtensions(properties: JsonObject): string[] {
  const prefixes = Object.keys(properties).map((key) => key.split(':')[0]);
  return (Object.keys(STAC_EXTENSION_SCHEMAS) as (keyof typeof STAC_EXTENSION_SCHEMAS)[])
    .filter((prefix) => prefixes.includes(prefix))
    .map((prefix) => STAC_EXTENSION_SCHEMAS[prefix]);
}

function buildGeometry(record: CoreRecord): { geometry: Geometry | null; bbox?: Bbox } {
  const geometry = record.geometry ?? (record.bbox ? bboxToGeometry(record.bbox) : null);
  if (!geometry) return { geometry: null };
  const bbox = record.bbox ?? computeBbox(geometry);
  return bbox ? { geometry, bbox } : { geometry };
}

function withCollection(record: CoreRecord, links: StacItemLinks): { collection?: string } {
  const { id } = resolveCollection(record, links);
  return id === undefined ? {} : { collection: id };
}

/** Builds a STAC Item from the CoreRecord's fields (never from its source document). */
export function buildStacItem(record: CoreRecord, links: StacItemLinks): StacItem {
  const license = buildLicense(record.license);
  const instruments = (record.eo.instrument ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  // Not `{ ...buildStacTime(record), title, … }`: on Node 20 an object literal that opens with
  // a spread and then adds keys gets a hidden class of its own, which the young-generation
  // collector keeps (docs/decisions/garbage-the-young-collector-kept.md). Likewise below.
  const core = withoutEmpty(
    Object.assign(buildStacTime(record), {
      title: record.title,
      description: record.description,
      keywords: record.keywords,
      license: license.value,
      providers: buildProviders(record),
      created: normaliseDate(record.created),
      updated: normaliseDate(record.updated),
      platform: record.eo.platform,
      instruments,
      ...buildEoProperties(record),
    }),
  );
  const languages = buildStacLanguages(record);
  const properties: JsonObject = Object.assign({}, record.extra, core, languages.members);
  const recordLinks = record.links
    .filter((link) => !isAssetLink(link) && !HIERARCHY_RELS.has(link.rel ?? ''))
    .map(toStacLink);
  const { geometry, bbox } = buildGeometry(record);
  return {
    type: 'Feature',
    stac_version: STAC_VERSION,
    stac_extensions: [...declaredExtensions(properties), ...languages.extensions],
    id: record.id,
    geometry,
    ...(bbox && { bbox }),
    properties,
    links: [
      ...buildHierarchyLinks(record, links),
      ...(license.link ? [license.link] : []),
      ...recordLinks,
    ],
    assets: buildStacAssets(record.links),
    ...withCollection(record, links),
  };
}

/** Resolves a possibly relative href against a base URL; leaves it as it is when it cannot. */
export function resolveHref(href: string, base: string | undefined): string {
  if (!base || /^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  try {
    return new URL(href, base).toString();
  } catch {
    return href;
  }
}

function readSourceItem(record: CoreRecord): JsonObject | undefined {
  if (record.source.format !== 'stac-item' || !record.source.content) return undefined;
  try {
    const parsed: unknown = JSON.parse(record.source.content);
    if (!isObject(parsed) || parsed.type !== 'Feature' || !isObject(parsed.properties)) {
      return undefined;
    }
    return typeof parsed.stac_version === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites a stored STAC Item: this catalogue's hierarchy links, hrefs made absolute. */
function rewriteSourceItem(source: JsonObject, record: CoreRecord, links: StacItemLinks): StacItem {
  const sourceLinks = Array.isArray(source.links) ? source.links.filter(isObject) : [];
  const oldSelf = sourceLinks.find((link) => link.rel === 'self' && typeof link.href === 'string')
    ?.href as string | undefined;
  const base = oldSelf && isUrl(oldSelf) ? oldSelf : undefined;
  const keptLinks = sourceLinks
    .filter((link) => typeof link.href === 'string' && typeof link.rel === 'string')
    .filter((link) => !HIERARCHY_RELS.has(link.rel as string))
    .map((link) => ({ ...link, href: resolveHref(link.href as string, base) }) as StacLink);
  const assets: Record<string, StacAsset> = {};
  for (const [key, asset] of Object.entries(isObject(source.assets) ? source.assets : {})) {
    if (isObject(asset) && typeof asset.href === 'string') {
      assets[key] = { ...asset, href: resolveHref(asset.href, base) };
    }
  }
  const rest = Object.fromEntries(
    Object.entries(source).filter(([member]) => member !== 'collection'),
  );
  // Object.assign, not `{ ...rest, type, … }`: see buildStacItem.
  return Object.assign(rest, {
    type: 'Feature',
    stac_version: source.stac_version as string,
    stac_extensions: Array.isArray(source.stac_extensions)
      ? source.stac_extensions.filter((url): url is string => typeof url === 'string')
      : [],
    id: record.id,
    geometry: (source.geometry as Geometry | null | undefined) ?? null,
    properties: source.properties as JsonObject,
    links: [...buildHierarchyLinks(record, links), ...keptLinks],
    assets,
    ...withCollection(record, links),
  }) as StacItem;
}

/**
 * Writes a record as a STAC Item 1.0.0: from its stored STAC source when it has one (and
 * `preferSource` is not false), otherwise from its CoreRecord fields.
 */
export function writeStacItem(
  record: CoreRecord,
  links: StacItemLinks,
  options: StacItemOptions = {},
): StacItem {
  const source = options.preferSource === false ? undefined : readSourceItem(record);
  return source ? rewriteSourceItem(source, record, links) : buildStacItem(record, links);
}
