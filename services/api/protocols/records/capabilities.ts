/**
 * OGC API – Records self-description: landing page, conformance declaration, collections
 * and the one catalogue collection. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import { QUERYABLES, type Queryable } from '../../../../shared/query/queryables.js';
import type { BackendKind, CatalogueExtent } from '../../../../shared/search/backend.js';
import { FACET_PROPERTIES, DEFAULT_BUCKET_COUNT, SUPPORTED_CRS } from './parse.js';
import {
  COLLECTION_ID,
  collectionUrl,
  GEOJSON,
  HTML,
  OPENAPI_JSON,
  SCHEMA_JSON,
} from './present.js';
import { presentStacLanding, STAC_CONFORMANCE_CLASSES } from '../stac/capabilities.js';

const RECORDS = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf';
const RECORDS_FACETS = 'http://www.opengis.net/spec/ogcapi-records-2/1.0/conf';
const FEATURES = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const FEATURES_FILTER = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';
const OGC_REL = 'http://www.opengis.net/def/rel/ogc/1.0';
export const QUERYABLES_REL = `${OGC_REL}/queryables`;
export const SORTABLES_REL = `${OGC_REL}/sortables`;
export const CATALOG_REL = `${OGC_REL}/ogc-catalog`;
export const FACETS_MEDIA_TYPE = 'application/facets+json';
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

/** Where the OpenAPI document lives. */
export function openApiUrl(baseUrl: string): string {
  return `${baseUrl}/catalogue/openapi`;
}

/**
 * Conformance classes Cairn passes. Where the Records specification spells a class two ways
 * (clause 2 table and abstract test suite), both spellings are declared. The CQL2 classes are
 * the ones the SQLite filter compiler passes against the CQL2 test dataset
 * (test/integration/cql2-sqlite.test.ts).
 */
export const CONFORMANCE_CLASSES: readonly string[] = [
  `${FEATURES}/core`,
  `${FEATURES}/geojson`,
  `${FEATURES}/html`,
  `${FEATURES}/oas30`,
  'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
  `${RECORDS}/searchable-catalog`,
  `${RECORDS}/searchable-catalog-filtering`,
  `${RECORDS}/searchable-catalog/filtering`,
  `${RECORDS}/searchable-catalog-sorting`,
  `${RECORDS}/searchable-catalog/sorting`,
  `${RECORDS}/record-core`,
  `${RECORDS}/record-collection`,
  `${RECORDS}/record-core-query-parameters`,
  `${RECORDS}/record-api`,
  `${RECORDS}/records-api`,
  `${RECORDS}/sorting`,
  `${RECORDS}/filtering`,
  `${RECORDS}/cql-filter`,
  `${RECORDS}/json`,
  `${RECORDS}/html`,
  `${RECORDS}/oas30`,
  `${RECORDS}/autodiscovery`,
  `${RECORDS_FACETS}/simple`,
  `${FEATURES_FILTER}/queryables`,
  `${FEATURES_FILTER}/queryables-query-parameters`,
  `${FEATURES_FILTER}/filter`,
  `${FEATURES_FILTER}/features-filter`,
  `${CQL2}/basic-cql2`,
  `${CQL2}/advanced-comparison-operators`,
  `${CQL2}/case-insensitive-comparison`,
  `${CQL2}/accent-insensitive-comparison`,
  `${CQL2}/basic-spatial-functions`,
  `${CQL2}/basic-spatial-functions-plus`,
  `${CQL2}/spatial-functions`,
  `${CQL2}/temporal-functions`,
  `${CQL2}/array-functions`,
  `${CQL2}/property-property`,
  `${CQL2}/arithmetic`,
  `${CQL2}/cql2-text`,
  `${CQL2}/cql2-json`,
  // STAC API (services/api/protocols/stac): the landing page is also a STAC Catalog.
  ...STAC_CONFORMANCE_CLASSES,
].filter((uri, index, all) => all.indexOf(uri) === index); // each once (CQL2 classes are shared)

/**
 * The conformance classes the configured backend really passes: the same on every backend, as
 * the engines decide in Node what their index cannot (shared/search/engine/refine-search.ts;
 * test/integration/cql2-engines.test.ts runs the whole CQL2 suite on them with no refusal).
 */
export function conformanceClasses(_backend: BackendKind): readonly string[] {
  return CONFORMANCE_CLASSES;
}

