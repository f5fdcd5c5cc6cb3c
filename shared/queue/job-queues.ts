/**
 * The producer side: one BullMQ queue per job name, with the configured retry policy, and a
 * dead-letter store for bad records. The API enqueues through this; the worker performs.
 */
import { randomUUID } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { WorkerConfig } from '../config/index.js';
import { buildConnection } from './connection.js';
import { DeadLetterStore } from './dead-letter-store.js';
import { QUEUE_NAMES, type JobPayloads, type QueueName } from './job-payloads.js';

/** Job options every enqueue uses: retries with exponential backoff for infrastructure failures. */
export function buildJobOptions(config: WorkerConfig): JobsOptions {
  return {
    attempts: config.attempts,
    backoff: { type: 'exponential', delay: config.backoffMs },
    removeOnComplete: { count: 10000 },
    removeOnFail: { count: 10000 },
  };
}

/** The Redis key of the dead-letter store. */
export function deadLetterKey(config: WorkerConfig): string {
  return `${config.queuePrefix}:dead-letter`;
}

export class JobQueues {
  readonly queues: Record<QueueName, Queue>;
  readonly deadLetters: DeadLetterStore;
  private readonly redis: Redis;

  constructor(redisUrl: string, config: WorkerConfig) {
    const connection = buildConnection(redisUrl);
    this.queues = Object.fromEntries(
      QUEUE_NAMES.map((name) => [
        name,
        new Queue(name, {
          connection,
          prefix: config.queuePrefix,
          defaultJobOptions: buildJobOptions(config),
        }),
      ]),
    ) as Record<QueueName, Queue>;
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    this.deadLetters = new DeadLetterStore(this.redis, deadLetterKey(config));
  }

  /** Enqueues one job and returns its id (unique across queues; a repeated id is a no-op). */
  async enqueue<N extends QueueName>(
    name: N,
    payload: JobPayloads[N],
    options: { jobId?: string } = {},
  ): Promise<string> {
    const jobId = options.jobId ?? randomUUID();
    await this.queues[name].add(name, payload, { jobId });
    return jobId;
  }

  /** Empties every queue and the dead-letter list (tests and operators). */
  async obliterate(): Promise<void> {
    for (const queue of Object.values(this.queues)) await queue.obliterate({ force: true });
    await this.deadLetters.clear();
  }

  /** Closes the queues' connections. */
  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((queue) => queue.close()));
    this.redis.disconnect();
  }
}
