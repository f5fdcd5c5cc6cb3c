/**
 * The three encodings of a DCAT graph, all of the same quads: Turtle (N3.js's writer), JSON-LD
 * (node objects written from the quads under one fixed context; jsonld.js took 5 s for a page
 * of 100 records, docs/decisions/dcat-ap.md) and
 * RDF/XML (the writers' XML builder from the quads: no well-kept RDF/XML serialiser for
 * Node exists, docs/decisions/dcat-ap.md). And `recordToRdfXml`, one record's DCAT-AP RDF/XML,
 * for any protocol that offers it (CSW's DCAT output schema, an OAI-PMH metadata format).
 */
import type { Quad } from 'n3';
import type { CoreRecord } from '../../core-record.js';
import { escapeAttribute, escapeText } from '../xml/xml-node.js';
import { declareNamespaces, type WriteOptions, type XmlNode } from '../xml/xml-builder.js';
import { buildDcatGraph, type DcatOptions } from './dcat-graph.js';
import { DCAT_PREFIXES, iri } from './vocabularies.js';

/** Media types of the three encodings. */
export const TURTLE = 'text/turtle';
export const RDF_XML = 'application/rdf+xml';
export const JSON_LD = 'application/ld+json';

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
const RDF = DCAT_PREFIXES.rdf;
const XSD_STRING = iri('xsd', 'string');
const LANG_STRING = iri('rdf', 'langString');
const RDF_TYPE = iri('rdf', 'type');

/** A subject's statements, without repeats, in the order they came. */
interface SubjectGroup {
  subject: Quad['subject'];
  quads: Quad[];
  /** The ids of the statements' objects, once the subject has many statements. */
  objects?: Set<string>;
}

/** From this many statements on, a subject's objects are kept in a set to find repeats. */
const MANY_STATEMENTS = 8;

