/**
 * The API's app factory: builds the Express application from its dependencies without
 * listening, so every test tier can drive it.
 */
import express, { type Express, type Request, type RequestHandler } from 'express';
import { COLLECTION_ID } from './common/urls.js';
import type { Config } from '../../shared/config/index.js';
import { NotFoundError, PayloadTooLargeError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { withQueryLimits } from '../../shared/search/query-limited-backend.js';
import { openNextPages } from '../../shared/search/next-page-offsets.js';
import { ExpensiveLane } from '../../shared/search/expensive-lane.js';
import { searchScope } from './middleware/search-scope.js';
import { paceRefusals, RefusalPace } from './middleware/refusal-pace.js';
import { renderJsonError } from './middleware/errors.js';
import { requestContext } from './middleware/request-context.js';
import { limitUrlLength, refuseMalformedPath } from './middleware/url-limit.js';
import { MOUNT_STAGES, type MountStage, type ProtocolContext } from './protocols/protocol.js';
import { CONFORMANCE_CLASSES, errorRenderers, orderMounts } from './registry/protocols.js';
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
import { ApiMetrics } from '../../shared/metrics/api-metrics.js';
import { recordRequestMetrics, serveApiMetrics } from './middleware/metrics.js';
import { createHarvestContext } from './commands/harvest.js';
import { KnownQueryables } from './common/known-queryables.js';
// Strong ETags, 304 answers and the result cache keyed by the catalogue generation.
import {
  embeddedGeneration,
  engineGenerationRefusal,
  LocalGeneration,
  withGenerationAdvance,
  type CatalogueGeneration,
} from '../../shared/search/catalogue-generation.js';
import { AnswerStore } from './middleware/answer-store.js';
import { resultCache } from './middleware/result-cache.js';

/**
 * Bounds of the refusal pace's own state: refusals held at once (each a pending answer on an
 * open connection) and clients followed at once (a map entry each).
 */
const REFUSAL_PACE_BOUNDS = { maxHeld: 1000, maxClients: 100_000 };

export interface AppDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  logger: Logger;
  /** Route protection; built from config.auth when absent (deny by default). */
  auth?: AuthMiddleware;
  /** The job queues (scaled mode); opened on first write when absent and REDIS_URL is set. */
  queue?: JobQueues | undefined;
  /** The ingest log; opened on first use when absent (the engine's index, or WORKER_INGEST_LOG_PATH). */
  ingestLog?: IngestLog;
  /** Prometheus metrics (main.ts adds process metrics); a fresh set when absent and enabled. */
  metrics?: ApiMetrics | undefined;
  /**
   * The catalogue generation the result cache compares kept answers with, advanced by this
   * app's writes; chosen from the deployment when absent (catalogueGeneration below).
   */
  generation?: CatalogueGeneration | undefined;
}

/**
 * The catalogue generation of the deployment (shared/search/catalogue-generation.ts): the
 * SQLite file's, or for a search engine whose writes are searchable once acknowledged, the
 * counter in the Redis of the job queues the app was given (main.ts gives them whenever
 * REDIS_URL is set); none otherwise (the result cache is then off; ETags stay).
 */
