/**
 * The one list of jobs the worker performs, by queue name.
 */
import type { QueueName } from '../../shared/queue/job-payloads.js';
import type { CairnJob } from './cairn-job.js';
import { DeleteJob } from './jobs/delete-job.js';
import { HarvestJob } from './jobs/harvest-job.js';
import { IngestJob } from './jobs/ingest-job.js';

/** Every registered job. `reindex` has a queue and a payload type but no job yet. */
export const JOBS: readonly CairnJob[] = [new IngestJob(), new DeleteJob(), new HarvestJob()];

/** The registered jobs keyed by queue name. */
export function buildJobRegistry(jobs: readonly CairnJob[] = JOBS): Map<QueueName, CairnJob> {
  return new Map(jobs.map((job) => [job.name, job]));
}
