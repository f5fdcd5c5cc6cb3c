/**
 * /catalogue/opensearch: the OpenSearch description document of the catalogue (the same
 * document as CSW `GetCapabilities&mode=opensearch`). Searches run through its templates, on
 * the CSW endpoint. Errors are rendered as OWS ExceptionReports by the CSW renderer.
 */
import { Router } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { describeOpenSearch } from './describe.js';

export interface OpenSearchRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
}

/** Builds the router serving the OpenSearch description document. */
export function createOpenSearchRouter({ config, backend }: OpenSearchRouteDependencies): Router {
  const router = Router();
  router.get('/', async (request, response) => {
    const answer = await describeOpenSearch(backend, config.service, request.publicBaseUrl);
    response.status(answer.status).type(answer.mediaType).send(answer.body);
  });
  return router;
}
