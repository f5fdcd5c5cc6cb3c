/**
 * Builds the API app over a fresh SQLite file in a temporary folder, loaded with records,
 * for system tests that drive it over HTTP without opening a port (supertest).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';

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
  const directory = mkdtempSync(join(tmpdir(), 'cairn-system-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    LIMIT_MAX: '100',
    SQLITE_PATH: join(directory, 'cairn.sqlite'),
    ...environment,
  });
  // The query time budget applies only when a test sets it (a loaded machine must not turn
  // an ordinary test query into a 503).
  const backend = new SqliteBackend({
    path: join(directory, 'cairn.sqlite'),
    timeBudgetMs: environment.QUERY_TIME_BUDGET_MS ? config.query.timeBudgetMs : undefined,
  });
  await backend.init();
  const documents = [...generateRecords(recordCount, 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
  await ingestDocuments(backend, documents);
  const app = createApp({ config, backend, logger: createLogger('silent', 'test') });
  return {
    app,
    backend,
    config,
    close: async () => {
      await backend.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
