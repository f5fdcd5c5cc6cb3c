/**
 * Chooses and builds the configured SearchBackend: the embedded SQLite file unless a search
 * engine URL is configured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/index.js';
import { CairnError, InternalError } from '../errors/index.js';
import { createLogger } from '../logging/index.js';
import type { SearchBackend } from './backend.js';
import { ElasticsearchAdapter } from './engine/elasticsearch-adapter.js';
import type { EngineAdapter, EngineName } from './engine/engine-adapter.js';
import { EngineBackend, type EngineBackendOptions } from './engine/engine-backend.js';
import { OpenSearchAdapter } from './engine/opensearch-adapter.js';
import { RedisCheckpointStore } from './engine/redis-checkpoints.js';
import { SqliteBackend } from './sqlite/sqlite-backend.js';

/** What createBackend reads: the search settings, query limits, and Redis for scaled mode. */
export type BackendConfig = Pick<Config, 'search'> &
  Partial<Pick<Config, 'query' | 'redisUrl' | 'logLevel' | 'worker'>>;

/**
 * The deep-paging checkpoints shared by the API processes (scaled mode: REDIS_URL set), under
 * `<WORKER_QUEUE_PREFIX>:checkpoints`. A Redis outage is logged once and searches walk.
 */
function sharedCheckpoints(
  config: BackendConfig,
  settings: { idleSeconds: number; perQuery: number },
): RedisCheckpointStore | undefined {
  if (!config.redisUrl) return undefined;
  const logger = createLogger(config.logLevel ?? 'info', 'cairn-search');
  return RedisCheckpointStore.connect(config.redisUrl, {
    prefix: `${config.worker?.queuePrefix ?? 'cairn'}:checkpoints`,
    perQuery: settings.perQuery,
    idleMs: settings.idleSeconds * 1000,
    onUnavailable: (error) =>
      logger.warn('deep-paging checkpoints in Redis unavailable; deep pages walk meanwhile', {
        error: error.message,
      }),
    onRecovered: () => logger.info('deep-paging checkpoints in Redis available again'),
  });
}

/**
 * What builds an EngineBackend: its options, with the engine's URL (and the client's timeout
 * and retries) in place of the adapter, or a ready adapter (tests, the benchmark's recorder).
 */
export type EngineBackendSettings = Omit<EngineBackendOptions, 'adapter'> & {
  /** The engine's URL; required unless an adapter is given. */
  url?: string;
  /** A ready adapter; otherwise one is built for `engine` and `url`. */
  adapter?: EngineAdapter;
  /** Milliseconds before a request to the engine is abandoned. */
  requestTimeout?: number;
  /** Retries on connection errors and 502/503/504. */
  maxRetries?: number;
};

/** Builds the client adapter of an engine at a URL. */
export function createEngineAdapter(
  engine: EngineName,
  connection: { url: string; requestTimeout?: number | undefined; maxRetries?: number | undefined },
): EngineAdapter {
  return engine === 'elasticsearch'
    ? new ElasticsearchAdapter(connection)
    : new OpenSearchAdapter(connection);
}

/** Builds an EngineBackend (not initialised) over the given adapter or one for its URL. */
export function createEngineBackend(settings: EngineBackendSettings): EngineBackend {
  const { url, adapter, requestTimeout, maxRetries, ...options } = settings;
  if (adapter) return new EngineBackend({ ...options, adapter });
  if (!url) throw new InternalError(`The ${settings.engine} backend needs a URL`);
  return new EngineBackend({
    ...options,
    adapter: createEngineAdapter(settings.engine, { url, requestTimeout, maxRetries }),
  });
}

/**
 * The EngineBackend options the configuration gives, without the shared checkpoint store (which
 * connects to Redis). The benchmark builds a backend from them too, to capture the exact requests
 * the API sends.
 */
export function engineBackendOptions(config: BackendConfig): EngineBackendSettings {
  const { search } = config;
  if (search.kind === 'sqlite') throw new Error('engineBackendOptions: the backend is SQLite');
  // Spatial mode defaults per engine (shape on OpenSearch, envelope on Elasticsearch) unless
  // configuration names one.
  return {
    engine: search.kind,
    url: search.url,
    alias: search.alias,
    ...(search.spatial !== undefined && { spatial: search.spatial }),
    analysis: search.analysis,
    refresh: search.refresh,
    refreshInterval: search.refreshInterval,
    queryTimeBudgetMs: config.query?.timeBudgetMs,
    layout: { shards: search.shards, replicas: search.replicas },
    refineMaxCandidates: search.refineMaxCandidates,
    refineWorkers: search.refineWorkers,
    maxLearnedProperties: config.query?.maxLearnedQueryables,
  };
}

/** Builds (and initialises) the backend the configuration names. */
export async function createBackend(config: BackendConfig): Promise<SearchBackend> {
  const { search } = config;
  const timeBudgetMs = config.query?.timeBudgetMs;
  if (search.kind !== 'sqlite') {
    const engine = createEngineBackend({
      ...engineBackendOptions(config),
      sharedCheckpoints: sharedCheckpoints(config, search.checkpoints),
    });
    await engine.init().catch(async (error: unknown) => {
      await engine.close();
      throw error;
    });
    return engine;
  }
  const backend = new SqliteBackend({
    path: search.path,
    timeBudgetMs,
    readWorkers: search.readWorkers,
    readQueueLimit: search.readQueueLimit,
    ...(config.query && { maxLearnedProperties: config.query.maxLearnedQueryables }),
  });
  await backend.init().catch(async (error: unknown) => {
    await backend.close();
    throw error;
  });
  return backend;
}

/** The longest wait between two start-up attempts while the backend is unavailable. */
const MAX_START_DELAY_MS = 30_000;

/**
 * Builds the backend, waiting out a search engine that is unavailable (503) at start-up, so
 * that a process started during an outage starts when the engine returns instead of exiting.
 * Other failures (a refused template, an inconsistent alias) are thrown at once.
 */
export async function createBackendWhenAvailable(
  config: BackendConfig,
  onUnavailable: (error: CairnError, retryInMs: number) => void,
): Promise<SearchBackend> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await createBackend(config);
    } catch (error) {
      if (!(error instanceof CairnError) || error.status !== 503) throw error;
      const delay = Math.min(MAX_START_DELAY_MS, 1000 * 2 ** attempt);
      onUnavailable(error, delay);
      await sleep(delay);
    }
  }
}
