/**
 * The catalogue collection (`metadata:main`): the one Records collection, which the STAC API
 * also serves as a STAC Collection. Pure.
 */
import type { ServiceMetadata } from '../../../shared/config/index.js';
import type { CatalogueExtent } from '../../../shared/search/backend.js';
import { jsonAndHtmlLinks, type Link } from './links.js';
import {
  CRS84_URI,
  FACETS_JSON,
  FACETS_REL,
  GEOJSON,
  JSON_TYPE,
  QUERYABLES_REL,
  SCHEMA_JSON,
  SORTABLES_REL,
  SUPPORTED_CRS,
} from './media-types.js';
import { catalogueUrl, COLLECTION_ID, collectionUrl } from './urls.js';

/** The collection document (OGC API – Records, record-collection). */
export interface CollectionDocument {
  id: string;
  type: 'Collection';
  itemType: 'record';
  title: string;
  description: string;
  keywords: ServiceMetadata['keywords'];
  license: ServiceMetadata['license'];
  crs: string[];
  storageCrs: string;
  extent: {
    spatial: { bbox: number[][]; crs: string };
    temporal: { interval: (string | null)[][]; trs: string };
  };
  defaultSortOrder: { field: string; direction: 'asc' | 'desc' }[];
  links: Link[];
}

/** The catalogue collection, with its extent computed from the records. */
export function presentCatalogueCollection(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): CollectionDocument {
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
    storageCrs: CRS84_URI,
    extent: {
      spatial: { bbox: [extent.bbox ?? [-180, -90, 180, 90]], crs: CRS84_URI },
      temporal: {
        interval: [[extent.start ?? null, extent.end ?? null]],
        trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian',
      },
    },
    defaultSortOrder: [{ field: 'id', direction: 'asc' }],
    links: [
      ...jsonAndHtmlLinks(self, JSON_TYPE, 'This collection'),
      ...jsonAndHtmlLinks(`${self}/items`, GEOJSON, 'Records', 'items'),
      ...jsonAndHtmlLinks(`${self}/queryables`, SCHEMA_JSON, 'Queryables', QUERYABLES_REL),
      ...jsonAndHtmlLinks(`${self}/sortables`, SCHEMA_JSON, 'Sortables', SORTABLES_REL),
      ...jsonAndHtmlLinks(`${self}/facets`, FACETS_JSON, 'Facets', FACETS_REL),
      {
        rel: 'root',
        type: JSON_TYPE,
        href: `${catalogueUrl(baseUrl)}?f=json`,
        title: 'Landing page',
      },
    ],
  };
}
