/**
 * Search results as an OpenSearch Atom feed (OpenSearch 1.1, OGC 10-032r8, CEOS BP): feed
 * metadata, the OpenSearch response elements (totalResults, startIndex, itemsPerPage, the
 * request Query), self/first/prev/next/last links over the same request, the autodiscovery link
 * to the description document, and one entry per record with its GeoRSS footprint. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import {
  appendAtomEntry,
  createDocument,
  serialise,
} from '../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  xmlAttributes,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import { NS } from '../../../../shared/xml/index.js';

/** Namespaces of the OpenSearch extensions, by the prefix template names use. */
export const OPENSEARCH_NS = Object.freeze({
  os: NS.opensearch,
  geo: 'http://a9.com/-/opensearch/extensions/geo/1.0/',
  time: 'http://a9.com/-/opensearch/extensions/time/1.0/',
  eo: 'http://a9.com/-/opensearch/extensions/eo/1.0/',
  param: 'http://a9.com/-/spec/opensearch/extensions/parameters/1.0/',
});

/** A link an entry carries besides the record's own links. */
export interface EntryLink {
  href: string;
  rel: string;
  type?: string;
  title?: string;
}

export interface AtomFeedOptions {
  service: ServiceMetadata;
  /** The endpoint the request was sent to (no query string). */
  endpoint: string;
  /** The request's query parameters as written, for the paging links. */
  query: readonly [string, string][];
  /** Template parameter name → value, echoed in os:Query role="request". */
  parameters: Readonly<Record<string, string>>;
  /** 1-based index of the first result of this page. */
  startPosition: number;
  /** Page size asked for. */
  maxRecords: number;
  total: number;
  /** URL of the OpenSearch description document. */
  descriptionUrl: string;
  /** RFC 3339 time of the response. */
  updated: string;
  /** Extra links of each entry (e.g. the record in other encodings). */
  entryLinks: (record: CoreRecord) => EntryLink[];
}

const PAGING_PARAMETERS = new Set(['startposition', 'startindex', 'startpage']);

/** The URL of the same request starting at another position. */
export function pageUrl(
  endpoint: string,
  query: readonly [string, string][],
  start: number,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of query) {
    if (!PAGING_PARAMETERS.has(name.toLowerCase())) params.append(name, value);
  }
  params.append('startPosition', String(start));
  return `${endpoint}?${params.toString()}`;
}

/** The URL of the request itself. */
function requestUrl(endpoint: string, query: readonly [string, string][]): string {
  if (query.length === 0) return endpoint;
  const params = new URLSearchParams();
  for (const [name, value] of query) params.append(name, value);
  return `${endpoint}?${params.toString()}`;
}

function appendLink(feed: XmlNode, rel: string, href: string, type: string, title?: string): void {
  feed.ele(NS.atom, 'link', xmlAttributes({ rel, type, href, ...(title ? { title } : {}) })).up();
}

function appendQuery(feed: XmlNode, parameters: Readonly<Record<string, string>>): void {
  const query = feed.ele(OPENSEARCH_NS.os, 'os:Query', { role: 'request' });
  for (const [name, value] of Object.entries(parameters)) {
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const ns = (OPENSEARCH_NS as Readonly<Record<string, string>>)[prefix];
    if (colon < 0) query.att(name, xmlText(value));
    else if (ns !== undefined) query.att(ns, name, xmlText(value));
  }
  query.up();
}

/** Writes search results as an OpenSearch Atom feed. */
export function presentAtomFeed(records: CoreRecord[], options: AtomFeedOptions): string {
  const { endpoint, query, startPosition, maxRecords, total } = options;
  const document = createDocument();
  const feed = document.ele(NS.atom, 'feed');
  declareNamespaces(feed, {
    os: OPENSEARCH_NS.os,
    dc: NS.dc,
    georss: NS.georss,
    geo: OPENSEARCH_NS.geo,
    time: OPENSEARCH_NS.time,
    eo: OPENSEARCH_NS.eo,
  });
  const self = requestUrl(endpoint, query);
  feed.ele(NS.atom, 'id').txt(xmlText(self)).up();
  feed
    .ele(NS.atom, 'title')
    .txt(xmlText(`${options.service.title}: search results`))
    .up();
  feed.ele(NS.atom, 'updated').txt(options.updated).up();
  feed
    .ele(NS.atom, 'author')
    .ele(NS.atom, 'name')
    .txt(xmlText(options.service.provider.name))
    .up()
    .up();
  const atom = 'application/atom+xml';
  appendLink(feed, 'self', self, atom);
  if (maxRecords > 0) {
    appendLink(feed, 'first', pageUrl(endpoint, query, 1), atom);
    if (startPosition > 1) {
      appendLink(
        feed,
        'prev',
        pageUrl(endpoint, query, Math.max(1, startPosition - maxRecords)),
        atom,
      );
    }
    if (startPosition + records.length <= total && records.length > 0) {
      appendLink(feed, 'next', pageUrl(endpoint, query, startPosition + records.length), atom);
    }
    const last = total === 0 ? 1 : Math.floor((total - 1) / maxRecords) * maxRecords + 1;
    appendLink(feed, 'last', pageUrl(endpoint, query, last), atom);
  }
  appendLink(
    feed,
    'search',
    options.descriptionUrl,
    'application/opensearchdescription+xml',
    'OpenSearch description',
  );
  feed.ele(OPENSEARCH_NS.os, 'os:totalResults').txt(String(total)).up();
  feed.ele(OPENSEARCH_NS.os, 'os:startIndex').txt(String(startPosition)).up();
  feed.ele(OPENSEARCH_NS.os, 'os:itemsPerPage').txt(String(maxRecords)).up();
  appendQuery(feed, options.parameters);
  for (const record of records) {
    appendAtomEntry(feed, record, {
      declareNamespaces: false,
      defaultUpdated: options.updated,
      links: options.entryLinks(record),
    });
  }
  // Without indentation, as CSW search answers (feed readers ignore it; it costs CPU per search).
  return serialise(document, { prettyPrint: false });
}
