/**
 * The writers' XML serialiser (shared/records/writers/xml/xml-node.ts) held to xmlbuilder2's:
 * every record the writers can be given here (all samples, 300 generated records and hostile
 * values) is written both ways, and both strings must read back to the same elements,
 * namespaces, attributes and text.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import { generateRecord } from '../../../scripts/corpus/generator.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { buildEmptyRecord } from '../../../shared/records/core-record.js';
import { parseOgcRecord } from '../../../shared/records/formats/json/ogc-record.js';
import { parseXmlRecord } from '../../../shared/records/formats/xml/index.js';
import {
  appendAtomEntry,
  appendCswRecord,
  appendIso19139,
  createDocument,
  serialise,
  type CswElementSet,
  type CswVersion,
} from '../../../shared/records/writers/xml/index.js';
import { declareNamespaces } from '../../../shared/records/writers/xml/xml-builder.js';
import {
  escapeAttribute,
  escapeText,
  serialiseXml,
  toXmlBuilder2,
  type XmlNode,
} from '../../../shared/records/writers/xml/xml-node.js';
import { parseXml, type XmlElement } from '../../../shared/xml/index.js';
import { NS } from '../../../shared/xml/namespaces.js';
import { samplePath } from '../../support/fixtures.js';

const FOLDERS = ['iso19139', 'iso19115-3', 'dublin-core-cite', 'stac'];

function sampleRecords(): { name: string; record: CoreRecord }[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(samplePath(folder))
      .filter((file) => file.endsWith('.xml'))
      .map((file) => ({
        name: `${folder}/${file}`,
        record: parseXmlRecord(readFileSync(samplePath(folder, file), 'utf8')),
      })),
  );
}

function generatedRecords(count: number): { name: string; record: CoreRecord }[] {
  return Array.from({ length: count }, (_, index) => {
    const feature = generateRecord(index);
    return {
      name: `generated ${index}`,
      record: parseOgcRecord(feature, JSON.stringify(feature)),
    };
  });
}

/** Values a record may carry that markup must not swallow or change. */
const HOSTILE = [
  'A & B',
  'text that reads &gt; and &amp; and &#38;',
  '<tag attr="x">not markup</tag>',
  'quotes \' and " and ]]> end',
  'control \u0001 and \u0008 and \uFFFE dropped',
  'astral 𝔘 and combining é',
  '  leading and trailing spaces  ',
];

