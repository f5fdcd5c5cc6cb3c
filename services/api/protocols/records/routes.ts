/**
 * OGC API – Records routes under /catalogue: thin handlers that parse, search and present.
 */
import { Router, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import {
  InvalidParameterError,
  NotFoundError,
  UnsupportedFormatError,
} from '../../../../shared/errors/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import {
  presentCollection,
  presentCollections,
  presentConformance,
  presentLandingPage,
} from './capabilities.js';
import { parseFormatParameter, parseItemsQuery, type FilterBody } from './parse.js';
import { COLLECTION_ID, GEOJSON, presentItems, presentRecord } from './present.js';
import { isStacItemRequest } from '../stac/parse.js';
import { presentStacItem } from '../stac/present.js';

export interface RecordsRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
}

/** Checks the requested output format; only JSON encodings are offered on these routes. */
function requireJson(request: Request): void {
  const format = parseFormatParameter(request.query);
  if (format !== undefined && format !== 'json') {
    throw new UnsupportedFormatError(`Unsupported format "f=${format}"; supported: json`);
  }
}

function sendJson(response: Response, body: unknown, type = 'application/json'): void {
  response.type(type).send(JSON.stringify(body));
}

function stringParameters(query: Request['query']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/** Builds the router for the landing page, conformance, collections and items. */
export function createRecordsRouter({ config, backend }: RecordsRouteDependencies): Router {
  const router = Router();
  const collectionPath = `/collections/${COLLECTION_ID}`;

  router.get('/', (request, response) => {
    requireJson(request);
    sendJson(response, presentLandingPage(request.publicBaseUrl, config.service));
  });

  router.get('/conformance', (request, response) => {
    requireJson(request);
    sendJson(response, presentConformance());
  });

  router.get('/collections', async (request, response) => {
    requireJson(request);
    sendJson(
      response,
      presentCollections(request.publicBaseUrl, config.service, await backend.extent()),
    );
  });

  router.get(collectionPath, async (request, response) => {
    requireJson(request);
    sendJson(
      response,
      presentCollection(request.publicBaseUrl, config.service, await backend.extent()),
    );
  });

  /** Searches and presents items; a POSTed filter is carried into paging links as cql2-json. */
  async function sendItems(
    request: Request,
    response: Response,
    filter?: FilterBody,
  ): Promise<void> {
    requireJson(request);
    const query = parseItemsQuery(request.query, config.limits, filter);
    const result = await backend.search(query);
    const linkQuery = stringParameters(request.query);
    if (filter) {
      linkQuery.filter = JSON.stringify(filter.json);
      linkQuery['filter-lang'] = 'cql2-json';
    }
    const body = presentItems(result, {
      baseUrl: request.publicBaseUrl,
      query: linkQuery,
      offset: query.offset,
      limit: query.limit,
      timeStamp: new Date().toISOString(),
    });
    sendJson(response, body, GEOJSON);
  }

  router.get(`${collectionPath}/items`, async (request, response) => {
    await sendItems(request, response);
  });

  // A CQL2 JSON filter as the body; every other parameter comes from the query string.
  router.post(`${collectionPath}/items`, async (request, response) => {
    if (!request.is('application/json') || request.body === undefined) {
      throw new InvalidParameterError(
        'body',
        'POST …/items needs a CQL2 JSON filter as the request body (Content-Type: application/json)',
      );
    }
    await sendItems(request, response, { json: request.body as unknown });
  });

  router.get(`${collectionPath}/items/:recordId`, async (request, response) => {
    // STAC API: `f=stac` (or Accept: application/geo+json with a STAC profile) → STAC Item.
    const stac = isStacItemRequest(request.query.f, request.headers.accept);
    if (!stac) requireJson(request);
    const record = await backend.get(request.params.recordId);
    if (!record) throw new NotFoundError(`No record with id "${request.params.recordId}"`);
    if (stac) return sendJson(response, presentStacItem(record, request.publicBaseUrl), GEOJSON);
    sendJson(response, presentRecord(record, request.publicBaseUrl), GEOJSON);
  });

  router.get('/collections/:collectionId', (request) => {
    throw new NotFoundError(
      `No collection "${request.params.collectionId}"; the catalogue is "${COLLECTION_ID}"`,
    );
  });

  return router;
}
