/**
 * The producer side: one BullMQ queue per job name, with the configured retry policy, and a
 * dead-letter store for bad records. The API enqueues through this; the worker performs.
 *
 * The producer fails fast when Redis is down: its connection has no offline queue, and an
 * enqueue that finds it disconnected waits a moment for it, then throws a 503. A command in
 * flight when the connection drops is refused at once too, not resent on reconnection (which
 * would hold the request until Redis is back and then queue a write its client may have given
 * up on). A refused write is therefore never enqueued later behind the client's back, and
 * requests never hang.
 */
import { RedisExpiringStore } from '../auth/redis-session-store.js';
import type { HarvestStore } from '../harvest/harvest-store.js';
import { RedisHarvestStore } from '../harvest/redis-harvest-store.js';
import type { SessionStore } from '../auth/session-store.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Queue, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import {
  generationKey,
  RedisGeneration,
  type CatalogueGeneration,
} from '../search/catalogue-generation.js';
import type { WorkerConfig } from '../config/index.js';
import { ServiceUnavailableError } from '../errors/index.js';
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

/** Where the harvest sources and their ownership live in Redis (scaled mode). */
export function harvestKey(config: Pick<WorkerConfig, 'queuePrefix'>): string {
  return `${config.queuePrefix}:harvest`;
}

/** How long an enqueue or a health check waits for a disconnected Redis before giving up. */
const CONNECT_WAIT_MS = 2_000;
/** The first connection of a process may take longer on a busy machine; it is not an outage. */
const FIRST_CONNECT_WAIT_MS = 15_000;

/** Seconds a client should wait before retrying a write refused because the queue is down. */
const QUEUE_RETRY_AFTER_SECONDS = 5;

/** What the readiness endpoint reports about the queue. */
export interface QueueHealth {
  ok: boolean;
  detail?: string;
}

export class JobQueues {
  readonly queues: Record<QueueName, Queue>;
  readonly deadLetters: DeadLetterStore;
  private readonly redis: Redis;
  /** The queues' one connection, shared and without an offline queue (see above). */
  private readonly producer: Redis;
  /** Whether the producer has been connected once: later waits are for an outage. */
  private everReady = false;
  private readonly keyPrefix: string;

  constructor(redisUrl: string, config: WorkerConfig) {
    this.keyPrefix = config.queuePrefix;
    this.producer = new Redis({
      ...buildConnection(redisUrl),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Names the connection in CLIENT LIST, so operators (and tests) can tell whose it is.
      connectionName: `${config.queuePrefix.replace(/[^!-~]/g, '_')}:producer`,
    });
    this.producer.once('ready', () => (this.everReady = true));
    this.queues = Object.fromEntries(
      QUEUE_NAMES.map((name) => {
        const queue = new Queue(name, {
          connection: this.producer,
          prefix: config.queuePrefix,
          defaultJobOptions: buildJobOptions(config),
        });
        // Connection errors reach callers as 503s and /readyz; they are not logged per queue.
        queue.on('error', () => undefined);
        return [name, queue];
      }),
    ) as Record<QueueName, Queue>;
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    this.redis.on('error', () => undefined); // reconnects by itself; failures reach callers
    this.deadLetters = new DeadLetterStore(this.redis, deadLetterKey(config));
  }

  /**
   * A store with expiry on this Redis, under `<queue prefix>:<name>`, shared by every API
   * process of the deployment (the admin pages' sessions).
   */
  expiringStore<T>(name: string, maxEntries: number): SessionStore<T> {
    return new RedisExpiringStore<T>(this.redis, {
      prefix: `${this.keyPrefix}:${name}`,
      maxEntries,
    });
  }

  /**
   * A random 256-bit secret under `<queue prefix>:<name>`, made by the first process that asks
   * (SET NX) and read by every other: the admin pages' sign-in state key when
   * AUTH_WEB_STATE_SECRET is not set.
   */
  async sharedSecret(name: string): Promise<Buffer> {
    const key = `${this.keyPrefix}:${name}`;
    await this.redis.set(key, randomBytes(32).toString('base64'), 'NX');
    const value = await this.redis.get(key);
    if (!value) throw new ServiceUnavailableError('the shared secret could not be read');
    return Buffer.from(value, 'base64');
  }

  /**
   * The catalogue generation of the deployment, in this Redis under `<queue prefix>:generation`
   * (the workers advance the same key after their writes).
   */
  generation(): CatalogueGeneration {
    return new RedisGeneration(this.redis, generationKey(this.keyPrefix));
  }

  /** The harvest sources of the deployment, in this Redis (the worker reads the same keys). */
  harvestStore(): HarvestStore {
    return new RedisHarvestStore(this.redis, harvestKey({ queuePrefix: this.keyPrefix }));
  }

  /** Resolves once the producer's connection is ready; throws a 503 if it is not soon. */
  private async connected(): Promise<void> {
    if (this.producer.status === 'ready') return;
    const timeout = AbortSignal.timeout(this.everReady ? CONNECT_WAIT_MS : FIRST_CONNECT_WAIT_MS);
    try {
      await once(this.producer, 'ready', { signal: timeout });
    } catch (error) {
      throw new ServiceUnavailableError('The job queue is unavailable; try again shortly', {
        retryAfter: QUEUE_RETRY_AFTER_SECONDS,
        cause: error,
      });
    }
  }

  /** Whether Redis answers, for the readiness endpoint. */
  async health(): Promise<QueueHealth> {
    try {
      await this.connected();
      await this.producer.ping();
      return { ok: true };
    } catch {
      return { ok: false, detail: 'job queue unavailable' };
    }
  }

  /** Enqueues one job and returns its id (unique across queues; a repeated id is a no-op). */
  async enqueue<N extends QueueName>(
    name: N,
    payload: JobPayloads[N],
    options: { jobId?: string } = {},
  ): Promise<string> {
    const jobId = options.jobId ?? randomUUID();
    await this.connected();
    try {
      await this.queues[name].add(name, payload, { jobId });
    } catch (error) {
      throw new ServiceUnavailableError('The job queue is unavailable; try again shortly', {
        retryAfter: QUEUE_RETRY_AFTER_SECONDS,
        cause: error,
      });
    }
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
    this.producer.disconnect();
    this.redis.disconnect();
  }
}
