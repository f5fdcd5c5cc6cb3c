/**
 * Chooses and builds the configured SearchBackend: the embedded SQLite file unless a search
 * engine URL is configured.
 */
import type { Config } from '../config/index.js';
import type { SearchBackend } from './backend.js';
import { EngineBackend } from './engine/engine-backend.js';
import { SqliteBackend } from './sqlite/sqlite-backend.js';

/** Builds (and initialises) the backend the configuration names. */
export async function createBackend(config: Pick<Config, 'search'>): Promise<SearchBackend> {
  const { search } = config;
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
    });
    await engine.init();
    return engine;
  }
  const backend = new SqliteBackend({ path: search.path });
  await backend.init();
  return backend;
}
