/**
 * CSW responses: GetRecords (CSW 2.0.2 / 3.0, Dublin Core element sets or chosen elements,
 * ISO 19139 or Atom entries), the validate Acknowledgement, GetRecordById (2.0.2 wrapper,
 * 3.0 bare record or result list), GetDomain, and the ExceptionReport of each version. Pure: records and
 * request in, a media type and a body out. JSON output is the same document rendered by
 * xmlbuilder2's object conversion (`@` attributes, `#` text). Records are written by the module
 * of the requested output schema (output-schemas/), looked up in its table.
 */
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import {
  appendAtomEntry,
  appendParsedElement,
  createDocument,
  serialise,
} from '../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  serialiseAsJson,
  xmlAttributes,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import type { DomainValue } from '../../../../shared/search/backend.js';
import type { EncodedResponse } from '../../common/responses.js';
import { CswError, type OwsException } from './csw-errors.js';
import {
  ATOM,
  CSW_NAMESPACE,
  CSW_NS,
  CSW_PREFIX,
  JSON_FORMAT,
  OWS_NAMESPACE,
  OWS_PREFIX,
  SCHEMA_LOCATION,
  type CswVersion,
} from './csw-model.js';
import { findOutputSchema } from './output-schemas/index.js';
import type { GetRecordsRequest, OutputFormat, RecordPresentation } from './request.js';

/** A response body with its media type and HTTP status. */
/** A CSW response, encoded. */
export type CswResponse = EncodedResponse;

/** Links and times a presenter needs. */
export interface PresentContext {
  timeStamp: string;
  /** The request's public base URL (records' IRIs in the DCAT output schema). */
  baseUrl: string;
  /** Milliseconds the search took (CSW 3.0 elapsedTime). */
  elapsedMs?: number;
}

/**
 * Search and record answers are written without indentation: XML clients (OWSLib, GDAL, QGIS)
 * ignore it, and indenting costs CPU on every search (docs/decisions/less-cpu-per-answer.md). Capabilities stay indented.
 */
const COMPACT = { prettyPrint: false } as const;

function finish(document: XmlNode, format: OutputFormat, xmlMediaType: string): CswResponse {
  if (format === 'json') {
    return {
      status: 200,
      mediaType: JSON_FORMAT,
      body: serialiseAsJson(document),
    };
  }
  return { status: 200, mediaType: xmlMediaType, body: serialise(document, COMPACT) };
}

function rootElement(document: XmlNode, version: CswVersion, local: string): XmlNode {
  const prefix = CSW_PREFIX[version];
  const root = document.ele(CSW_NAMESPACE[version], `${prefix}:${local}`);
  declareNamespaces(root, {
    [prefix]: CSW_NAMESPACE[version],
    dc: CSW_NS.dc,
    dct: CSW_NS.dct,
    [OWS_PREFIX[version]]: OWS_NAMESPACE[version],
    xsi: CSW_NS.xsi,
  });
  root.att(
    CSW_NS.xsi,
    'xsi:schemaLocation',
    `${CSW_NAMESPACE[version]} ${SCHEMA_LOCATION[version]}`,
  );
  return root;
}

/** A new response document with its root element, and the version's CSW prefix and namespace. */
function startResponse(
  version: CswVersion,
  local: string,
): { prefix: string; ns: string; document: XmlNode; root: XmlNode } {
  const document = createDocument();
  return {
    prefix: CSW_PREFIX[version],
    ns: CSW_NAMESPACE[version],
    document,
    root: rootElement(document, version, local),
  };
}

/** The position of the next record, or 0 when the last record has been returned. */
export function computeNextRecord(
  startPosition: number,
  returned: number,
  matched: number,
): number {
  const next = startPosition + returned;
  return next <= matched ? next : 0;
}

/** What a GetRecordsResponse holds besides its records. */
interface SearchResponseParts {
  version: CswVersion;
  outputSchema: string;
  presentation: RecordPresentation;
  outputFormat: OutputFormat;
  xmlMediaType: string;
  requestId?: string;
  startPosition: number;
  matched: number;
}

