/**
 * schema.org presentation for web search engines (Google Dataset Search and other crawlers):
 * CoreRecord → a schema.org `Dataset` (a `DataCatalog` for a series, a `WebAPI` for a
 * service), the catalogue → its `DataCatalog`, a page of results → an `ItemList` of the same
 * objects. Pure. Each type gets only the properties schema.org defines for it, so a validator
 * reads no unknown property; what a record lacks is left out, never made up, except for the
 * description Google requires (at least 50 characters), which is completed from the record's
 * own facts (see docs/decisions/web-discovery.md).
 */
import type { Geometry, Position } from 'geojson';
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { Contact, CoreRecord, Link } from '../../../../shared/records/core-record.js';
import type { SearchResult } from '../../../../shared/search/backend.js';
import { JSON_LD } from '../../common/media-types.js';
import { catalogueUrl, recordPageUrl, recordUrl } from '../../common/urls.js';
import { itemsLink, presentTime } from './present.js';

/** The JSON-LD context every document names. */
export const SCHEMA_ORG_CONTEXT = 'https://schema.org/';
/** Google's bounds on a Dataset description, in characters. */
export const DESCRIPTION_MIN_LENGTH = 50;
export const DESCRIPTION_MAX_LENGTH = 5000;

/** A schema.org node: `@type` and its properties (JSON values only). */
export type SchemaOrgNode = { '@type': string } & Record<string, unknown>;

/** The schema.org type a record is presented as, by its resource type. */
export function schemaOrgType(
  record: Pick<CoreRecord, 'type'>,
): 'Dataset' | 'DataCatalog' | 'WebAPI' {
  const type = record.type?.toLowerCase();
  if (type === 'series') return 'DataCatalog';
  if (type === 'service') return 'WebAPI';
  return 'Dataset';
}

/** The object without undefined members and empty arrays. */
function compact(object: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    kept[key] = value;
  }
  return kept;
}

/** One value when there is one, the array when there are more, undefined when none. */
function oneOrMany<T>(values: T[]): T | T[] | undefined {
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0] : values;
}

function distinct(values: string[]): string[] {
  return [...new Set(values.map((value) => value.trim()).filter((value) => value !== ''))];
}

const LABELS: Readonly<Record<string, string>> = {
  Dataset: 'Dataset',
  DataCatalog: 'Dataset series',
  WebAPI: 'Service',
};

/** Formats a coordinate for text: at most 4 decimals, no trailing zeros. */
function degrees(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}

/**
 * The record's description for schema.org: its own when it is long enough (cut at a word
 * boundary to Google's maximum); otherwise its own text (if any) followed by sentences stating
 * what the record itself says — its kind and title, the catalogue it is in, where and when it
 * applies, its keywords, platform and instrument. Nothing is added that the record does not hold.
 */
export function describeForSearchEngines(record: CoreRecord, catalogueName: string): string {
  const own = record.description?.trim().replace(/\s+/g, ' ') ?? '';
  if (own.length >= DESCRIPTION_MIN_LENGTH) return truncate(own, DESCRIPTION_MAX_LENGTH);
  const label = LABELS[schemaOrgType(record)] ?? 'Dataset';
  const title = record.title?.trim() || record.id;
  const facts: string[] = [];
  if (own !== '') facts.push(/[.!?]$/.test(own) ? own : `${own}.`);
  facts.push(`${label} "${title}" in the catalogue "${catalogueName}".`);
  if (record.bbox) {
    const [west, south, east, north] = record.bbox;
    facts.push(
      `Covers longitudes ${degrees(west)} to ${degrees(east)} and latitudes ${degrees(south)} to ${degrees(north)}.`,
    );
  }
  const time = timeValues(record);
  if (time?.at !== undefined) facts.push(`Date: ${time.at}.`);
  if (time?.interval) {
    const [start, end] = time.interval;
    facts.push(
      start === '..'
        ? `Until ${end}.`
        : end === '..'
          ? `From ${start}.`
          : `From ${start} to ${end}.`,
    );
  }
  const eo = [
    record.eo.platform && `platform ${record.eo.platform}`,
    record.eo.instrument && `instrument ${record.eo.instrument}`,
    record.eo.processingLevel && `processing level ${record.eo.processingLevel}`,
  ].filter((part): part is string => Boolean(part));
  if (eo.length > 0) facts.push(`Acquired with ${eo.join(', ')}.`);
  const keywords = distinct(record.keywords).slice(0, 20);
  if (keywords.length > 0) facts.push(`Keywords: ${keywords.join(', ')}.`);
  return truncate(facts.join(' '), DESCRIPTION_MAX_LENGTH);
}

