/**
 * Harvesting a CSW 2.0.2 / 3.0 catalogue: GetRecords pages (POST XML or GET KVP) from
 * startPosition to nextRecord until exhausted, records in ISO 19139 (`gmd`) or Dublin Core
 * (`csw:Record`); changes since a date through a Filter on apiso:Modified (ISO) or
 * dct:modified (Dublin Core); identifiers through brief csw:Records; records by id through
 * GetRecordById.
 */
import { NS } from '../../xml/namespaces.js';
import {
  attr,
  elementSource,
  parseXml,
  XmlParseError,
  type XmlDocument,
  type XmlElement,
} from '../../xml/index.js';
import { createDocument, serialise } from '../../records/writers/xml/index.js';
import { declareNamespaces, type XmlNode } from '../../records/writers/xml/xml-builder.js';
import type { ResolvedSource } from '../harvest-source.js';
import { HarvestSourceError, type SourceClient } from '../source-client.js';
import {
  checkComplete,
  chunk,
  PageGuard,
  withQuery,
  IncrementalSourceAdapter,
  type HarvestedDocument,
} from './source-adapter.js';

const OGC = 'http://www.opengis.net/ogc';
const FES = 'http://www.opengis.net/fes/2.0';
const APISO = 'http://www.opengis.net/cat/csw/apiso/1.0';
const ISO_ROOTS = new Set([`${NS.gmd} MD_Metadata`, `${NS.gmi} MI_Metadata`]);

interface Page {
  documents: XmlDocument;
  records: readonly XmlElement[];
  matched?: number | undefined;
  nextRecord?: number | undefined;
}

/** What one GetRecords request asks for. */
interface Ask {
  schema: 'gmd' | 'dc';
  elementSet: 'full' | 'brief';
  modifiedSince?: string | undefined;
}

function cswNamespace(source: ResolvedSource): string {
  return source.version === '2.0.2' ? NS.csw202 : NS.csw30;
}

function outputSchemaUri(source: ResolvedSource, schema: Ask['schema']): string {
  return schema === 'gmd' ? NS.gmd : cswNamespace(source);
}

/** The modification-date queryable of each record schema (as pycsw and GeoNetwork name it). */
function modifiedProperty(schema: Ask['schema']): string {
  return schema === 'gmd' ? 'apiso:Modified' : 'dct:modified';
}

/** Appends the Filter "modified on or after", in the version's filter encoding. */
function appendModifiedFilter(
  parent: XmlNode,
  source: ResolvedSource,
  ask: Ask & { modifiedSince: string },
): void {
  const fes = source.version === '3.0.0';
  const ns = fes ? FES : OGC;
  const prefix = fes ? 'fes' : 'ogc';
  const filter = parent.ele(ns, `${prefix}:Filter`);
  declareNamespaces(filter, { apiso: APISO, dct: NS.dct });
  const comparison = filter.ele(ns, `${prefix}:PropertyIsGreaterThanOrEqualTo`);
  comparison
    .ele(ns, fes ? 'fes:ValueReference' : 'ogc:PropertyName')
    .txt(modifiedProperty(ask.schema));
  comparison.ele(ns, `${prefix}:Literal`).txt(ask.modifiedSince);
}

/** The Filter as text, for the KVP `constraint` parameter. */
function modifiedFilterText(source: ResolvedSource, ask: Ask): string | undefined {
  if (!ask.modifiedSince) return undefined;
  const document = createDocument();
  appendModifiedFilter(document, source, { ...ask, modifiedSince: ask.modifiedSince });
  return serialise(document, { prettyPrint: false, declaration: false });
}