export function catalogueGeneration(
  config: Readonly<Config>,
  backend: SearchBackend,
  queue: JobQueues | undefined,
  logger: Logger,
): CatalogueGeneration | undefined {
  if (backend.kind === 'sqlite')
    return config.search.kind === 'sqlite'
      ? embeddedGeneration(config.search.path)
      : new LocalGeneration();
  const refusal = engineGenerationRefusal(backend, config.redisUrl);
  if (refusal === undefined && queue) return queue.generation();
  if (config.resultCache.enabled)
    logger.info('result cache off', { reason: refusal ?? 'no job queues given' });
  return undefined;
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
  ['GET /catalogue/aggregate', '/catalogue/aggregate'],
  ['POST /catalogue/aggregate', '/catalogue/aggregate'],
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

/** Creates the Express app serving /catalogue and the health endpoints. */
export function createApp(dependencies: AppDependencies): Express {
  const { config, logger } = dependencies;
  const app = express();
  app.disable('x-powered-by');
  // No ETag on answers: a search answer carries its timeStamp, so a hash of it never matches,
  // and hashing each body cost a search page about 50 µs of CPU (docs/decisions/less-cpu-per-answer.md).
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Behind the reverse proxy TRUST_PROXY names, the client's address is the one that proxy
  // saw (the last X-Forwarded-For entry, one hop): the expensive lane counts clients by it.
  // Trusting the whole header would let a client choose its own key.
  if (config.trustProxy) app.set('trust proxy', 1);
  // Metrics: every request counted and timed, backend calls timed; served on GET /metrics.
  const metrics = config.metrics.enabled ? (dependencies.metrics ?? new ApiMetrics()) : undefined;
  // Expensive searches share a few places (no queue); a search beyond them is a 503 at once.
  const { expensive } = config.query;
  const lane = new ExpensiveLane({
    concurrency: expensive.concurrency,
    perClient: expensive.perClient,
    clientShare: expensive.clientShare,
    // A client's rest is waited out when it ends within half the time budget (the longest a
    // refusal is held, too); a longer rest is a 503 that says how long it lasts.
    maxRestWaitMs: config.query.timeBudgetMs / 2,
    // A place is held at most one time budget: come back after that.
    retryAfterSeconds: Math.max(1, Math.ceil(config.query.timeBudgetMs / 1000)),
    onRefused: (bound) => metrics?.expensiveRefused.inc({ bound }),
    onAdmitted: (reasons) => metrics?.admittedExpensive(reasons),
  });
  // Every query is checked against the configured cost limits before any backend runs it.
  const limited = withQueryLimits(dependencies.backend, config.query, openNextPages(config), {
    lane,
    thresholds: { ...expensive, maxOffset: config.query.maxOffset },
  });
  const backend = metrics ? metrics.instrumentBackend(limited) : limited;
  if (metrics) {
    metrics.observeLane(lane);
    app.use(recordRequestMetrics(metrics));
    app.get('/metrics', serveApiMetrics(metrics));
  }
  app.use(requestContext(config, logger));
  // The catalogue generation (see the result cache below): each request's scope reads it once,
  // for the result cache and for the survivors a refined search keeps for its later pages.
  const generation =
    dependencies.generation ?? catalogueGeneration(config, backend, dependencies.queue, logger);
  app.use(searchScope(generation));
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

  // The protocols' routers (registry/protocols.ts), stage by stage in chain order, built from
  // one context. The writes and admin stages come before request validation: they parse their
  // own bodies, and POST …/items falls through to the CQL2 search unless the body is a record.
  const auth = dependencies.auth ?? createAuthMiddleware(config.auth);
  let queue = dependencies.queue;
  let ingestLog = dependencies.ingestLog;
  const getQueue = (): JobQueues | undefined => {
    if (!queue && config.redisUrl) queue = new JobQueues(config.redisUrl, config.worker);
    return queue;
  };
  const getIngestLog = (): IngestLog => (ingestLog ??= openIngestLog(config, backend));
  // Every read under /catalogue gets a strong ETag (304 on If-None-Match); with a generation,
  // whole answers are kept and served while it is current. Writes advance it (the wrapped
  // backend below), after they are searchable and before they are acknowledged.
  const { resultCache: cacheSettings } = config;
  const keepsAnswers = cacheSettings.enabled && !config.auth.readsRequireToken;
  app.use(
    resultCache({
      generation,
      store: keepsAnswers
        ? new AnswerStore({
            maxBytes: cacheSettings.maxBytes,
            maxEntryBytes: cacheSettings.maxEntryBytes,
            maxAgeMs: cacheSettings.maxAgeSeconds * 1000,
          })
        : undefined,
    }),
  );
  const writingBackend = generation ? withGenerationAdvance(backend, generation) : backend;
  const context: ProtocolContext = {
    config,
    backend: writingBackend,
    logger,
    auth,
    queue: getQueue,
    ingestLog: getIngestLog,
    // Harvest sources and the CSW Harvest operation share one harvest context (shared/harvest).
    harvest: createHarvestContext({
      config,
      backend: writingBackend,
      logger,
      queue: getQueue,
      ingestLog: getIngestLog,
    }),
    conformance: CONFORMANCE_CLASSES,
    queryables: new KnownQueryables(backend),
    generation,
    openApiDocument: (publicBaseUrl) =>
      buildOpenApiDocument({
        serverUrl: `${publicBaseUrl}/catalogue`,
        rootUrl: publicBaseUrl,
        service: config.service,
        version: PACKAGE_VERSION,
        limits: config.limits,
      }),
  };
  const mounts = orderMounts();
  // Routers the searches need not walk through (each layer is a path match per
  // request) say which requests they see (`when`): the writes no GET or HEAD, the admin
  // routers only paths under /admin.
  const mounted: MountStage[] = [];
  const mountStage = (stage: MountStage): void => {
    // Each stage once, in the order MOUNT_STAGES gives (a stage added there must be placed here).
    if (MOUNT_STAGES[mounted.length] !== stage) throw new Error(`Stage ${stage} out of order`);
    mounted.push(stage);
    for (const mount of mounts.filter((candidate) => candidate.stage === stage)) {
      const handler = mount.create(context);
      app.use(mount.path, mount.when ? onlyWhen(mount.when, handler) : handler);
    }
  };

  mountStage('writes');
  // JSON bodies for everything else (writes read theirs after checking the token), up to the
  // search body limit: a larger one is refused from its Content-Length, before it is read.
  const readBody = express.json({
    limit: config.limits.searchBodyBytes,
    type: ['application/json', 'application/*+json', 'application/query-cql-json'],
  });
  app.use((request, response, next) =>
    readBody(request, response, (error?: unknown) =>
      next(
        (error as { type?: unknown } | undefined)?.type === 'entity.too.large'
          ? new PayloadTooLargeError(
              `Request body is larger than the configured limit for searches (SEARCH_BODY_LIMIT_BYTES: ${config.limits.searchBodyBytes} bytes)`,
            )
          : error,
      ),
    ),
  );
  mountStage('admin');
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
  // Health probes stay open.
  mountStage('open');
  // Every read below is public unless AUTH_READS_REQUIRE_TOKEN asks for a valid token (any role).
  app.use('/catalogue', auth.readAccess);
  mountStage('reads');
  if (mounted.length !== MOUNT_STAGES.length)
    throw new Error('A mount stage has no place in the app');

  app.use((request) => {
    throw new NotFoundError(`No resource at ${request.path}`);
  });
  // A client refused for cost faster than its pace gets its later refusals after a pause.
  app.use(
    paceRefusals(new RefusalPace({ ...config.refusalPace, ...REFUSAL_PACE_BOUNDS }), {
      ...REFUSAL_PACE_BOUNDS,
      onHeld: () => metrics?.refusalsHeld.inc(),
    }),
  );
  app.use(authChallengeHeaders); // WWW-Authenticate on 401/403, for every renderer below
  // Protocols with an error format of their own (CSW and OpenSearch: OWS ExceptionReports).
  for (const renderer of errorRenderers()) app.use([...renderer.paths], renderer.render);
  app.use('/catalogue', renderHtmlError(config.service)); // HTML error pages for browsers
  app.use(renderJsonError);
  return app;
}