/** Whether the group has a statement of this predicate and object (ids compared after terms). */
function hasStatement(
  group: SubjectGroup,
  predicate: Quad['predicate'],
  object: Quad['object'],
): boolean {
  const kept = group.quads;
  for (let index = 0; index < kept.length; index += 1) {
    const other = kept[index] as Quad;
    const otherObject = other.object;
    const otherPredicate = other.predicate;
    if (
      (otherPredicate === predicate || otherPredicate.id === predicate.id) &&
      (otherObject === object || otherObject.id === object.id)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The quads without repeats (a licence or language is typed once per use), grouped by subject
 * in the order subjects first appear, so that each encoding writes a subject's statements
 * together. Terms are compared by N3.js's ids (`"text"@lang`, `_:label`, the IRI), which are
 * stored on the terms, after comparing the terms themselves (the mapping shares one term for
 * each predicate and class, and a subject's term among its statements). Most subjects have a
 * few statements, and a repeat is found by comparing with them; a subject with many (a dataset
 * with 40 distributions) keeps its objects' ids in a set, and compares only when the object is
 * in it.
 */
function groupQuads(quads: readonly Quad[]): SubjectGroup[] {
  const bySubject = new Map<string, SubjectGroup>();
  const groups: SubjectGroup[] = [];
  let last: SubjectGroup | undefined;
  let lastSubject: Quad['subject'] | undefined;
  for (const item of quads) {
    const subject = item.subject;
    let group = last;
    if (subject !== lastSubject || group === undefined) {
      group = bySubject.get(subject.id);
      if (group === undefined) {
        group = { subject, quads: [] };
        bySubject.set(subject.id, group);
        groups.push(group);
      }
      last = group;
      lastSubject = subject;
    }
    const object = item.object;
    const kept = group.quads;
    if (kept.length < MANY_STATEMENTS) {
      if (!hasStatement(group, item.predicate, object)) kept.push(item);
      continue;
    }
    let objects = group.objects;
    if (objects === undefined) {
      objects = new Set();
      for (const other of kept) objects.add(other.object.id);
      group.objects = objects;
    }
    const id = object.id;
    if (!objects.has(id)) {
      objects.add(id);
      kept.push(item);
    } else if (!hasStatement(group, item.predicate, object)) kept.push(item);
  }
  return groups;
}

/** The quads without repeats, grouped by subject in the order subjects first appear. */
export function distinctQuads(quads: readonly Quad[]): Quad[] {
  const kept: Quad[] = [];
  for (const group of groupQuads(quads)) for (const item of group.quads) kept.push(item);
  return kept;
}

/** A literal's lexical form, language and datatype, read once from its N3.js id. */
interface LiteralParts {
  value: string;
  language: string;
  datatype: string;
}

/**
 * The parts of a literal. N3.js keeps a literal as its id (`"text"`, `"text"@en`,
 * `"text"^^datatype`) and its getters parse that id on every call (`datatype` builds a new
 * term each time), so the writers read it once here.
 */
function literalParts(object: Quad['object']): LiteralParts {
  const id = object.id;
  const end = id.lastIndexOf('"');
  const value = id.substring(1, end);
  const marker = id[end + 1];
  if (marker === '@') return { value, language: id.slice(end + 2), datatype: LANG_STRING };
  if (marker === '^') return { value, language: '', datatype: id.slice(end + 3) };
  return { value, language: '', datatype: XSD_STRING };
}

/** Memoises a function of a string over a bounded table (predicates and classes repeat). */
function memoise(compute: (value: string) => string): (value: string) => string {
  const cache = new Map<string, string>();
  return (value) => {
    let result = cache.get(value);
    if (result === undefined) {
      result = compute(value);
      if (cache.size < 1000) cache.set(value, result);
    }
    return result;
  };
}

const PREFIX_ENTRIES = Object.entries(DCAT_PREFIXES);
const LOCAL_NAME = /^[A-Za-z_][\w-]*$/;

/** `prefix:local` for an IRI in one of the mapping's namespaces with a plain local name. */
function prefixedName(value: string): string | undefined {
  for (const [prefix, namespace] of PREFIX_ENTRIES) {
    if (value.startsWith(namespace) && LOCAL_NAME.test(value.slice(namespace.length))) {
      return `${prefix}:${value.slice(namespace.length)}`;
    }
  }
  return undefined;
}

// Turtle: characters an IRI reference cannot hold (controls, space, <>"{}|^`\), and those a
// quoted string must escape (controls, DEL, " and \), each as the one class of the characters
// that need no escape: the complement of the printable ranges, as the XML writer writes
// control characters, and one class is scanned about twice as fast as two alternatives.
const IRI_SPECIAL = /[^!#-;=?-[\]_a-z~-\uFFFF]/;
const IRI_SPECIAL_ALL = /[^!#-;=?-[\]_a-z~-\uFFFF]/g;
const STRING_SPECIAL = /[^ !#-[\]-~\u0080-\uFFFF]/;
const STRING_SPECIAL_ALL = /[^ !#-[\]-~\u0080-\uFFFF]/g;
const STRING_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
const unicodeEscape = (character: string): string =>
  `\\u${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

function turtleIri(value: string): string {
  return `<${IRI_SPECIAL.test(value) ? value.replace(IRI_SPECIAL_ALL, unicodeEscape) : value}>`;
}

/** A predicate, class or datatype IRI: a prefixed name when it has one. */
const turtleName = memoise((value) => prefixedName(value) ?? turtleIri(value));

/** What comes before a predicate's first object: its name after `;` and an indent. */
const turtlePredicate = memoise((value) => `;\n    ${turtleName(value)} `);

function turtleString(value: string): string {
  if (!STRING_SPECIAL.test(value)) return `"${value}"`;
  return `"${value.replace(STRING_SPECIAL_ALL, (c) => STRING_ESCAPES[c] ?? unicodeEscape(c))}"`;
}

/**
 * A literal in Turtle. A plain or language-tagged literal whose text needs no escape is
 * written as its N3.js id, which is that Turtle already (`"text"`, `"text"@en`): no new
 * string for most of a page's literals.
 */
function turtleLiteral(term: Quad['object']): string {
  const id = term.id;
  const end = id.lastIndexOf('"');
  const value = id.substring(1, end);
  const marker = id.charCodeAt(end + 1);
  if (marker === 0x5e /* ^ */) {
    const datatype = id.slice(end + 3);
    if (datatype === XSD_STRING) return turtleString(value);
    return `${turtleString(value)}^^${turtleName(datatype)}`;
  }
  return STRING_SPECIAL.test(value) ? `${turtleString(value)}${id.slice(end + 1)}` : id;
}

function turtleObject(term: Quad['object']): string {
  if (term.termType === 'Literal') return turtleLiteral(term);
  if (term.termType === 'NamedNode') return turtleIri(term.value);
  if (term.termType === 'BlankNode') return term.id;
  throw new Error(`Turtle: no value for a ${term.termType}`);
}

/**
 * The graph as Turtle with the mapping's prefixes: each subject once, its predicates separated
 * by `;` and its objects of one predicate by `,`; predicates, classes and datatypes as prefixed
 * names, other IRIs in full. Written here rather than with N3.js's writer, which matched every
 * IRI against the prefixes and took more than twice as long (docs/decisions/dcat-ap.md).
 */
export function writeTurtle(quads: readonly Quad[]): string {
  const parts: string[] = [];
  for (const [prefix, namespace] of PREFIX_ENTRIES)
    parts.push(`@prefix ${prefix}: <${namespace}>.\n`);
  for (const { subject, quads: statements } of groupQuads(quads)) {
    let text =
      subject.termType === 'BlankNode' ? `\n${subject.id}` : `\n${turtleIri(subject.value)}`;
    let previous: string | undefined;
    for (let index = 0; index < statements.length; index += 1) {
      const { predicate, object } = statements[index] as Quad;
      const name = predicate.value;
      const isType = name === RDF_TYPE;
      const value =
        isType && object.termType === 'NamedNode' ? turtleName(object.value) : turtleObject(object);
      if (name === previous) text += `, ${value}`;
      else if (previous === undefined) text += ` ${isType ? 'a' : turtleName(name)} ${value}`;
      else text += `${isType ? ';\n    a ' : turtlePredicate(name)}${value}`;
      previous = name;
    }
    parts.push(`${text}.\n`);
  }
  return parts.join('');
}

/** The JSON-LD context every DCAT response carries: the mapping's prefixes. */
export const DCAT_JSONLD_CONTEXT: Readonly<Record<string, string>> = Object.freeze({
  ...DCAT_PREFIXES,
});

/** A predicate or class IRI as a compact IRI of the context (`dct:title`), else unchanged. */
const compactIri = memoise((value) => prefixedName(value) ?? value);

type JsonLdValue =
  string | { '@id': string } | { '@value': string; '@language'?: string; '@type'?: string };

function jsonLdValue(object: Quad['object']): JsonLdValue {
  if (object.termType === 'NamedNode') return { '@id': object.value };
  if (object.termType === 'BlankNode') return { '@id': `_:${object.value}` };
  if (object.termType !== 'Literal') throw new Error(`JSON-LD: no value for a ${object.termType}`);
  const { value, language, datatype } = literalParts(object);
  if (language) return { '@value': value, '@language': language };
  if (datatype === XSD_STRING) return value;
  return { '@value': value, '@type': datatype };
}

/**
 * The graph as JSON-LD: the fixed context and an `@graph` of one node object per subject, each
 * property an array of values, written from the quads. Subjects and objects keep their full
 * IRIs (only properties and classes are compacted), so no record IRI can be read as a compact
 * one; blank nodes keep their labels.
 */
export function writeJsonLd(quads: readonly Quad[]): Record<string, unknown> {
  const nodes: Record<string, unknown>[] = [];
  for (const { subject, quads: statements } of groupQuads(quads)) {
    const id = subject.termType === 'BlankNode' ? `_:${subject.value}` : subject.value;
    const node: Record<string, unknown> = { '@id': id };
    nodes.push(node);
    for (const { predicate, object } of statements) {
      if (predicate.value === RDF_TYPE && object.termType === 'NamedNode') {
        const types = (node['@type'] ??= []) as string[];
        types.push(compactIri(object.value));
        continue;
      }
      const values = (node[compactIri(predicate.value)] ??= []) as JsonLdValue[];
      values.push(jsonLdValue(object));
    }
  }
  return { '@context': { ...DCAT_JSONLD_CONTEXT }, '@graph': nodes };
}

const splitCache = new Map<string, [string, string] | undefined>();

/**
 * Splits an IRI into a namespace and an XML local name (NCName), or undefined if it cannot be.
 * Predicates repeat on every record, so each is split once.
 */
function splitIri(value: string): [string, string] | undefined {
  if (splitCache.has(value)) return splitCache.get(value);
  let start = value.length;
  while (start > 0 && /[A-Za-z0-9_.-]/.test(value[start - 1] ?? '')) start -= 1;
  while (start < value.length && !/[A-Za-z_]/.test(value[start] ?? '')) start += 1;
  const parts: [string, string] | undefined =
    start > 0 && start < value.length ? [value.slice(0, start), value.slice(start)] : undefined;
  if (splitCache.size < 1000) splitCache.set(value, parts);
  return parts;
}

/** The prefix bound to a namespace, adding `ns<n>` bindings for namespaces outside the table. */
function prefixFor(namespace: string, bindings: Map<string, string>): string {
  let prefix = bindings.get(namespace);
  if (prefix === undefined) {
    prefix = `ns${bindings.size + 1}`;
    bindings.set(namespace, prefix);
  }
  return prefix;
}

const subjectAttribute = (subject: Quad['subject']): [string, string] =>
  subject.termType === 'BlankNode' ? ['rdf:nodeID', subject.value] : ['rdf:about', subject.value];

/**
 * Appends the graph as an rdf:RDF element under `parent`: one rdf:Description per subject,
 * each predicate an element, IRIs as rdf:resource, blank nodes as rdf:nodeID, literals as text
 * with rdf:datatype or xml:lang. A predicate IRI that cannot end in an XML name is refused.
 */
export function appendRdfXml(parent: XmlNode, quads: readonly Quad[]): XmlNode {
  const bindings = new Map<string, string>(
    Object.entries(DCAT_PREFIXES).map(([prefix, namespace]) => [namespace, prefix]),
  );
  const root = parent.ele(RDF, 'rdf:RDF');
  // Values go to the builder as they are: its serialiser escapes them and drops the characters
  // XML cannot carry, as xmlText would.
  for (const { subject, quads: statements } of groupQuads(quads)) {
    const [attribute, value] = subjectAttribute(subject);
    const description = root.ele(RDF, 'rdf:Description').att(RDF, attribute, value);
    for (const { predicate, object } of statements) {
      const parts = splitIri(predicate.value);
      if (!parts) throw new Error(`RDF/XML: no XML name for the predicate <${predicate.value}>`);
      const [namespace, local] = parts;
      const element = description.ele(namespace, `${prefixFor(namespace, bindings)}:${local}`);
      if (object.termType === 'NamedNode') element.att(RDF, 'rdf:resource', object.value);
      else if (object.termType === 'BlankNode') element.att(RDF, 'rdf:nodeID', object.value);
      else if (object.termType === 'Literal') {
        const literal = literalParts(object);
        if (literal.language) element.att(XML_NAMESPACE, 'xml:lang', literal.language);
        else if (literal.datatype !== XSD_STRING && literal.datatype !== LANG_STRING) {
          element.att(RDF, 'rdf:datatype', literal.datatype);
        }
        element.txt(literal.value);
      }
    }
  }
  declareNamespaces(
    root,
    Object.fromEntries([...bindings].map(([namespace, prefix]) => [prefix, namespace])),
  );
  return root;
}

/**
 * The graph as an RDF/XML document: the same elements appendRdfXml builds, written straight to
 * text (escaped as the XML builder escapes) instead of through the builder's tree, which cost
 * more than the rest of the page together (docs/decisions/dcat-ap.md).
 */
export function writeRdfXml(quads: readonly Quad[], options: WriteOptions = {}): string {
  const pretty = options.prettyPrint ?? true;
  const [open, nested] = pretty ? ['\n  ', '\n    '] : ['', ''];
  const bindings = new Map<string, string>(
    Object.entries(DCAT_PREFIXES).map(([prefix, namespace]) => [namespace, prefix]),
  );
  // Each predicate's element name, made once per document (its prefix may be one bound here).
  const names = new Map<string, string>();
  const body: string[] = [];
  for (const { subject, quads: statements } of groupQuads(quads)) {
    const [attribute, value] = subjectAttribute(subject);
    body.push(`${open}<rdf:Description ${attribute}="${escapeAttribute(value)}">`);
    for (const { predicate, object } of statements) {
      let name = names.get(predicate.value);
      if (name === undefined) {
        const parts = splitIri(predicate.value);
        if (!parts) throw new Error(`RDF/XML: no XML name for the predicate <${predicate.value}>`);
        name = `${prefixFor(parts[0], bindings)}:${parts[1]}`;
        names.set(predicate.value, name);
      }
      if (object.termType === 'NamedNode') {
        body.push(`${nested}<${name} rdf:resource="${escapeAttribute(object.value)}"/>`);
      } else if (object.termType === 'BlankNode') {
        body.push(`${nested}<${name} rdf:nodeID="${escapeAttribute(object.value)}"/>`);
      } else if (object.termType === 'Literal') {
        const literal = literalParts(object);
        let attributes = '';
        if (literal.language) attributes = ` xml:lang="${escapeAttribute(literal.language)}"`;
        else if (literal.datatype !== XSD_STRING && literal.datatype !== LANG_STRING) {
          attributes = ` rdf:datatype="${escapeAttribute(literal.datatype)}"`;
        }
        body.push(`${nested}<${name}${attributes}>${escapeText(literal.value)}</${name}>`);
      }
    }
    body.push(`${open}</rdf:Description>`);
  }
  let declarations = '';
  for (const [namespace, prefix] of bindings) {
    declarations += ` xmlns:${prefix}="${escapeAttribute(namespace)}"`;
  }
  const declaration = options.declaration === false ? '' : '<?xml version="1.0" encoding="UTF-8"?>';
  const separator = declaration && pretty ? '\n' : '';
  const end = pretty ? '\n' : '';
  const root =
    body.length === 0
      ? `<rdf:RDF${declarations}/>`
      : `<rdf:RDF${declarations}>${body.join('')}${end}</rdf:RDF>`;
  return `${declaration}${separator}${root}`;
}

/** One record's DCAT-AP 3 / GeoDCAT-AP 3 description as an RDF/XML document. */
export function recordToRdfXml(record: CoreRecord, options: DcatOptions & WriteOptions): string {
  return writeRdfXml(buildDcatGraph(record, options), options);
}
