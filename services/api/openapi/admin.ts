/**
 * The write and admin part of the OpenAPI document (OGC API – Records transactions, bulk
 * ingest, the ingest job log), which needs a bearer token with the write role, and the health
 * endpoints at the deployment root. These endpoints parse their own requests: they are in the
 * served document only, never in the one requests are validated against.
 */
import { ADMIN_PAGE_LIMITS } from '../protocols/admin/routes.js';
import {
  integerParameter,
  jsonContent,
  objectContent,
  pathParameter,
  ref,
  XML,
  type Content,
  type Operation,
  type Parameter,
  type PathItem,
  type Paths,
  type Reference,
  type Responses,
} from './common.js';

const TAG = 'Writes and admin';
const SECURITY = [{ bearerAuth: [] }];

/** The bodies that create or replace records. */
const RECORDS_BODY: Content = {
  'application/geo+json': {
    schema: { type: 'object', description: 'A record (Feature) or several (FeatureCollection).' },
  },
  [XML]: { schema: { type: 'string', description: 'ISO 19139, ISO 19115-3 or csw:Record.' } },
  'application/x-ndjson': { schema: { type: 'string', description: 'One record per line.' } },
};

const OUTCOME = objectContent('application/json');

const DENIED: Responses = {
  '400': ref('responses', 'BadRequest'),
  '401': { description: 'No valid bearer token', content: jsonContent('Exception') },
  '403': { description: 'The token lacks the write role', content: jsonContent('Exception') },
  '503': ref('responses', 'Unavailable'),
};

/** A write's own answer, or 202 with a link to the job when it is queued (scaled mode). */
function written(status: string, description: string): Responses {
  return {
    [status]: { description, content: OUTCOME },
    '202': { description: 'Queued (scaled mode): a link to the job', content: OUTCOME },
  };
}

/**
 * `POST …/items` with records as the body creates them: the search operation (a CQL2 JSON
 * body) described with its second use, and the record media types added to its body.
 */
export function createRecordsOperation(search: Operation): Operation {
  const body = search.requestBody as { content: Content; required?: boolean };
  return {
    ...search,
    description: `${search.description ?? ''} With a record as the body (GeoJSON or XML) and a bearer token with the write role, it creates records instead (201, or 202 when queued).`,
    requestBody: {
      ...body,
      description: 'A CQL2 JSON filter (search), or records to create.',
      content: {
        ...body.content,
        ...objectContent('application/geo+json'),
        [XML]: { schema: { type: 'string' } },
      },
    },
  };
}

/** PUT and DELETE on one record, beside its GET. */
export function recordWriteOperations(
  parameters: (Parameter | Reference)[],
): Pick<PathItem, 'put' | 'delete'> {
  return {
    put: {
      summary: 'Replace (or create) one record',
      tags: [TAG],
      security: SECURITY,
      parameters,
      requestBody: { required: true, content: RECORDS_BODY },
      responses: {
        ...written('200', 'Replaced'),
        '201': { description: 'Created', content: OUTCOME },
        ...DENIED,
      },
    },
    delete: {
      summary: 'Delete one record',
      tags: [TAG],
      security: SECURITY,
      parameters,
      responses: {
        '204': { description: 'Deleted' },
        '404': ref('responses', 'NotFound'),
        ...DENIED,
      },
    },
  };
}

function adminGet(summary: string, parameters: Parameter[]): PathItem {
  return {
    get: {
      summary,
      tags: [TAG],
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
        tags: [TAG],
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
        tags: ['Operations'],
        responses: { '200': { description: 'The process is up', content: status } },
      },
    },
    '/readyz': {
      servers,
      get: {
        summary: 'Readiness (the search backend answers)',
        tags: ['Operations'],
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
