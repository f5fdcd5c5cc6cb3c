/**
 * Small helpers shared by the XML writers, on top of the writers' builder (`xml-node.ts`; never
 * string concatenation): namespace declarations, ISO date formatting, and importing a parsed
 * tree into a builder.
 */
import { parseXml, type XmlElement } from '../../../xml/index.js';
import { NS } from '../../../xml/namespaces.js';
import {
  createXmlDocument,
  dropInvalidXmlCharacters,
  serialiseXml,
  toXmlBuilder2,
  XMLNS_NAMESPACE as XMLNS,
  type XmlNode,
} from './xml-node.js';

export type { XmlNode };

/** Options shared by the writers' string forms. */
export interface WriteOptions {
  /** Indent the output (default true). */
  prettyPrint?: boolean;
  /** Write the `<?xml …?>` declaration (default true). */
  declaration?: boolean;
}

/** A new, empty XML document builder. */
export function createDocument(): XmlNode {
  return createXmlDocument();
}

/** Serialises a document built by a writer. */
export function serialise(document: XmlNode, options: WriteOptions = {}): string {
  return serialiseXml(document, {
    prettyPrint: options.prettyPrint ?? true,
    headless: options.declaration === false,
  });
}

/** A document converted to JSON by xmlbuilder2's mapping (CSW `outputFormat=application/json`). */
export function serialiseAsJson(document: XmlNode): string {
  return toXmlBuilder2(document).end({ format: 'json', prettyPrint: true });
}

/** Declares namespace prefixes on an element so descendants do not repeat them. */
export function declareNamespaces(element: XmlNode, prefixes: Record<string, string>): void {
  for (const [prefix, uri] of Object.entries(prefixes)) {
    element.att(XMLNS, `xmlns:${prefix}`, uri);
  }
}

/**
 * A value for `txt()` / `att()` with the characters XML 1.0 cannot carry dropped. (The
 * serialiser escapes markup and drops them too; values taken from records pass through here so
 * that what a writer holds is what it writes.)
 */
export function xmlText(value: string): string {
  return dropInvalidXmlCharacters(value);
}

/** `xmlText` applied to every value of an attribute object. */
export function xmlAttributes(attributes: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) result[name] = xmlText(value);
  return result;
}

/** Adds `<name>text</name>` when the text is present. */
export function appendText(
  parent: XmlNode,
  ns: string,
  name: string,
  value: string | number | undefined,
  attributes?: Record<string, string>,
): void {
  if (value === undefined || value === '') return;
  parent
    .ele(ns, name, xmlAttributes(attributes ?? {}))
    .txt(xmlText(String(value)))
    .up();
}

/** True when a normalised UTC timestamp is exactly midnight (a date written as a date). */
export function isMidnight(timestamp: string): boolean {
  return timestamp.endsWith('T00:00:00.000Z');
}

/** The calendar date of a normalised timestamp. */
export function datePart(timestamp: string): string {
  return timestamp.slice(0, 10);
}

/** Writes a normalised timestamp as a date when it is midnight, else as it is. */
export function formatDateOrDateTime(timestamp: string): string {
  return isMidnight(timestamp) ? datePart(timestamp) : timestamp;
}

/** A time extent end written back as a date when the extent is date-only and on a day boundary. */
export function formatExtentEnd(
  value: string,
  side: 'start' | 'end',
  dateOnly: boolean | undefined,
): string {
  if (dateOnly) {
    if (side === 'start' && isMidnight(value)) return datePart(value);
    if (side === 'end' && value.endsWith('T23:59:59.999Z')) return datePart(value);
  }
  return value;
}

/** True when a string can be used as an xs:anyURI attribute value without surprises. */
export function isUriLike(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value);
}

/**
 * Copies a parsed element (and its subtree) into a builder, keeping its namespaces and the
 * prefixes the source used, so a stored record can be embedded in a larger response.
 */
export function appendParsedElement(parent: XmlNode, element: XmlElement): XmlNode {
  const qualified = element.prefix === '' ? element.local : `${element.prefix}:${element.local}`;
  const node = parent.ele(element.ns === '' ? null : element.ns, qualified);
  if (element.namespaces !== null) {
    for (const [prefix, uri] of Object.entries(element.namespaces)) {
      if (prefix === '') node.att(XMLNS, 'xmlns', xmlText(uri));
      else node.att(XMLNS, `xmlns:${prefix}`, xmlText(uri));
    }
  }
  for (const attribute of element.attributes) {
    const name =
      attribute.prefix === '' ? attribute.local : `${attribute.prefix}:${attribute.local}`;
    node.att(attribute.ns === '' ? null : attribute.ns, name, xmlText(attribute.value));
  }
  const content = element.children.length === 0 ? element.text : element.text.trim();
  if (content !== '') node.txt(xmlText(content));
  for (const item of element.children) appendParsedElement(node, item);
  return node;
}

/** Parses stored XML safely and copies its root element into a builder. */
export function appendSourceXml(parent: XmlNode, xml: string): XmlNode {
  return appendParsedElement(parent, parseXml(xml).root);
}

export { NS };
