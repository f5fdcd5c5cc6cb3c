/**
 * Following jobs to their end from outside the worker (the enqueue CLI): BullMQ queue events
 * say when a job completes or finally fails; jobs that had already ended are read from the
 * queue once the listener is ready, so no ending is missed in between.
 */
import { QueueEvents, type Queue } from 'bullmq';
import { buildConnection } from './connection.js';
import type { JobResult } from './job-payloads.js';

/** How one followed job ended. */
export type JobEnding =
  | { jobId: string; state: 'completed'; result: JobResult }
  | { jobId: string; state: 'failed'; reason: string };

/** Follows jobs of one queue until each has ended. */
export class JobFollower {
  private readonly events: QueueEvents;
  private readonly waiting = new Map<string, (ending: JobEnding) => void>();
  private readonly ended = new Map<string, JobEnding>();

  /** `redisUrl` gives the listener a connection of its own (it blocks while waiting). */
  constructor(
    private readonly queue: Queue,
    redisUrl: string,
  ) {
    this.events = new QueueEvents(queue.name, {
      connection: buildConnection(redisUrl),
      ...(queue.opts.prefix === undefined ? {} : { prefix: queue.opts.prefix }),
    });
    this.events.on('completed', ({ jobId, returnvalue }) => {
      const result = (
        typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue
      ) as JobResult;
      this.settle({ jobId, state: 'completed', result });
    });
    // Emitted only when a job has failed for good (retries are not failures).
    this.events.on('failed', ({ jobId, failedReason }) =>
      this.settle({ jobId, state: 'failed', reason: failedReason }),
    );
  }

  /** Resolves once the event listener is connected: start it before enqueueing. */
  async ready(): Promise<void> {
    await this.events.waitUntilReady();
  }

  private settle(ending: JobEnding): void {
    this.ended.set(ending.jobId, ending);
    this.waiting.get(ending.jobId)?.(ending);
    this.waiting.delete(ending.jobId);
  }

  /** Waits for the end of one job (null when the queue does not hold it). */
  async follow(jobId: string): Promise<JobEnding | null> {
    const known = this.ended.get(jobId);
    if (known) return known;
    const ending = new Promise<JobEnding>((resolve) => this.waiting.set(jobId, resolve));
    const job = await this.queue.getJob(jobId);
    if (!job) {
      this.waiting.delete(jobId);
      return null;
    }
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') {
      // Read the job again: the copy above may have been read before it ended, without its
      // result (the CLI once read a null result of a job that ended in between).
      const ended = (await this.queue.getJob(jobId)) ?? job;
      if (state === 'completed') {
        this.settle({ jobId, state, result: ended.returnvalue as JobResult });
      } else {
        this.settle({ jobId, state, reason: ended.failedReason });
      }
    }
    return ending;
  }

  async close(): Promise<void> {
    await this.events.close();
  }
}
