/**
 * The shape of every worker job: a class with a queue name, default options and
 * `perform(payload, context)`, registered in one list (job-registry.ts).
 */
import type { JobsOptions } from 'bullmq';
import type { AuthConfig, HarvestConfig, WorkerConfig } from '../../shared/config/index.js';
import type { HarvestStore } from '../../shared/harvest/harvest-store.js';
import type { SourceRunLock } from '../../shared/harvest/source-run-lock.js';
import type { Logger } from '../../shared/logging/index.js';
import type { DeadLetter } from '../../shared/queue/dead-letter-store.js';
import type { JobPayloads, JobResult, QueueName } from '../../shared/queue/job-payloads.js';
import type { SearchBackend } from '../../shared/search/backend.js';

/** What a job may use while it runs. */
export interface JobContext {
  jobId: string;
  backend: SearchBackend;
  config: WorkerConfig;
  /** The identity provider, for jobs that call protected sources (harvest); absent: none. */
  auth?: AuthConfig | undefined;
  /** Which addresses harvest sources may be at, and their limits; absent: the defaults. */
  harvest?: HarvestConfig | undefined;
  logger: Logger;
  /** The deployment's harvest sources and their ownership (Redis). */
  harvestStore: HarvestStore;
  /** One run per source across the workers (Redis); absent: no such limit. */
  sourceLock?: SourceRunLock | undefined;
  /** Aborted when the worker is shutting down: long jobs (harvests) stop at once. */
  signal?: AbortSignal | undefined;
  /** Keeps bad records (never retried) with their payload and reason. */
  deadLetter(letters: Omit<DeadLetter, 'jobId' | 'queue' | 'at'>[]): Promise<void>;
}

export abstract class CairnJob<N extends QueueName = QueueName> {
  abstract readonly name: N;
  /** Options this job's enqueues use unless the producer says otherwise. */
  readonly defaultOptions: JobsOptions = {};
  /** At most this many jobs of this queue run at once across every worker (unset: no limit). */
  readonly globalConcurrency?: number;
  /**
   * Performs the job. Throws UnrecoverableError for bad input (never retried); any other error
   * is an infrastructure failure and the job is retried with backoff. Must be idempotent: a
   * job performed twice leaves the same state.
   */
  abstract perform(payload: JobPayloads[N], context: JobContext): Promise<JobResult>;
}

/** An empty job result. */
export function emptyJobResult(): JobResult {
  return { read: 0, written: 0, deleted: 0, rejected: 0, records: [] };
}
