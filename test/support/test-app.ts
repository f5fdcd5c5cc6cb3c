/**
 * Builds the API app over a fresh backend loaded with records, for system tests that drive it
 * over HTTP without opening a port (supertest). The backend is the one CAIRN_TEST_SYSTEM_BACKEND
 * chooses (system-backend.ts): a SQLite file in a temporary folder by default, or a fresh alias
 * on Elasticsearch or OpenSearch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { uniqueAlias } from '../integration/engine-backend-cases.js';
import {
  engineUrl,
  openEngineBackend,
  systemBackend,
  type SuiteBackend,
} from './system-backend.js';

export interface TestApp {
  app: Express;
  backend: SearchBackend;
  config: Readonly<Config>;
  close: () => Promise<void>;
}

/** Starts an app over `recordCount` generated records (seed 7) plus any extra documents. */
export async function createTestApp(
  recordCount: number,
  environment: Record<string, string> = {},
): Promise<TestApp> {
  const documents = [...generateRecords(recordCount, 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
  return startApp(systemBackend(), documents, { LIMIT_MAX: '100', ...environment });
}

/**
 * Starts an app over the documents on the target backend, failing when any document is
 * rejected: a test that means to load a bad document sends it over HTTP and checks the answer.
 * `close` deletes the SQLite file or the engine's indices.
 */
export async function startApp(
  target: SuiteBackend,
  documents: RawDocument[],
  environment: Record<string, string>,
): Promise<TestApp> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-system-'));
  const path = join(directory, 'cairn.sqlite');
  const removeDirectory = () => rmSync(directory, { recursive: true, force: true });
  let backend: SearchBackend;
  let config: Readonly<Config>;
  try {
    if (target.kind === 'sqlite') {
      // Read workers (a thread start each) only when a test asks for them, or when
      // CAIRN_TEST_SQLITE_READ_WORKERS runs the whole suite on them.
      const readWorkers =
        environment.SQLITE_READ_WORKERS ?? process.env.CAIRN_TEST_SQLITE_READ_WORKERS;
      config = loadConfig({
        LOG_LEVEL: 'silent',
        SQLITE_PATH: path,
        ...environment,
        ...(readWorkers ? { SQLITE_READ_WORKERS: readWorkers } : {}),
      });
      // The query time budget applies only when a test sets it (a loaded machine must not
      // turn an ordinary test query into a 503).
      const sqlite = new SqliteBackend({
        path,
        ...(environment.QUERY_TIME_BUDGET_MS ? { timeBudgetMs: config.query.timeBudgetMs } : {}),
        readWorkers: readWorkers && config.search.kind === 'sqlite' ? config.search.readWorkers : 0,
      });
      await sqlite.init();
      backend = sqlite;
    } else {
      const alias = uniqueAlias(target.spatial!);
      config = loadConfig({
        LOG_LEVEL: 'silent',
        [target.kind === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL']:
          engineUrl(target),
        SEARCH_INDEX_ALIAS: alias,
        SEARCH_SPATIAL_MODE: target.spatial!,
        ...environment,
      });
      const engine = await openEngineBackend(target, {
        alias,
        ...(environment.QUERY_TIME_BUDGET_MS
          ? { queryTimeBudgetMs: config.query.timeBudgetMs }
          : {}),
        // Refinement threads only when a test asks for them (a thread start each).
        ...(environment.SEARCH_REFINE_WORKERS && config.search.kind !== 'sqlite'
          ? { refineWorkers: config.search.refineWorkers }
          : {}),
      });
      backend = engine;
    }
  } catch (error) {
    removeDirectory();
    throw error;
  }
  const close = async () => {
    try {
      await backend.close();
    } finally {
      removeDirectory();
    }
  };
  try {
    const summary = await ingestDocuments(backend, documents);
    if (summary.rejected.length > 0) {
      throw new Error(`documents rejected: ${JSON.stringify(summary.rejected)}`);
    }
  } catch (error) {
    await close();
    throw error;
  }
  const app = createApp({ config, backend, logger: createLogger('silent', 'test') });
  return { app, backend, config, close };
}
