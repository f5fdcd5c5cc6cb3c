/**
 * The worker process: performs queued jobs until SIGTERM/SIGINT, then finishes (or releases)
 * its in-flight jobs and exits. Needs REDIS_URL. Serves Prometheus /metrics on
 * WORKER_METRICS_HOST:WORKER_METRICS_PORT (loopback by default; port 0 turns it off).
 * A configuration error (or no REDIS_URL) prints what is wrong, without a stack, and exits 1.
 */
import { collectDefaultMetrics } from 'prom-client';
import { ConfigError, describeStartupFailure, loadConfig } from '../../shared/config/index.js';
import { openIngestLog } from '../../shared/search/open-stores.js';
import { createLogger } from '../../shared/logging/index.js';
import { serveMetrics, type MetricsServer } from '../../shared/metrics/metrics-server.js';
import { WorkerMetrics } from '../../shared/metrics/worker-metrics.js';
import { createBackendWhenAvailable } from '../../shared/search/create-backend.js';
import { startWorkers } from './start-workers.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl)
    throw new ConfigError(['REDIS_URL is not set: the worker needs a queue (redis://host:port)']);
  const logger = createLogger(config.logLevel, 'worker');
  // The worker only writes: a SQLite catalogue gets no read threads here.
  const search =
    config.search.kind === 'sqlite' ? { ...config.search, readWorkers: 0 } : config.search;
  const backend = await createBackendWhenAvailable({ ...config, search }, (error, retryInMs) =>
    logger.warn('search backend unavailable at start-up; waiting for it', {
      error: error.message,
      retryInMs,
    }),
  );
  const ingestLog = openIngestLog(config, backend);
  const metrics = new WorkerMetrics();
  collectDefaultMetrics({ register: metrics.registry });
  const running = startWorkers({
    redisUrl: config.redisUrl,
    config: config.worker,
    backend,
    logger,
    ingestLog,
    auth: config.auth,
    harvest: config.harvest,
    metrics,
  });
  // A port already taken (a second worker on the host) costs the metrics, never the jobs.
  const metricsServer: MetricsServer | undefined =
    config.worker.metricsPort === 0
      ? undefined
      : await serveMetrics(metrics.registry, {
          host: config.worker.metricsHost,
          port: config.worker.metricsPort,
        }).catch((error: Error) => {
          logger.error('worker metrics not served', { error: error.message });
          return undefined;
        });
  logger.info('worker started', {
    concurrency: config.worker.concurrency,
    metrics: metricsServer?.url,
  });

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info('worker stopping', { signal });
    await running.close();
    await metricsServer?.close();
    await ingestLog.close();
    await backend.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(describeStartupFailure('Cairn worker', error));
  process.exit(1);
});
