/**
 * STAC API routes under /catalogue: item search (GET and POST /search), the queryables
 * document and the catalogue collection as a STAC Collection (`f=stac`). Mounted before the
 * Records router, which owns the landing page and /conformance (merging in the STAC members
 * from ./capabilities.ts) and every other collection request.
 */
import { Router, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError } from '../../../../shared/errors/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { COLLECTION_ID, GEOJSON } from '../records/present.js';
import { presentQueryables } from './capabilities.js';
import { parseSearchGet, parseSearchPost, type SearchMethod, type StacSearch } from './parse.js';
import { presentItemCollection, presentStacCatalogueCollection } from './present.js';

export interface StacRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
}

function sendJson(response: Response, body: unknown, type: string): void {
  response.type(type).send(JSON.stringify(body));
}

/** Builds the router for the STAC item search and its queryables. */
export function createStacRouter({ config, backend }: StacRouteDependencies): Router {
  const router = Router();

  const search = async (
    response: Response,
    baseUrl: string,
    method: SearchMethod,
    request: Record<string, unknown>,
    { query, fields }: StacSearch,
  ): Promise<void> => {
    const result = await backend.search(query);
    const body = presentItemCollection(result, {
      baseUrl,
      method,
      request,
      offset: query.offset,
      limit: query.limit,
      fields,
    });
    sendJson(response, body, GEOJSON);
  };

  router.get('/search', async (request, response) => {
    const parameters = request.query as Record<string, unknown>;
    const parsed = parseSearchGet(parameters, { ...config.limits, query: config.query });
    await search(response, request.publicBaseUrl, 'GET', parameters, parsed);
  });

  router.post('/search', async (request, response) => {
    const body: unknown = request.body;
    if (body === undefined && Number(request.headers['content-length'] ?? 0) > 0) {
      throw new InvalidParameterError('body', 'POST /search takes a JSON body (application/json)');
    }
    const parsed = parseSearchPost(body, { ...config.limits, query: config.query });
    const members = (body ?? {}) as Record<string, unknown>;
    await search(response, request.publicBaseUrl, 'POST', members, parsed);
  });

  // The catalogue collection as a STAC Collection (the landing page's `child`); any other
  // request for a collection is the Records router's.
  router.get('/collections/:collectionId', async (request, response, next) => {
    if (request.params.collectionId !== COLLECTION_ID || request.query.f !== 'stac') return next();
    const extent = await backend.extent();
    const body = presentStacCatalogueCollection(request.publicBaseUrl, config.service, extent);
    sendJson(response, body, 'application/json');
  });

  router.get('/queryables', (request, response) => {
    sendJson(response, presentQueryables(request.publicBaseUrl), 'application/schema+json');
  });

  return router;
}
