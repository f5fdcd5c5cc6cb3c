/**
 * Where the data the tests read lives inside the repository: the sample records under
 * `data/samples/` (also what a user loads to try Cairn) and the conformance data and XML
 * schemas under `test/fixtures/`. Each folder has a README with its provenance and licence.
 * Nothing here reads outside the checkout, and nothing skips: a missing file fails the test.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A path under `data/samples/` (dublin-core-cite, iso19139, iso19115-3, stac). */
export function samplePath(...parts: string[]): string {
  return join(REPO_ROOT, 'data', 'samples', ...parts);
}

/** A path under `test/fixtures/` (cql2, xsd, keycloak). */
export function fixturePath(...parts: string[]): string {
  return join(REPO_ROOT, 'test', 'fixtures', ...parts);
}

/** The CQL2 conformance data: official examples, grammar, JSON schema, NE110m test dataset. */
export const CQL2_DATA_DIR = fixturePath('cql2');

/**
 * Where the ISO 19139 schemas' xlink/GML imports (`../` nine times, then `core/schemas/`)
 * land for this checkout: the climb depends on how deep the checkout sits, so XML catalogs
 * map this location (as a file URL, with a trailing slash) back into the fixture schemas.
 */
export function isoCoreSchemasUrl(): string {
  const gml = fixturePath('xsd', 'ogc', 'iso', '19139', '20060504', 'gml');
  return `${pathToFileURL(resolve(gml, '../../../../../../../../../core/schemas')).href}/`;
}
