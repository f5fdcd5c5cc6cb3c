/**
 * A small CSW client for the system tests: GET with KVP, POST with XML, and readers for the
 * parts of the responses the tests look at (search results, records, exception reports).
 */
import type { Express } from 'express';
import request from 'supertest';
import { parseXml, type XmlElement } from '../../shared/xml/index.js';

export const CSW_PATH = '/catalogue/csw';
export const NS = {
  csw202: 'http://www.opengis.net/cat/csw/2.0.2',
  csw30: 'http://www.opengis.net/cat/csw/3.0',
  ows: 'http://www.opengis.net/ows',
  ows20: 'http://www.opengis.net/ows/2.0',
  ogc: 'http://www.opengis.net/ogc',
  fes: 'http://www.opengis.net/fes/2.0',
  dc: 'http://purl.org/dc/elements/1.1/',
  dct: 'http://purl.org/dc/terms/',
  gmd: 'http://www.isotc211.org/2005/gmd',
  gco: 'http://www.isotc211.org/2005/gco',
  atom: 'http://www.w3.org/2005/Atom',
  os: 'http://a9.com/-/spec/opensearch/1.1/',
  xlink: 'http://www.w3.org/1999/xlink',
} as const;

/** GET /catalogue/csw with these parameters (values are URL-encoded). */
export function cswGet(
  app: Express,
  parameters: Record<string, string>,
  accept?: string,
): request.Test {
  const query = new URLSearchParams(parameters).toString();
  const test = request(app).get(query === '' ? CSW_PATH : `${CSW_PATH}?${query}`);
  return accept === undefined ? test : test.set('Accept', accept);
}

/** POST /catalogue/csw with an XML body. */
export function cswPost(app: Express, xml: string, contentType = 'application/xml'): request.Test {
  return request(app).post(CSW_PATH).set('Content-Type', contentType).send(xml);
}

/** The root element of an XML response. */
export function rootOf(text: string): XmlElement {
  return parseXml(text).root;
}

/** Child elements by local name (any namespace). */
export function childrenNamed(element: XmlElement | undefined, local: string): XmlElement[] {
  return element === undefined ? [] : element.children.filter((item) => item.local === local);
}

/** First child by local name. */
export function childNamed(element: XmlElement | undefined, local: string): XmlElement | undefined {
  return childrenNamed(element, local)[0];
}

/** Every descendant with this local name. */
export function descendantsNamed(element: XmlElement, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (node: XmlElement): void => {
    for (const item of node.children) {
      if (item.local === local) found.push(item);
      walk(item);
    }
  };
  walk(element);
  return found;
}

/** An unqualified attribute. */
export function attribute(element: XmlElement | undefined, name: string): string | undefined {
  return element?.attributes.find((item) => item.ns === '' && item.local === name)?.value;
}

/** What a GetRecords response says. */
export interface SearchResults {
  root: XmlElement;
  matched: number;
  returned: number;
  next: number;
  elementSet?: string | undefined;
  recordSchema?: string | undefined;
  status?: string | undefined;
  records: readonly XmlElement[];
  /** dc:identifier of each record (or gmd:fileIdentifier). */
  ids: string[];
}

/** The identifier of a csw:Record / gmd:MD_Metadata / atom:entry element. */
export function recordId(record: XmlElement): string {
  const dc = record.children.find((item) => item.local === 'identifier' && item.ns === NS.dc);
  if (dc !== undefined) return dc.text.trim();
  const file = childNamed(record, 'fileIdentifier');
  if (file !== undefined) return childNamed(file, 'CharacterString')?.text.trim() ?? '';
  return childNamed(record, 'id')?.text.trim() ?? '';
}

/** Reads a GetRecords response. */
export function searchResultsOf(text: string): SearchResults {
  const root = rootOf(text);
  const results = childNamed(root, 'SearchResults');
  if (results === undefined) throw new Error(`no SearchResults in ${text.slice(0, 500)}`);
  const number = (name: string): number => Number(attribute(results, name));
  return {
    root,
    matched: number('numberOfRecordsMatched'),
    returned: number('numberOfRecordsReturned'),
    next: number('nextRecord'),
    elementSet: attribute(results, 'elementSet'),
    recordSchema: attribute(results, 'recordSchema'),
    status: attribute(results, 'status'),
    records: results.children,
    ids: results.children.map(recordId),
  };
}

/** What an ExceptionReport says. */
export interface ExceptionReport {
  ns: string;
  version?: string | undefined;
  code?: string | undefined;
  locator?: string | undefined;
  text: string;
}

/** Reads an ows:ExceptionReport (either OWS version). */
export function exceptionOf(text: string): ExceptionReport {
  const root = rootOf(text);
  if (root.local !== 'ExceptionReport')
    throw new Error(`not an ExceptionReport: ${text.slice(0, 300)}`);
  const exception = childNamed(root, 'Exception');
  return {
    ns: root.ns,
    version: attribute(root, 'version'),
    code: attribute(exception, 'exceptionCode'),
    locator: attribute(exception, 'locator'),
    text: childNamed(exception, 'ExceptionText')?.text.trim() ?? '',
  };
}

/** KVP of a CSW 3.0 GetRecords request on csw:Record. */
export function getRecords30(extra: Record<string, string> = {}): Record<string, string> {
  return {
    service: 'CSW',
    version: '3.0.0',
    request: 'GetRecords',
    typeNames: 'csw:Record',
    ...extra,
  };
}

/** KVP of a CSW 2.0.2 GetRecords request on csw:Record returning results. */
export function getRecords202(extra: Record<string, string> = {}): Record<string, string> {
  return {
    service: 'CSW',
    version: '2.0.2',
    request: 'GetRecords',
    typeNames: 'csw:Record',
    resultType: 'results',
    ...extra,
  };
}
