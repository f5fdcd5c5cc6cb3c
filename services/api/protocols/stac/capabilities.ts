/**
 * STAC API self-description: the conformance classes the item search passes, the STAC part of
 * the landing page (which the Records landing page merges in) and the queryables document.
 * Pure.
 */
import { QUERYABLES, type LearnedProperty } from '../../../../shared/query/queryables.js';
import { STAC_VERSION } from '../../../../shared/records/writers/stac-item.js';
import type { Link } from '../../common/links.js';
import { aggregationLinks } from './aggregate.js';
import { GEOJSON, QUERYABLES_REL } from '../../common/media-types.js';
import { describeLearnedProperty, describeQueryable } from '../../common/queryable-schema.js';
import { catalogueUrl, openApiUrl } from '../../common/urls.js';

const STAC_API = 'https://api.stacspec.org/v1.0.0';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';

/**
 * STAC API conformance classes: core, item search and its filter, sort, fields and free-text
 * extensions, with the OGC classes the filter extension asks for. Optional CQL2 classes
 * (advanced comparison, spatial, temporal …) are declared by the filter implementation.
 */
export const STAC_CONFORMANCE_CLASSES: readonly string[] = [
  `${STAC_API}/core`,
  `${STAC_API}/item-search`,
  `${STAC_API}/item-search#filter`,
  `${STAC_API}/item-search#sort`,
  `${STAC_API}/item-search#fields`,
  'https://api.stacspec.org/v1.0.0-rc.1/item-search#free-text',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
  `${CQL2}/basic-cql2`,
  `${CQL2}/cql2-text`,
  `${CQL2}/cql2-json`,
  // The Aggregation extension (`/catalogue/aggregate`), with the item search's filter.
  'https://api.stacspec.org/v0.3.0/aggregation',
  'https://api.stacspec.org/v0.3.0/aggregation#filter',
];

const FEATURES = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const COLLECTION_SEARCH = 'https://api.stacspec.org/v1.0.0-rc.1/collection-search';

/**
 * STAC API Collection Search (v1.0.0-rc.1, the extension's current release) on
 * `/catalogue/stac/collections`: the simple query (`bbox`, `datetime`, `limit`) and the
 * free-text, filter, sort and fields parts. Declared by the STAC API root only: the catalogue's
 * own `/collections` are OGC API – Records collections, which take none of these parameters.
 */
export const STAC_COLLECTION_SEARCH_CONFORMANCE_CLASSES: readonly string[] = [
  COLLECTION_SEARCH,
  'http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/simple-query',
  `${COLLECTION_SEARCH}#free-text`,
  `${COLLECTION_SEARCH}#filter`,
  `${COLLECTION_SEARCH}#sort`,
  `${COLLECTION_SEARCH}#fields`,
];

/**
 * The conformance classes of the STAC API root (`/catalogue/stac`): item search and its
 * extensions, plus STAC API Collections and Features with the OGC API – Features Part 1
 * classes that Features builds on.
 */
export const STAC_API_CONFORMANCE_CLASSES: readonly string[] = [
  ...STAC_CONFORMANCE_CLASSES,
  `${STAC_API}/collections`,
  `${STAC_API}/ogcapi-features`,
  `${FEATURES}/core`,
  `${FEATURES}/geojson`,
  `${FEATURES}/oas30`,
  ...STAC_COLLECTION_SEARCH_CONFORMANCE_CLASSES,
];

/** The STAC API root: the landing page STAC clients open (collections, features, search). */
export function stacRootUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/stac`;
}

/** The STAC Collections list. */
export function stacCollectionsUrl(baseUrl: string): string {
  return `${stacRootUrl(baseUrl)}/collections`;
}

/** A record id in a path segment (`:` kept, as in `metadata:main`). */
function pathSegment(id: string): string {
  return encodeURIComponent(id).replace(/%3A/gi, ':');
}

/** One STAC Collection. */
export function stacCollectionUrl(baseUrl: string, collectionId: string): string {
  return `${stacCollectionsUrl(baseUrl)}/${pathSegment(collectionId)}`;
}

/** The items of one STAC Collection (STAC API Features). */
export function stacItemsUrl(baseUrl: string, collectionId: string): string {
  return `${stacCollectionUrl(baseUrl, collectionId)}/items`;
}

/** One item of one STAC Collection. */
export function stacFeatureUrl(baseUrl: string, collectionId: string, itemId: string): string {
  return `${stacItemsUrl(baseUrl, collectionId)}/${pathSegment(itemId)}`;
}

/** Where the STAC item search lives. */
export function searchUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/search`;
}

