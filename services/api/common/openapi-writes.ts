/**
 * The shapes the write operations of the OpenAPI document share, whichever protocol serves
 * them (the Records item writes, bulk ingest, the admin endpoints): the tag, the bearer
 * security, the record bodies, the refusals and the 202 of a queued write.
 */
import {
  jsonContent,
  objectContent,
  ref,
  XML,
  type Content,
  type Operation,
  type Parameter,
  type PathItem,
  type Reference,
  type Responses,
} from './openapi.js';

/** The tag of the write and admin operations (the Records item writes too). */
export const WRITES_TAG = 'Writes and admin';

/** Every write needs a bearer token (with the write role). */
export const SECURITY = [{ bearerAuth: [] }];

/** The bodies that create or replace records. */
export const RECORDS_BODY: Content = {
  'application/geo+json': {
    schema: { type: 'object', description: 'A record (Feature) or several (FeatureCollection).' },
  },
  [XML]: { schema: { type: 'string', description: 'ISO 19139, ISO 19115-3 or csw:Record.' } },
  'application/x-ndjson': { schema: { type: 'string', description: 'One record per line.' } },
};

/** A write's answer: a JSON object (the outcome, or the job link). */
export const OUTCOME = objectContent('application/json');

/** The refusals every write may answer. */
export const DENIED: Responses = {
  '400': ref('responses', 'BadRequest'),
  '401': { description: 'No valid bearer token', content: jsonContent('Exception') },
  '403': { description: 'The token lacks the write role', content: jsonContent('Exception') },
  '503': ref('responses', 'Unavailable'),
};

/** A write's own answer, or 202 with a link to the job when it is queued (scaled mode). */
export function written(status: string, description: string): Responses {
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
      tags: [WRITES_TAG],
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
      tags: [WRITES_TAG],
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
