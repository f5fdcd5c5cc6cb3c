/**
 * The web crawlers' part of the OpenAPI document: /robots.txt (at the server root) and the
 * sitemap index and files. Not validated: the routes read their few parameters themselves.
 */
import { readOperation, stringParameter, textContent, type Paths } from '../../common/openapi.js';
import { SITEMAP_FILE_PATH, SITEMAP_INDEX_PATH } from './sitemap.js';

/** The tag of these operations. */
export const WEB_TAG = 'Web crawlers';

/** The paths of robots.txt (on the deployment root) and the sitemaps. */
export function buildWebPaths(rootUrl: string): Paths {
  const xml = textContent('application/xml');
  return {
    '/robots.txt': {
      servers: [{ url: rootUrl || '/' }],
      get: {
        summary: 'Rules for web crawlers, naming the sitemap index (ROBOTS_TXT)',
        tags: [WEB_TAG],
        responses: {
          '200': { description: 'robots.txt (RFC 9309)', content: textContent('text/plain') },
          '404': { description: 'Switched off (ROBOTS_TXT=off)' },
        },
      },
    },
    [SITEMAP_INDEX_PATH]: {
      get: readOperation('Sitemap index of the record pages (sitemaps.org 0.9)', WEB_TAG, [], xml, {
        notFound: true,
      }),
    },
    [SITEMAP_FILE_PATH]: {
      get: readOperation(
        'One sitemap file: the record pages of a range of ids, with lastmod',
        WEB_TAG,
        [
          stringParameter(
            'after',
            'The file lists the records after this id, in id order (from the first when absent).',
          ),
          stringParameter(
            'through',
            'The file lists the records up to and including this id (to the last when absent).',
          ),
        ],
        xml,
        { notFound: true },
      ),
    },
  };
}
