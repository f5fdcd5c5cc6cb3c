/**
 * The `harvest` job: fetch one source document (a record, a collection, NDJSON or XML) over
 * HTTP and ingest it. Unreachable or failing sources (5xx) are retried; a 4xx is final.
 */
import { UnrecoverableError } from 'bullmq';
import type { HarvestPayload, JobResult } from '../../../shared/queue/job-payloads.js';
import { CairnJob, type JobContext } from '../cairn-job.js';
import { writeDocuments } from './write-documents.js';

export class HarvestJob extends CairnJob<'harvest'> {
  readonly name = 'harvest' as const;

  /** Fetches the source and writes its records. */
  async perform(payload: HarvestPayload, context: JobContext): Promise<JobResult> {
    const url = payload.source?.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new UnrecoverableError('a harvest job needs a source with an http(s) "url"');
    const response = await fetch(url, { signal: AbortSignal.timeout(60000) });
    if (response.status >= 400 && response.status < 500)
      throw new UnrecoverableError(`the source answered HTTP ${response.status}`);
    if (!response.ok) throw new Error(`the source answered HTTP ${response.status}`);
    const content = await response.text();
    return writeDocuments([{ name: url, content, format: payload.source.format }], context);
  }
}
