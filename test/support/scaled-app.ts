/**
 * The API of scaled mode as the system suites run it: a real Redis queue, workers in this
 * process and an ingest log file, over the backend a suite gives. `close()` stops the workers,
 * empties the suite's queues (its prefix is its own) and closes everything it opened.
 */
import type { Express } from 'express';
import { createApp } from '../../services/api/app.js';
import { startWorkers } from '../../services/worker/start-workers.js';
import type { Config } from '../../shared/config/index.js';
import { createLogger } from '../../shared/logging/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';

export interface ScaledApp {
  app: Express;
  queue: JobQueues;
  ingestLog: SqliteIngestLog;
  close(): Promise<void>;
}

/** Starts the API and its workers; `config` must name REDIS_URL and a WORKER_QUEUE_PREFIX. */
export function startScaledApp(config: Config, backend: SearchBackend): ScaledApp {
  if (!config.redisUrl) throw new Error('a scaled app needs REDIS_URL in its configuration');
  const logger = createLogger('silent', 'test');
  const ingestLog = new SqliteIngestLog(config.worker.ingestLogPath);
  const queue = new JobQueues(config.redisUrl, config.worker);
  const app = createApp({ config, backend, logger, queue, ingestLog });
  const workers = startWorkers({
    redisUrl: config.redisUrl,
    config: config.worker,
    backend,
    logger,
    ingestLog,
    auth: config.auth,
    harvest: config.harvest,
  });
  return {
    app,
    queue,
    ingestLog,
    close: async () => {
      await workers.close();
      await queue.obliterate();
      await queue.close();
      await ingestLog.close();
    },
  };
}
