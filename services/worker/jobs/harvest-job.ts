/**
 * The `harvest` job: harvests a registered source (CSW, OGC API – Records, STAC API or one
 * document; incremental where the source allows, records gone at the source removed), or a
 * one-off document by URL. Logic in shared/harvest. A source that refuses the request or
 * answers nonsense is final (unrecoverable); an unreachable or failing one is retried. A run
 * ends at its deadlines (HARVEST_RUN_TIMEOUT_MS, HARVEST_PAGE_TIMEOUT_MS), when its source is
 * deleted, or at once when the worker shuts down; a registered source runs once at a time
 * (a second run waits: SourceBusyError, delayed by the worker without holding a slot).
 */
import { UnrecoverableError } from 'bullmq';
import {
  DEFAULT_HARVEST_CONFIG,
  harvestSource,
  HarvestSourceError,
} from '../../../shared/harvest/index.js';
import { SourceBusyError } from '../../../shared/harvest/source-run-lock.js';
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
    const settings = context.harvest ?? DEFAULT_HARVEST_CONFIG;
    // Held past the longest a run may last, so a worker that died frees it by itself.
    const lockMs = settings.runTimeoutMs + settings.pageTimeoutMs + 60_000;
    const lock = sourceId ? context.sourceLock : undefined;
    if (lock && sourceId && !(await lock.acquire(sourceId, context.jobId, lockMs)))
      throw new SourceBusyError(sourceId);
    try {
      const { auth, harvest, signal } = context;
      const outcome = await harvestSource({
        ...(sourceId === undefined ? {} : { sourceId }),
        ...(inline === undefined ? {} : { inline }),
        full: payload.full === true,
        backend: context.backend,
        store: context.harvestStore,
        ...(auth === undefined ? {} : { auth }),
        ...(harvest === undefined ? {} : { harvest }),
        batchSize: context.config.batchSize,
        jobId: context.jobId,
        logger: context.logger,
        ...(signal === undefined ? {} : { signal }),
      });
      await context.deadLetter(outcome.letters);
      const { read, written, deleted, rejected, records } = outcome;
      return { read, written, deleted, rejected, records };
    } catch (error) {
      if (error instanceof HarvestSourceError && error.permanent)
        throw new UnrecoverableError(error.message);
      throw error;
    } finally {
      if (lock && sourceId) await lock.release(sourceId, context.jobId).catch(() => undefined);
    }
  }
}
