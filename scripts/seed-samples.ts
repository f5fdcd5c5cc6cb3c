/**
 * Loads generated sample records into an empty embedded database, so `npm start` shows a
 * working catalogue at once. Does nothing when the database has records, when
 * SAMPLE_RECORDS=0, or when a search engine is configured.
 */
import { loadConfig } from '../shared/config/index.js';
import { ingestDocuments } from '../shared/ingest/pipeline.js';
import { createBackend } from '../shared/search/create-backend.js';
import { withDeploymentGeneration } from '../shared/search/catalogue-generation.js';
import { generateRecords } from './corpus/generator.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.search.kind !== 'sqlite' || config.sampleRecords === 0) return;
  const backend = withDeploymentGeneration(await createBackend(config), config);
  try {
    const health = await backend.health();
    if ((health.records ?? 0) > 0) {
      console.log(
        `sample records not loaded: ${config.search.path} already holds ${health.records} records`,
      );
      return;
    }
    const documents = [...generateRecords(config.sampleRecords)].map((record, index) => ({
      name: `sample ${index}`,
      content: JSON.stringify(record),
    }));
    const summary = await ingestDocuments(backend, documents);
    console.log(`loaded ${summary.written} sample records into ${config.search.path}`);
  } finally {
    await backend.close();
  }
}

main().catch((error: unknown) => {
  console.error('sample loading failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
