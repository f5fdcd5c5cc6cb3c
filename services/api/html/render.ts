/**
 * Server-side HTML rendering with Nunjucks. Autoescaping is on: every value a template prints
 * is HTML-escaped unless a view helper built it as markup on purpose (none do).
 */
import nunjucks from 'nunjucks';
import { TEMPLATES_DIR } from './assets.js';

const environment = new nunjucks.Environment(
  new nunjucks.FileSystemLoader(TEMPLATES_DIR, { noCache: false }),
  { autoescape: true, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true },
);

// Pretty JSON for <pre> blocks and data-* attributes; autoescaping escapes the result.
environment.addFilter('json', (value: unknown, indent?: number) =>
  JSON.stringify(value, null, indent),
);

/** Renders a template of services/api/html/templates with its view model. */
export function renderTemplate(template: string, view: object): string {
  return environment.render(template, view);
}
