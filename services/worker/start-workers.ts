/**
 * Runs the registered jobs: one BullMQ Worker per queue, each job's outcome in the ingest log,
 * bad data unrecoverable, anything else retried with backoff, stalled jobs taken over.
 */
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { AuthConfig, HarvestConfig, WorkerConfig } from '../../shared/config/index.js';
import { CairnError } from '../../shared/errors/index.js';
import type { IngestLog, IngestLogEntry } from '../../shared/ingest/ingest-log.js';
import type { Logger } from '../../shared/logging/index.js';
import type { WorkerMetrics } from '../../shared/metrics/worker-metrics.js';
import { buildConnection } from '../../shared/queue/connection.js';
import { DeadLetterStore } from '../../shared/queue/dead-letter-store.js';
import { deadLetterKey, harvestKey } from '../../shared/queue/job-queues.js';
import { RedisHarvestStore } from '../../shared/harvest/redis-harvest-store.js';
import type { JobResult, QueueName } from '../../shared/queue/job-payloads.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { CairnJob, JobContext } from './cairn-job.js';
import { buildJobRegistry } from './job-registry.js';
import { isUnavailableError, UnavailableBackoff } from './unavailable-backoff.js';

export interface WorkerDependencies {
  redisUrl: string;
  config: WorkerConfig;
  backend: SearchBackend;
  logger: Logger;
  ingestLog: IngestLog;
  /** The identity provider, for harvesting protected sources. */
  auth?: AuthConfig;
  /** Where harvest sources may be, and their limits; absent: public addresses only. */
  harvest?: HarvestConfig;
  jobs?: readonly CairnJob[];
  /** Jobs, records and durations are counted here, and the queues' depth reported. */
  metrics?: WorkerMetrics;
}

export interface RunningWorkers {
  workers: Worker[];
  /** Finishes in-flight jobs (or releases them to be taken over) and disconnects. */
  close(): Promise<void>;
}

/** Turns bad-input project errors into BullMQ's UnrecoverableError; leaves the rest retryable. */
export function classifyJobError(error: unknown): unknown {
  if (error instanceof UnrecoverableError) return error;
  if (error instanceof CairnError && error.status >= 400 && error.status < 500)
    return new UnrecoverableError(error.message);
  return error;
}

function describeError(error: unknown): string {
  if (error instanceof CairnError && !error.expose) return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** Starts a worker for every registered job. */
export function startWorkers(dependencies: WorkerDependencies): RunningWorkers {
  const { redisUrl, config, backend, logger, ingestLog, metrics } = dependencies;
  const registry = buildJobRegistry(dependencies.jobs);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  // It reconnects by itself; the workers' 'error' events below log a Redis outage once each.
  redis.on('error', () => undefined);
  const deadLetters = new DeadLetterStore(redis, deadLetterKey(config));
  const harvestStore = new RedisHarvestStore(redis, harvestKey(config));
  const connection = buildConnection(redisUrl);

  const unavailable = new UnavailableBackoff(config.backoffMs);

  const perform = async (job: Job, token?: string): Promise<JobResult> => {
    const queue = job.queueName as QueueName;
    const cairnJob = registry.get(queue);
    const jobId = job.id ?? '';
    const jobLogger = logger.child({ queue, jobId, attempt: job.attemptsMade + 1 });
    const context: JobContext = {
      jobId,
      backend,
      config,
      auth: dependencies.auth,
      harvest: dependencies.harvest,
      harvestStore,
      logger: jobLogger,
      deadLetter: (letters) =>
        deadLetters.add(
          letters.map((letter) => ({ ...letter, jobId, queue, at: new Date().toISOString() })),
        ),
    };
    const started = new Date();
    const base = {
      jobId,
      queue,
      attempts: job.attemptsMade + 1,
      startedAt: started.toISOString(),
      requestedBy: (job.data as { requestedBy?: string }).requestedBy,
    };
    const finish = (): Pick<IngestLogEntry, 'finishedAt' | 'durationMs'> => ({
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started.getTime(),
    });
    try {
      if (!cairnJob) throw new UnrecoverableError(`no job is registered for queue "${queue}"`);
      const result = await cairnJob.perform(job.data as never, context);
      await ingestLog.record({
        ...base,
        ...finish(),
        status: 'completed',
        read: result.read,
        written: result.written,
        deleted: result.deleted,
        rejected: result.rejected,
        failures: result.records
          .filter((record) => record.status === 'rejected')
          .map((record) => ({ name: record.name, reason: record.reason ?? 'rejected' })),
      });
      metrics?.recordJob(queue, 'completed', (Date.now() - started.getTime()) / 1000, result);
      jobLogger.info('job completed', { written: result.written, rejected: result.rejected });
      unavailable.reset();
      return result;
    } catch (caught) {
      const error = classifyJobError(caught);
      // An unavailable dependency is waited out (see unavailable-backoff.ts), never final.
      const postpone = isUnavailableError(error) && token !== undefined;
      const final =
        !postpone &&
        (error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
      const reason = describeError(error);
      await ingestLog
        .record({
          ...base,
          ...finish(),
          status: final ? 'failed' : 'retrying',
          read: 0,
          written: 0,
          deleted: 0,
          rejected: 0,
          error: reason,
          failures: [{ name: 'job', reason }],
        })
        .catch(() => undefined);
      if (final && error instanceof UnrecoverableError)
        await deadLetters.add([
          { jobId, queue, name: 'job', reason, payload: job.data, at: new Date().toISOString() },
        ]);
      metrics?.recordJob(
        queue,
        final ? 'failed' : 'retrying',
        (Date.now() - started.getTime()) / 1000,
      );
      jobLogger.warn(final ? 'job failed' : 'job will be retried', { reason });
      if (postpone) {
        await job.moveToDelayed(Date.now() + unavailable.next(), token);
        throw new DelayedError();
      }
      throw error;
    }
  };

  const workers = [...registry.values()].map(
    (job) =>
      new Worker(job.name, perform, {
        connection,
        prefix: config.queuePrefix,
        concurrency: Math.min(config.concurrency, job.globalConcurrency ?? config.concurrency),
        stalledInterval: config.stalledIntervalMs,
        lockDuration: config.lockDurationMs,
        maxStalledCount: config.attempts,
      }),
  );
  for (const worker of workers)
    worker.on('error', (error) => logger.error('worker error', { error: error.message }));

  // The producer side of the same queues: their depth for the metrics, and the limits that
  // hold across every worker process (a reindex at a time).
  const queues = [...registry.values()].map((job) => {
    const queue = new Queue(job.name, { connection, prefix: config.queuePrefix });
    queue.on('error', (error) => logger.error('queue error', { error: error.message }));
    if (job.globalConcurrency !== undefined)
      queue.setGlobalConcurrency(job.globalConcurrency).catch((error: Error) =>
        logger.error('could not set the global concurrency', {
          queue: job.name,
          error: error.message,
        }),
      );
    return queue;
  });
  metrics?.watchQueues(queues);

  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(queues.map((queue) => queue.close()));
      redis.disconnect();
    },
  };
}
