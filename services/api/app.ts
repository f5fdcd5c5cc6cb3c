/**
 * The API's app factory: builds the Express application from its dependencies without
 * listening, so every test tier can drive it.
 */
import express, { type Express, type Request, type RequestHandler } from 'express';
import { COLLECTION_ID } from './common/urls.js';
import type { Config } from '../../shared/config/index.js';
import { NotFoundError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { withQueryLimits } from '../../shared/search/query-limited-backend.js';
import { openNextPages } from '../../shared/search/next-page-offsets.js';
import { renderJsonError } from './middleware/errors.js';
import { requestContext } from './middleware/request-context.js';
import { limitUrlLength, refuseMalformedPath } from './middleware/url-limit.js';
import { createRecordsRouter } from './protocols/records/routes.js';
import { renderCswError } from './protocols/csw/errors.js';
import { createCswRouter } from './protocols/csw/routes.js';
import { createOpenSearchRouter } from './protocols/opensearch/routes.js';
import { createStacRouter } from './protocols/stac/routes.js';
// OGC API – Records HTML interface, static files and OpenAPI request validation.
import { PACKAGE_VERSION, STATIC_DIR, STATIC_PATH, VENDOR_DIRS } from './html/assets.js';
import { renderHtmlError } from './html/errors.js';
import { redirectEmptyFormFields } from './html/form-redirect.js';
import { buildOpenApiDocument, buildValidationDocument } from './openapi/document.js';
import { createRequestValidator } from './openapi/validator.js';
// Writes: auth, item transactions, bulk ingest, the admin job log; through the queue in scaled mode.
import type { IngestLog } from '../../shared/ingest/ingest-log.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { openIngestLog } from '../../shared/search/open-stores.js';
import {
  authChallengeHeaders,
  createAuthMiddleware,
  type AuthMiddleware,
} from './middleware/auth.js';
import { createAdminRouter } from './protocols/admin/routes.js';
import { ApiMetrics } from '../../shared/metrics/api-metrics.js';
import { recordRequestMetrics, serveApiMetrics } from './middleware/metrics.js';
import { createAdminHtmlRouter } from './protocols/admin/html-routes.js';
import { createTransactionsRouter } from './protocols/records/transactions.js';
import { createHarvestContext } from './commands/harvest.js';
import { createSourcesRouter } from './protocols/admin/sources.js';
import { createCswTransactionHandler, writesConfigured } from './protocols/csw/transaction.js';

export interface AppDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  logger: Logger;
  /** Route protection; built from config.auth when absent (deny by default). */
  auth?: AuthMiddleware;
  /** The job queues (scaled mode); opened on first write when absent and REDIS_URL is set. */
  queue?: JobQueues;
  /** The ingest log; opened on first use when absent (the engine's index, or WORKER_INGEST_LOG_PATH). */
  ingestLog?: IngestLog;
  /** Prometheus metrics (main.ts adds process metrics); a fresh set when absent and enabled. */
  metrics?: ApiMetrics;
}

/**
 * The searches whose parse function checks every parameter and answers 400 naming the problem
 * (parseItemsQuery with parseItemsPresentation and parseFacetsQuery; parseSearchGet and
 * parseSearchPost), by method and path, with their OpenAPI path templates: the OpenAPI request
 * validator, about a tenth of the API's CPU time per search, is not run on them.
 * test/system/validation-bypass.test.ts sends every documented parameter of these routes bad
 * values with and without the validator and expects the same status and error code.
 */
const PARSED_IN_FULL: ReadonlyMap<string, string> = new Map([
  [
    `GET /catalogue/collections/${COLLECTION_ID}/items`,
    '/catalogue/collections/{collectionId}/items',
  ],
  ['GET /catalogue/search', '/catalogue/search'],
  ['POST /catalogue/search', '/catalogue/search'],
]);

/** CSW and OpenSearch: not in the validation document, so the validator would only look them up. */
const UNDOCUMENTED = /^\/catalogue\/(csw|opensearch)(\/|$)/;

/**
 * Whether a request skips the OpenAPI request validator (undefined: it is validated), and the
 * OpenAPI path template of the searches that do.
 */
export function unvalidatedRoute(request: Request): { route?: string } | undefined {
  // Clients may percent-encode the colon of the collection id (`metadata%3Amain`); Express
  // routes either spelling to the same handler.
  const path = request.path.replace(/%3a/gi, ':');
  const route = PARSED_IN_FULL.get(`${request.method} ${path}`);
  if (route !== undefined) return { route };
  return UNDOCUMENTED.test(request.path) ? {} : undefined;
}

/** Runs `handler` only on the requests `when` accepts; the others go straight on. */
export function onlyWhen(
  when: (request: Request) => boolean,
  handler: RequestHandler,
): RequestHandler {
  return (request, response, next) => (when(request) ? handler(request, response, next) : next());
}

/**
 * Whether a request under /catalogue is for /admin or below, as Express matches route paths
 * (case-insensitive, a trailing slash allowed): the only paths the admin routers answer.
 */
export function isAdminPath(request: Request): boolean {
  return /^\/admin(\/|$)/i.test(request.path);
}

