/**
 * CSW 2.0.2 / 3.0.0 as a protocol module: the CSW router (with CSW-T when writes are
 * configured), its part of the OpenAPI document, and the OWS ExceptionReport renderer for its
 * errors and those of the OpenSearch description. Its conformance classes (OGC 12-176r7) are
 * declared in its capabilities document, not at /conformance.
 */
import { cswUrl, openSearchDescriptionUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { renderCswError } from './errors.js';
import { buildCswPaths, CSW_TAG } from './openapi.js';
import { createCswRouter } from './routes.js';
import { createCswTransactionHandler, writesConfigured } from './transaction.js';

/** The CSW protocol module. */
export const CSW_PROTOCOL: Protocol = {
  name: 'csw',
  mounts: [
    {
      stage: 'reads',
      path: cswUrl(''),
      create: ({ config, backend, auth, harvest, queue, ingestLog }) =>
        createCswRouter({
          config,
          backend,
          transactions: writesConfigured(config)
            ? createCswTransactionHandler({ config, backend, auth, harvest, queue, ingestLog })
            : undefined,
        }),
    },
  ],
  openapi: {
    tags: [{ name: CSW_TAG, description: 'CSW 2.0.2 / 3.0.0 and OpenSearch' }],
    // CSW's parser reads its requests (KVP names are case-insensitive).
    validated: false,
    paths: () => buildCswPaths(),
  },
  conformance: [],
  // The OpenSearch description is CSW's (`GetCapabilities&mode=opensearch`): same errors.
  errors: { paths: [cswUrl(''), openSearchDescriptionUrl('')], render: renderCswError },
};
