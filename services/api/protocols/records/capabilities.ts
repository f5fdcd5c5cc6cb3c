/**
 * OGC API – Records self-description: landing page, conformance declaration, collections
 * and the one catalogue collection. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import {
  QUERYABLES,
  type LearnedProperty,
  type Queryable,
} from '../../../../shared/query/queryables.js';
import { CALENDAR_INTERVALS } from '../../../../shared/search/aggregations.js';
import type { CatalogueExtent } from '../../../../shared/search/backend.js';
import { presentCatalogueCollection } from '../../common/catalogue-collection.js';
import type {
  CollectionsDocument,
  ConformanceDocument,
  FacetDefinition,
  FacetsDocument,
  LandingPage,
  SchemaDocument,
} from '../../common/documents.js';
import { jsonAndHtmlLinks, type Link } from '../../common/links.js';
import { describeLearnedProperty, describeQueryable } from '../../common/queryable-schema.js';
import {
  CATALOG_REL,
  FACETS_JSON,
  HTML,
  JSON_TYPE,
  OPENAPI_JSON,
  XML,
} from '../../common/media-types.js';
import {
  catalogueUrl,
  collectionsUrl,
  collectionUrl,
  cswUrl,
  openApiUrl,
  oaiUrl,
  openSearchDescriptionUrl,
} from '../../common/urls.js';
import { presentStacLanding } from '../stac/capabilities.js';
import {
  DATE_HISTOGRAM_FACETS,
  DEFAULT_BUCKET_COUNT,
  DEFAULT_FACET_INTERVAL,
  FACET_PROPERTIES,
  RANGE_FACETS,
} from './parse.js';

const RECORDS = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf';
const RECORDS_FACETS = 'http://www.opengis.net/spec/ogcapi-records-2/1.0/conf';
const FEATURES = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const FEATURES_FILTER = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';

/**
 * The conformance classes the Records API passes, on every backend (the engines decide in Node
 * what their index cannot: shared/search/engine/refine-search.ts; test/integration/
 * cql2-engines.test.ts runs the whole CQL2 suite on them with no refusal). Where the Records
 * specification spells a class two ways (clause 2 table and abstract test suite), both
 * spellings are declared. The CQL2 classes are the ones the SQLite filter compiler passes
 * against the CQL2 test dataset (test/integration/cql2-sqlite.test.ts). /conformance declares
 * these with the other protocols' (registry/protocols.ts).
 */
export const RECORDS_CONFORMANCE_CLASSES: readonly string[] = [
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
];

/** The landing page document, declaring the API's conformance classes. */
export function presentLandingPage(
  baseUrl: string,
  service: ServiceMetadata,
  conformance: readonly string[],
): LandingPage {
  const root = catalogueUrl(baseUrl);
  // STAC API: stac_version, type, conformsTo and the root/search/queryables links, and a
  // `child` link to the STAC API root (/catalogue/stac), where the STAC Collections are.
  const stac = presentStacLanding(baseUrl);
  return {
    stac_version: stac.stac_version,
    type: stac.type,
    id: 'cairn',
    title: service.title,
    description: service.description,
    conformsTo: conformance,
    links: uniqueLinks([
      ...jsonAndHtmlLinks(root, JSON_TYPE, 'This document'),
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
      ...jsonAndHtmlLinks(`${root}/conformance`, JSON_TYPE, 'Conformance classes', 'conformance'),
      ...jsonAndHtmlLinks(collectionsUrl(baseUrl), JSON_TYPE, 'Collections', 'data'),
      {
        rel: CATALOG_REL,
        type: JSON_TYPE,
        href: collectionUrl(baseUrl),
        title: service.title,
      },
      ...stac.links,
      // CSW 2.0.2/3.0.0 (services/api/protocols/csw) and its OpenSearch description; rel
      // "service" (not "search", which STAC clients take for the item search endpoint).
      {
        rel: 'service',
        type: XML,
        href: `${cswUrl(baseUrl)}?service=CSW&version=3.0.0&request=GetCapabilities`,
        title: 'CSW 3.0 / 2.0.2 capabilities',
      },
      {
        rel: 'service',
        type: 'application/opensearchdescription+xml',
        href: openSearchDescriptionUrl(baseUrl),
        title: 'OpenSearch description',
      },
      {
        rel: 'service',
        type: 'text/xml',
        href: `${oaiUrl(baseUrl)}?verb=Identify`,
        title: 'OAI-PMH 2.0 data provider',
      },
    ]),
  };
}

