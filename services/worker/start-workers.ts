/**
 * Runs the registered jobs: one BullMQ Worker per queue, each job's outcome in the ingest log,
 * bad data unrecoverable, anything else retried with backoff, stalled jobs taken over.
 */
import {
  DelayedError,
  Queue,
  UnrecoverableError,
  Worker,
  type ConnectionOptions,
  type Job,
  type Processor,
} from 'bullmq';
import { Redis } from 'ioredis';
import type { AuthConfig, HarvestConfig, WorkerConfig } from '../../shared/config/index.js';
import { CairnError } from '../../shared/errors/index.js';
import type { IngestLog, IngestLogEntry } from '../../shared/ingest/ingest-log.js';
import type { Logger } from '../../shared/logging/index.js';
import type { WorkerMetrics } from '../../shared/metrics/worker-metrics.js';
import { buildConnection } from '../../shared/queue/connection.js';
import { DeadLetterStore } from '../../shared/queue/dead-letter-store.js';
import { deadLetterKey, harvestKey } from '../../shared/queue/job-queues.js';
import type { HarvestStore } from '../../shared/harvest/harvest-store.js';
import { RedisHarvestStore } from '../../shared/harvest/redis-harvest-store.js';
import {
  generationKey,
  RedisGeneration,
  withGenerationAdvance,
} from '../../shared/search/catalogue-generation.js';
import { HarvestInterruptedError } from '../../shared/harvest/run-deadlines.js';
import { SourceBusyError, SourceRunLock } from '../../shared/harvest/source-run-lock.js';
import type { JobPayloads, JobResult, QueueName } from '../../shared/queue/job-payloads.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { CairnJob, JobContext } from './cairn-job.js';
import { registeredJobs } from './job-registry.js';
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
  /**
   * Stops: harvests in flight end at once (and wait in the queue for another attempt), other
   * jobs may finish within WORKER_SHUTDOWN_TIMEOUT_MS, then the workers close regardless (a job
   * still running is taken over as stalled) and disconnect.
   */
  close(): Promise<void>;
}

/** How long a run of a source that is already running waits before it asks again. */
export const SOURCE_BUSY_DELAY_MS = 5_000;

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

/** What every job of the process shares: its dependencies and the stores it writes to. */
interface JobRunnerParts {
  dependencies: WorkerDependencies;
  deadLetters: DeadLetterStore;
  harvestStore: HarvestStore;
  sourceLock: SourceRunLock;
  unavailable: UnavailableBackoff;
  /** Aborted when the workers are closing. */
  stopping: AbortSignal;
}

/** One run of one job: its context and the ingest-log fields every outcome shares. */
interface JobRun {
  queue: QueueName;
  jobId: string;
  logger: Logger;
  context: JobContext;
  base: Pick<IngestLogEntry, 'jobId' | 'queue' | 'attempts' | 'startedAt' | 'requestedBy'>;
  started: number;
}

/** The time fields of an ingest-log entry for a run ending now. */
function finishedNow(run: JobRun): Pick<IngestLogEntry, 'finishedAt' | 'durationMs'> {
  return { finishedAt: new Date().toISOString(), durationMs: Date.now() - run.started };
}

/** Starts one run of a job: its logger, its context and what its log entries share. */
function startRun<N extends QueueName>(
  job: Job<JobPayloads[N], JobResult>,
  queue: N,
  parts: JobRunnerParts,
): JobRun {
  const { dependencies, deadLetters, harvestStore } = parts;
  const jobId = job.id ?? '';
  const logger = dependencies.logger.child({ queue, jobId, attempt: job.attemptsMade + 1 });
  const started = Date.now();
  const context: JobContext = {
    jobId,
    backend: dependencies.backend,
    config: dependencies.config,
    auth: dependencies.auth,
    harvest: dependencies.harvest,
    harvestStore,
    sourceLock: parts.sourceLock,
    signal: parts.stopping,
    logger,
    deadLetter: (letters) =>
      deadLetters.add(
        letters.map((letter) => ({ ...letter, jobId, queue, at: new Date().toISOString() })),
      ),
  };
  const base = {
    jobId,
    queue,
    attempts: job.attemptsMade + 1,
    startedAt: new Date(started).toISOString(),
    ...(job.data.requestedBy === undefined ? {} : { requestedBy: job.data.requestedBy }),
  };
  return { queue, jobId, logger, context, base, started };
}

/** Logs, counts and reports a completed run. */
async function recordCompleted(
  run: JobRun,
  result: JobResult,
  parts: JobRunnerParts,
): Promise<void> {
  await parts.dependencies.ingestLog.record({
    ...run.base,
    ...finishedNow(run),
    status: 'completed',
    read: result.read,
    written: result.written,
    deleted: result.deleted,
    rejected: result.rejected,
    failures: result.records
      .filter((record) => record.status === 'rejected')
      .map((record) => ({ name: record.name, reason: record.reason ?? 'rejected' })),
  });
  parts.dependencies.metrics?.recordJob(
    run.queue,
    'completed',
    (Date.now() - run.started) / 1000,
    result,
  );
  run.logger.info('job completed', { written: result.written, rejected: result.rejected });
  parts.unavailable.reset();
}

/**
 * Logs, counts and reports a failed run, dead-letters it when the failure is final (bad data),
 * and returns what the processor throws: the error itself (BullMQ retries it or gives up), or
 * a DelayedError once the job is moved back to wait out an unavailable dependency.
 */
