/**
 * OGC API – Records self-description: landing page, conformance declaration, collections
 * and the one catalogue collection. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { CatalogueExtent } from '../../../../shared/search/backend.js';
import { COLLECTION_ID, collectionUrl, GEOJSON } from './present.js';
import { presentStacLanding, STAC_CONFORMANCE_CLASSES } from '../stac/capabilities.js';

const RECORDS = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf';
const FEATURES = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';

/**
 * Conformance classes Cairn passes. Where the Records specification spells a class two ways
 * (clause 2 table and abstract test suite), both spellings are declared.
 */
export const CONFORMANCE_CLASSES: readonly string[] = [
  `${FEATURES}/core`,
  `${FEATURES}/geojson`,
  `${RECORDS}/searchable-catalog`,
  `${RECORDS}/searchable-catalog-sorting`,
  `${RECORDS}/searchable-catalog/sorting`,
  `${RECORDS}/record-core`,
  `${RECORDS}/record-collection`,
  `${RECORDS}/record-core-query-parameters`,
  `${RECORDS}/record-api`,
  `${RECORDS}/records-api`,
  `${RECORDS}/sorting`,
  `${RECORDS}/json`,
  // STAC API (services/api/protocols/stac): the landing page is also a STAC Catalog.
  ...STAC_CONFORMANCE_CLASSES,
].filter((uri, index, all) => all.indexOf(uri) === index); // each once (CQL2 classes are shared)

/** The landing page document. */
export function presentLandingPage(
  baseUrl: string,
  service: ServiceMetadata,
): Record<string, unknown> {
  const root = `${baseUrl}/catalogue`;
  // STAC API: stac_version, type, conformsTo and the root/search/queryables links.
  const stac = presentStacLanding(baseUrl);
  return {
    stac_version: stac.stac_version,
    type: stac.type,
    id: 'cairn',
    title: service.title,
    description: service.description,
    conformsTo: CONFORMANCE_CLASSES,
    links: [
      { rel: 'self', type: 'application/json', href: `${root}?f=json`, title: 'This document' },
      {
        rel: 'conformance',
        type: 'application/json',
        href: `${root}/conformance`,
        title: 'Conformance classes',
      },
      { rel: 'data', type: 'application/json', href: `${root}/collections`, title: 'Collections' },
      {
        rel: 'child',
        type: 'application/json',
        // STAC: a child must be a STAC Catalog or Collection; `f=stac` adds the STAC members.
        href: `${collectionUrl(baseUrl)}?f=stac`,
        title: service.title,
      },
      {
        rel: 'http://www.opengis.net/def/rel/ogc/1.0/ogc-catalog',
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
    ],
  };
}

/** The conformance declaration. */
export function presentConformance(): Record<string, unknown> {
  return { conformsTo: CONFORMANCE_CLASSES };
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
    crs: ['http://www.opengis.net/def/crs/OGC/1.3/CRS84'],
    extent: {
      spatial: {
        bbox: [extent.bbox ?? [-180, -90, 180, 90]],
        crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
      },
      temporal: {
        interval: [[extent.start ?? null, extent.end ?? null]],
        trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian',
      },
    },
    defaultSortOrder: ['id'],
    links: [
      { rel: 'self', type: 'application/json', href: `${self}?f=json`, title: 'This collection' },
      { rel: 'items', type: GEOJSON, href: `${self}/items?f=json`, title: 'Records' },
      {
        rel: 'root',
        type: 'application/json',
        href: `${baseUrl}/catalogue`,
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
    ],
  };
}
