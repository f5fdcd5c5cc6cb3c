/**
 * Schema validation of OAI-PMH responses with xmllint, offline: the response against the
 * OAI-PMH 2.0 schema (test/fixtures/xsd/oai, see its PROVENANCE.md), and each record's metadata
 * on its own against its format's schema (oai_dc.xsd with the Simple DC schema; ISO 19139 with
 * the schemas in test/fixtures/xsd/ogc/iso through test/unit/formats-xml/xmllint.ts; DCAT-AP's
 * RDF/XML, which has no schema, for its rdf:RDF root of rdf:Description elements).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { elementSource, parseXml, type XmlElement } from '../../shared/xml/index.js';
import { validate as validateRecords } from '../unit/formats-xml/xmllint.js';
import { fixturePath } from './fixtures.js';

export { requireXmllint } from '../unit/formats-xml/xmllint.js';

const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
const OAI_DC_NS = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const ISO_NAMESPACES = ['http://www.isotc211.org/2005/gmd', 'http://www.isotc211.org/2005/gmi'];
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** Validates documents against one schema file; the problems of each (empty: valid). */
function runXmllint(schema: string, documents: string[]): string[][] {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-oai-xmllint-'));
  try {
    // simpledc20021212.xsd imports xml.xsd by the W3C's 2001/03 address.
    const catalog = join(directory, 'catalog.xml');
    const xmlSchema = pathToFileURL(fixturePath('xsd', 'w3c', '2001', 'xml.xsd')).href;
    writeFileSync(
      catalog,
      [
        '<?xml version="1.0"?>',
        '<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">',
        `  <system systemId="http://www.w3.org/2001/03/xml.xsd" uri="${xmlSchema}"/>`,
        `  <uri name="http://www.w3.org/2001/03/xml.xsd" uri="${xmlSchema}"/>`,
        `  <nextCatalog catalog="${pathToFileURL(fixturePath('xsd', 'catalog.xml')).href}"/>`,
        '</catalog>',
      ].join('\n'),
    );
    const files = documents.map((document, index) => {
      const file = join(directory, `doc-${index}.xml`);
      writeFileSync(file, document);
      return file;
    });
    const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schema, ...files], {
      encoding: 'utf8',
      env: { ...process.env, XML_CATALOG_FILES: catalog },
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${run.stdout}${run.stderr}`;
    if (/failed to compile/.test(output)) throw new Error(`schema did not compile:\n${output}`);
    return files.map((file) =>
      output.includes(`${file} validates`)
        ? []
        : output
            .split('\n')
            .filter((line) => line.startsWith(`${file}:`))
            .map((line) => line.slice(directory.length + 1)),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function metadataPayloads(root: XmlElement, found: XmlElement[]): void {
  for (const child of root.children) {
    if (child.ns === OAI_NS && child.local === 'metadata') found.push(...child.children);
    else metadataPayloads(child, found);
  }
}

/**
 * The schema problems of OAI-PMH responses, each as `<response index>: <problem>`; empty when
 * every response and every record's metadata in them is valid.
 */
export function oaiSchemaProblems(responses: string[]): string[] {
  const problems: string[] = [];
  runXmllint(fixturePath('xsd', 'oai', 'OAI-PMH.xsd'), responses).forEach((found, index) =>
    problems.push(...found.map((problem) => `${index}: ${problem}`)),
  );
  const dc: string[] = [];
  const iso: { name: string; xml: string }[] = [];
  responses.forEach((response, index) => {
    const document = parseXml(response);
    const payloads: XmlElement[] = [];
    metadataPayloads(document.root, payloads);
    for (const payload of payloads) {
      const xml = elementSource(document, payload);
      if (payload.ns === OAI_DC_NS) dc.push(xml);
      else if (ISO_NAMESPACES.includes(payload.ns)) iso.push({ name: `${index}`, xml });
      // DCAT-AP in RDF/XML has no XML Schema: its root must be rdf:RDF holding only
      // rdf:Description elements (the interop suite reads it with rdflib and checks the shapes).
      else if (payload.ns === RDF_NS && payload.local === 'RDF') {
        for (const description of payload.children)
          if (description.ns !== RDF_NS || description.local !== 'Description')
            problems.push(`${index}: rdf:RDF holds ${description.local}`);
      } else problems.push(`${index}: metadata in an unexpected namespace ${payload.ns}`);
    }
  });
  if (dc.length > 0)
    runXmllint(fixturePath('xsd', 'oai', 'oai_dc.xsd'), dc).forEach((found) =>
      problems.push(...found.map((problem) => `oai_dc: ${problem}`)),
    );
  if (iso.length > 0)
    for (const result of validateRecords('iso19139', iso))
      problems.push(...result.errors.map((error) => `${result.name} (ISO 19139): ${error}`));
  return problems;
}
