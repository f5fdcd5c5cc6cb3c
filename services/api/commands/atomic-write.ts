/**
 * Writes applied as one unit (CSW-T Transaction): by the backend at once in embedded mode, as
 * one atomic ingest job the caller waits for in scaled mode. Refused writes leave the catalogue
 * as it was; the caller turns the errors into its protocol's exceptions.
 */
import { QueueEvents } from 'bullmq';
import { CairnError } from '../../../shared/errors/index.js';
import { buildConnection } from '../../../shared/queue/connection.js';
import { ATOMIC_REFUSAL, type JobResult } from '../../../shared/queue/job-payloads.js';
import type { AtomicChanges } from '../../../shared/search/backend.js';
import type { CommandContext } from './context.js';

/** How long a scaled-mode atomic write waits for its job before giving up. */
const JOB_WAIT_MS = 60_000;

/**
 * The catalogue refused the write, nothing was written (400). `by` says who refused: the
 * backend at once (embedded mode) or the ingest job (scaled mode); `reason` is their message.
 */
export class AtomicWriteRefusedError extends CairnError {
  constructor(
    readonly by: 'backend' | 'job',
    readonly reason: string,
  ) {
    super('WRITE_REFUSED', 400, `the write was refused, nothing was written: ${reason}`, true);
  }
}

/** The ingest job of an atomic write did not complete in time, or failed (503). */
export class AtomicWriteIncompleteError extends CairnError {
  constructor(
    readonly jobId: string,
    readonly reason: string,
  ) {
    super('JOB_INCOMPLETE', 503, `the ingest job ${jobId} did not complete: ${reason}`, true);
  }
}

/** Enqueues one atomic ingest job and waits for its result (scaled mode). */
async function performIngestJob(
  context: CommandContext,
  changes: AtomicChanges,
  requestedBy: string | undefined,
): Promise<JobResult> {
  const { config } = context;
  const queue = context.queue();
  if (!queue || !config.redisUrl) throw new Error('scaled mode without REDIS_URL');
  const events = new QueueEvents('ingest', {
    connection: buildConnection(config.redisUrl),
    prefix: config.worker.queuePrefix,
  });
  try {
    await events.waitUntilReady();
    const jobId = await queue.enqueue('ingest', {
      documents: changes.upsert.map((record) => ({
        name: record.id,
        content: record.source.content,
        format: record.source.format,
      })),
      atomic: { deleteIds: changes.delete },
      ...(requestedBy === undefined ? {} : { requestedBy }),
    });
    const job = await queue.queues.ingest.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} vanished`);
    try {
      return (await job.waitUntilFinished(events, JOB_WAIT_MS)) as JobResult;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (reason.startsWith(ATOMIC_REFUSAL)) throw new AtomicWriteRefusedError('job', reason);
      throw new AtomicWriteIncompleteError(jobId, reason);
    }
  } finally {
    await events.close();
  }
}

/** Applies the changes as one unit; nothing to change is nothing done. */
export async function applyAtomically(
  context: CommandContext,
  changes: AtomicChanges,
  requestedBy: string | undefined,
): Promise<void> {
  if (changes.upsert.length === 0 && changes.delete.length === 0) return;
  if (context.queue()) {
    await performIngestJob(context, changes, requestedBy);
    return;
  }
  try {
    await context.backend.applyAtomically(changes);
  } catch (error) {
    if (error instanceof CairnError && error.expose && error.status < 500)
      throw new AtomicWriteRefusedError('backend', error.message);
    throw error;
  }
}
