/**
 * Schema validation of written XML with xmllint (Debian package libxml2-utils), offline through
 * the XML catalog of the schemas in test/fixtures/xsd. Tests that need it fail, saying how to
 * install it, where xmllint is missing (requireXmllint).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fixturePath, isoCoreSchemasUrl } from '../../support/fixtures.js';
import { defined } from '../../support/defined.js';

/** True when the xmllint command can run. */
export function xmllintAvailable(): boolean {
  return spawnSync('xmllint', ['--version'], { encoding: 'utf8' }).status === 0;
}

/**
 * Fails the calling test or suite with the reason when xmllint is missing: schema validation is
 * part of what these tests claim, so it never skips (scripts/test-all.sh installs it).
 */
export function requireXmllint(): void {
  if (!xmllintAvailable()) {
    throw new Error('xmllint not found; install it with `apt-get install -y libxml2-utils`');
  }
}

export interface ValidationResult {
  name: string;
  valid: boolean;
  errors: string[];
}

const ISO_SCHEMAS = 'ogc/iso/19139/20060504';

/**
 * The ISO 19139 schemas shipped with pycsw import xlink and GML through a path outside the
 * fixtures (`../../../../../../../../../core/schemas/…`), and srv.xsd must be loaded after
 * gmd.xsd. A temporary catalog maps that path into the fixture schemas (chained to their
 * catalog), and a wrapper schema imports gmd, gmx and srv in a working order.
 */
function writeIsoSupport(directory: string): { schema: string; catalog: string } {
  const xsd = fixturePath('xsd');
  const catalog = join(directory, 'iso-catalog.xml');
  writeFileSync(
    catalog,
    [
      '<?xml version="1.0"?>',
      '<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">',
      `  <rewriteSystem systemIdStartString="file:///core/schemas/" rewritePrefix="${pathToFileURL(xsd).href}/"/>`,
      `  <rewriteURI uriStartString="file:///core/schemas/" rewritePrefix="${pathToFileURL(xsd).href}/"/>`,
      `  <rewriteSystem systemIdStartString="${isoCoreSchemasUrl()}" rewritePrefix="${pathToFileURL(xsd).href}/"/>`,
      `  <rewriteURI uriStartString="${isoCoreSchemasUrl()}" rewritePrefix="${pathToFileURL(xsd).href}/"/>`,
      `  <nextCatalog catalog="${pathToFileURL(join(xsd, 'catalog.xml')).href}"/>`,
      '</catalog>',
    ].join('\n'),
  );
  const schema = join(directory, 'iso19139-wrapper.xsd');
  const base = pathToFileURL(join(xsd, ISO_SCHEMAS)).href;
  writeFileSync(
    schema,
    [
      '<?xml version="1.0"?>',
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:cairn:test:iso19139">',
      `  <xs:import namespace="http://www.isotc211.org/2005/gmd" schemaLocation="${base}/gmd/gmd.xsd"/>`,
      `  <xs:import namespace="http://www.isotc211.org/2005/gmx" schemaLocation="${base}/gmx/gmx.xsd"/>`,
      `  <xs:import namespace="http://www.isotc211.org/2005/srv" schemaLocation="${base}/srv/srv.xsd"/>`,
      '</xs:schema>',
    ].join('\n'),
  );
  return { schema, catalog };
}

/** The schemas Cairn's writers target. */
export type SchemaName = 'csw-2.0.2-record' | 'csw-3.0-record' | 'iso19139';

/** Validates documents against one of the target schemas; one xmllint run for all of them. */
export function validate(
  schemaName: SchemaName,
  documents: { name: string; xml: string }[],
): ValidationResult[] {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-xmllint-'));
  try {
    let schema: string;
    let catalogs = fixturePath('xsd', 'catalog.xml');
    if (schemaName === 'iso19139') {
      const support = writeIsoSupport(directory);
      schema = support.schema;
      catalogs = `${support.catalog} ${catalogs}`;
    } else {
      schema =
        schemaName === 'csw-2.0.2-record'
          ? fixturePath('xsd', 'ogc', 'csw', '2.0.2', 'record.xsd')
          : fixturePath('xsd', 'ogc', 'cat', 'csw', '3.0', 'record.xsd');
    }
    const files = documents.map((document, index) => {
      const file = join(directory, `doc-${index}.xml`);
      writeFileSync(file, document.xml);
      return file;
    });
    const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schema, ...files], {
      encoding: 'utf8',
      env: { ...process.env, XML_CATALOG_FILES: catalogs },
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
