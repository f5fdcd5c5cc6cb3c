/**
 * Locates the team's shared data folder (`../shared` beside the repository). Tests that
 * need it skip, with a visible reason, where it is absent (a user's fresh clone).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_DIR = process.env.CAIRN_SHARED_DIR ?? resolve(REPO_ROOT, '..', 'shared');
export const SHARED_AVAILABLE = existsSync(join(SHARED_DIR, 'data'));

/** Path inside the shared data folder. */
export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, 'data', ...parts);
}

/** Skips the calling suite (in a `before` hook) with a printed reason when shared data is absent. */
export function requireSharedData(context: Mocha.Context): void {
  if (!SHARED_AVAILABLE) {
    console.log(`      (skipped: shared data folder not found at ${SHARED_DIR})`);
    context.skip();
  }
}

/**
 * Where the shared ISO 19139 schemas' xlink/GML imports (`../` nine times, then
 * `core/schemas/`) land for this checkout: the climb depends on how deep the shared folder
 * sits, so XML catalogs map this location (as a file URL, with a trailing slash) back into the
 * shared schemas.
 */
export function isoCoreSchemasUrl(): string {
  const gml = join(SHARED_DIR, 'data', 'xsd', 'ogc', 'iso', '19139', '20060504', 'gml');
  return `${pathToFileURL(resolve(gml, '../../../../../../../../../core/schemas')).href}/`;
}
