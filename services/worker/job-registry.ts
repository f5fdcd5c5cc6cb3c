/**
 * The one list of jobs the worker performs: one handler per queue, each typed by its own
 * payload (a handler registered under another queue's name does not compile).
 */
import { QUEUE_NAMES, type QueueName } from '../../shared/queue/job-payloads.js';
import type { CairnJob } from './cairn-job.js';
import { DeleteJob } from './jobs/delete-job.js';
import { HarvestJob } from './jobs/harvest-job.js';
import { IngestJob } from './jobs/ingest-job.js';
import { ReindexJob } from './jobs/reindex-job.js';

/** The handler of every queue, typed by that queue's payload. */
export type JobHandlers = { readonly [N in QueueName]: CairnJob<N> };

const JOB_HANDLERS: JobHandlers = {
  ingest: new IngestJob(),
  delete: new DeleteJob(),
  harvest: new HarvestJob(),
  reindex: new ReindexJob(),
};

/** Every registered job, in the order of the queue names. */
export function registeredJobs(): CairnJob[] {
  return QUEUE_NAMES.map((name) => JOB_HANDLERS[name]);
}
