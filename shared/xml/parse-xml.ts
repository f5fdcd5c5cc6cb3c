/**
 * The one safe XML parsing entry point for Cairn. Every XML document a client or a harvest
 * sends (metadata records, CSW requests, FES filters) goes through `parseXml`, which:
 *
 * - refuses any DOCTYPE (so no entity declarations, no "billion laughs", no XXE) and any
 *   XInclude element, naming the problem in a typed `XmlParseError`;
 * - refuses documents above a byte limit before decoding them, and nesting above a depth limit
 *   while streaming (the tree is never built past the limit);
 * - resolves namespaces, so callers address elements and attributes by namespace URI and local
 *   name whatever prefixes the document uses (default namespaces and prefixes redeclared on
 *   inner elements included).
 *
 * The tokenizer is saxes (a strict, namespace-aware, well-formedness-checking SAX parser); see
 * shared/xml/README.md for why it was chosen over xml2js, fast-xml-parser and @xmldom/xmldom.
 */
import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { XmlParseError } from './errors.js';

/** Limits applied while parsing; callers take them from configuration. */
export interface XmlLimits {
  /** Maximum size of the document in bytes (UTF-8 size for string input). */
  maxBytes: number;
  /** Maximum element nesting depth (the root element is depth 1). */
  maxDepth: number;
  /**
   * Maximum number of elements (bounds the tree's memory and build time); default one per 32
   * bytes of `maxBytes` — real metadata averages 50–90 bytes per element, while a body of
   * bare `<a/>` elements would otherwise build a tree some 35 times its own size.
   */
  maxElements?: number;
  /** Maximum length in characters of one text node or attribute value; default 1 MiB. */
  maxTextLength?: number;
}

/** The limits a caller may set; absent or undefined ones take their defaults. */
export type XmlLimitOptions = { [K in keyof XmlLimits]?: XmlLimits[K] | undefined };

/** Defaults suitable for single metadata records and CSW requests. */
export const DEFAULT_XML_LIMITS: Readonly<XmlLimits> = Object.freeze({
  maxBytes: 10 * 1024 * 1024,
  maxDepth: 128,
});

/** An attribute, addressed by namespace URI ('' when unqualified) and local name. */
export interface XmlAttribute {
  readonly ns: string;
  readonly local: string;
  readonly prefix: string;
  readonly value: string;
}

/** An element of the parsed tree. Namespace declarations are not listed as attributes. */
export interface XmlElement {
  /** Namespace URI; '' for an element in no namespace. */
  readonly ns: string;
  readonly local: string;
  /** The prefix the document used ('' for the default namespace); informative only. */
  readonly prefix: string;
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlElement[];
  /** The element's own character data (text and CDATA, not its descendants'), untrimmed. */
  readonly text: string;
  readonly parent: XmlElement | null;
  /** Namespace declarations made on this element (prefix → URI, '' = default), or null. */
  readonly namespaces: Readonly<Record<string, string>> | null;
  /** Offset in `XmlDocument.source` just after the start tag's closing '>'. */
  readonly startTagEnd: number;
  /** Offset in `XmlDocument.source` just after the element's end tag. */
  readonly end: number;
}

/** A parsed document: its root element and the decoded source text it came from. */
export interface XmlDocument {
  readonly root: XmlElement;
  readonly source: string;
}

interface MutableElement {
  ns: string;
  local: string;
  prefix: string;
  attributes: XmlAttribute[];
  children: MutableElement[];
  text: string;
  parent: MutableElement | null;
  namespaces: Record<string, string> | null;
  startTagEnd: number;
  end: number;
}

const BYTES_PER_ELEMENT = 32;
const DEFAULT_MAX_TEXT_LENGTH = 1024 * 1024;
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XINCLUDE_NS = 'http://www.w3.org/2001/XInclude';

/**
 * Parses an XML document safely into a namespace-resolved element tree, or throws an
 * `XmlParseError` naming why it was refused (DOCTYPE, entity declaration, external reference,
 * size, depth or well-formedness).
 */
