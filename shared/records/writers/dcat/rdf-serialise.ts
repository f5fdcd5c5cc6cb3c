/**
 * The three encodings of a DCAT graph, all of the same quads: Turtle (N3.js's writer), JSON-LD
 * (jsonld.js from N-Quads, compacted with one fixed context, never loading a remote one) and
 * RDF/XML (the writers' XML builder from the quads: no well-kept RDF/XML serialiser for
 * Node exists, docs/decisions/dcat-ap.md). And `recordToRdfXml`, one record's DCAT-AP RDF/XML,
 * for any protocol that offers it (CSW's DCAT output schema, an OAI-PMH metadata format).
 */
import jsonld from 'jsonld';
import { Store, Writer, type Quad } from 'n3';
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

/**
 * The quads without repeats (a licence or language is typed once per use), grouped by subject
 * in the order subjects first appear, so that each encoding writes a subject's statements together.
 */
export function distinctQuads(quads: readonly Quad[]): Quad[] {
  const store = new Store();
  const bySubject = new Map<string, Quad[]>();
  for (const item of quads) {
    if (store.has(item)) continue;
    store.addQuad(item);
    const key = `${item.subject.termType}:${item.subject.value}`;
    const list = bySubject.get(key);
    if (list) list.push(item);
    else bySubject.set(key, [item]);
  }
  return [...bySubject.values()].flat();
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

/** The graph as N-Quads (what jsonld.js reads). */
function writeNQuads(quads: readonly Quad[]): string {
  const writer = new Writer({ format: 'N-Quads' });
  writer.addQuads(distinctQuads(quads));
  let output = '';
  writer.end((error, result: string) => {
    if (error) throw error;
    output = result;
  });
  return output;
}

/** The JSON-LD context every DCAT response is compacted with: the mapping's prefixes. */
export const DCAT_JSONLD_CONTEXT: Readonly<Record<string, string>> = Object.freeze({
  ...DCAT_PREFIXES,
});

/** A document loader that loads nothing: every context Cairn uses is given inline. */
function refuseRemoteContexts(url: string): Promise<never> {
  return Promise.reject(new Error(`JSON-LD: remote context ${url} is not loaded`));
}

/** The graph as compacted JSON-LD (an `@graph` of nodes under the fixed context). */
export async function writeJsonLd(quads: readonly Quad[]): Promise<Record<string, unknown>> {
  const expanded = await jsonld.fromRDF(writeNQuads(quads), { format: 'application/n-quads' });
  const compacted = await jsonld.compact(expanded, { ...DCAT_JSONLD_CONTEXT }, {
    documentLoader: refuseRemoteContexts,
  } as jsonld.Options.Compact);
  return compacted;
}

/** Splits an IRI into a namespace and an XML local name (NCName), or undefined if it cannot be. */
function splitIri(value: string): [string, string] | undefined {
  const match = /^(.*?)([A-Za-z_][A-Za-z0-9_.-]*)$/.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  return [match[1], match[2]];
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
