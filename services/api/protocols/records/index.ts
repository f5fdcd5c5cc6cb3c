/**
 * OGC API – Records as a protocol module: the item writes and bulk ingest (mounted before the
 * body parser and request validation), the Records router (landing page, conformance,
 * collections, items), its part of the OpenAPI document and its conformance classes.
 */
import type { Request } from 'express';
import { catalogueUrl } from '../../common/urls.js';
import type { Protocol } from '../protocol.js';
import { RECORDS_CONFORMANCE_CLASSES } from './capabilities.js';
import { buildRecordsParameters, buildRecordsPaths, buildRecordsSchemas } from './openapi.js';
import { createRecordsRouter } from './routes.js';
import { createTransactionsRouter } from './transactions.js';

/** Whether a request may be a write: the writes router answers no GET or HEAD. */
export function isWriteRequest(request: Request): boolean {
  return request.method !== 'GET' && request.method !== 'HEAD';
}

/** The OGC API – Records protocol module. */
export const RECORDS_PROTOCOL: Protocol = {
  name: 'records',
  mounts: [
    {
      stage: 'writes',
      path: catalogueUrl(''),
      when: isWriteRequest,
      create: createTransactionsRouter,
    },
    {
      stage: 'reads',
      path: catalogueUrl(''),
      create: createRecordsRouter,
    },
  ],
  openapi: {
    tags: [
      {
        name: 'OGC API – Records',
        description: 'Landing page, conformance, the catalogue and its records',
      },
    ],
    validated: true,
    paths: ({ purpose }) => buildRecordsPaths(purpose),
    schemas: buildRecordsSchemas,
    parameters: ({ limits, purpose }) => buildRecordsParameters(limits, purpose),
  },
  conformance: RECORDS_CONFORMANCE_CLASSES,
};
