/** Media types, link relations and CRS URIs more than one protocol writes. */

export const JSON_TYPE = 'application/json';
export const GEOJSON = 'application/geo+json';
export const HTML = 'text/html';
export const XML = 'application/xml';
export const SCHEMA_JSON = 'application/schema+json';
export const OPENAPI_JSON = 'application/vnd.oai.openapi+json;version=3.0';
export const FACETS_JSON = 'application/facets+json';
/** JSON-LD: the schema.org descriptions of records for web search engines. */
export const JSON_LD = 'application/ld+json';

/** The OGC link relation registry. */
export const OGC_REL = 'http://www.opengis.net/def/rel/ogc/1.0';
export const QUERYABLES_REL = `${OGC_REL}/queryables`;
export const SORTABLES_REL = `${OGC_REL}/sortables`;
export const CATALOG_REL = `${OGC_REL}/ogc-catalog`;
export const FACETS_REL = `${OGC_REL}/facets`;

/** The OGC API – Records record profile. */
export const RECORD_PROFILE = 'http://www.opengis.net/def/profile/OGC/0/ogc-record';

/** CRS84, the CRS every record is stored in (OGC API – Features Part 2 `storageCrs`). */
export const CRS84_URI = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
/** WGS 84 with the EPSG axis order (latitude first). */
export const EPSG_4326_URI = 'http://www.opengis.net/def/crs/EPSG/0/4326';
/** The CRSs records can be returned in and bboxes given in (Features Part 2 `crs`). */
export const SUPPORTED_CRS: readonly string[] = [CRS84_URI, EPSG_4326_URI];
