/**
 * The `delete` job: records removed by id. Deleting a missing record is not an error, so
 * performing the job twice leaves the same state.
 */
import { UnrecoverableError } from 'bullmq';
import type { DeletePayload, JobResult } from '../../../shared/queue/job-payloads.js';
import { CairnJob, emptyJobResult, type JobContext } from '../cairn-job.js';

export class DeleteJob extends CairnJob<'delete'> {
  readonly name = 'delete' as const;

  /** Deletes the records, reporting each as deleted or missing. */
  async perform(payload: DeletePayload, context: JobContext): Promise<JobResult> {
    const ids = payload.ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || id === ''))
      throw new UnrecoverableError('a delete job needs an "ids" list of non-empty strings');
    const result = emptyJobResult();
    result.read = ids.length;
    for (const id of ids) {
      const existed = (await context.backend.get(id)) !== null;
      if (existed) await context.backend.delete([id]);
      result.records.push({ name: id, status: existed ? 'deleted' : 'missing' });
      if (existed) result.deleted += 1;
    }
    return result;
  }
}