/** The landing page document. */
export function presentLandingPage(
  baseUrl: string,
  service: ServiceMetadata,
  backend: BackendKind,
): Record<string, unknown> {
  const root = `${baseUrl}/catalogue`;
  // STAC API: stac_version, type, conformsTo and the root/search/queryables links, and a
  // `child` link to the STAC API root (/catalogue/stac), where the STAC Collections are.
  const stac = presentStacLanding(baseUrl);
  return {
    stac_version: stac.stac_version,
    type: stac.type,
    id: 'cairn',
    title: service.title,
    description: service.description,
    conformsTo: conformanceClasses(backend),
    links: uniqueLinks([
      { rel: 'self', type: 'application/json', href: `${root}?f=json`, title: 'This document' },
      { rel: 'alternate', type: HTML, href: `${root}?f=html`, title: 'This document as HTML' },
      {
        rel: 'service-desc',
        type: OPENAPI_JSON,
        href: `${openApiUrl(baseUrl)}?f=json`,
        title: 'The API definition (OpenAPI 3.0)',
      },
      {
        rel: 'service-doc',
        type: HTML,
        href: `${openApiUrl(baseUrl)}?f=html`,
        title: 'The API documentation',
      },
      {
        rel: 'conformance',
        type: 'application/json',
        href: `${root}/conformance?f=json`,
        title: 'Conformance classes',
      },
      {
        rel: 'conformance',
        type: HTML,
        href: `${root}/conformance?f=html`,
        title: 'Conformance classes as HTML',
      },
      {
        rel: 'data',
        type: 'application/json',
        href: `${root}/collections?f=json`,
        title: 'Collections',
      },
      { rel: 'data', type: HTML, href: `${root}/collections?f=html`, title: 'Collections as HTML' },
      {
        rel: CATALOG_REL,
        type: 'application/json',
        href: collectionUrl(baseUrl),
        title: service.title,
      },
      ...stac.links,
      // CSW 2.0.2/3.0.0 (services/api/protocols/csw) and its OpenSearch description; rel
      // "service" (not "search", which STAC clients take for the item search endpoint).
      {
        rel: 'service',
        type: 'application/xml',
        href: `${root}/csw?service=CSW&version=3.0.0&request=GetCapabilities`,
        title: 'CSW 3.0 / 2.0.2 capabilities',
      },
      {
        rel: 'service',
        type: 'application/opensearchdescription+xml',
        href: `${root}/opensearch`,
        title: 'OpenSearch description',
      },
    ]),
  };
}