/** The text cut to `max` characters at the last space before it, with an ellipsis. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A `lat lon` point of a schema.org GeoShape, from a CRS84 position. */
function point(position: Position): string {
  return `${position[1]} ${position[0]}`;
}

/** The GeoShape box of a CRS84 box: `south west north east` (two lat-lon corners). */
function box(west: number, south: number, east: number, north: number): SchemaOrgNode {
  return { '@type': 'GeoShape', box: `${south} ${west} ${north} ${east}` };
}

/**
 * The schema.org geometry of a record: its polygon when it has one (exterior rings only, as
 * schema.org polygons have no holes), a point as GeoCoordinates, else its box (two boxes when it
 * crosses the antimeridian, which a schema.org box cannot).
 */
export function presentGeo(
  geometry: Geometry | undefined,
  bbox: CoreRecord['bbox'],
): SchemaOrgNode | SchemaOrgNode[] | undefined {
  if (geometry?.type === 'Point') {
    const [longitude, latitude] = geometry.coordinates;
    return { '@type': 'GeoCoordinates', latitude, longitude };
  }
  const rings =
    geometry?.type === 'Polygon'
      ? [geometry.coordinates[0]]
      : geometry?.type === 'MultiPolygon'
        ? geometry.coordinates.map((polygon) => polygon[0])
        : [];
  const shapes = rings
    .filter((ring): ring is Position[] => ring !== undefined && ring.length >= 4)
    .map((ring) => ({ '@type': 'GeoShape', polygon: ring.map(point).join(' ') }));
  if (shapes.length > 0) return oneOrMany(shapes);
  if (!bbox) return undefined;
  const [west, south, east, north] = bbox;
  if (west === east && south === north) {
    return { '@type': 'GeoCoordinates', latitude: south, longitude: west };
  }
  if (west > east) return [box(west, south, 180, north), box(-180, south, east, north)];
  return box(west, south, east, north);
}

/**
 * The record's time as ISO 8601 text, as its OGC record gives it: one value for a date or an
 * instant, else the interval's ends with `..` for an open one.
 */
function timeValues(record: CoreRecord): { at?: string; interval?: string[] } | undefined {
  const time = presentTime(record.time);
  if (!time) return undefined;
  if ('date' in time) return { at: time.date };
  if ('timestamp' in time) return { at: time.timestamp };
  return { interval: time.interval };
}

/** The record's time extent as an ISO 8601 value or interval, open ends as `..`. */
export function presentTemporalCoverage(record: CoreRecord): string | undefined {
  const time = timeValues(record);
  return time?.at ?? time?.interval?.join('/');
}

const SPDX_ID = /^[A-Za-z0-9][A-Za-z0-9.+-]*$/;
/** Licence values that name no licence: left out. */
const NO_LICENCE = new Set(['other', 'none', 'unknown']);

/**
 * The licence as Google reads it (a URL or a CreativeWork): a URL as it is, an SPDX identifier
 * (as STAC gives it) as its SPDX page, any other text as a CreativeWork named by it.
 */