async function recordFailed<N extends QueueName>(
  run: JobRun,
  job: Job<JobPayloads[N], JobResult>,
  caught: unknown,
  token: string | undefined,
  parts: JobRunnerParts,
): Promise<unknown> {
  // Not failures: a run of the same source is in progress, or this worker is stopping. The
  // job waits in the queue (no slot held, no attempt spent) and is taken up again later.
  if (
    token !== undefined &&
    (caught instanceof SourceBusyError || caught instanceof HarvestInterruptedError)
  ) {
    const busy = caught instanceof SourceBusyError;
    run.logger.info(busy ? 'job waits for a run of the same source' : 'job interrupted', {
      reason: caught.message,
    });
    await job.moveToDelayed(Date.now() + (busy ? SOURCE_BUSY_DELAY_MS : 0), token);
    return new DelayedError();
  }
  const error = classifyJobError(caught);
  // An unavailable dependency is waited out (see unavailable-backoff.ts), never final.
  const postpone = isUnavailableError(error) && token !== undefined;
  const final =
    !postpone &&
    (error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
  const reason = describeError(error);
  await parts.dependencies.ingestLog
    .record({
      ...run.base,
      ...finishedNow(run),
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
    await parts.deadLetters.add([
      {
        jobId: run.jobId,
        queue: run.queue,
        name: 'job',
        reason,
        payload: job.data,
        at: new Date().toISOString(),
      },
    ]);
  parts.dependencies.metrics?.recordJob(
    run.queue,
    final ? 'failed' : 'retrying',
    (Date.now() - run.started) / 1000,
  );
  run.logger.warn(final ? 'job failed' : 'job will be retried', { reason });
  if (!postpone) return error;
  await job.moveToDelayed(Date.now() + parts.unavailable.next(), token);
  return new DelayedError();
}

/**
 * The BullMQ processor of one job: its payload type is the job's own (JobPayloads[N]); the
 * outcome goes to the ingest log, the metrics and, when final, the dead letters.
 */
function buildProcessor<N extends QueueName>(
  cairnJob: CairnJob<N>,
  parts: JobRunnerParts,
): Processor<JobPayloads[N], JobResult> {
  return async (job, token) => {
    const run = startRun(job, cairnJob.name, parts);
    try {
      const result = await cairnJob.perform(job.data, run.context);
      await recordCompleted(run, result, parts);
      return result;
    } catch (caught) {
      throw await recordFailed(run, job, caught, token, parts);
    }
  };
}

/** A BullMQ Worker performing one registered job. */
function startWorker<N extends QueueName>(
  cairnJob: CairnJob<N>,
  parts: JobRunnerParts,
  connection: ConnectionOptions,
): Worker<JobPayloads[N], JobResult> {
  const { config } = parts.dependencies;
  return new Worker<JobPayloads[N], JobResult>(cairnJob.name, buildProcessor(cairnJob, parts), {
    connection,
    prefix: config.queuePrefix,
    concurrency: Math.min(config.concurrency, cairnJob.globalConcurrency ?? config.concurrency),
    stalledInterval: config.stalledIntervalMs,
    lockDuration: config.lockDurationMs,
    maxStalledCount: config.attempts,
  });
}

/** Starts a worker for every registered job. */
export function startWorkers(dependencies: WorkerDependencies): RunningWorkers {
  const { redisUrl, config, logger, metrics } = dependencies;
  const jobs = dependencies.jobs ?? registeredJobs();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  // It reconnects by itself; the workers' 'error' events below log a Redis outage once each.
  redis.on('error', () => undefined);
  const stopping = new AbortController();
  // Every write a job makes advances the catalogue generation once it returns, before the job
  // completes: the API processes' result caches then answer no older than it.
  const backend = withGenerationAdvance(
    dependencies.backend,
    new RedisGeneration(redis, generationKey(config.queuePrefix)),
  );
  const parts: JobRunnerParts = {
    dependencies: { ...dependencies, backend },
    deadLetters: new DeadLetterStore(redis, deadLetterKey(config)),
    harvestStore: new RedisHarvestStore(redis, harvestKey(config)),
    sourceLock: new SourceRunLock(redis, harvestKey(config)),
    unavailable: new UnavailableBackoff(config.backoffMs),
    stopping: stopping.signal,
  };
  const connection = buildConnection(redisUrl);

  const workers: Worker[] = jobs.map((job) => startWorker(job, parts, connection));
  for (const worker of workers)
    worker.on('error', (error) => logger.error('worker error', { error: error.message }));

  // The producer side of the same queues: their depth for the metrics, and the limits that
  // hold across every worker process (a reindex at a time).
  const queues = jobs.map((job) => {
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
      stopping.abort(new HarvestInterruptedError());
      const closed = Promise.all(workers.map((worker) => worker.close()));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), config.shutdownTimeoutMs);
      });
      if ((await Promise.race([closed, late])) === 'late') {
        logger.warn('jobs still running at the shutdown deadline; closing without them', {
          shutdownTimeoutMs: config.shutdownTimeoutMs,
        });
        await Promise.all(workers.map((worker) => worker.close(true)));
      }
      clearTimeout(timer);
      await Promise.all(queues.map((queue) => queue.close()));
      redis.disconnect();
    },
  };
}
