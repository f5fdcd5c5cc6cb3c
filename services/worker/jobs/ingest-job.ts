/**
 * The `ingest` job: a batch of raw documents parsed and upserted by record id.
 */
import { UnrecoverableError } from 'bullmq';
import type { IngestPayload, JobResult } from '../../../shared/queue/job-payloads.js';
import { CairnJob, type JobContext } from '../cairn-job.js';
import { writeDocuments } from './write-documents.js';

export class IngestJob extends CairnJob<'ingest'> {
  readonly name = 'ingest' as const;

  /** Writes the documents' records; bad records are dead-lettered, the rest written. */
  async perform(payload: IngestPayload, context: JobContext): Promise<JobResult> {
    if (!Array.isArray(payload.documents) || payload.documents.length === 0)
      throw new UnrecoverableError('an ingest job needs a non-empty "documents" list');
    return writeDocuments(payload.documents, context);
  }
}