/** Drops repeated links (same rel, type, method and href), keeping the first. */
function uniqueLinks(links: Record<string, string>[]): Record<string, string>[] {
  const seen = new Set<string>();
  return links.filter((link) => {
    const key = `${link.rel} ${link.type} ${link.method} ${link.href}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The conformance declaration of the configured backend. */
export function presentConformance(backend: BackendKind): Record<string, unknown> {
  return { conformsTo: conformanceClasses(backend) };
}

/** The catalogue collection (`metadata:main`), with its extent computed from the records. */
export function presentCollection(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): Record<string, unknown> {
  const self = collectionUrl(baseUrl);
  return {
    id: COLLECTION_ID,
    type: 'Collection',
    itemType: 'record',
    title: service.title,
    description: service.description,
    keywords: service.keywords,
    license: service.license,
    crs: [...SUPPORTED_CRS],
    storageCrs: CRS84,
    extent: {
      spatial: { bbox: [extent.bbox ?? [-180, -90, 180, 90]], crs: CRS84 },
      temporal: {
        interval: [[extent.start ?? null, extent.end ?? null]],
        trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian',
      },
    },
    defaultSortOrder: [{ field: 'id', direction: 'asc' }],
    links: [
      { rel: 'self', type: 'application/json', href: `${self}?f=json`, title: 'This collection' },
      { rel: 'alternate', type: HTML, href: `${self}?f=html`, title: 'This collection as HTML' },
      { rel: 'items', type: GEOJSON, href: `${self}/items?f=json`, title: 'Records' },
      { rel: 'items', type: HTML, href: `${self}/items?f=html`, title: 'Records as HTML' },
      {
        rel: QUERYABLES_REL,
        type: SCHEMA_JSON,
        href: `${self}/queryables?f=json`,
        title: 'Queryables',
      },
      {
        rel: QUERYABLES_REL,
        type: HTML,
        href: `${self}/queryables?f=html`,
        title: 'Queryables as HTML',
      },
      {
        rel: SORTABLES_REL,
        type: SCHEMA_JSON,
        href: `${self}/sortables?f=json`,
        title: 'Sortables',
      },
      {
        rel: SORTABLES_REL,
        type: HTML,
        href: `${self}/sortables?f=html`,
        title: 'Sortables as HTML',
      },
      {
        rel: `${OGC_REL}/facets`,
        type: FACETS_MEDIA_TYPE,
        href: `${self}/facets?f=json`,
        title: 'Facets',
      },
      {
        rel: `${OGC_REL}/facets`,
        type: HTML,
        href: `${self}/facets?f=html`,
        title: 'Facets as HTML',
      },
      {
        rel: 'root',
        type: 'application/json',
        href: `${baseUrl}/catalogue?f=json`,
        title: 'Landing page',
      },
    ],
  };
}

/** The collections list (one catalogue). */
export function presentCollections(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): Record<string, unknown> {
  return {
    collections: [presentCollection(baseUrl, service, extent)],
    links: [
      {
        rel: 'self',
        type: 'application/json',
        href: `${baseUrl}/catalogue/collections?f=json`,
        title: 'Collections',
      },
      {
        rel: 'alternate',
        type: HTML,
        href: `${baseUrl}/catalogue/collections?f=html`,
        title: 'Collections as HTML',
      },
    ],
  };
}

/** The JSON Schema (2020-12) of one queryable, as queryables and sortables documents list it. */
export function describeQueryable(queryable: Queryable): Record<string, unknown> {
  const role = queryable.role ? { 'x-ogc-role': queryable.role } : {};
  switch (queryable.type) {
    case 'geometry':
      // Spatial properties carry a format and no type (Features Part 3, /req/queryables).
      return { title: queryable.title, format: 'geometry-any', ...role };
    case 'datetime':
      return { title: queryable.title, type: 'string', format: 'date-time', ...role };
    case 'array':
      return { title: queryable.title, type: 'array', items: { type: 'string' }, ...role };
    default:
      return { title: queryable.title, type: queryable.type, ...role };
  }
}

function schemaDocument(
  id: string,
  title: string,
  description: string,
  queryables: readonly Queryable[],
  additionalProperties: boolean,
): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    type: 'object',
    title,
    description,
    properties: Object.fromEntries(
      queryables.map((queryable) => [queryable.name, describeQueryable(queryable)]),
    ),
    additionalProperties,
  };
}

/**
 * The queryables document of the catalogue (JSON Schema 2020-12, Features Part 3): every
 * registered queryable under its canonical name. A filter naming any other property is a 400
 * (Features Part 3, /req/filter/filter-param), so additionalProperties is false.
 */
export function presentQueryables(baseUrl: string): Record<string, unknown> {
  return schemaDocument(
    `${collectionUrl(baseUrl)}/queryables`,
    'Queryables of the catalogue',
    'Properties that `filter`, `sortby` and `name=value` parameters of the items endpoint accept ' +
      '(by these names or their aliases); a filter naming any other property is refused with 400.',
    QUERYABLES,
    false,
  );
}

/** The sortables document of the catalogue (JSON Schema 2020-12, Records /req/sorting). */
export function presentSortables(baseUrl: string): Record<string, unknown> {
  return schemaDocument(
    `${collectionUrl(baseUrl)}/sortables`,
    'Sortables of the catalogue',
    'Properties that `sortby` accepts (prefix `-` for descending order).',
    QUERYABLES.filter((queryable) => queryable.sortable),
    false,
  );
}

/** The facets the catalogue offers (Records Part 2 facets definition document). */
export function presentFacetDefinitions(baseUrl: string): Record<string, unknown> {
  const byName = new Map(QUERYABLES.map((queryable) => [queryable.name, queryable]));
  return {
    facets: Object.fromEntries(
      FACET_PROPERTIES.map((name) => [
        name,
        {
          type: 'term',
          property: name,
          title: byName.get(name)?.title ?? name,
          sortedBy: 'count',
          minOccurs: 1,
        },
      ]),
    ),
    defaultBucketCount: DEFAULT_BUCKET_COUNT,
    links: [
      {
        rel: 'self',
        type: FACETS_MEDIA_TYPE,
        href: `${collectionUrl(baseUrl)}/facets?f=json`,
        title: 'Facets',
      },
      {
        rel: 'alternate',
        type: HTML,
        href: `${collectionUrl(baseUrl)}/facets?f=html`,
        title: 'Facets as HTML',
      },
      {
        rel: 'collection',
        type: 'application/json',
        href: collectionUrl(baseUrl),
        title: 'The catalogue',
      },
    ],
  };
}
