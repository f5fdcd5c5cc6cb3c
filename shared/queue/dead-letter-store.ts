/**
 * The dead-letter store: records the worker could not use (bad data, never retried), kept in a
 * Redis hash with their full payload and the reason. Keyed by queue, job and record, so a job
 * performed twice (a redelivery after a crash) keeps one entry per bad record.
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

export class DeadLetterStore {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  /** Keeps dead letters; the same record of the same job is stored once. */
  async add(letters: DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    const fields = letters.flatMap((letter) => [
      `${letter.queue}:${letter.jobId}:${letter.name}`,
      JSON.stringify(letter),
    ]);
    await this.redis.hset(this.key, ...fields);
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
    await this.redis.del(this.key);
  }
}