/** The GetRecords POST body. */
function getRecordsXml(source: ResolvedSource, ask: Ask, start: number): string {
  const csw = cswNamespace(source);
  const document = createDocument();
  const root = document
    .ele(csw, 'csw:GetRecords')
    .att('service', 'CSW')
    .att('version', source.version)
    .att('outputSchema', outputSchemaUri(source, ask.schema))
    .att('startPosition', String(start))
    .att('maxRecords', String(source.pageSize));
  declareNamespaces(root, { gmd: NS.gmd });
  if (source.version === '2.0.2') root.att('resultType', 'results');
  const query = root
    .ele(csw, 'csw:Query')
    .att('typeNames', ask.schema === 'gmd' ? 'gmd:MD_Metadata' : 'csw:Record');
  query.ele(csw, 'csw:ElementSetName').txt(ask.elementSet).up();
  if (ask.modifiedSince) {
    const constraint = query
      .ele(csw, 'csw:Constraint')
      .att('version', source.version === '2.0.2' ? '1.1.0' : '2.0.0');
    appendModifiedFilter(constraint, source, { ...ask, modifiedSince: ask.modifiedSince });
  }
  return serialise(document, { prettyPrint: false });
}

/** The GetRecords KVP URL. */
function getRecordsUrl(source: ResolvedSource, ask: Ask, start: number): string {
  const csw = cswNamespace(source);
  // `xmlns(prefix=uri)` in both versions: pycsw, the CSW 3.0 reference implementation, reads
  // only that form (it answers the comma form, `xmlns(prefix,uri)`, with a 500), as Cairn does.
  const namespaces = `xmlns(csw=${csw}),xmlns(gmd=${NS.gmd})`;
  const filter = modifiedFilterText(source, ask);
  return withQuery(source.url, {
    service: 'CSW',
    version: source.version,
    request: 'GetRecords',
    typeNames: ask.schema === 'gmd' ? 'gmd:MD_Metadata' : 'csw:Record',
    namespace: namespaces,
    outputSchema: outputSchemaUri(source, ask.schema),
    elementSetName: ask.elementSet,
    resultType: source.version === '2.0.2' ? 'results' : undefined,
    startPosition: String(start),
    maxRecords: String(source.pageSize),
    constraintLanguage: filter ? 'FILTER' : undefined,
    constraint_language_version: filter
      ? source.version === '2.0.2'
        ? '1.1.0'
        : '2.0.0'
      : undefined,
    constraint: filter,
  });
}

