/**
 * Schema validation of CSW and OWS responses with xmllint, offline through the XML catalog of
 * test/fixtures/xsd (see test/unit/formats-xml/xmllint.ts, whose ISO 19139 validation this reuses).
 *
 * - CSW 2.0.2 documents (capabilities, GetRecords/GetRecordById/GetDomain responses, OWS 1.0.0
 *   exception reports) validate against CSW-discovery.xsd, which imports OWS 1.0.0 and Filter 1.1.
 * - CSW 3.0 documents (and OWS 2.0 exception reports) validate against pycsw's
 *   cat/csw/3.0/_wrapper.xsd (cswAll + GML 3.2).
 * - ISO 19139 records inside a response are cut out and validated on their own against the ISO
 *   schemas: those ship a draft GML in the GML 3.1.1 namespace, so they cannot be compiled
 *   together with the CSW 2.0.2 schemas. The response is validated with them removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { elementSource, parseXml, type XmlElement } from '../../shared/xml/index.js';
import { validate as validateRecords, type ValidationResult } from '../unit/formats-xml/xmllint.js';
import { fixturePath, isoCoreSchemasUrl } from './fixtures.js';
import { defined } from './defined.js';

export { requireXmllint, xmllintAvailable } from '../unit/formats-xml/xmllint.js';
export type { ValidationResult };

/** `csw-2.0.2-publication`: CSW-T responses (TransactionResponse, HarvestResponse). */
export type CswSchema = 'csw-2.0.2' | 'csw-2.0.2-publication' | 'csw-3.0';

/** ISO 19139 record roots (gmd:MD_Metadata, and gmi:MI_Metadata of ISO 19115-2). */
const ISO_ROOTS: readonly [string, string][] = [
  ['http://www.isotc211.org/2005/gmd', 'MD_Metadata'],
  ['http://www.isotc211.org/2005/gmi', 'MI_Metadata'],
];

function schemaFile(schema: CswSchema): string {
  if (schema === 'csw-2.0.2') return fixturePath('xsd', 'ogc', 'csw', '2.0.2', 'CSW-discovery.xsd');
  if (schema === 'csw-2.0.2-publication')
    return fixturePath('xsd', 'ogc', 'csw', '2.0.2', 'CSW-publication.xsd');
  return fixturePath('xsd', 'ogc', 'cat', 'csw', '3.0', '_wrapper.xsd');
}

/**
 * A catalog in front of the fixtures' one: GML 3.2.1 (imported by CSW 3.0) imports the ISO 19139
 * 2007 schemas from schemas.opengis.net, which the fixtures' catalog maps to a folder that is not
 * there; they are in ogc/iso/. Their own imports climb to `/core/schemas/`, mapped back too.
 */
function writeCatalog(directory: string): string {
  const xsd = pathToFileURL(fixturePath('xsd')).href;
  // Where pycsw's GML 3.2.1 copy looks for the ISO schemas (five folders above it).
  const plugins = resolve(
    fixturePath('xsd', 'ogc', 'gml', '3.2.1'),
    '../../../../../plugins/profiles/apiso/schemas/ogc/iso',
  );
  const rewrites: [string, string][] = [
    ['http://schemas.opengis.net/iso/', `${xsd}/ogc/iso/`],
    [`${plugins}/`, `${xsd}/ogc/iso/`],
    [`${pathToFileURL(plugins).href}/`, `${xsd}/ogc/iso/`],
    ['file:///core/schemas/', `${xsd}/`],
    [isoCoreSchemasUrl(), `${xsd}/`],
    ['/core/schemas/', `${xsd}/`],
  ];
  const catalog = join(directory, 'csw-catalog.xml');
  writeFileSync(
    catalog,
    [
      '<?xml version="1.0"?>',
      '<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">',
      ...rewrites.flatMap(([from, to]) => [
        `  <rewriteSystem systemIdStartString="${from}" rewritePrefix="${to}"/>`,
        `  <rewriteURI uriStartString="${from}" rewritePrefix="${to}"/>`,
      ]),
      `  <nextCatalog catalog="${pathToFileURL(fixturePath('xsd', 'catalog.xml')).href}"/>`,
      '</catalog>',
    ].join('\n'),
  );
  return catalog;
}

function runXmllint(
  schema: string,
  documents: { name: string; xml: string }[],
): ValidationResult[] {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-csw-xmllint-'));
  try {
    const catalog = writeCatalog(directory);
    const files = documents.map((document, index) => {
      const file = join(directory, `doc-${index}.xml`);
      writeFileSync(file, document.xml);
      return file;
    });
    const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schema, ...files], {
      encoding: 'utf8',
      env: { ...process.env, XML_CATALOG_FILES: catalog },
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${run.stdout}${run.stderr}`;
    if (/failed to compile/.test(output)) throw new Error(`schema did not compile:\n${output}`);
    return files.map((file, index) => ({
      name: defined(documents[index], `document ${index}`).name,
      valid: output.includes(`${file} validates`),
      errors: output
        .split('\n')
        .filter((line) => line.startsWith(`${file}:`))
        .map((line) => line.slice(directory.length + 1)),
    }));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function isoDescendants(element: XmlElement, found: XmlElement[]): void {
  for (const child of element.children) {
    if (ISO_ROOTS.some(([ns, local]) => child.ns === ns && child.local === local))
      found.push(child);
    else isoDescendants(child, found);
  }
}

/** The document with every ISO record element removed, and those elements on their own. */
export function splitIsoRecords(xml: string): { envelope: string; records: string[] } {
  const document = parseXml(xml);
  const found: XmlElement[] = [];
  isoDescendants(document.root, found);
  if (found.length === 0) return { envelope: xml, records: [] };
  const records = found.map((element) => elementSource(document, element));
  let envelope = '';
  let position = 0;
  for (const element of found) {
    const start = document.source.lastIndexOf('<', element.startTagEnd - 1);
    envelope += document.source.slice(position, start);
    position = element.end;
  }
  envelope += document.source.slice(position);
  return { envelope, records };
}

/**
 * Validates CSW responses against the schema of their version; ISO 19139 records inside them
 * are validated separately (their results are named "<name> / ISO record <n>").
 */
export function validateCsw(
  schema: CswSchema,
  documents: { name: string; xml: string }[],
): ValidationResult[] {
  const envelopes: { name: string; xml: string }[] = [];
  const records: { name: string; xml: string }[] = [];
  for (const document of documents) {
    const split = splitIsoRecords(document.xml);
    envelopes.push({ name: document.name, xml: split.envelope });
    split.records.forEach((xml, index) =>
      records.push({ name: `${document.name} / ISO record ${index + 1}`, xml }),
    );
  }
  const results = runXmllint(schemaFile(schema), envelopes);
  if (records.length > 0) results.push(...validateRecords('iso19139', records));
  return results;
}
