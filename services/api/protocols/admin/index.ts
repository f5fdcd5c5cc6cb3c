/**
 * Writes and administration as a protocol module: the harvest sources, the admin pages and
 * the job log under /catalogue/admin (mounted before request validation, and entered only by
 * requests for /admin paths), the health endpoints at the deployment root, and their part of
 * the OpenAPI document. The item writes and bulk ingest are the Records module's router; their
 * operations carry this module's "Writes and admin" tag.
 */
import type { Request } from 'express';
import { catalogueUrl } from '../../common/urls.js';
import type { Protocol, ProtocolMount } from '../protocol.js';
import { createHealthRouter } from './health.js';
import { createAdminHtmlRouter } from './html-routes.js';
import { WRITES_TAG } from '../../common/openapi-writes.js';
import { buildAdminPaths, buildHealthPaths, OPERATIONS_TAG } from './openapi.js';
import { createAdminRouter } from './routes.js';
import { createSourcesRouter } from './sources.js';

/**
 * Whether a request under /catalogue is for /admin or below, as Express matches route paths
 * (case-insensitive, a trailing slash allowed): the only paths the admin routers answer.
 */
export function isAdminPath(request: Request): boolean {
  return /^\/admin(\/|$)/i.test(request.path);
}

/** A router of /catalogue/admin: before request validation, entered by /admin paths only. */
function underAdmin(create: ProtocolMount['create']): ProtocolMount {
  return { stage: 'admin', path: catalogueUrl(''), when: isAdminPath, create };
}

/** The writes and administration protocol module. */
export const ADMIN_PROTOCOL: Protocol = {
  name: 'admin',
  mounts: [
    underAdmin(createSourcesRouter),
    underAdmin(createAdminHtmlRouter),
    underAdmin(createAdminRouter),
    { stage: 'open', path: '/', create: createHealthRouter },
  ],
  openapi: {
    tags: [
      { name: WRITES_TAG, description: 'Record transactions, bulk ingest, job log' },
      { name: OPERATIONS_TAG, description: 'Health' },
    ],
    // The write and admin endpoints are mounted before validation and parse their own
    // requests; the health endpoints take none.
    validated: false,
    paths: ({ rootUrl }) => ({ ...buildHealthPaths(rootUrl), ...buildAdminPaths() }),
  },
  conformance: [],
};