function integerAttribute(element: XmlElement, name: string): number | undefined {
  const value = attr(element, '', name);
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/** Reads a CSW response, turning an ExceptionReport or unreadable XML into a source error. */
function readResponse(url: string, text: string, maxBytes: number): XmlDocument {
  let document: XmlDocument;
  try {
    document = parseXml(text, { maxBytes });
  } catch (error) {
    // The kind of rejection only: a parser message may quote the source's content.
    const reason = error instanceof XmlParseError ? error.reason : 'unreadable';
    throw new HarvestSourceError(`${url} did not answer readable XML (${reason})`, true);
  }
  if (document.root.local === 'ExceptionReport') {
    // The exception codes are OWS vocabulary; the texts are the source's words and stay out.
    const codes = document.root.children
      .map((exception) => attr(exception, '', 'exceptionCode') ?? '')
      .filter((code) => /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/.test(code));
    throw new HarvestSourceError(
      `${url} answered an ExceptionReport${codes.length > 0 ? ` (${[...new Set(codes)].join(', ')})` : ''}`,
      true,
    );
  }
  return document;
}

function parsePage(url: string, text: string, maxBytes: number): Page {
  const documents = readResponse(url, text, maxBytes);
  const results = documents.root.children.find((item) => item.local === 'SearchResults');
  if (documents.root.local !== 'GetRecordsResponse' || results === undefined)
    throw new HarvestSourceError(`${url} did not answer a GetRecordsResponse`, true);
  return {
    documents,
    records: results.children,
    matched: integerAttribute(results, 'numberOfRecordsMatched'),
    nextRecord: integerAttribute(results, 'nextRecord'),
  };
}

function isRecordElement(element: XmlElement): boolean {
  return ISO_ROOTS.has(`${element.ns} ${element.local}`) || element.local.endsWith('Record');
}

function identifierOf(element: XmlElement): string | undefined {
  const identifier = element.children.find(
    (item) => item.ns === NS.dc && item.local === 'identifier',
  );
  const value = identifier?.text.trim();
  return value ? value : undefined;
}

export class CswAdapter extends IncrementalSourceAdapter {
  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
    private readonly maxBytes: number,
  ) {
    super();
  }

  private async fetchPage(ask: Ask, start: number): Promise<Page> {
    const { source } = this;
    if (source.method === 'POST') {
      const response = await this.client.request(source.url, {
        method: 'POST',
        body: getRecordsXml(source, ask, start),
        contentType: 'application/xml',
        accept: 'application/xml',
      });
      return parsePage(source.url, response.text, this.maxBytes);
    }
    const url = getRecordsUrl(source, ask, start);
    const response = await this.client.request(url, { accept: 'application/xml' });
    return parsePage(source.url, response.text, this.maxBytes);
  }

  /** Pages from startPosition 1 to the end; checks the count when the listing is complete. */
  private async *walk(ask: Ask): AsyncIterable<Page> {
    const guard = new PageGuard(this.source.url);
    let start = 1;
    let seen = 0;
    let matched: number | undefined;
    for (;;) {
      guard.next(String(start));
      const page = await this.fetchPage(ask, start);
      const records = page.records.filter(isRecordElement);
      seen += records.length;
      matched = page.matched;
      yield { ...page, records };
      const next = page.nextRecord;
      if (records.length === 0 || next === undefined || next === 0) break;
      if (matched !== undefined && next > matched) break;
      if (next <= start)
        throw new HarvestSourceError(`${this.source.url}: nextRecord does not advance`, true);
      start = next;
    }
    checkComplete(this.source.url, seen, matched);
  }

  async *pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]> {
    const ask: Ask = {
      schema: this.source.outputSchema,
      elementSet: 'full',
      modifiedSince: options.modifiedSince,
    };
    let index = 0;
    for await (const page of this.walk(ask)) {
      yield page.records.map((record) => ({
        name: `${this.source.url} record ${++index}`,
        content: elementSource(page.documents, record),
      }));
    }
  }

  protected async *identifiers(): AsyncIterable<string[]> {
    for await (const page of this.walk({ schema: 'dc', elementSet: 'brief' })) {
      const ids = page.records.map(identifierOf);
      if (ids.some((id) => id === undefined))
        throw new HarvestSourceError(
          `${this.source.url}: a brief record has no dc:identifier`,
          true,
        );
      yield ids as string[];
    }
  }

  protected async *fetchByIds(ids: string[]): AsyncIterable<HarvestedDocument[]> {
    const { source } = this;
    // CSW 2.0.2 takes a comma-separated list; 3.0 one id per request.
    const size = source.version === '2.0.2' ? Math.min(source.pageSize, 50) : 1;
    for (const group of chunk(ids, size)) {
      const url = withQuery(source.url, {
        service: 'CSW',
        version: source.version,
        request: 'GetRecordById',
        id: group.join(','),
        elementSetName: 'full',
        outputSchema: outputSchemaUri(source, source.outputSchema),
      });
      let text: string;
      try {
        text = (await this.client.request(url, { accept: 'application/xml' })).text;
      } catch (error) {
        // 3.0 answers 404 for an id that is gone since the listing: nothing to fetch.
        if (error instanceof HarvestSourceError && error.sourceStatus === 404) continue;
        throw error;
      }
      const document = readResponse(source.url, text, this.maxBytes);
      const records =
        document.root.local === 'GetRecordByIdResponse'
          ? document.root.children.filter(isRecordElement)
          : [document.root];
      yield records.map((record, index) => ({
        name: `${source.url} record ${group[index] ?? index + 1}`,
        content: elementSource(document, record),
      }));
    }
  }
}
