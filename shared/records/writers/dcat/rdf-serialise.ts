/**
 * The three encodings of a DCAT graph, all of the same quads: Turtle (N3.js's writer), JSON-LD
 * (node objects written from the quads under one fixed context; jsonld.js took 5 s for a page
 * of 100 records, docs/decisions/dcat-ap.md) and
 * RDF/XML (the writers' XML builder from the quads: no well-kept RDF/XML serialiser for
 * Node exists, docs/decisions/dcat-ap.md). And `recordToRdfXml`, one record's DCAT-AP RDF/XML,
 * for any protocol that offers it (CSW's DCAT output schema, an OAI-PMH metadata format).
 */
import { Writer, type Quad } from 'n3';
import type { CoreRecord } from '../../core-record.js';
import {
  createDocument,
  declareNamespaces,
  serialise,
  xmlText,
  type WriteOptions,
  type XmlNode,
} from '../xml/xml-builder.js';
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

/** A key naming a term uniquely (N3.js's term ids: `"text"@lang`, `_:label`, the IRI). */
function termKey(term: Quad['subject'] | Quad['object']): string {
  return term.termType === 'NamedNode' ? term.value : term.id;
}

/**
 * The quads without repeats (a licence or language is typed once per use), grouped by subject
 * in the order subjects first appear, so that each encoding writes a subject's statements
 * together. Keyed subject → predicate → object id, without building a key per quad: an N3
 * Store, or one string per quad, cost several times as much for a page of records.
 */
export function distinctQuads(quads: readonly Quad[]): Quad[] {
  const bySubject = new Map<string, { quads: Quad[]; seen: Map<string, Set<string>> }>();
  for (const item of quads) {
    const subject = termKey(item.subject);
    let entry = bySubject.get(subject);
    if (!entry) {
      entry = { quads: [], seen: new Map() };
      bySubject.set(subject, entry);
    }
    let objects = entry.seen.get(item.predicate.value);
    if (!objects) {
      objects = new Set();
      entry.seen.set(item.predicate.value, objects);
    }
    const object = termKey(item.object);
    if (objects.has(object)) continue;
    objects.add(object);
    entry.quads.push(item);
  }
  const kept: Quad[] = [];
  for (const entry of bySubject.values()) for (const item of entry.quads) kept.push(item);
  return kept;
}

/** The graph as Turtle, with the mapping's prefixes. */
export function writeTurtle(quads: readonly Quad[]): string {
  const writer = new Writer({ format: 'text/turtle', prefixes: { ...DCAT_PREFIXES } });
  writer.addQuads(distinctQuads(quads));
  let output = '';
  writer.end((error, result: string) => {
    if (error) throw error;
    output = result;
  });
  return output;
}

/** The JSON-LD context every DCAT response carries: the mapping's prefixes. */
export const DCAT_JSONLD_CONTEXT: Readonly<Record<string, string>> = Object.freeze({
  ...DCAT_PREFIXES,
});

const PREFIX_ENTRIES = Object.entries(DCAT_PREFIXES);

/** A predicate or class IRI as a compact IRI of the context (`dct:title`), else unchanged. */
function compactIri(value: string): string {
  for (const [prefix, namespace] of PREFIX_ENTRIES) {
    if (value.startsWith(namespace) && /^[A-Za-z_][\w.-]*$/.test(value.slice(namespace.length))) {
      return `${prefix}:${value.slice(namespace.length)}`;
    }
  }
  return value;
}

type JsonLdValue =
  string | { '@id': string } | { '@value': string; '@language'?: string; '@type'?: string };

function jsonLdValue(object: Quad['object']): JsonLdValue {
  if (object.termType === 'NamedNode') return { '@id': object.value };
  if (object.termType === 'BlankNode') return { '@id': `_:${object.value}` };
  if (object.termType !== 'Literal') throw new Error(`JSON-LD: no value for a ${object.termType}`);
  if (object.language) return { '@value': object.value, '@language': object.language };
  if (object.datatype.value === XSD_STRING) return object.value;
  return { '@value': object.value, '@type': object.datatype.value };
}

/**
 * The graph as JSON-LD: the fixed context and an `@graph` of one node object per subject, each
 * property an array of values, written from the quads. Subjects and objects keep their full
 * IRIs (only properties and classes are compacted), so no record IRI can be read as a compact
 * one; blank nodes keep their labels.
 */
export function writeJsonLd(quads: readonly Quad[]): Record<string, unknown> {
  const nodes = new Map<string, Record<string, unknown>>();
  for (const { subject, predicate, object } of distinctQuads(quads)) {
    const id = subject.termType === 'BlankNode' ? `_:${subject.value}` : subject.value;
    let node = nodes.get(id);
    if (!node) {
      node = { '@id': id };
      nodes.set(id, node);
    }
    if (predicate.value === RDF_TYPE && object.termType === 'NamedNode') {
      const types = (node['@type'] ??= []) as string[];
      types.push(compactIri(object.value));
      continue;
    }
    const values = (node[compactIri(predicate.value)] ??= []) as JsonLdValue[];
    values.push(jsonLdValue(object));
  }
  return { '@context': { ...DCAT_JSONLD_CONTEXT }, '@graph': [...nodes.values()] };
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
  const bySubject = new Map<string, Quad[]>();
  for (const item of distinctQuads(quads)) {
    const key = `${item.subject.termType}:${item.subject.value}`;
    const list = bySubject.get(key);
    if (list) list.push(item);
    else bySubject.set(key, [item]);
  }
  for (const list of bySubject.values()) {
    const first = list[0];
    if (!first) continue;
    const [attribute, value] = subjectAttribute(first.subject);
    const description = root.ele(RDF, 'rdf:Description').att(RDF, attribute, xmlText(value));
    for (const { predicate, object } of list) {
      const parts = splitIri(predicate.value);
      if (!parts) throw new Error(`RDF/XML: no XML name for the predicate <${predicate.value}>`);
      const [namespace, local] = parts;
      const element = description.ele(namespace, `${prefixFor(namespace, bindings)}:${local}`);
      if (object.termType === 'NamedNode') element.att(RDF, 'rdf:resource', xmlText(object.value));
      else if (object.termType === 'BlankNode') element.att(RDF, 'rdf:nodeID', object.value);
      else if (object.termType === 'Literal') {
        if (object.language) element.att(XML_NAMESPACE, 'xml:lang', object.language);
        else if (object.datatype.value !== XSD_STRING && object.datatype.value !== LANG_STRING) {
          element.att(RDF, 'rdf:datatype', object.datatype.value);
        }
        element.txt(xmlText(object.value));
      }
    }
  }
  declareNamespaces(
    root,
    Object.fromEntries([...bindings].map(([namespace, prefix]) => [prefix, namespace])),
  );
  return root;
}

/** The graph as an RDF/XML document. */
export function writeRdfXml(quads: readonly Quad[], options: WriteOptions = {}): string {
  const document = createDocument();
  appendRdfXml(document, quads);
  return serialise(document, options);
}

/** One record's DCAT-AP 3 / GeoDCAT-AP 3 description as an RDF/XML document. */
export function recordToRdfXml(record: CoreRecord, options: DcatOptions & WriteOptions): string {
  return writeRdfXml(buildDcatGraph(record, options), options);
}
