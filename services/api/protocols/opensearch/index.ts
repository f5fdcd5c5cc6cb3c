/**
 * OpenSearch as a protocol module: the OpenSearch description document and its part of the
 * OpenAPI document. Its searches run on the CSW endpoint, and its errors are rendered as OWS
 * ExceptionReports by the CSW module's renderer.
 */
import { openSearchDescriptionUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { buildOpenSearchPaths, OPENSEARCH_TAG } from './openapi.js';
import { createOpenSearchRouter } from './routes.js';

/** The OpenSearch protocol module. */
export const OPENSEARCH_PROTOCOL: Protocol = {
  name: 'opensearch',
  mounts: [
    {
      stage: 'reads',
      path: openSearchDescriptionUrl(''),
      create: createOpenSearchRouter,
    },
  ],
  openapi: {
    tags: [{ name: OPENSEARCH_TAG, description: 'CSW 2.0.2 / 3.0.0 and OpenSearch' }],
    validated: false,
    paths: () => buildOpenSearchPaths(),
  },
  conformance: [],
};
