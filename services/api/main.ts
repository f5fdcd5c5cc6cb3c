/**
 * The API process: loads configuration, opens the backend, the ingest log and (with REDIS_URL)
 * the job queues, listens, and on SIGTERM/SIGINT stops accepting requests, lets those in
 * flight finish, then closes the queues, the ingest log and the backend.
 */
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics } from 'prom-client';
import { ConfigError, loadConfig } from '../../shared/config/index.js';
import { openIngestLog } from '../../shared/search/open-stores.js';
import { createLogger } from '../../shared/logging/index.js';
import { ApiMetrics } from '../../shared/metrics/api-metrics.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { createBackendWhenAvailable } from '../../shared/search/create-backend.js';
import { createApp } from './app.js';
import { createHttpServer } from './http-server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'cairn-api');
  const backend = await createBackendWhenAvailable(config, (error, retryInMs) =>
    logger.warn('search backend unavailable at start-up; waiting for it', {
      error: error.message,
      retryInMs,
    }),
  );
  const queue = config.redisUrl ? new JobQueues(config.redisUrl, config.worker) : undefined;
  const ingestLog = openIngestLog(config, backend);
  const metrics = config.metrics.enabled ? new ApiMetrics() : undefined;
  if (metrics) collectDefaultMetrics({ register: metrics.registry });
  const app = createApp({ config, backend, logger, queue, ingestLog, metrics });
  const server = createHttpServer(app, config);
  server.listen(config.port, config.host, () => {
    // The bound port (PORT=0 picks a free one).
    const { port } = server.address() as AddressInfo;
    logger.info('listening', {
      url: `http://${config.host}:${port}/catalogue`,
      backend: backend.kind,
    });
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    server.close(() => {
      const close = async (): Promise<void> => {
        await queue?.close();
        await ingestLog.close();
        await backend.close();
      };
      close().then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error('shutdown failed', { error: (error as Error).message });
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('Cairn API failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
