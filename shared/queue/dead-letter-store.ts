/**
 * The dead-letter store: records the worker could not use (bad data, never retried), kept in a
 * Redis hash with their full payload and the reason. Keyed by queue, job and record, so a job
 * performed twice (a redelivery after a crash) keeps one entry per bad record. A sorted set
 * beside the hash orders the keys by time, so pages are read without loading every letter.
 */
import type { Redis } from 'ioredis';
import type { QueueName } from './job-payloads.js';

/** A record the worker could not use, with its payload as enqueued and the reason. */
export interface DeadLetter {
  jobId: string;
  queue: QueueName;
  /** The record's id or its label in the document. */
  name: string;
  reason: string;
  /** The raw document (ingest, harvest) or the id (delete) as it was enqueued. */
  payload: unknown;
  at: string;
}

/** A kept dead letter with the id that reads it back (`queue:jobId:name`). */
export type StoredDeadLetter = DeadLetter & { id: string };

/** One page of dead letters, newest first. */
export interface DeadLetterPage {
  total: number;
  letters: StoredDeadLetter[];
}

/** The id of a dead letter: one per record of a job. */
export function deadLetterId(letter: Pick<DeadLetter, 'queue' | 'jobId' | 'name'>): string {
  return `${letter.queue}:${letter.jobId}:${letter.name}`;
}

export class DeadLetterStore {
  /** The sorted set of ids by time (milliseconds). */
  private readonly orderKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {
    this.orderKey = `${key}:order`;
  }

  /** Keeps dead letters; the same record of the same job is stored once. */
  async add(letters: DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    const fields = letters.flatMap((letter) => [deadLetterId(letter), JSON.stringify(letter)]);
    const order = letters.flatMap((letter) => [Date.parse(letter.at) || 0, deadLetterId(letter)]);
    await this.redis
      .multi()
      .hset(this.key, ...fields)
      .zadd(this.orderKey, ...order)
      .exec();
  }

  /** A page of dead letters, newest first (letters of the same millisecond in reverse id order). */
  async page(options: { limit: number; offset: number }): Promise<DeadLetterPage> {
    const total = await this.redis.zcard(this.orderKey);
    if (options.limit === 0 || options.offset >= total) return { total, letters: [] };
    const ids = await this.redis.zrevrange(
      this.orderKey,
      options.offset,
      options.offset + options.limit - 1,
    );
    const values = ids.length > 0 ? await this.redis.hmget(this.key, ...ids) : [];
    const letters = ids.flatMap((id, index) => {
      const value = values[index];
      return value ? [{ ...(JSON.parse(value) as DeadLetter), id }] : [];
    });
    return { total, letters };
  }

  /** One dead letter with its full payload, or null. */
  async get(id: string): Promise<StoredDeadLetter | null> {
    const value = await this.redis.hget(this.key, id);
    return value ? { ...(JSON.parse(value) as DeadLetter), id } : null;
  }

  /** Every dead letter, oldest first; of one job when `jobId` is given. */
  async list(filter: { queue?: QueueName; jobId?: string } = {}): Promise<DeadLetter[]> {
    const all = Object.values(await this.redis.hgetall(this.key)).map(
      (value) => JSON.parse(value) as DeadLetter,
    );
    return all
      .filter((letter) => !filter.queue || letter.queue === filter.queue)
      .filter((letter) => !filter.jobId || letter.jobId === filter.jobId)
      .sort((a, b) => a.at.localeCompare(b.at) || a.name.localeCompare(b.name));
  }

  /** How many dead letters are kept. */
  async count(): Promise<number> {
    return this.redis.hlen(this.key);
  }

  /** Drops every dead letter. */
  async clear(): Promise<void> {
    await this.redis.del(this.key, this.orderKey);
  }
}
