/**
 * The metadata formats the provider disseminates, as a table: each entry names its
 * metadataPrefix, schema and namespace, says whether a record can be disseminated in it, and
 * appends a record's metadata under the `metadata` element. A new format is one more entry
 * here: ListMetadataFormats, the `cannotDisseminateFormat` checks and the record writing all
 * read this table.
 */
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import { appendRdfXml, buildDcatGraph } from '../../../../shared/records/writers/dcat/index.js';
import {
  appendIso19139,
  appendOaiDc,
  type XmlNode,
} from '../../../../shared/records/writers/xml/index.js';
import { dcatOptions } from '../../common/dcat-options.js';

/** What a format may need beyond the record: where the catalogue is served. */
export interface OaiFormatContext {
  /** The public base URL of the API (records' IRIs are their Records item URLs). */
  publicBaseUrl: string;
}

/** One metadata format. */
export interface OaiMetadataFormat {
  metadataPrefix: string;
  schema: string;
  metadataNamespace: string;
  /** Whether the record can be written in this format (else cannotDisseminateFormat). */
  canDisseminate(record: CoreRecord): boolean;
  /** Appends the record's metadata (one element) under `parent`. */
  append(parent: XmlNode, record: CoreRecord, context: OaiFormatContext): void;
}

export const OAI_DC: OaiMetadataFormat = Object.freeze({
  metadataPrefix: 'oai_dc',
  schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
  canDisseminate: () => true,
  append: (parent: XmlNode, record: CoreRecord) => {
    appendOaiDc(parent, record);
  },
});

/**
 * ISO 19139: the stored ISO 19139 source when the record came as one (an ISO 19115-2
 * gmi:MI_Metadata as its gmd:MD_Metadata supertype, the namespace this format declares), else
 * the same synthesised gmd:MD_Metadata as CSW's ISO output schema writes.
 */
export const ISO_19139: OaiMetadataFormat = Object.freeze({
  metadataPrefix: 'iso19139',
  schema: 'http://www.isotc211.org/2005/gmd/gmd.xsd',
  metadataNamespace: 'http://www.isotc211.org/2005/gmd',
  canDisseminate: () => true,
  append: (parent: XmlNode, record: CoreRecord) => {
    appendIso19139(parent, record, { asMdMetadata: true });
  },
});

/**
 * DCAT-AP 3 / GeoDCAT-AP 3 in RDF/XML: the record's description as one rdf:RDF element (no XML
 * declaration), the same graph as the Records API's `f=rdf` and CSW's DCAT output schema.
 * The namespace is DCAT-AP's own (`http://data.europa.eu/r5r/`), the identifier of the
 * profile; RDF/XML has no XML Schema, so `schema` names the DCAT-AP 3.0.0 specification,
 * whose SHACL shapes are what a description is validated against. Every record has a
 * description (the mapping covers every source format and composes a missing description).
 */
export const DCAT_AP: OaiMetadataFormat = Object.freeze({
  metadataPrefix: 'dcat_ap',
  schema: 'https://semiceu.github.io/DCAT-AP/releases/3.0.0/',
  metadataNamespace: 'http://data.europa.eu/r5r/',
  canDisseminate: () => true,
  append: (parent: XmlNode, record: CoreRecord, { publicBaseUrl }: OaiFormatContext) => {
    appendRdfXml(parent, buildDcatGraph(record, dcatOptions(publicBaseUrl)));
  },
});

/** Every metadata format, in ListMetadataFormats order. */
export const OAI_METADATA_FORMATS: readonly OaiMetadataFormat[] = Object.freeze([
  OAI_DC,
  ISO_19139,
  DCAT_AP,
]);

/** The format of a metadataPrefix, or undefined. */
export function findMetadataFormat(prefix: string): OaiMetadataFormat | undefined {
  return OAI_METADATA_FORMATS.find((format) => format.metadataPrefix === prefix);
}