function hostileRecord(index: number): CoreRecord {
  const value = HOSTILE[index % HOSTILE.length] as string;
  const record = buildEmptyRecord(`hostile-${index} ${value}`, {
    format: 'stac-item',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.type = 'dataset';
  record.title = value;
  record.description = `${value}\n${value}`;
  record.keywords = [value, 'plain'];
  record.themes = [{ scheme: `https://example.org/${index}?a=1&b=2`, concepts: [{ id: value }] }];
  record.links = [{ href: `https://example.org/x?q=${index}&r="s"`, rel: 'related', title: value }];
  record.updated = '2024-11-28T12:21:53.000Z';
  return record;
}

/** One document per writer and element set, each holding the record under a wrapper element. */
function documentsFor(record: CoreRecord): { label: string; document: XmlNode }[] {
  const documents: { label: string; document: XmlNode }[] = [];
  for (const version of ['2.0.2', '3.0.0'] as CswVersion[]) {
    for (const elementSet of ['brief', 'summary', 'full'] as CswElementSet[]) {
      const document = createDocument();
      const root = document.ele(NS.csw202, 'csw:SearchResults');
      declareNamespaces(root, { csw: NS.csw202, dc: NS.dc, dct: NS.dct });
      appendCswRecord(root, record, { version, elementSet });
      documents.push({ label: `csw:Record ${version} ${elementSet}`, document });
    }
    // Undeclared prefixes: the serialiser must declare each where it is first used.
    const bare = createDocument();
    appendCswRecord(bare.ele(null, 'wrapper'), record, {
      version,
      elementSet: 'full',
      declareNamespaces: false,
    });
    documents.push({ label: `csw:Record ${version} full, nothing declared`, document: bare });
  }
  const iso = createDocument();
  appendIso19139(iso.ele(NS.csw202, 'csw:SearchResults'), record, { useSource: false });
  documents.push({ label: 'gmd:MD_Metadata (synthesised)', document: iso });
  const verbatim = createDocument();
  appendIso19139(verbatim.ele(NS.csw202, 'csw:SearchResults'), record);
  documents.push({ label: 'gmd:MD_Metadata (stored source where ISO)', document: verbatim });
  const atom = createDocument();
  const feed = atom.ele(NS.atom, 'feed');
  appendAtomEntry(feed, record, {
    links: [{ href: 'https://example.org/records/x?a=1&b=2', rel: 'alternate' }],
  });
  documents.push({ label: 'atom:entry', document: atom });
  const bareAtom = createDocument();
  appendAtomEntry(bareAtom.ele(null, 'wrapper'), record, { declareNamespaces: false });
  documents.push({ label: 'atom:entry, nothing declared', document: bareAtom });
  return documents;
}

/** The element tree as plain data: namespace, local name, attributes (sorted), text, children. */
function shape(element: XmlElement): unknown {
  return {
    name: `{${element.ns}}${element.local}`,
    attributes: element.attributes
      .map((attribute) => `{${attribute.ns}}${attribute.local}=${attribute.value}`)
      .sort(),
    text: element.text,
    children: element.children.map(shape),
  };
}

function expectSameAsXmlbuilder2(document: XmlNode, label: string): void {
  const ours = serialiseXml(document);
  const theirs = toXmlBuilder2(document).end({ prettyPrint: false });
  expect(shape(parseXml(ours).root), label).to.deep.equal(shape(parseXml(theirs).root));
}

describe('the writers’ XML serialiser, against xmlbuilder2', () => {
  it('writes every sample record, in every writer and element set, as xmlbuilder2 does', () => {
    const records = sampleRecords();
    expect(records.length).to.be.greaterThan(30);
    let documents = 0;
    for (const { name, record } of records) {
      for (const { label, document } of documentsFor(record)) {
        expectSameAsXmlbuilder2(document, `${name}: ${label}`);
        documents += 1;
      }
    }
    expect(documents).to.equal(records.length * 12);
  });

  it('writes 300 generated records as xmlbuilder2 does', () => {
    for (const { name, record } of generatedRecords(300)) {
      for (const { label, document } of documentsFor(record)) {
        expectSameAsXmlbuilder2(document, `${name}: ${label}`);
      }
    }
  });

  it('writes hostile values as xmlbuilder2 does, and reads them back as given', () => {
    for (let index = 0; index < HOSTILE.length; index += 1) {
      const record = hostileRecord(index);
      for (const { label, document } of documentsFor(record)) {
        expectSameAsXmlbuilder2(document, `hostile ${index}: ${label}`);
      }
      const value = HOSTILE[index] as string;
      const document = createDocument();
      document.ele(NS.dc, 'dc:title').txt(value);
      const kept = [...value].filter((c) => !['\u0001', '\u0008', '\uFFFE'].includes(c)).join('');
      expect(parseXml(serialise(document)).root.text).to.equal(kept);
    }
  });

  it('declares each namespace where it is first needed, once, and reuses declared prefixes', () => {
    const document = createDocument();
    const root = document.ele(NS.csw202, 'csw:GetRecordsResponse');
    declareNamespaces(root, { csw: NS.csw202, dc: NS.dc });
    root.ele(NS.dc, 'dc:title').txt('x');
    root.ele(NS.gmd, 'gmd:MD_Metadata').ele(NS.gco, 'gco:CharacterString').txt('y');
    root.ele(null, 'plain').att(NS.xlink, 'xlink:href', 'h').att(NS.xlink, 'role', 'r');
    const xml = serialise(document, { prettyPrint: false, declaration: false });
    expect(xml).to.equal(
      `<csw:GetRecordsResponse xmlns:csw="${NS.csw202}" xmlns:dc="${NS.dc}">` +
        '<dc:title>x</dc:title>' +
        `<gmd:MD_Metadata xmlns:gmd="${NS.gmd}"><gco:CharacterString xmlns:gco="${NS.gco}">y</gco:CharacterString></gmd:MD_Metadata>` +
        `<plain xmlns:xlink="${NS.xlink}" xlink:href="h" xlink:role="r"/>` +
        '</csw:GetRecordsResponse>',
    );
  });

  it('undeclares the default namespace for an element in no namespace under one', () => {
    const document = createDocument();
    document.ele(NS.atom, 'feed').ele(null, 'plain').txt('z');
    const xml = serialise(document, { prettyPrint: false, declaration: false });
    expect(xml).to.equal(`<feed xmlns="${NS.atom}"><plain xmlns="">z</plain></feed>`);
    expect(parseXml(xml).root.children[0]!.ns).to.equal('');
  });

  it('indents elements, keeps text inline, and writes the declaration on its own line', () => {
    const document = createDocument();
    const root = document.ele(NS.dc, 'dc:a');
    root.ele(NS.dc, 'dc:b').txt('one');
    root.ele(NS.dc, 'dc:c').ele(NS.dc, 'dc:d');
    expect(serialise(document)).to.equal(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<dc:a xmlns:dc="${NS.dc}">\n  <dc:b>one</dc:b>\n  <dc:c>\n    <dc:d/>\n  </dc:c>\n</dc:a>`,
    );
    expect(serialise(document)).to.equal(toXmlBuilder2(document).end({ prettyPrint: true }));
  });

  it('escapes markup, keeps tabs and line ends in attributes, and drops what XML cannot carry', () => {
    expect(escapeText('a & b < c > d \r e \u0000')).to.equal('a &amp; b &lt; c &gt; d &#13; e ');
    expect(escapeText('plain')).to.equal('plain');
    expect(escapeAttribute('"q" & <t>\tx\ny\rz\uFFFF')).to.equal(
      '&quot;q&quot; &amp; &lt;t&gt;&#9;x&#10;y&#13;z',
    );
    const document = createDocument();
    document.ele(null, 'e').att('a', 'one\ttwo\nthree').txt('line\r\nend');
    const read = parseXml(serialise(document)).root;
    expect(read.attributes[0]!.value).to.equal('one\ttwo\nthree');
    expect(read.text).to.equal('line\r\nend');
  });
});
