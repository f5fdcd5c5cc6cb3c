/**
 * Where the HTML interface's files live on disk: the templates and stylesheets in the source
 * tree (also when running from dist/), and the vendored browser libraries in node_modules,
 * served as they are installed (nothing is copied into git).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The project root: the nearest folder above this file holding package.json. */
function findProjectRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error('Cairn: project root (package.json) not found');
    directory = parent;
  }
  return directory;
}

const ROOT = findProjectRoot();

/** Cairn's version (package.json), shown in the OpenAPI document. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** The folder holding the Nunjucks templates. */
export const TEMPLATES_DIR = join(ROOT, 'services', 'api', 'html', 'templates');

/** The folder holding Cairn's own static files (CSS, the map and Swagger UI start scripts). */
export const STATIC_DIR = join(ROOT, 'services', 'api', 'static');

/** Installed browser libraries served under /catalogue/static/vendor/<name>/. */
export const VENDOR_DIRS: Readonly<Record<string, string>> = {
  leaflet: join(dirname(require.resolve('leaflet/package.json')), 'dist'),
  'swagger-ui': dirname(require.resolve('swagger-ui-dist/package.json')),
};

/** The URL path under which static files are served. */
export const STATIC_PATH = '/catalogue/static';
