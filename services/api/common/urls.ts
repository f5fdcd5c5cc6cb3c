/**
 * The catalogue's public URLs, built from the request's public base URL: one place for each
 * path, so no protocol spells another's. Pure.
 */

/** Id of the one Records collection, the catalogue itself. */
export const COLLECTION_ID = 'metadata:main';

/** The catalogue root (the Records landing page, also a STAC Catalog). */
export function catalogueUrl(baseUrl: string): string {
  return `${baseUrl}/catalogue`;
}

/** The Records collections list. */
export function collectionsUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/collections`;
}

/** The catalogue collection. */
export function collectionUrl(baseUrl: string): string {
  return `${collectionsUrl(baseUrl)}/${COLLECTION_ID}`;
}

/** The items (records) of the catalogue collection. */
export function itemsUrl(baseUrl: string): string {
  return `${collectionUrl(baseUrl)}/items`;
}

/** One record. */
export function recordUrl(baseUrl: string, id: string): string {
  return `${itemsUrl(baseUrl)}/${encodeURIComponent(id)}`;
}

/** A record's HTML page: what search engines index, and the sitemaps list. */
export function recordPageUrl(baseUrl: string, id: string): string {
  return `${recordUrl(baseUrl, id)}?f=html`;
}

/** The OpenAPI document (and, with `f=html`, its Swagger UI page). */
export function openApiUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/openapi`;
}

/** The CSW endpoint. */
export function cswUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/csw`;
}

/** The OpenSearch description document. */
export function openSearchDescriptionUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/opensearch`;
}

/** The OAI-PMH data provider. */
export function oaiUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}/oai`;
}

/** One job of the worker (or a write logged in embedded mode). */
export function jobUrl(baseUrl: string, jobId: string): string {
  return `${catalogueUrl(baseUrl)}/admin/jobs/${encodeURIComponent(jobId)}`;
}

/** One harvest source. */
export function sourceUrl(baseUrl: string, id: string): string {
  return `${catalogueUrl(baseUrl)}/admin/sources/${encodeURIComponent(id)}`;
}