function writeSearchResponse(
  records: CoreRecord[],
  parts: SearchResponseParts,
  context: PresentContext,
): CswResponse {
  const { version, presentation } = parts;
  const schema = findOutputSchema(parts.outputSchema);
  const { prefix, ns, document, root } = startResponse(version, 'GetRecordsResponse');
  root.att('version', version);
  declareNamespaces(root, schema.responseNamespaces);
  if (parts.requestId !== undefined) {
    root.ele(ns, `${prefix}:RequestId`).txt(xmlText(parts.requestId)).up();
  }
  root.ele(ns, `${prefix}:SearchStatus`, { timestamp: context.timeStamp }).up();
  const nextRecord = computeNextRecord(parts.startPosition, records.length, parts.matched);
  const attributes: Record<string, string> = {
    numberOfRecordsMatched: String(parts.matched),
    numberOfRecordsReturned: String(records.length),
    nextRecord: String(nextRecord),
    recordSchema: parts.outputSchema,
  };
  if (presentation.kind === 'elementSet') {
    attributes.elementSet = schema.reportedElementSet ?? presentation.elementSet;
  }
  if (version === '3.0.0') {
    if (context.elapsedMs !== undefined)
      attributes.elapsedTime = String(Math.round(context.elapsedMs));
    attributes.status = records.length === parts.matched ? 'complete' : 'subset';
  }
  const results = root.ele(ns, `${prefix}:SearchResults`, attributes);
  for (const record of records) {
    schema.appendRecord(results, record, {
      version,
      presentation,
      standalone: false,
      baseUrl: context.baseUrl,
    });
  }
  return finish(document, parts.outputFormat, parts.xmlMediaType);
}

/** Writes a GetRecords response (XML or its JSON rendering). */
export function presentGetRecords(
  request: GetRecordsRequest,
  records: CoreRecord[],
  matched: number,
  context: PresentContext,
): CswResponse {
  return writeSearchResponse(
    records,
    {
      version: request.version,
      outputSchema: request.outputSchema,
      presentation: request.presentation,
      outputFormat: request.outputFormat,
      xmlMediaType: request.xmlMediaType,
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      startPosition: request.startPosition,
      matched,
    },
    context,
  );
}

/** Writes the `resultType=validate` answer: the request, echoed. */
export function presentAcknowledgement(
  request: GetRecordsRequest,
  context: PresentContext,
): CswResponse {
  const { version } = request;
  const { prefix, ns, document, root } = startResponse(version, 'Acknowledgement');
  root.att('timeStamp', context.timeStamp);
  const echoed = root.ele(ns, `${prefix}:EchoedRequest`);
  if (request.echo !== undefined) {
    appendParsedElement(echoed, request.echo);
  } else {
    // A KVP request, echoed as the equivalent XML request (without its constraint).
    // The 3.0 GetRecords element has no resultType attribute.
    const getRecords = echoed.ele(ns, `${prefix}:GetRecords`, {
      service: 'CSW',
      version,
      ...(version === '2.0.2' ? { resultType: request.resultType } : {}),
      outputSchema: request.outputSchema,
      startPosition: String(request.startPosition),
      maxRecords: String(request.maxRecords),
    });
    // Type names are echoed as written: `csw:` means the version's CSW namespace.
    declareNamespaces(getRecords, {
      gmd: CSW_NS.gmd,
      ...(prefix === 'csw' ? {} : { csw: CSW_NAMESPACE[version] }),
    });
    const query = getRecords.ele(ns, `${prefix}:Query`, { typeNames: request.typeNames.join(' ') });
    if (request.presentation.kind === 'elementSet') {
      query.ele(ns, `${prefix}:ElementSetName`).txt(request.presentation.elementSet).up();
    } else {
      for (const name of request.presentation.names) {
        query.ele(ns, `${prefix}:ElementName`).txt(xmlText(name.written)).up();
      }
    }
  }
  if (request.requestId !== undefined) {
    root.ele(ns, `${prefix}:RequestId`).txt(xmlText(request.requestId)).up();
  }
  return finish(document, request.outputFormat === 'json' ? 'json' : 'xml', request.xmlMediaType);
}

/** What GetRecordById writes. */
export interface RecordByIdOptions {
  version: CswVersion;
  presentation: RecordPresentation;
  outputSchema: string;
  outputFormat: OutputFormat;
  xmlMediaType: string;
  /** CSW 3.0: the records in a csw30:GetRecordsResponse rather than the bare record. */
  asResultList?: boolean;
}

/**
 * Writes a GetRecordById response: CSW 2.0.2 wraps the records found in
 * csw:GetRecordByIdResponse; CSW 3.0 answers with the one record itself, or (`asResultList`:
 * several ids, or OWSLib) with the GetRecordsResponse a GetRecords with `recordIds` would give.
 */
