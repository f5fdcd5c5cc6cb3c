/**
 * The one list of jobs the worker performs, by queue name.
 */
import type { QueueName } from '../../shared/queue/job-payloads.js';
import type { CairnJob } from './cairn-job.js';
import { DeleteJob } from './jobs/delete-job.js';
import { HarvestJob } from './jobs/harvest-job.js';
import { IngestJob } from './jobs/ingest-job.js';
import { ReindexJob } from './jobs/reindex-job.js';

/** Every registered job. */
export const JOBS: readonly CairnJob[] = [
  new IngestJob(),
  new DeleteJob(),
  new HarvestJob(),
  new ReindexJob(),
];

/** The registered jobs keyed by queue name. */
export function buildJobRegistry(jobs: readonly CairnJob[] = JOBS): Map<QueueName, CairnJob> {
  return new Map(jobs.map((job) => [job.name, job]));
}
