/**
 * Entry points for XML metadata: detect the format of a record element, parse one record, or
 * parse a document holding many (a csw:GetRecordsResponse, an OAI-PMH page, any wrapper).
 */
import { CairnError, InvalidRecordError } from '../../../errors/index.js';
import type { CoreRecord, SourceFormat } from '../../core-record.js';
import {
  elementSource,
  parseXml,
  type XmlDocument,
  type XmlElement,
  type XmlLimitOptions,
  type XmlLimits,
} from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';
import type { ParsedDocuments, ParseOptions } from '../index.js';
import { CSW_RECORD_ELEMENTS, readDublinCoreRecord } from './dublin-core.js';
import { ISO19115_3, ISO19139 } from './iso-dialect.js';
import { readIsoRecord } from './iso-reader.js';

/** The XML metadata formats Cairn reads. */
export type XmlRecordFormat = Extract<SourceFormat, 'iso19139' | 'iso19115-3' | 'dublin-core'>;

const ISO19115_3_ROOTS = new Set<string>([NS.mdb, NS.mdb1]);

/** The namespace of OAI-PMH's `oai_dc:dc` container. */
const OAI_DC_NS = 'http://www.openarchives.org/OAI/2.0/oai_dc/';

/** Says which metadata format an element is the root of, or undefined when it is none. */
export function detectXmlRecordFormat(element: XmlElement): XmlRecordFormat | undefined {
  if (element.local === 'MD_Metadata' && element.ns === NS.gmd) return 'iso19139';
  if (element.local === 'MI_Metadata' && element.ns === NS.gmi) return 'iso19139';
  if (element.local === 'MD_Metadata' && ISO19115_3_ROOTS.has(element.ns)) return 'iso19115-3';
  if (
    CSW_RECORD_ELEMENTS.has(element.local) &&
    (element.ns === NS.csw202 || element.ns === NS.csw30)
  ) {
    return 'dublin-core';
  }
  // OAI-PMH's unqualified Dublin Core (oai_dc:dc), as OAI-PMH providers disseminate it.
  if (element.local === 'dc' && element.ns === OAI_DC_NS) return 'dublin-core';
  return undefined;
}

/** Reads a record element of a known format into a CoreRecord, with `content` as its source. */
export function readXmlRecordElement(element: XmlElement, content: string): CoreRecord {
  switch (detectXmlRecordFormat(element)) {
    case 'iso19139':
      return readIsoRecord(element, ISO19139, content);
    case 'iso19115-3':
      return readIsoRecord(element, ISO19115_3, content);
    case 'dublin-core':
      return readDublinCoreRecord(element, content);
    default:
      throw new InvalidRecordError(
        `not a known XML metadata format: root element {${element.ns}}${element.local}`,
      );
  }
}

/** Options for the XML entry points: parsing limits, and a forced format. */
export interface XmlParseOptions extends Partial<XmlLimits> {
  format?: SourceFormat;
}

function checkForcedFormat(element: XmlElement, format: SourceFormat | undefined): void {
  if (format === undefined) return;
  const detected = detectXmlRecordFormat(element);
  if (detected !== format) {
    throw new InvalidRecordError(
      `expected a ${format} record but the root element is {${element.ns}}${element.local}`,
    );
  }
}

/**
 * Parses one XML metadata record (ISO 19139, ISO 19115-2, ISO 19115-3 or a Dublin Core
 * csw:Record) into a CoreRecord whose source is the text verbatim. Throws InvalidRecordError
 * (XmlParseError for unsafe or malformed XML) naming the problem.
 */
export function parseXmlRecord(xml: string, options: XmlParseOptions = {}): CoreRecord {
  const document = parseXml(xml, options);
  checkForcedFormat(document.root, options.format);
  return readXmlRecordElement(document.root, xml);
}

/** Parses an ISO 19139 (or ISO 19115-2) document into a CoreRecord. */
export function parseIso19139(xml: string, limits: Partial<XmlLimits> = {}): CoreRecord {
  return parseXmlRecord(xml, { ...limits, format: 'iso19139' });
}

/** Parses an ISO 19115-3 document into a CoreRecord. */
export function parseIso19115_3(xml: string, limits: Partial<XmlLimits> = {}): CoreRecord {
  return parseXmlRecord(xml, { ...limits, format: 'iso19115-3' });
}

/** Parses a Dublin Core csw:Record (2.0.2 or 3.0; also Summary/Brief) into a CoreRecord. */
export function parseDublinCore(xml: string, limits: Partial<XmlLimits> = {}): CoreRecord {
  return parseXmlRecord(xml, { ...limits, format: 'dublin-core' });
}

/** Record elements in a document: the root if it is one, else every outermost record below it. */
export function findRecordElements(root: XmlElement): XmlElement[] {
  if (detectXmlRecordFormat(root) !== undefined) return [root];
  const found: XmlElement[] = [];
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as XmlElement;
    for (const item of node.children.toReversed()) {
      if (detectXmlRecordFormat(item) !== undefined) found.push(item);
      else stack.push(item);
    }
  }
  // The stack visits later siblings' subtrees first; restore document order.
  return found.sort((a, b) => a.startTagEnd - b.startTagEnd);
}

function describe(error: unknown): string {
  if (error instanceof CairnError && error.expose) return error.message;
  return 'unreadable record';
}

/**
 * Parses an XML document holding one record or a collection of records (any wrapper, e.g. a
 * csw:GetRecordsResponse) into CoreRecords and per-record failures; one bad record never stops
 * the others. Each record's source is its own text (with inherited namespace declarations added
 * when it was cut out of a wrapper). A document that cannot be read at all yields one failure.
 */
export function parseXmlDocuments(
  xml: string,
  options: ParseOptions & XmlLimitOptions = {},
): ParsedDocuments {
  const name = options.name ?? 'document';
  const result: ParsedDocuments = { records: [], failures: [] };
  let document: XmlDocument;
  try {
    document = parseXml(xml, options);
  } catch (error) {
    result.failures.push({ name, reason: describe(error) });
    return result;
  }
  const elements = findRecordElements(document.root);
  if (elements.length === 0) {
    const { ns, local } = document.root;
    result.failures.push({
      name,
      reason: `not a known XML metadata format and no records inside: root element {${ns}}${local}`,
    });
    return result;
  }
  elements.forEach((element, index) => {
    const label = elements.length > 1 ? `${name}[${index}]` : name;
    try {
      checkForcedFormat(element, options.format);
      const content = element === document.root ? xml : elementSource(document, element);
      result.records.push(readXmlRecordElement(element, content));
    } catch (error) {
      result.failures.push({ name: label, reason: describe(error) });
    }
  });
  return result;
}
