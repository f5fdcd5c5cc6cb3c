/**
 * Chooses and builds the configured SearchBackend: the embedded SQLite file unless a search
 * engine URL is configured.
 */
import type { Config } from '../config/index.js';
import type { SearchBackend } from './backend.js';
import { SqliteBackend } from './sqlite/sqlite-backend.js';

/** Builds (and initialises) the backend the configuration names. */
export async function createBackend(config: Pick<Config, 'search'>): Promise<SearchBackend> {
  const { search } = config;
  if (search.kind !== 'sqlite') {
    throw new Error(`The ${search.kind} backend is not available in this build`);
  }
  const backend = new SqliteBackend({ path: search.path });
  await backend.init();
  return backend;
}
