/**
 * Writes OAI-PMH responses: the OAI-PMH envelope (responseDate, request, then the verb's
 * element or the errors), record headers with their datestamps and setSpecs, and records in a
 * metadata format. Every value from a record is escaped by the writer. Pure.
 */
import type { ChangeEntry } from '../../../../shared/search/backend.js';
import {
  createDocument,
  declareNamespaces,
  serialise,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import type { OaiFormatContext, OaiMetadataFormat } from './formats.js';
import { GRANULARITY, OAI_NS, OAI_SCHEMA_LOCATION, XSI_NS, type OaiError } from './model.js';
import { oaiIdentifierOf } from './parse.js';
import { recordSetSpecs } from './sets.js';

/** A time as an OAI-PMH datestamp: UTC, seconds granularity. */
export function datestamp(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** What the envelope says about the request. */
export interface OaiEnvelope {
  /** The provider's base URL (the request element's content). */
  baseUrl: string;
  /** The API's public base URL, for formats that name records by their URLs (DCAT-AP). */
  publicBaseUrl: string;
  /** The request's arguments, echoed as attributes; undefined: none (badVerb, badArgument). */
  arguments?: Readonly<Record<string, string>> | undefined;
  /** The response date (ISO). */
  now: string;
}

/** A new response document and its OAI-PMH root with responseDate and request written. */
function envelope({ baseUrl, arguments: args, now }: OaiEnvelope): {
  document: XmlNode;
  root: XmlNode;
} {
  const document = createDocument();
  const root = document.ele(OAI_NS, 'OAI-PMH');
  declareNamespaces(root, { xsi: XSI_NS });
  root.att(XSI_NS, 'xsi:schemaLocation', OAI_SCHEMA_LOCATION);
  root.ele(OAI_NS, 'responseDate').txt(datestamp(now)).up();
  const request = root.ele(OAI_NS, 'request');
  for (const [name, value] of Object.entries(args ?? {})) request.att(name, xmlText(value));
  request.txt(baseUrl).up();
  return { document, root };
}

function finish(document: XmlNode): string {
  return serialise(document, { prettyPrint: false });
}

/** An error response. */
export function presentError(error: OaiError, request: OaiEnvelope): string {
  const { document, root } = envelope(
    error.echoArguments ? request : { ...request, arguments: undefined },
  );
  root.ele(OAI_NS, 'error', { code: error.code }).txt(xmlText(error.message)).up();
  return finish(document);
}

/** What Identify says. */
export interface IdentifyInfo {
  repositoryName: string;
  adminEmails: readonly string[];
  earliestDatestamp: string;
  deletedRecord: 'persistent' | 'transient' | 'no';
}

export function presentIdentify(info: IdentifyInfo, request: OaiEnvelope): string {
  const { document, root } = envelope(request);
  const identify = root.ele(OAI_NS, 'Identify');
  const text = (name: string, value: string): void => {
    identify.ele(OAI_NS, name).txt(xmlText(value)).up();
  };
  text('repositoryName', info.repositoryName);
  text('baseURL', request.baseUrl);
  text('protocolVersion', '2.0');
  for (const email of info.adminEmails) text('adminEmail', email);
  text('earliestDatestamp', datestamp(info.earliestDatestamp));
  text('deletedRecord', info.deletedRecord);
  text('granularity', GRANULARITY);
  return finish(document);
}

export function presentMetadataFormats(
  formats: readonly OaiMetadataFormat[],
  request: OaiEnvelope,
): string {
  const { document, root } = envelope(request);
  const list = root.ele(OAI_NS, 'ListMetadataFormats');
  for (const format of formats) {
    list
      .ele(OAI_NS, 'metadataFormat')
      .ele(OAI_NS, 'metadataPrefix')
      .txt(format.metadataPrefix)
      .up()
      .ele(OAI_NS, 'schema')
      .txt(format.schema)
      .up()
      .ele(OAI_NS, 'metadataNamespace')
      .txt(format.metadataNamespace)
      .up()
      .up();
  }
  return finish(document);
}

export function presentSets(
  sets: readonly { spec: string; name: string }[],
  request: OaiEnvelope,
): string {
  const { document, root } = envelope(request);
  const list = root.ele(OAI_NS, 'ListSets');
  for (const set of sets) {
    list
      .ele(OAI_NS, 'set')
      .ele(OAI_NS, 'setSpec')
      .txt(xmlText(set.spec))
      .up()
      .ele(OAI_NS, 'setName')
      .txt(xmlText(set.name))
      .up()
      .up();
  }
  return finish(document);
}

function appendHeader(parent: XmlNode, entry: ChangeEntry, repositoryIdentifier: string): void {
  const header = parent.ele(OAI_NS, 'header');
  if (entry.deleted) header.att('status', 'deleted');
  header
    .ele(OAI_NS, 'identifier')
    .txt(xmlText(oaiIdentifierOf(entry.id, repositoryIdentifier)))
    .up();
  header.ele(OAI_NS, 'datestamp').txt(datestamp(entry.changed)).up();
  for (const spec of recordSetSpecs(entry.type, entry.parentId))
    header.ele(OAI_NS, 'setSpec').txt(spec).up();
  header.up();
}

function appendRecord(
  parent: XmlNode,
  entry: ChangeEntry,
  format: OaiMetadataFormat,
  repositoryIdentifier: string,
  context: OaiFormatContext,
): void {
  const record = parent.ele(OAI_NS, 'record');
  appendHeader(record, entry, repositoryIdentifier);
  if (!entry.deleted && entry.record) {
    const metadata = record.ele(OAI_NS, 'metadata');
    format.append(metadata, entry.record, context);
    metadata.up();
  }
  record.up();
}

/** The resumptionToken element of a page: the token (empty on the last page) and its counts. */
export interface PageResumption {
  /** The token of the next page; undefined on the last page of a resumed listing. */
  token?: string;
  /** When the token expires (ISO). */
  expirationDate?: string;
  cursor: number;
  completeListSize: number;
}

/** A ListIdentifiers or ListRecords page. */
export function presentListing(
  verb: 'ListIdentifiers' | 'ListRecords',
  entries: readonly ChangeEntry[],
  format: OaiMetadataFormat,
  repositoryIdentifier: string,
  resumption: PageResumption | undefined,
  request: OaiEnvelope,
): string {
  const { document, root } = envelope(request);
  const list = root.ele(OAI_NS, verb);
  for (const entry of entries) {
    if (verb === 'ListRecords') appendRecord(list, entry, format, repositoryIdentifier, request);
    else appendHeader(list, entry, repositoryIdentifier);
  }
  if (resumption) {
    const attributes: Record<string, string> = {
      cursor: String(resumption.cursor),
      completeListSize: String(resumption.completeListSize),
    };
    if (resumption.token !== undefined && resumption.expirationDate !== undefined)
      attributes.expirationDate = datestamp(resumption.expirationDate);
    list
      .ele(OAI_NS, 'resumptionToken', attributes)
      .txt(resumption.token ?? '')
      .up();
  }
  return finish(document);
}

export function presentGetRecord(
  entry: ChangeEntry,
  format: OaiMetadataFormat,
  repositoryIdentifier: string,
  request: OaiEnvelope,
): string {
  const { document, root } = envelope(request);
  const getRecord = root.ele(OAI_NS, 'GetRecord');
  appendRecord(getRecord, entry, format, repositoryIdentifier, request);
  return finish(document);
}
