/**
 * The writers' XML builder: a light tree of elements, attributes and text, written to a string
 * by one serialiser that escapes every value and declares every namespace an element or
 * attribute uses. It offers the part of xmlbuilder2's interface the writers use (`ele`, `att`,
 * `txt`, `up`) without a DOM behind it: a CSW or Atom page of ten records was spending half the
 * API's CPU in xmlbuilder2's DOM and its serialiser (docs/decisions/less-cpu-per-answer.md). `toXmlBuilder2` replays a tree
 * into xmlbuilder2 for its XML-to-JSON conversion (CSW `outputFormat=application/json`) and so
 * that the tests can hold this serialiser to xmlbuilder2's, document by document.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder as XmlBuilder2 } from 'xmlbuilder2/lib/interfaces.js';

/** The namespace of `xmlns` declarations. */
export const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';
/** The namespace bound to the `xml` prefix in every document. */
export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** An attribute: namespace URI ('' for none), qualified name, value. */
export interface XmlAttribute {
  readonly ns: string;
  readonly name: string;
  readonly value: string;
}

/** Options of the string form. */
export interface SerialiseOptions {
  /** Indent child elements by two spaces, one per line (default false). */
  prettyPrint?: boolean;
  /** Leave out the `<?xml …?>` declaration (default false). */
  headless?: boolean;
}

/**
 * One element of a document being written, or the document itself (the node `createXmlDocument`
 * returns, which holds the root element and has no name).
 */
export class XmlNode {
  readonly attributes: XmlAttribute[] = [];
  readonly children: (XmlNode | string)[] = [];

  constructor(
    /** Namespace URI, '' for none. */
    readonly ns: string,
    /** Qualified name (`prefix:local` or `local`); '' for the document. */
    readonly name: string,
    private readonly parent: XmlNode | null,
  ) {}

  /** Adds a child element in namespace `ns` (null for none) and returns it. */
  ele(ns: string | null, name: string, attributes?: Readonly<Record<string, string>>): XmlNode {
    const child = new XmlNode(ns ?? '', name, this);
    this.children.push(child);
    if (attributes !== undefined) {
      for (const key of Object.keys(attributes)) child.att(key, attributes[key] as string);
    }
    return child;
  }

  /** Adds an attribute: `att(name, value)` or `att(ns, name, value)` (ns null for none). */
  att(name: string, value: string): this;
  att(ns: string | null, name: string, value: string): this;
  att(...parts: [string, string] | [string | null, string, string]): this {
    if (parts.length === 2) this.attributes.push({ ns: '', name: parts[0], value: parts[1] });
    else this.attributes.push({ ns: parts[0] ?? '', name: parts[1], value: parts[2] });
    return this;
  }

  /** Adds text (written escaped). */
  txt(text: string): this {
    this.children.push(text);
    return this;
  }

  /** The parent element (the document for the root element). */
  up(): XmlNode {
    if (this.parent === null) throw new Error('xml: the document has no parent');
    return this.parent;
  }

  /** The document this node belongs to. */
  document(): XmlNode {
    return this.parent === null ? this : this.parent.document();
  }
}

/** A new, empty document. */
export function createXmlDocument(): XmlNode {
  return new XmlNode('', '', null);
}

// Characters XML 1.0 cannot carry, and those that need escaping in text and in attributes.
const INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIAL = /[&<>\r]|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

function escapeCharacter(character: string): string {
  return ESCAPES[character] ?? '';
}

/** The value without the characters XML 1.0 cannot carry. */
export function dropInvalidXmlCharacters(value: string): string {
  return value.replace(INVALID, '');
}

/** Text content escaped; characters XML cannot carry are dropped. */
export function escapeText(value: string): string {
  if (!TEXT_SPECIAL.test(value)) return value;
  return value.replace(INVALID, '').replace(/[&<>\r]/g, escapeCharacter);
}

/**
 * An attribute value escaped for double quotes. Tabs and line ends are written as character
 * references so that they survive attribute-value normalisation on reading.
 */