/** Drops repeated links (same rel, type, method and href), keeping the first. */
function uniqueLinks(links: Link[]): Link[] {
  const seen = new Set<string>();
  return links.filter((link) => {
    const key = `${link.rel} ${link.type} ${link.method} ${link.href}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The conformance declaration of the API's conformance classes. */
export function presentConformance(conformance: readonly string[]): ConformanceDocument {
  return { conformsTo: conformance };
}

/** The collections list (one catalogue). */
export function presentCollections(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): CollectionsDocument {
  return {
    collections: [presentCatalogueCollection(baseUrl, service, extent)],
    links: jsonAndHtmlLinks(collectionsUrl(baseUrl), JSON_TYPE, 'Collections'),
  };
}

function schemaDocument(
  id: string,
  title: string,
  description: string,
  queryables: readonly Queryable[],
  additionalProperties: boolean,
): SchemaDocument {
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
 * registered queryable under its canonical name, then the properties learned from the records
 * (their own names and JSON types; a core name always wins). A filter naming any other property
 * is a 400 (Features Part 3, /req/filter/filter-param), so additionalProperties is false.
 */
export function presentQueryables(
  baseUrl: string,
  learned: readonly LearnedProperty[] = [],
): SchemaDocument {
  const document = schemaDocument(
    `${collectionUrl(baseUrl)}/queryables`,
    'Queryables of the catalogue',
    'Properties that `filter`, `sortby` and `name=value` parameters of the items endpoint accept ' +
      '(the core ones, by these names or their aliases), then the properties the records written ' +
      'to the catalogue carry, which `filter` accepts too; a filter naming any other property is ' +
      'refused with 400.',
    QUERYABLES,
    false,
  );
  for (const property of learned) {
    document.properties[property.name] ??= describeLearnedProperty(property);
  }
  return document;
}

/**
 * The sortables document of the catalogue (JSON Schema 2020-12, Records /req/sorting): the core
 * sortables, then the learned properties a sort can order by (scalar values on SQLite, fields
 * with doc values on the engines).
 */
export function presentSortables(
  baseUrl: string,
  learned: readonly LearnedProperty[] = [],
): SchemaDocument {
  const document = schemaDocument(
    `${collectionUrl(baseUrl)}/sortables`,
    'Sortables of the catalogue',
    'Properties that `sortby` accepts (prefix `-` for descending order): the core ones, then ' +
      'the properties of the records a sort can order by.',
    QUERYABLES.filter((queryable) => queryable.sortable),
    false,
  );
  for (const property of learned) {
    if (property.sortable) document.properties[property.name] ??= describeLearnedProperty(property);
  }
  return document;
}

/** The facets the catalogue offers (Records Part 2 facets definition document). */
export function presentFacetDefinitions(baseUrl: string): FacetsDocument {
  const byName = new Map(QUERYABLES.map((queryable) => [queryable.name, queryable]));
  const title = (name: string) => byName.get(name)?.title ?? name;
  const terms = FACET_PROPERTIES.map((name): [string, FacetDefinition] => [
    name,
    { type: 'term', property: name, title: title(name), sortedBy: 'count', minOccurs: 1 },
  ]);
  const histograms = DATE_HISTOGRAM_FACETS.map((name): [string, FacetDefinition] => [
    name,
    {
      type: 'histogram',
      property: name,
      title: title(name),
      bucketType: 'fixedInterval',
      interval: DEFAULT_FACET_INTERVAL,
      intervals: CALENDAR_INTERVALS,
    },
  ]);
  const ranges = Object.entries(RANGE_FACETS).map(([name, bands]): [string, FacetDefinition] => [
    name,
    {
      type: 'histogram',
      property: name,
      title: title(name),
      bucketType: 'fixedInterval',
      ranges: bands.map(({ key, from, to }) => ({
        key,
        ...(from !== undefined && { min: from }),
        ...(to !== undefined && { max: to }),
      })),
    },
  ]);
  return {
    facets: Object.fromEntries([...terms, ...histograms, ...ranges]),
    defaultBucketCount: DEFAULT_BUCKET_COUNT,
    links: [
      ...jsonAndHtmlLinks(`${collectionUrl(baseUrl)}/facets`, FACETS_JSON, 'Facets'),
      {
        rel: 'collection',
        type: JSON_TYPE,
        href: collectionUrl(baseUrl),
        title: 'The catalogue',
      },
    ],
  };
}