/** Creates the Express app serving /catalogue and the health endpoints. */
export function createApp(dependencies: AppDependencies): Express {
  const { config, logger } = dependencies;
  const app = express();
  app.disable('x-powered-by');
  // No ETag on answers: a search answer carries its timeStamp, so a hash of it never matches,
  // and hashing each body cost a search page about 50 µs of CPU (issue 29; docs/decisions.md).
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Metrics: every request counted and timed, backend calls timed; served on GET /metrics.
  const metrics = config.metrics.enabled ? (dependencies.metrics ?? new ApiMetrics()) : undefined;
  // Every query is checked against the configured cost limits before any backend runs it.
  const limited = withQueryLimits(dependencies.backend, config.query, openNextPages(config));
  const backend = metrics ? metrics.instrumentBackend(limited) : limited;
  if (metrics) {
    app.use(recordRequestMetrics(metrics));
    app.get('/metrics', serveApiMetrics(metrics));
  }
  app.use(requestContext(config, logger));
  app.use(limitUrlLength(config.limits.urlBytes)); // 414 in each protocol's error format
  app.use(refuseMalformedPath);

  // Static files of the HTML interface: Cairn's own, and browser libraries from node_modules.
  for (const [name, directory] of Object.entries(VENDOR_DIRS)) {
    app.use(
      `${STATIC_PATH}/vendor/${name}`,
      express.static(directory, { index: false, maxAge: '1d' }),
    );
  }
  app.use(STATIC_PATH, express.static(STATIC_DIR, { index: false, maxAge: '1h' }));
  // HTML search forms send empty fields: redirect to the URL without them.
  app.use('/catalogue', redirectEmptyFormFields);

  // Writes and admin (before request validation: they parse their own bodies, and POST …/items
  // falls through to the CQL2 search unless the body is a record).
  const auth = dependencies.auth ?? createAuthMiddleware(config.auth);
  let queue = dependencies.queue;
  let ingestLog = dependencies.ingestLog;
  const getQueue = (): JobQueues | undefined => {
    if (!queue && config.redisUrl) queue = new JobQueues(config.redisUrl, config.worker);
    return queue;
  };
  const getIngestLog = (): IngestLog => (ingestLog ??= openIngestLog(config, backend));
  // Routers the searches need not walk through (issue 29: each layer is a path match per
  // request): the writes answer no GET or HEAD, the admin routers only paths under /admin.
  app.use(
    '/catalogue',
    onlyWhen(
      (request) => request.method !== 'GET' && request.method !== 'HEAD',
      createTransactionsRouter({ config, backend, auth, queue: getQueue, ingestLog: getIngestLog }),
    ),
  );
  // JSON bodies for everything else (writes read theirs after checking the token).
  app.use(
    express.json({
      limit: config.limits.bodyBytes,
      type: ['application/json', 'application/*+json', 'application/query-cql-json'],
    }),
  );
  // Harvest sources and the CSW Harvest operation share one harvest context (shared/harvest).
  const harvest = createHarvestContext({
    config,
    backend,
    logger,
    queue: getQueue,
    ingestLog: getIngestLog,
  });
  app.use('/catalogue', onlyWhen(isAdminPath, createSourcesRouter({ auth, harvest })));
  app.use(
    '/catalogue',
    onlyWhen(
      isAdminPath,
      createAdminHtmlRouter({ config, auth, ingestLog: getIngestLog, queue: getQueue }),
    ),
  );
  app.use(
    '/catalogue',
    onlyWhen(
      isAdminPath,
      createAdminRouter({ config, auth, ingestLog: getIngestLog, queue: getQueue, backend }),
    ),
  );
  // Records and STAC requests are validated against the OpenAPI document (CSW and OpenSearch
  // are not), but for the searches, whose parsers check every parameter themselves.
  app.use(
    createRequestValidator(
      buildValidationDocument({
        serverUrl: '/catalogue',
        rootUrl: '/',
        service: config.service,
        version: PACKAGE_VERSION,
        limits: config.limits,
      }),
      { skip: unvalidatedRoute },
    ),
  );

  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  // Ready while the backend answers (reads are the service); a queue that is down only
  // degrades it (writes answer 503), so every instance is not taken out of rotation at once.
  app.get('/readyz', async (_request, response) => {
    const [health, queueHealth] = await Promise.all([backend.health(), getQueue()?.health()]);
    const status = !health.ok ? 'unavailable' : queueHealth?.ok === false ? 'degraded' : 'ready';
    response
      .status(health.ok ? 200 : 503)
      .json({ status, backend: health, ...(queueHealth && { queue: queueHealth }) });
  });

  // Every read below is public unless AUTH_READS_REQUIRE_TOKEN asks for a valid token
  // (any role); health checks above stay open for probes.
  app.use('/catalogue', auth.readAccess);

  // CSW 2.0.2/3.0.0 and its OpenSearch description (errors: OWS ExceptionReports, below).
  const transactions = writesConfigured(config)
    ? createCswTransactionHandler({
        config,
        backend,
        auth,
        harvest,
        queue: getQueue,
        ingestLog: getIngestLog,
      })
    : undefined;
  app.use('/catalogue/csw', createCswRouter({ config, backend, transactions }));
  app.use('/catalogue/opensearch', createOpenSearchRouter({ config, backend }));

  // STAC API (search, queryables, `f=stac` collection) first; the Records router owns the rest.
  app.use('/catalogue', createStacRouter({ config, backend }));
  const openApiDocument = (publicBaseUrl: string) =>
    buildOpenApiDocument({
      serverUrl: `${publicBaseUrl}/catalogue`,
      rootUrl: publicBaseUrl,
      service: config.service,
      version: PACKAGE_VERSION,
      limits: config.limits,
    });
  app.use('/catalogue', createRecordsRouter({ config, backend, openApiDocument }));

  app.use((request) => {
    throw new NotFoundError(`No resource at ${request.path}`);
  });
  app.use(authChallengeHeaders); // WWW-Authenticate on 401/403, for every renderer below
  app.use(['/catalogue/csw', '/catalogue/opensearch'], renderCswError);
  app.use('/catalogue', renderHtmlError(config.service)); // HTML error pages for browsers
  app.use(renderJsonError);
  return app;
}
