/**
 * The OpenSearch part of the OpenAPI document: the OpenSearch description document, whose
 * templates search on /csw (documented in protocols/csw/openapi.ts).
 */
import { textContent, type Paths } from '../../common/openapi.js';
import { OPENSEARCH_DESCRIPTION_TYPE } from './capabilities.js';

/** The tag of the OpenSearch operations, shared with CSW (which this folder does not import). */
export const OPENSEARCH_TAG = 'CSW and OpenSearch';

/** The OpenSearch description path. */
export function buildOpenSearchPaths(): Paths {
  return {
    '/opensearch': {
      get: {
        summary: 'OpenSearch description document (templates on /csw)',
        tags: [OPENSEARCH_TAG],
        responses: {
          '200': {
            description: 'The OpenSearch description',
            content: textContent(OPENSEARCH_DESCRIPTION_TYPE),
          },
        },
      },
    },
  };
}
