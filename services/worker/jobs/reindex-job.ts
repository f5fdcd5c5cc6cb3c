/**
 * The `reindex` job: rebuilds the search engine's index from the stored source documents and
 * moves the alias atomically (SearchBackend.reindex, which the engines have). One runs at a time across every worker.
 * On the embedded SQLite backend there is nothing to rebuild: the job fails as bad input.
 */
import { UnrecoverableError } from 'bullmq';
import type { JobResult, ReindexPayload } from '../../../shared/queue/job-payloads.js';
import { CairnJob, emptyJobResult, type JobContext } from '../cairn-job.js';

export class ReindexJob extends CairnJob<'reindex'> {
  readonly name = 'reindex' as const;
  /** Two builds at once would race for the next index version and the alias. */
  override readonly globalConcurrency = 1;

  /** Rebuilds the index; records the new mapping refused are reported as rejected. */
  async perform(_payload: ReindexPayload, context: JobContext): Promise<JobResult> {
    const { backend } = context;
    if (!backend.reindex)
      throw new UnrecoverableError(
        `reindex is a search engine operation; the ${backend.kind} backend has nothing to rebuild`,
      );
    const outcome = await backend.reindex();
    context.logger.info('reindexed', {
      from: outcome.from,
      to: outcome.to,
      written: outcome.written,
      carried: outcome.carried.length,
      failures: outcome.failures.length,
    });
    // `outcome.written` counts writes, and the catch-up passes write a record again; the job
    // reports the records the new version holds.
    const records = (await backend.health()).records ?? outcome.written;
    const result = emptyJobResult();
    result.written = records;
    result.rejected = outcome.failures.length;
    result.read = records + outcome.failures.length;
    // Only the exceptions are listed: a reindex touches every record.
    for (const carried of outcome.carried)
      result.records.push({
        name: carried.id,
        status: 'written',
        reason: `carried over from the stored record: ${carried.reason}`,
      });
    for (const failure of outcome.failures)
      result.records.push({ name: failure.id, status: 'rejected', reason: failure.reason });
    return result;
  }
}
