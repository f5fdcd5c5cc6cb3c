/**
 * Chooses the ingest log for a backend: the engine's ingest-log index when the backend is
 * Elasticsearch or OpenSearch (scaled mode: API and worker share it wherever they run), the
 * SQLite file WORKER_INGEST_LOG_PATH otherwise.
 */
import type { Config } from '../config/index.js';
import type { SearchBackend } from '../search/backend.js';
import { SqliteIngestLog } from '../search/sqlite/sqlite-ingest-log.js';
import type { IngestLog } from './ingest-log.js';

/** Opens the ingest log that goes with `backend`. */
export function openIngestLog(config: Pick<Config, 'worker'>, backend: SearchBackend): IngestLog {
  if (backend.createIngestLog) return backend.createIngestLog();
  return new SqliteIngestLog(config.worker.ingestLogPath);
}
