/**
 * OAI-PMH 2.0 as a protocol module: the data provider at /catalogue/oai over the backend's
 * change listing (records and the tombstones of deleted records), and its part of the OpenAPI
 * document. Its errors are OAI-PMH responses written by its own router (HTTP 200); it declares
 * no OGC API conformance class.
 */
import { oaiUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { buildOaiPaths, OAI_TAG } from './openapi.js';
import { createOaiRouter } from './routes.js';

/** The OAI-PMH protocol module. */
export const OAI_PROTOCOL: Protocol = {
  name: 'oai',
  mounts: [
    {
      stage: 'reads',
      path: oaiUrl(''),
      create: ({ config, backend }) => createOaiRouter({ config, backend }),
    },
  ],
  openapi: {
    tags: [{ name: OAI_TAG, description: 'OAI-PMH 2.0 data provider' }],
    validated: false,
    paths: () => buildOaiPaths(),
  },
  conformance: [],
};
