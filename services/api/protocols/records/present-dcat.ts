/**
 * Records in DCAT-AP 3 / GeoDCAT-AP 3 (`f=ttl`, `f=rdf`, `f=dcat`): one record's graph, and a
 * page of items as a dcat:Catalog with a Hydra PartialCollectionView, the paging a portal
 * follows to harvest the whole catalogue. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import {
  buildCatalogPageGraph,
  buildDcatGraph,
  JSON_LD,
  RDF_XML,
  TURTLE,
  writeJsonLd,
  writeRdfXml,
  writeTurtle,
} from '../../../../shared/records/writers/dcat/index.js';
import type { SearchResult } from '../../../../shared/search/backend.js';
import { dcatOptions } from '../../common/dcat-options.js';
import { collectionUrl } from '../../common/urls.js';
import { itemsLink, type PageContext } from './present.js';

/** The `f` values of the DCAT encodings. */
export type DcatFormat = 'ttl' | 'rdf' | 'dcat';

/** The DCAT encodings, in the order the OpenAPI document lists them. */
export const DCAT_FORMATS: readonly DcatFormat[] = ['ttl', 'rdf', 'dcat'];

/** The media type each DCAT encoding is served as. */
export const DCAT_MEDIA_TYPES: Readonly<Record<DcatFormat, string>> = {
  ttl: TURTLE,
  rdf: RDF_XML,
  dcat: JSON_LD,
};

/** Whether an encoding is one of the DCAT ones. */
export function isDcatFormat(format: string): format is DcatFormat {
  return (DCAT_FORMATS as readonly string[]).includes(format);
}

/** A serialised DCAT document and its media type. */
export interface DcatDocument {
  mediaType: string;
  body: string;
}

function serialise(quads: ReturnType<typeof buildDcatGraph>, format: DcatFormat): DcatDocument {
  const mediaType = DCAT_MEDIA_TYPES[format];
  if (format === 'ttl') return { mediaType, body: writeTurtle(quads) };
  if (format === 'rdf') return { mediaType, body: writeRdfXml(quads) };
  return { mediaType, body: JSON.stringify(writeJsonLd(quads)) };
}

/** One record in a DCAT encoding. */
export function presentDcatRecord(
  record: CoreRecord,
  baseUrl: string,
  format: DcatFormat,
): DcatDocument {
  return serialise(buildDcatGraph(record, dcatOptions(baseUrl)), format);
}

/**
 * The offset of the last page of `total` records in pages of `limit` (0 when there are none),
 * the target of hydra:last.
 */
export function lastPageOffset(total: number, limit: number): number {
  return total <= 0 || limit <= 0 ? 0 : Math.floor((total - 1) / limit) * limit;
}

/** The catalogue's own statements on every page: its IRI, title, description, publisher. */
export function catalogueDescription(baseUrl: string, service: ServiceMetadata) {
  return {
    catalogIri: collectionUrl(baseUrl),
    title: service.title,
    description: service.description,
    publisherName: service.provider.name,
    license: service.license,
    homepage: service.provider.url,
  };
}

/** A page of items as a dcat:Catalog of its records with Hydra paging links in the same encoding. */
export function presentDcatItems(
  result: SearchResult,
  context: PageContext,
  service: ServiceMetadata,
  format: DcatFormat,
): DcatDocument {
  const { offset, limit } = context;
  const at = (value: number): string =>
    itemsLink(context, { limit: String(limit), offset: String(value), f: format });
  const view = {
    self: at(offset),
    first: at(0),
    last: at(lastPageOffset(result.total, limit)),
    ...(offset + result.records.length < result.total && { next: at(offset + limit) }),
    ...(offset > 0 && { previous: at(Math.max(0, offset - limit)) }),
  };
  const quads = buildCatalogPageGraph(
    result.records,
    { ...catalogueDescription(context.baseUrl, service), view, totalItems: result.total },
    dcatOptions(context.baseUrl),
  );
  return serialise(quads, format);
}