export function presentLicense(license: string | undefined): string | SchemaOrgNode | undefined {
  const value = license?.trim();
  if (!value || NO_LICENCE.has(value.toLowerCase())) return undefined;
  if (/^https?:\/\//i.test(value)) return value;
  // SPDX identifiers carry a version or a hyphen (CC-BY-4.0, MIT is the exception kept as text).
  if (SPDX_ID.test(value) && /\d|-/.test(value)) {
    return `https://spdx.org/licenses/${value}`;
  }
  return { '@type': 'CreativeWork', name: value };
}

const CREATOR_ROLES = new Set([
  'author',
  'creator',
  'originator',
  'principalinvestigator',
  'coauthor',
  'producer',
  'contributor',
]);
const PUBLISHER_ROLES = new Set(['publisher', 'distributor', 'host', 'resourceprovider']);

/** A contact as a schema.org Organization (when it names one) or Person. */
export function presentParty(contact: Contact): SchemaOrgNode | undefined {
  const email = contact.emails?.[0]?.value;
  const url = contact.links?.find((link) => /^https?:\/\//i.test(link.href))?.href;
  if (contact.organization) {
    const organization = compact({
      '@type': 'Organization',
      name: contact.organization,
      email,
      url,
    }) as SchemaOrgNode;
    if (!contact.name) return organization;
    return compact({
      '@type': 'Person',
      name: contact.name,
      affiliation: { '@type': 'Organization', name: contact.organization },
      email,
      url,
    }) as SchemaOrgNode;
  }
  if (!contact.name) return undefined;
  return compact({ '@type': 'Person', name: contact.name, email, url }) as SchemaOrgNode;
}

/** The parties of the described resource having one of the roles. */
function partiesWithRoles(record: CoreRecord, roles: ReadonlySet<string>): SchemaOrgNode[] {
  const seen = new Set<string>();
  const parties: SchemaOrgNode[] = [];
  for (const contact of record.contacts) {
    if (contact.scope === 'metadata') continue;
    if (!(contact.roles ?? []).some((role) => roles.has(role.toLowerCase()))) continue;
    const party = presentParty(contact);
    const key = JSON.stringify(party);
    if (party && !seen.has(key)) {
      seen.add(key);
      parties.push(party);
    }
  }
  return parties;
}

/** Whether a link is a download of the data (STAC assets, ISO download resources). */
function isDownload(link: Link): boolean {
  return link.rel === 'enclosure' || link.rel === 'data' || (link.roles ?? []).includes('data');
}

/** The record's downloads as DataDownloads, with their media type where known. */
export function presentDistribution(record: CoreRecord): SchemaOrgNode[] {
  const onlyFormat =
    record.formats.length === 1
      ? (record.formats[0]?.mediaType ?? record.formats[0]?.name)
      : undefined;
  return record.links.filter(isDownload).map(
    (link) =>
      compact({
        '@type': 'DataDownload',
        contentUrl: link.href,
        encodingFormat: link.type ?? onlyFormat,
        name: link.title,
        description: link.description,
      }) as SchemaOrgNode,
  );
}

/** What every schema.org presentation needs: the public base URL and the service metadata. */
export interface SchemaOrgContext {
  baseUrl: string;
  service: Pick<ServiceMetadata, 'title' | 'description'>;
}

/** The catalogue as a reference (`includedInDataCatalog`, `isPartOf`). */
function catalogueReference(context: SchemaOrgContext): SchemaOrgNode {
  return {
    '@type': 'DataCatalog',
    '@id': catalogueUrl(context.baseUrl),
    name: context.service.title,
    url: `${catalogueUrl(context.baseUrl)}?f=html`,
  };
}

/** One record as a schema.org node, without `@context` (see presentSchemaOrgRecord). */
export function buildSchemaOrgNode(record: CoreRecord, context: SchemaOrgContext): SchemaOrgNode {
  const type = schemaOrgType(record);
  const common = {
    '@type': type,
    '@id': recordUrl(context.baseUrl, record.id),
    name: record.title?.trim() || record.id,
    description: describeForSearchEngines(record, context.service.title),
    identifier: oneOrMany(distinct([record.id, ...record.externalIds.map((id) => id.value)])),
    url: recordPageUrl(context.baseUrl, record.id),
  };
  const geo = presentGeo(record.geometry, record.bbox);
  const place = geo && { '@type': 'Place', geo };
  const creators = partiesWithRoles(record, CREATOR_ROLES);
  const publishers = partiesWithRoles(record, PUBLISHER_ROLES);
  if (type === 'WebAPI') {
    return compact({
      ...common,
      areaServed: place,
      provider: oneOrMany([...publishers, ...creators]),
      termsOfService: record.license,
      documentation: record.links.find((link) => link.rel === 'describedby')?.href,
    }) as SchemaOrgNode;
  }
  const keywords = distinct([
    ...record.keywords,
    ...record.themes.flatMap((theme) =>
      theme.concepts.map((concept) => concept.title ?? concept.id),
    ),
  ]);
  const work = {
    ...common,
    keywords,
    spatialCoverage: place,
    temporalCoverage: presentTemporalCoverage(record),
    license: presentLicense(record.license),
    creator: oneOrMany(creators),
    publisher: oneOrMany(publishers),
    inLanguage: record.language,
    dateCreated: record.resourceCreated,
    datePublished: record.resourcePublished,
    dateModified: record.updated ?? record.resourceUpdated,
  };
  if (type === 'DataCatalog') {
    return compact({ ...work, isPartOf: catalogueReference(context) }) as SchemaOrgNode;
  }
  return compact({
    ...work,
    isPartOf: record.parentId ? { '@id': recordUrl(context.baseUrl, record.parentId) } : undefined,
    distribution: presentDistribution(record),
    includedInDataCatalog: catalogueReference(context),
  }) as SchemaOrgNode;
}

/** One record as a JSON-LD document (its page's script element, and `f=jsonld`). */
export function presentSchemaOrgRecord(
  record: CoreRecord,
  context: SchemaOrgContext,
): Record<string, unknown> {
  return { '@context': SCHEMA_ORG_CONTEXT, ...buildSchemaOrgNode(record, context) };
}

/** The catalogue as a schema.org DataCatalog (the landing page's script element). */
export function presentSchemaOrgCatalogue(context: SchemaOrgContext): Record<string, unknown> {
  const root = catalogueUrl(context.baseUrl);
  return {
    '@context': SCHEMA_ORG_CONTEXT,
    '@type': 'DataCatalog',
    '@id': root,
    name: context.service.title,
    description: context.service.description,
    url: `${root}?f=html`,
  };
}

/**
 * A page of search results as a schema.org ItemList: each element is the record's own node
 * (the one its page embeds), in result order, `position` counting from the first match;
 * `numberOfItems` is the number of matches (numberMatched), the list is part of the catalogue.
 */
export function presentSchemaOrgItems(
  result: SearchResult,
  context: SchemaOrgContext & { offset: number; url: string },
): Record<string, unknown> {
  return {
    '@context': SCHEMA_ORG_CONTEXT,
    '@type': 'ItemList',
    url: context.url,
    numberOfItems: result.total,
    isPartOf: catalogueReference(context),
    itemListElement: result.records.map((record, index) => ({
      '@type': 'ListItem',
      position: context.offset + index + 1,
      item: buildSchemaOrgNode(record, context),
    })),
  };
}

/** A page of items in JSON-LD: the request's parameters and paging, and the service. */
export interface SchemaOrgPageContext extends SchemaOrgContext {
  /** The request's query parameters, carried into the paging links. */
  query: Record<string, string>;
  offset: number;
  limit: number;
}

/**
 * A page of items as JSON-LD: the ItemList (presentSchemaOrgItems) and the HTTP `Link` header
 * value naming this page and the next and previous ones in the same encoding, as schema.org
 * has no paging of its own.
 */
export function presentSchemaOrgPage(
  result: SearchResult,
  context: SchemaOrgPageContext,
): { document: Record<string, unknown>; linkHeader: string } {
  const { offset, limit } = context;
  const at = (start: number): string =>
    itemsLink(
      { baseUrl: context.baseUrl, query: context.query, offset, limit, timeStamp: '' },
      { limit: String(limit), offset: String(start), f: 'jsonld' },
    );
  const links = [`<${at(offset)}>; rel="self"; type="${JSON_LD}"`];
  if (offset + result.records.length < result.total) {
    links.push(`<${at(offset + limit)}>; rel="next"; type="${JSON_LD}"`);
  }
  if (offset > 0) links.push(`<${at(Math.max(0, offset - limit))}>; rel="prev"; type="${JSON_LD}"`);
  return {
    document: presentSchemaOrgItems(result, { ...context, url: at(offset) }),
    linkHeader: links.join(', '),
  };
}