export function escapeAttribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return value.replace(INVALID, '').replace(/[&<>"\t\n\r]/g, escapeCharacter);
}

/** Prefix → namespace URI in scope; child scopes inherit through the prototype chain. */
type Scope = Record<string, string | undefined>;

function prefixOf(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? '' : name.slice(0, colon);
}

class Writer {
  readonly parts: string[] = [];
  private generated = 0;
  // The start tag being written: the scope it inherits, its own scope (a child of that one
  // once it declares something) and the declarations it makes.
  private inherited: Scope = Object.create(null) as Scope;
  private scope: Scope = this.inherited;
  private declarations = '';

  constructor(private readonly pretty: boolean) {}

  element(node: XmlNode, inherited: Scope, depth: number): void {
    this.inherited = inherited;
    this.scope = inherited;
    this.declarations = '';
    // Declarations the writer asked for, unless the same binding is already in scope.
    for (const attribute of node.attributes) {
      if (attribute.ns !== XMLNS_NAMESPACE) continue;
      const prefix = attribute.name === 'xmlns' ? '' : attribute.name.slice('xmlns:'.length);
      if ((this.scope[prefix] ?? '') !== attribute.value) this.declare(prefix, attribute.value);
    }
    // The element's own namespace.
    const prefix = prefixOf(node.name);
    if ((this.scope[prefix] ?? '') !== node.ns) this.declare(prefix, node.ns);
    // Attributes, each in its namespace.
    let attributes = '';
    for (const attribute of node.attributes) {
      if (attribute.ns === XMLNS_NAMESPACE) continue;
      let name = attribute.name;
      if (attribute.ns !== '' && attribute.ns !== XML_NAMESPACE) {
        let attributePrefix = prefixOf(name);
        if (attributePrefix === '') {
          attributePrefix = this.prefixFor(attribute.ns);
          name = `${attributePrefix}:${name}`;
        }
        if (this.scope[attributePrefix] !== attribute.ns) {
          this.declare(attributePrefix, attribute.ns);
        }
      }
      attributes += ` ${name}="${escapeAttribute(attribute.value)}"`;
    }
    const scope = this.scope;
    const parts = this.parts;
    parts.push(`<${node.name}${this.declarations}${attributes}`);
    if (node.children.length === 0) {
      parts.push('/>');
      return;
    }
    parts.push('>');
    const indent = this.pretty && hasElementChild(node);
    for (const child of node.children) {
      if (indent) parts.push(`\n${'  '.repeat(depth + 1)}`);
      if (typeof child === 'string') parts.push(escapeText(child));
      else this.element(child, scope, depth + 1);
    }
    if (indent) parts.push(`\n${'  '.repeat(depth)}`);
    parts.push(`</${node.name}>`);
  }

  /** Binds a prefix on the start tag being written. */
  private declare(prefix: string, uri: string): void {
    if (this.scope === this.inherited) this.scope = Object.create(this.inherited) as Scope;
    this.scope[prefix] = uri;
    const value = escapeAttribute(uri);
    this.declarations += prefix === '' ? ` xmlns="${value}"` : ` xmlns:${prefix}="${value}"`;
  }

  /** A prefix for an attribute namespace given without one: one in scope, or a new `ns<n>`. */
  private prefixFor(ns: string): string {
    for (const prefix in this.scope) {
      if (prefix !== '' && this.scope[prefix] === ns) return prefix;
    }
    let prefix: string;
    do prefix = `ns${++this.generated}`;
    while (this.scope[prefix] !== undefined);
    return prefix;
  }
}

function hasElementChild(node: XmlNode): boolean {
  for (const child of node.children) if (typeof child !== 'string') return true;
  return false;
}

/** Writes the document `node` belongs to as a string. */
export function serialiseXml(node: XmlNode, options: SerialiseOptions = {}): string {
  const document = node.document();
  const writer = new Writer(options.prettyPrint === true);
  if (options.headless !== true) {
    writer.parts.push('<?xml version="1.0" encoding="UTF-8"?>');
  }
  const scope = Object.create(null) as Scope;
  scope.xml = XML_NAMESPACE;
  let first = true;
  for (const child of document.children) {
    if (typeof child === 'string') continue;
    if (options.prettyPrint === true && (!first || options.headless !== true))
      writer.parts.push('\n');
    writer.element(child, scope, 0);
    first = false;
  }
  return writer.parts.join('');
}

/**
 * The same document built with xmlbuilder2. Text has each "&" escaped first: xmlbuilder2
 * leaves an "&" that looks like an entity reference as it is.
 */
export function toXmlBuilder2(node: XmlNode): XmlBuilder2 {
  const document = create({ version: '1.0', encoding: 'UTF-8' });
  const value = (text: string): string => dropInvalidXmlCharacters(text).replace(/&/g, '&amp;');
  const copy = (source: XmlNode, target: XmlBuilder2): void => {
    const element = target.ele(source.ns === '' ? null : source.ns, source.name);
    for (const attribute of source.attributes) {
      element.att(
        attribute.ns === '' ? null : attribute.ns,
        attribute.name,
        value(attribute.value),
      );
    }
    for (const child of source.children) {
      if (typeof child === 'string') element.txt(value(child));
      else copy(child, element);
    }
  };
  for (const child of node.document().children) {
    if (typeof child !== 'string') copy(child, document);
  }
  return document;
}
