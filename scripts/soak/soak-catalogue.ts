/**
 * The soak's catalogue: a fresh SQLite file or engine alias loaded with generated records, and
 * the environment the API (and worker) processes run with. Removed again at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateCorpusDocuments } from '../bench/bench-corpus.js';
import type { SoakOptions } from './soak-options.js';

/** Seed of the generated corpus (the soak's writes use other seeds). */
export const CORPUS_SEED = 42;
/** The realm and client the API checks write tokens against (the test realm). */
export const REALM = 'cairn-test';
const CATALOGUE_CLIENT = 'cairn-catalogue';

export interface SoakCatalogue {
  /** The environment of the API and worker processes. */
  environment: Record<string, string>;
  /** Folder for the processes' logs and scratch files. */
  directory: string;
  /** Removes the SQLite folder or the engine alias, and the soak's queues. */
  remove(): Promise<void>;
}

function openBackend(options: SoakOptions, directory: string, alias: string): SearchBackend {
  if (options.backend === 'sqlite')
    return new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
  return createEngineBackend({ engine: options.backend, url: options.url!, alias, refresh: false });
}

/** Loads `options.records` generated records into a new catalogue. */
export async function prepareSoakCatalogue(options: SoakOptions): Promise<SoakCatalogue> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-soak-'));
  const alias = `cairn-soak-${Date.now()}`;
  const backend = openBackend(options, directory, alias);
  try {
    await backend.init();
    const summary = await ingestDocuments(
      backend,
      generateCorpusDocuments(options.records, CORPUS_SEED),
    );
    if (summary.written !== options.records)
      throw new Error(`loaded ${summary.written} of ${options.records} records`);
    if (backend instanceof EngineBackend) await backend.refresh();
  } finally {
    await backend.close();
  }
  const engineVariable =
    options.backend === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL';
  const environment: Record<string, string> = {
    LOG_LEVEL: 'warn',
    AUTH_ISSUER_URL: `${options.keycloak}/realms/${REALM}`,
    AUTH_CLIENT_ID: CATALOGUE_CLIENT,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    ...(options.backend === 'sqlite'
      ? { SQLITE_PATH: join(directory, 'cairn.sqlite') }
      : { [engineVariable]: options.url!, SEARCH_INDEX_ALIAS: alias }),
    ...(options.redis && {
      REDIS_URL: options.redis,
      WORKER_QUEUE_PREFIX: `cairn-soak-${Date.now()}`,
    }),
  };
  return {
    environment,
    directory,
    remove: async () => {
      if (options.redis) {
        const queues = new JobQueues(options.redis, loadConfig(environment).worker);
        await queues.obliterate().finally(() => queues.close());
      }
      if (options.backend !== 'sqlite') {
        const engine = openBackend(options, directory, alias) as EngineBackend;
        await engine.destroy().finally(() => engine.close());
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
