/**
 * The RDF vocabularies of the DCAT-AP 3 / GeoDCAT-AP 3 mapping (namespaces and the prefixes the
 * serialisations declare) and the few EU controlled vocabularies (languages, licences, file
 * types) Cairn chooses a concept from, only where a record's value names one unambiguously.
 */

/** Namespaces used by the mapping, by the prefix every serialisation declares. */
export const DCAT_PREFIXES = Object.freeze({
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  adms: 'http://www.w3.org/ns/adms#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  locn: 'http://www.w3.org/ns/locn#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
  geodcat: 'http://data.europa.eu/930/',
  hydra: 'http://www.w3.org/ns/hydra/core#',
});

export type DcatPrefix = keyof typeof DCAT_PREFIXES;

/** The IRIs `iri` has made, by prefix and local name. */
const IRIS = new Map<string, Map<string, string>>(
  Object.keys(DCAT_PREFIXES).map((prefix) => [prefix, new Map()]),
);

/**
 * The full IRI of a prefixed name (`iri('dcat', 'Dataset')`). The same string each time for
 * the same name: the mapping names a predicate or class for every statement, and the writers
 * look each up in tables keyed by the IRI, where one string is hashed once and a new one each
 * time it is made.
 */
export function iri(prefix: DcatPrefix, local: string): string {
  const table = IRIS.get(prefix);
  let value = table?.get(local);
  if (value === undefined) {
    value = `${DCAT_PREFIXES[prefix]}${local}`;
    if (table !== undefined && table.size < 1000) table.set(local, value);
  }
  return value;
}

const EU_AUTHORITY = 'http://publications.europa.eu/resource/authority/';
/** IANA media types as IRIs (DCAT-AP: the range of dcat:mediaType). */
export const IANA_MEDIA_TYPES = 'http://www.iana.org/assignments/media-types/';

/**
 * The EU language authority codes (ISO 639-2/T, upper case) of the official EU languages and
 * the other languages of EEA countries, by ISO 639-1 code, ISO 639-2/B and ISO 639-2/T code.
 * The second member is the ISO 639-1 code, used for the language tags of literals.
 */
const LANGUAGES: readonly (readonly [string, string, string?])[] = [
  ['BUL', 'bg'],
  ['CES', 'cs', 'cze'],
  ['DAN', 'da'],
  ['DEU', 'de', 'ger'],
  ['ELL', 'el', 'gre'],
  ['ENG', 'en'],
  ['EST', 'et'],
  ['FIN', 'fi'],
  ['FRA', 'fr', 'fre'],
  ['GLE', 'ga'],
  ['HRV', 'hr'],
  ['HUN', 'hu'],
  ['ISL', 'is', 'ice'],
  ['ITA', 'it'],
  ['LAV', 'lv'],
  ['LIT', 'lt'],
  ['MLT', 'mt'],
  ['NLD', 'nl', 'dut'],
  ['NOR', 'no'],
  ['POL', 'pl'],
  ['POR', 'pt'],
  ['RON', 'ro', 'rum'],
  ['SLK', 'sk', 'slo'],
  ['SLV', 'sl'],
  ['SPA', 'es'],
  ['SWE', 'sv'],
];

const LANGUAGE_BY_CODE: ReadonlyMap<string, { authority: string; tag: string }> = new Map(
  LANGUAGES.flatMap(([code, tag, bibliographic]) => {
    const entry = { authority: `${EU_AUTHORITY}language/${code}`, tag };
    const keys = [code.toLowerCase(), tag, ...(bibliographic ? [bibliographic] : [])];
    return keys.map((key) => [key, entry] as const);
  }),
);

/**
 * The EU language authority IRI and the ISO 639-1 tag of a record's language (`eng`, `fre`,
 * `en`, `en-CA` …), or undefined for a language outside the table.
 */
export function euLanguage(
  code: string | undefined,
): { authority: string; tag: string } | undefined {
  if (code === undefined) return undefined;
  const primary = code.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return LANGUAGE_BY_CODE.get(primary);
}

/** EU licence authority codes by SPDX identifier (STAC `license`, the service's licence). */
const LICENCES_BY_SPDX: ReadonlyMap<string, string> = new Map([
  ['cc-by-4.0', 'CC_BY_4_0'],
  ['cc-by-sa-4.0', 'CC_BYSA_4_0'],
  ['cc-by-nc-4.0', 'CC_BYNC_4_0'],
  ['cc-by-nd-4.0', 'CC_BYND_4_0'],
  ['cc0-1.0', 'CC0'],
]);

/** The same licences by their Creative Commons deed URL path. */
const LICENCES_BY_CC_PATH: ReadonlyMap<string, string> = new Map([
  ['licenses/by/4.0', 'CC_BY_4_0'],
  ['licenses/by-sa/4.0', 'CC_BYSA_4_0'],
  ['licenses/by-nc/4.0', 'CC_BYNC_4_0'],
  ['licenses/by-nd/4.0', 'CC_BYND_4_0'],
  ['publicdomain/zero/1.0', 'CC0'],
]);

