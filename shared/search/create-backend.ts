/**
 * Chooses and builds the configured SearchBackend: the embedded SQLite file unless a search
 * engine URL is configured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/index.js';
import { CairnError } from '../errors/index.js';
import type { SearchBackend } from './backend.js';
import { EngineBackend } from './engine/engine-backend.js';
import { SqliteBackend } from './sqlite/sqlite-backend.js';

/** Builds (and initialises) the backend the configuration names. */
export async function createBackend(
  config: Pick<Config, 'search'> & Partial<Pick<Config, 'query'>>,
): Promise<SearchBackend> {
  const { search } = config;
  const timeBudgetMs = config.query?.timeBudgetMs;
  if (search.kind !== 'sqlite') {
    // Elasticsearch / OpenSearch: spatial mode defaults per engine (shape on OpenSearch,
    // envelope on Elasticsearch) unless configuration names one.
    const engine = new EngineBackend({
      engine: search.kind,
      url: search.url,
      alias: search.alias,
      spatial: search.spatial,
      analysis: search.analysis,
      refresh: search.refresh,
      refreshInterval: search.refreshInterval,
      queryTimeBudgetMs: timeBudgetMs,
      layout: { shards: search.shards, replicas: search.replicas },
    });
    await engine.init().catch(async (error: unknown) => {
      await engine.close();
      throw error;
    });
    return engine;
  }
  const backend = new SqliteBackend({ path: search.path, timeBudgetMs });
  await backend.init();
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
  config: Pick<Config, 'search'> & Partial<Pick<Config, 'query'>>,
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