export function presentGetRecordById(
  records: CoreRecord[],
  options: RecordByIdOptions,
  context: PresentContext,
): CswResponse {
  const { version } = options;
  const list = version === '3.0.0' && options.asResultList === true;
  const document = createDocument();
  const [first] = records;
  if (options.outputFormat === 'atom') {
    if (version === '3.0.0' && !list && first !== undefined && records.length === 1) {
      appendAtomEntry(document, first);
    } else {
      const feed = document.ele(CSW_NS.atom, 'feed');
      for (const record of records) appendAtomEntry(feed, record);
    }
    return { status: 200, mediaType: ATOM, body: serialise(document, COMPACT) };
  }
  if (list) {
    return writeSearchResponse(
      records,
      { ...options, startPosition: 1, matched: records.length },
      context,
    );
  }
  const schema = findOutputSchema(options.outputSchema);
  const { presentation } = options;
  if (version === '3.0.0') {
    // CSW 3.0 answers a missing record with NotFound (getRecordById checks this first).
    if (first === undefined) throw new CswError('NotFound', 'id', 'No record found for the id');
    if (schema.writeDocument && options.outputFormat === 'xml') {
      return {
        status: 200,
        mediaType: options.xmlMediaType,
        body: schema.writeDocument(first),
      };
    }
    schema.appendRecord(document, first, {
      version,
      presentation,
      standalone: true,
      baseUrl: context.baseUrl,
    });
  } else {
    const root = rootElement(document, version, 'GetRecordByIdResponse');
    declareNamespaces(root, schema.responseNamespaces);
    for (const record of records) {
      schema.appendRecord(root, record, {
        version,
        presentation,
        standalone: false,
        baseUrl: context.baseUrl,
      });
    }
  }
  return finish(document, options.outputFormat, options.xmlMediaType);
}

/** One DomainValues entry. */
export type DomainEntry =
  | { kind: 'parameter'; name: string; values: readonly string[] }
  | { kind: 'property'; name: string; values: DomainValue[] };

/** Writes a GetDomain response. */
export function presentGetDomain(version: CswVersion, entries: DomainEntry[]): CswResponse {
  const { prefix, ns, document, root } = startResponse(version, 'GetDomainResponse');
  for (const entry of entries) {
    const attributes: Record<string, string> = { type: `${prefix}:Record` };
    if (version === '3.0.0') attributes.resultType = 'available';
    const domain = root.ele(ns, `${prefix}:DomainValues`, attributes);
    const nameElement =
      entry.kind === 'parameter'
        ? 'ParameterName'
        : version === '2.0.2'
          ? 'PropertyName'
          : 'ValueReference';
    domain.ele(ns, `${prefix}:${nameElement}`).txt(xmlText(entry.name)).up();
    if (entry.values.length > 0) {
      const list = domain.ele(ns, `${prefix}:ListOfValues`);
      for (const value of entry.values) {
        if (typeof value === 'string') {
          list.ele(ns, `${prefix}:Value`).txt(xmlText(value)).up();
        } else {
          list
            .ele(ns, `${prefix}:Value`, { count: String(value.count) })
            .txt(xmlText(value.value))
            .up();
        }
      }
    }
  }
  return { status: 200, mediaType: 'application/xml', body: serialise(document) };
}

/**
 * Writes an ExceptionReport: OWS 1.0.0 (`http://www.opengis.net/ows`) for CSW 2.0.2, OWS 2.0
 * for CSW 3.0. The report's version attribute is the CSW version of the request.
 */
export function presentExceptionReport(version: CswVersion, exception: OwsException): string {
  const ows = OWS_NAMESPACE[version];
  const prefix = OWS_PREFIX[version];
  const document = createDocument();
  const root = document.ele(ows, `${prefix}:ExceptionReport`, { version });
  declareNamespaces(root, { [prefix]: ows, xsi: CSW_NS.xsi });
  if (version === '2.0.2') {
    root.att('language', 'en');
    root.att(
      CSW_NS.xsi,
      'xsi:schemaLocation',
      `${ows} http://schemas.opengis.net/ows/1.0.0/owsExceptionReport.xsd`,
    );
  } else {
    root.att(CSW_NS.xml, 'xml:lang', 'en');
    root.att(
      CSW_NS.xsi,
      'xsi:schemaLocation',
      `${ows} http://schemas.opengis.net/ows/2.0/owsExceptionReport.xsd`,
    );
  }
  const attributes: Record<string, string> = { exceptionCode: exception.exceptionCode };
  if (exception.locator !== undefined && exception.locator !== '') {
    attributes.locator = exception.locator;
  }
  root
    .ele(ows, `${prefix}:Exception`, xmlAttributes(attributes))
    .ele(ows, `${prefix}:ExceptionText`)
    .txt(xmlText(exception.text))
    .up()
    .up();
  return serialise(document);
}