/**
 * The EU licence authority IRI of a licence given as an SPDX identifier or a Creative Commons
 * deed URL, or undefined when the value names no licence of the table.
 */
export function euLicence(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  const spdx = LICENCES_BY_SPDX.get(text);
  if (spdx) return `${EU_AUTHORITY}licence/${spdx}`;
  const deed = /^https?:\/\/creativecommons\.org\/(.+?)\/?(?:legalcode)?\/?$/.exec(text);
  const code = deed?.[1] ? LICENCES_BY_CC_PATH.get(deed[1].replace(/\/$/, '')) : undefined;
  return code ? `${EU_AUTHORITY}licence/${code}` : undefined;
}

/** EU file type authority codes by media type (without parameters). */
const FILE_TYPES_BY_MEDIA_TYPE: ReadonlyMap<string, string> = new Map([
  ['image/tiff', 'TIFF'],
  ['image/jp2', 'JPEG2000'],
  ['image/jpeg', 'JPEG'],
  ['image/png', 'PNG'],
  ['image/gif', 'GIF'],
  ['image/svg+xml', 'SVG'],
  ['application/pdf', 'PDF'],
  ['text/csv', 'CSV'],
  ['application/json', 'JSON'],
  ['application/geo+json', 'GEOJSON'],
  ['application/xml', 'XML'],
  ['text/xml', 'XML'],
  ['application/zip', 'ZIP'],
  ['text/html', 'HTML'],
  ['application/xhtml+xml', 'XHTML'],
  ['application/x-netcdf', 'NETCDF'],
  ['application/netcdf', 'NETCDF'],
  ['application/vnd.google-earth.kml+xml', 'KML'],
  ['application/gml+xml', 'GML'],
  ['text/rtf', 'RTF'],
  ['application/rtf', 'RTF'],
]);

/** EU file type codes by a format's name as ISO records and OGC records give it. */
const FILE_TYPES_BY_NAME: ReadonlyMap<string, string> = new Map([
  ['csv', 'CSV'],
  ['geojson', 'GEOJSON'],
  ['json', 'JSON'],
  ['geotiff', 'GEOTIFF'],
  ['tiff', 'TIFF'],
  ['jpeg2000', 'JPEG2000'],
  ['pdf', 'PDF'],
  ['kml', 'KML'],
  ['gml', 'GML'],
  ['netcdf', 'NETCDF'],
  ['zip', 'ZIP'],
  ['esri shapefile', 'SHP'],
  ['shapefile', 'SHP'],
]);

/**
 * A function of a string remembered for the strings it has seen (up to 1,000 strings of up to
 * 200 characters, so that records cannot make it hold much): a page's links name a few media
 * types many times over (a Sentinel-2 Item's 40 assets).
 */
function remembered<T>(compute: (value: string) => T): (value: string) => T {
  const seen = new Map<string, T>();
  return (value) => {
    if (seen.has(value)) return seen.get(value) as T;
    const result = compute(value);
    if (seen.size < 1000 && value.length <= 200) seen.set(value, result);
    return result;
  };
}

const baseOf = remembered((value) => {
  const base = value.split(';')[0]?.trim().toLowerCase();
  return base && /^[a-z]+\/[a-z0-9.+-]+$/.test(base) ? base : undefined;
});

/** The IANA IRI of a media type without parameters (`image/tiff`), the same string for each. */
export const ianaMediaType = remembered((base) => `${IANA_MEDIA_TYPES}${base}`);

/** A media type without its parameters, lower case, or undefined if it is not type/subtype. */
export function baseMediaType(value: string | undefined): string | undefined {
  return value === undefined ? undefined : baseOf(value);
}

/**
 * The EU file type IRI of a media type (GeoTIFF when its parameters say so) or of a format
 * name (the part before any parenthesis: "ESRI Shapefile (.shp)"), or undefined.
 */
export function euFileType(mediaType: string | undefined, name?: string): string | undefined {
  return name === undefined && mediaType !== undefined
    ? fileTypeOfMediaType(mediaType)
    : fileType(mediaType, name);
}

const fileTypeOfMediaType = remembered((mediaType) => fileType(mediaType, undefined));

function fileType(mediaType: string | undefined, name: string | undefined): string | undefined {
  const base = baseMediaType(mediaType);
  if (base === 'image/tiff' && /application=geotiff/i.test(mediaType ?? '')) {
    return `${EU_AUTHORITY}file-type/GEOTIFF`;
  }
  const byType = base ? FILE_TYPES_BY_MEDIA_TYPE.get(base) : undefined;
  const byName = name
    ? FILE_TYPES_BY_NAME.get(
        name
          .replace(/\(.*\)/, '')
          .trim()
          .toLowerCase(),
      )
    : undefined;
  const code = byType ?? byName;
  return code ? `${EU_AUTHORITY}file-type/${code}` : undefined;
}
