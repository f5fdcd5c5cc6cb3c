/**
 * The write and admin part of the OpenAPI document (bulk ingest, the ingest job log), which
 * needs a bearer token with the write role, and the health endpoints at the deployment root.
 * These endpoints parse their own requests: they are in the served document only, never in
 * the one requests are validated against.
 */
import { ADMIN_PAGE_LIMITS } from './routes.js';
import {
  integerParameter,
  objectContent,
  pathParameter,
  type Parameter,
  type PathItem,
  type Paths,
} from '../../common/openapi.js';
import {
  DENIED,
  OUTCOME,
  RECORDS_BODY,
  SECURITY,
  WRITES_TAG,
  written,
} from '../../common/openapi-writes.js';

/** The tag of the health endpoints. */
export const OPERATIONS_TAG = 'Operations';

function adminGet(summary: string, parameters: Parameter[]): PathItem {
  return {
    get: {
      summary,
      tags: [WRITES_TAG],
      security: SECURITY,
      parameters,
      responses: { '200': { description: summary, content: OUTCOME }, ...DENIED },
    },
  };
}

/** The bulk ingest and job log paths. */
export function buildAdminPaths(): Paths {
  const jobId = pathParameter('jobId', 'Identifier of an ingest job.');
  return {
    '/admin/ingest': {
      post: {
        summary: 'Bulk ingest: create or replace records',
        tags: [WRITES_TAG],
        security: SECURITY,
        requestBody: { required: true, content: RECORDS_BODY },
        responses: { ...written('200', 'Written, with a per-record summary'), ...DENIED },
      },
    },
    '/admin/jobs': adminGet('The ingest job log', [
      integerParameter('limit', 'Jobs per page.', {
        minimum: 0,
        maximum: ADMIN_PAGE_LIMITS.maxLimit,
        default: ADMIN_PAGE_LIMITS.defaultLimit,
      }),
      integerParameter('offset', 'Zero-based index of the first job of the page.', {
        minimum: 0,
        default: 0,
      }),
    ]),
    '/admin/jobs/{jobId}': adminGet('One ingest job', [jobId]),
    '/admin/jobs/{jobId}/failures': adminGet('The records an ingest job refused, with reasons', [
      jobId,
    ]),
  };
}

/** The health endpoints (at the deployment root, not under /catalogue). */
export function buildHealthPaths(rootUrl: string): Paths {
  const servers = [{ url: rootUrl || '/' }];
  const status = objectContent('application/json');
  return {
    '/healthz': {
      servers,
      get: {
        summary: 'Liveness',
        tags: [OPERATIONS_TAG],
        responses: { '200': { description: 'The process is up', content: status } },
      },
    },
    '/readyz': {
      servers,
      get: {
        summary: 'Readiness (the search backend answers)',
        tags: [OPERATIONS_TAG],
        responses: {
          '200': {
            description: 'Ready (`degraded` when the job queue is down: writes answer 503)',
            content: status,
          },
          '503': { description: 'The search backend is unavailable', content: status },
        },
      },
    },
  };
}