/** Where the STAC queryables document lives. */
export function queryablesUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/queryables`;
}

/**
 * The members that make the landing page a STAC Catalog: `stac_version`, `type` and the
 * `root`, `search` (GET and POST) and queryables links.
 */
export function presentStacLanding(baseUrl: string): {
  stac_version: string;
  type: 'Catalog';
  links: Link[];
} {
  const search = searchUrl(baseUrl);
  return {
    stac_version: STAC_VERSION,
    type: 'Catalog',
    links: [
      { rel: 'root', type: 'application/json', href: catalogueUrl(baseUrl), title: 'Catalogue' },
      {
        rel: 'child',
        type: 'application/json',
        href: stacRootUrl(baseUrl),
        title: 'STAC API: collections and their items',
      },
      // The OpenAPI document (services/api/openapi) and its Swagger UI page.
      {
        rel: 'service-desc',
        type: 'application/vnd.oai.openapi+json;version=3.0',
        href: `${openApiUrl(baseUrl)}?f=json`,
        title: 'The API definition (OpenAPI 3.0)',
      },
      {
        rel: 'service-doc',
        type: 'text/html',
        href: `${openApiUrl(baseUrl)}?f=html`,
        title: 'The API documentation',
      },
      { rel: 'search', type: GEOJSON, href: search, method: 'GET', title: 'STAC item search' },
      { rel: 'search', type: GEOJSON, href: search, method: 'POST', title: 'STAC item search' },
      ...aggregationLinks(baseUrl),
      {
        rel: QUERYABLES_REL,
        type: 'application/schema+json',
        href: queryablesUrl(baseUrl),
        title: 'Queryables for the STAC item search',
      },
    ],
  };
}

/** STAC names of the canonical queryables whose STAC spelling differs. */
const STAC_NAMES: Readonly<Record<string, string>> = {
  parentId: 'collection',
  instrument: 'instruments',
  cloudCover: 'eo:cloud_cover',
  snowCover: 'eo:snow_cover',
  orbitNumber: 'sat:absolute_orbit',
  orbitDirection: 'sat:orbit_state',
  processingLevel: 'processing:level',
};

/** The name the STAC API uses for a canonical queryable. */
export function stacQueryableName(canonical: string): string {
  return STAC_NAMES[canonical] ?? canonical;
}

/**
 * The STAC queryables document (JSON Schema 2019-09, which stac-api-validator requires, with
 * `$id` equal to its URL), built from the queryables registry under STAC names, then the
 * properties learned from the records (their own names and JSON types). A filter naming any
 * other property is a 400, as on the Records items, so additionalProperties is false.
 */
export function presentQueryables(
  baseUrl: string,
  learned: readonly LearnedProperty[] = [],
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const queryable of QUERYABLES) {
    const name = stacQueryableName(queryable.name);
    properties[name] = describeQueryable(queryable, 'https://geojson.org/schema/Geometry.json');
    if (queryable.name === 'start_datetime') {
      properties.datetime = {
        title: 'Nominal time (an instant, or the start of the temporal extent)',
        type: 'string',
        format: 'date-time',
        'x-ogc-role': 'primary-instant',
      };
    }
  }
  for (const property of learned) {
    properties[property.name] ??= describeLearnedProperty(property);
  }
  return {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    $id: queryablesUrl(baseUrl),
    type: 'object',
    title: 'Cairn STAC item search queryables',
    description:
      'Properties the CQL2 `filter` of /catalogue/search accepts: the core ones (which `sortby` ' +
      'accepts too), then the properties the items written to the catalogue carry. A filter ' +
      'naming any other property is refused with 400.',
    properties,
    additionalProperties: false,
  };
}

/**
 * The STAC API landing page (`/catalogue/stac`): a STAC Catalog declaring Collections and
 * Features besides item search, whose `data` link lists the STAC Collections. OGC API –
 * Records clients start at `/catalogue` instead, whose collections are Records collections.
 */
export function presentStacApiLanding(
  baseUrl: string,
  service: { title: string; description: string },
): Record<string, unknown> {
  const root = stacRootUrl(baseUrl);
  const shared = presentStacLanding(baseUrl).links.filter(
    (link) => link.rel !== 'root' && link.rel !== 'child',
  );
  return {
    type: 'Catalog',
    stac_version: STAC_VERSION,
    id: 'cairn',
    title: service.title,
    description: service.description,
    conformsTo: STAC_API_CONFORMANCE_CLASSES,
    links: [
      { rel: 'self', type: 'application/json', href: root, title: 'This document' },
      { rel: 'root', type: 'application/json', href: root, title: 'STAC API' },
      {
        rel: 'conformance',
        type: 'application/json',
        href: `${root}/conformance`,
        title: 'Conformance classes',
      },
      {
        rel: 'data',
        type: 'application/json',
        href: stacCollectionsUrl(baseUrl),
        title: 'STAC Collections',
      },
      ...shared,
      {
        rel: 'alternate',
        type: 'application/json',
        href: `${baseUrl}/catalogue`,
        title: 'The catalogue as OGC API – Records',
      },
    ],
  };
}
