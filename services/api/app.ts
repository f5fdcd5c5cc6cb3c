/**
 * The API's app factory: builds the Express application from its dependencies without
 * listening, so every test tier can drive it.
 */
import express, { type Express } from 'express';
import type { Config } from '../../shared/config/index.js';
import { NotFoundError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { renderJsonError } from './middleware/errors.js';
import { requestContext } from './middleware/request-context.js';
import { createRecordsRouter } from './protocols/records/routes.js';
import { renderCswError } from './protocols/csw/errors.js';
import { createCswRouter } from './protocols/csw/routes.js';
import { createOpenSearchRouter } from './protocols/opensearch/routes.js';
import { createStacRouter } from './protocols/stac/routes.js';

export interface AppDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  logger: Logger;
}

/** Creates the Express app serving /catalogue and the health endpoints. */
export function createApp({ config, backend, logger }: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestContext(config, logger));
  app.use(
    express.json({
      limit: config.limits.bodyBytes,
      type: ['application/json', 'application/*+json'],
    }),
  );

  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.get('/readyz', async (_request, response) => {
    const health = await backend.health();
    response
      .status(health.ok ? 200 : 503)
      .json({ status: health.ok ? 'ready' : 'unavailable', backend: health });
  });

  // CSW 2.0.2/3.0.0 and its OpenSearch description (errors: OWS ExceptionReports, below).
  app.use('/catalogue/csw', createCswRouter({ config, backend }));
  app.use('/catalogue/opensearch', createOpenSearchRouter({ config, backend }));

  // STAC API (search, queryables, `f=stac` collection) first; the Records router owns the rest.
  app.use('/catalogue', createStacRouter({ config, backend }));
  app.use('/catalogue', createRecordsRouter({ config, backend }));

  app.use((request) => {
    throw new NotFoundError(`No resource at ${request.path}`);
  });
  app.use(['/catalogue/csw', '/catalogue/opensearch'], renderCswError);
  app.use(renderJsonError);
  return app;
}
