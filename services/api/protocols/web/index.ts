/**
 * Web crawlers as a protocol module: /robots.txt at the server root (open, as crawlers fetch
 * it before anything else), the sitemap index and files under /catalogue (behind the read
 * access check like every other read), and their part of the OpenAPI document. The records'
 * schema.org descriptions are the Records module's (records/schema-org.ts).
 */
import { catalogueUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { buildWebPaths, WEB_TAG } from './openapi.js';
import { createRobotsRouter, createSitemapRouter } from './routes.js';

/** The web crawlers protocol module. */
export const WEB_PROTOCOL: Protocol = {
  name: 'web',
  mounts: [
    { stage: 'open', path: '/', create: createRobotsRouter },
    { stage: 'reads', path: catalogueUrl(''), create: createSitemapRouter },
  ],
  openapi: {
    tags: [{ name: WEB_TAG, description: 'robots.txt and the sitemaps of the record pages' }],
    validated: false,
    paths: ({ rootUrl }) => buildWebPaths(rootUrl),
  },
  conformance: [],
};
