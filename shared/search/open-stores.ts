/**
 * The stores that go with a backend, chosen beside the backend itself (create-backend.ts) so that
 * nothing outside shared/search names a concrete backend's classes.
 *
 * Chooses the ingest log for a backend: the engine's ingest-log index when the backend is
 * Elasticsearch or OpenSearch (scaled mode: API and worker share it wherever they run), the
 * SQLite file WORKER_INGEST_LOG_PATH otherwise.
 */
import type { Config } from '../config/index.js';
import type { HarvestStore } from '../harvest/harvest-store.js';
import type { IngestLog } from '../ingest/ingest-log.js';
import type { SearchBackend } from './backend.js';
import { SqliteHarvestStore } from './sqlite/sqlite-harvest-store.js';
import { SqliteIngestLog } from './sqlite/sqlite-ingest-log.js';

/** Opens the ingest log that goes with `backend`. */
export function openIngestLog(config: Pick<Config, 'worker'>, backend: SearchBackend): IngestLog {
  if (backend.createIngestLog) return backend.createIngestLog();
  return new SqliteIngestLog(config.worker.ingestLogPath);
}

/**
 * The harvest store of embedded mode: SQLite tables in the ingest-log file. Scaled mode uses the
 * queue's Redis store instead (JobQueues.harvestStore()).
 */
export function openEmbeddedHarvestStore(ingestLogPath: string): HarvestStore {
  return new SqliteHarvestStore(ingestLogPath);
}

export { SqliteHarvestStore };
