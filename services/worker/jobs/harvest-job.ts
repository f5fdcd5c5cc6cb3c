/**
 * The `harvest` job: harvests a registered source (CSW, OGC API – Records, STAC API or one
 * document; incremental where the source allows, records gone at the source removed), or a
 * one-off document by URL. Logic in shared/harvest. A source that refuses the request or
 * answers nonsense is final (unrecoverable); an unreachable or failing one is retried.
 */
import { UnrecoverableError } from 'bullmq';
import { harvestSource, HarvestSourceError } from '../../../shared/harvest/index.js';
import type { HarvestPayload, JobResult } from '../../../shared/queue/job-payloads.js';
import { CairnJob, type JobContext } from '../cairn-job.js';

/** The one-off definition of a payload that names a document by URL. */
function inlineDefinition(payload: HarvestPayload) {
  const url = payload.source?.url;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url))
    throw new UnrecoverableError(
      'a harvest job needs a "sourceId" or a source with an http(s) "url"',
    );
  return {
    id: 'one-off',
    protocol: 'document' as const,
    url,
    ...(payload.source?.format ? { format: payload.source.format } : {}),
  };
}

export class HarvestJob extends CairnJob<'harvest'> {
  readonly name = 'harvest' as const;

  /** Harvests the source; bad records are dead-lettered, the rest written. */
  async perform(payload: HarvestPayload, context: JobContext): Promise<JobResult> {
    const sourceId = typeof payload.sourceId === 'string' ? payload.sourceId : undefined;
    const inline = sourceId ? undefined : inlineDefinition(payload);
    try {
      const outcome = await harvestSource({
        ...(sourceId === undefined ? {} : { sourceId }),
        ...(inline === undefined ? {} : { inline }),
        full: payload.full === true,
        backend: context.backend,
        store: context.harvestStore,
        ...(context.auth === undefined ? {} : { auth: context.auth }),
        ...(context.harvest === undefined ? {} : { harvest: context.harvest }),
        batchSize: context.config.batchSize,
        jobId: context.jobId,
        logger: context.logger,
      });
      await context.deadLetter(outcome.letters);
      const { read, written, deleted, rejected, records } = outcome;
      return { read, written, deleted, rejected, records };
    } catch (error) {
      if (error instanceof HarvestSourceError && error.permanent)
        throw new UnrecoverableError(error.message);
      throw error;
    }
  }
}