export function parseXml(input: string | Uint8Array, limits: XmlLimitOptions = {}): XmlDocument {
  const maxBytes = limits.maxBytes ?? DEFAULT_XML_LIMITS.maxBytes;
  const maxDepth = limits.maxDepth ?? DEFAULT_XML_LIMITS.maxDepth;
  const maxElements = limits.maxElements ?? Math.ceil(maxBytes / BYTES_PER_ELEMENT);
  const maxTextLength = limits.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH;
  const tooLong = (what: string): XmlParseError =>
    new XmlParseError(
      'too-large',
      `XML document rejected: ${what} is longer than the limit of ${maxTextLength} characters`,
      { locator: `line ${parser.line}` },
    );
  const source =
    typeof input === 'string' ? checkStringSize(input, maxBytes) : decode(input, maxBytes);
  if (!/^\uFEFF?\s*</.test(source)) {
    throw new XmlParseError('malformed', 'document is not XML (it does not start with "<")');
  }

  const parser = new SaxesParser({ xmlns: true, position: true });
  const top: MutableElement = {
    ns: '',
    local: '',
    prefix: '',
    attributes: [],
    children: [],
    text: '',
    parent: null,
    namespaces: null,
    startTagEnd: 0,
    end: 0,
  };
  let current = top;
  let depth = 0;
  let elements = 0;

  parser.on('doctype', (doctype) => {
    throw rejectDoctype(doctype);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth += 1;
    if (depth > maxDepth) {
      throw new XmlParseError(
        'too-deep',
        `XML document rejected: elements are nested deeper than the limit of ${maxDepth}`,
        { locator: `line ${parser.line}` },
      );
    }
    elements += 1;
    if (elements > maxElements) {
      throw new XmlParseError(
        'too-large',
        `XML document rejected: it has more than the limit of ${maxElements} elements`,
        { locator: `line ${parser.line}` },
      );
    }
    if (tag.uri === XINCLUDE_NS) {
      throw new XmlParseError(
        'external-reference',
        'XML document rejected: XInclude elements (external references) are not allowed',
        { locator: `line ${parser.line}` },
      );
    }
    for (const [key, attribute] of Object.entries(tag.attributes)) {
      if (attribute.value.length > maxTextLength) throw tooLong(`attribute "${key}"`);
    }
    const position = parser.position;
    const element: MutableElement = {
      ns: tag.uri,
      local: tag.local,
      prefix: tag.prefix,
      attributes: collectAttributes(tag),
      children: [],
      text: '',
      parent: current,
      namespaces: declarationsOf(tag),
      startTagEnd: position,
      end: position,
    };
    current.children.push(element);
    current = element;
  });
  parser.on('text', (text) => {
    current.text += text;
    if (current.text.length > maxTextLength) throw tooLong('a text node');
  });
  parser.on('cdata', (text) => {
    current.text += text;
    if (current.text.length > maxTextLength) throw tooLong('a text node');
  });
  parser.on('closetag', () => {
    current.end = parser.position;
    current = current.parent ?? top;
    depth -= 1;
  });
  parser.on('error', (error) => {
    throw new XmlParseError('malformed', `XML document is not well-formed: ${error.message}`, {
      cause: error,
    });
  });

  try {
    parser.write(source).close();
  } catch (error) {
    if (error instanceof XmlParseError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new XmlParseError('malformed', `XML document is not well-formed: ${message}`, {
      cause: error,
    });
  }
  const root = top.children[0];
  if (root === undefined) {
    throw new XmlParseError('malformed', 'XML document has no root element');
  }
  root.parent = null;
  return { root, source };
}

function checkStringSize(text: string, maxBytes: number): string {
  // UTF-8 needs at least one byte per UTF-16 code unit and at most three.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)) {
    throw tooLarge(maxBytes);
  }
  return text;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function tooLarge(maxBytes: number): XmlParseError {
  return new XmlParseError(
    'too-large',
    `XML document rejected: it is larger than the limit of ${maxBytes} bytes`,
  );
}

/** Decodes bytes using the BOM or the XML declaration's encoding (UTF-8 by default). */
function decode(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  let label = 'utf-8';
  let offset = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    offset = 3;
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    label = 'utf-16be';
    offset = 2;
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    label = 'utf-16le';
    offset = 2;
  } else {
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 256))
      .toString('latin1')
      .match(/^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/)?.[1];
    if (head !== undefined) label = head.toLowerCase();
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new XmlParseError('malformed', `XML document uses an unsupported encoding "${label}"`);
  }
  try {
    return decoder.decode(bytes.subarray(offset));
  } catch {
    throw new XmlParseError('malformed', `XML document is not valid ${label}`);
  }
}

function rejectDoctype(doctype: string): XmlParseError {
  if (/<!ENTITY/i.test(doctype)) {
    const external = /<!ENTITY\s+%?\s*[^\s>]+\s+(SYSTEM|PUBLIC)\b/i.test(doctype);
    return external
      ? new XmlParseError(
          'external-reference',
          'XML document rejected: it declares an external entity (DOCTYPE with SYSTEM/PUBLIC entity); DTDs are not allowed',
        )
      : new XmlParseError(
          'entity-declaration',
          'XML document rejected: it declares entities in a DOCTYPE; DTDs are not allowed',
        );
  }
  if (/\b(SYSTEM|PUBLIC)\b/.test(doctype)) {
    return new XmlParseError(
      'external-reference',
      'XML document rejected: its DOCTYPE references an external DTD; DTDs are not allowed',
    );
  }
  return new XmlParseError(
    'doctype',
    'XML document rejected: DOCTYPE declarations are not allowed',
  );
}

const NO_ATTRIBUTES: XmlAttribute[] = [];

function collectAttributes(tag: SaxesTagNS): XmlAttribute[] {
  let result = NO_ATTRIBUTES;
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.uri === XMLNS_NS || attribute.name === 'xmlns') continue;
    if (result === NO_ATTRIBUTES) result = [];
    result.push({
      ns: attribute.uri,
      local: attribute.local,
      prefix: attribute.prefix,
      value: attribute.value,
    });
  }
  return result;
}

/** The namespace declarations of a tag (saxes gives an own-properties-only object), or null. */
function declarationsOf(tag: SaxesTagNS): Record<string, string> | null {
  for (const key in tag.ns) {
    if (key !== undefined) return tag.ns;
  }
  return null;
}
