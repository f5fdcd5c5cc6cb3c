/**
 * Builds the API app over a fresh SQLite file loaded with given documents (any format the
 * ingest pipeline reads), for system tests that need a known set of records — e.g. the OGC
 * CITE Dublin Core records — rather than generated ones.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import type { TestApp } from './test-app.js';

/** Reads every `.xml` / `.json` file of a folder as raw documents, by file name. */
export function readDocuments(directory: string): RawDocument[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.xml') || name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, content: readFileSync(join(directory, name), 'utf8') }));
}

/** Generated records (seed 7) as raw documents. */
export function generatedDocuments(count: number): RawDocument[] {
  return [...generateRecords(count, 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
}

/** Starts an app over exactly these documents; fails when any is rejected. */
export async function createCatalogueApp(
  documents: RawDocument[],
  environment: Record<string, string> = {},
): Promise<TestApp> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-catalogue-'));
  const path = join(directory, 'cairn.sqlite');
  const config = loadConfig({ LOG_LEVEL: 'silent', SQLITE_PATH: path, ...environment });
  const backend = new SqliteBackend({ path });
  await backend.init();
  const summary = await ingestDocuments(backend, documents);
  if (summary.rejected.length > 0) {
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`documents rejected: ${JSON.stringify(summary.rejected)}`);
  }
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
