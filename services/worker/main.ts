/**
 * The worker process: performs queued jobs until SIGTERM/SIGINT, then finishes (or releases)
 * its in-flight jobs and exits. Needs REDIS_URL.
 */
import { loadConfig } from '../../shared/config/index.js';
import { openIngestLog } from '../../shared/ingest/open-ingest-log.js';
import { createLogger } from '../../shared/logging/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { startWorkers } from './start-workers.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'worker');
if (!config.redisUrl) {
  logger.error('REDIS_URL is not set: the worker needs a queue');
  process.exit(1);
}
const backend = await createBackend(config);
const ingestLog = openIngestLog(config, backend);
const running = startWorkers({
  redisUrl: config.redisUrl,
  config: config.worker,
  backend,
  logger,
  ingestLog,
  auth: config.auth,
});
logger.info('worker started', { concurrency: config.worker.concurrency });

let stopping = false;
const stop = async (signal: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  await running.close();
  await ingestLog.close();
  await backend.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
