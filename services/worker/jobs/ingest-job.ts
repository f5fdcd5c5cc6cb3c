/**
 * The `ingest` job: a batch of raw documents parsed and upserted by record id, or, for a CSW-T
 * Transaction (`atomic`), records and deletions applied as one unit.
 */
import { UnrecoverableError } from 'bullmq';
import { CairnError } from '../../../shared/errors/index.js';
import {
  ATOMIC_REFUSAL,
  type IngestPayload,
  type JobResult,
} from '../../../shared/queue/job-payloads.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import { CairnJob, emptyJobResult, type JobContext } from '../cairn-job.js';
import { writeDocuments } from './write-documents.js';

export class IngestJob extends CairnJob<'ingest'> {
  readonly name = 'ingest' as const;

  /** Writes the documents' records; bad records are dead-lettered, the rest written. */
  async perform(payload: IngestPayload, context: JobContext): Promise<JobResult> {
    if (!Array.isArray(payload.documents))
      throw new UnrecoverableError('an ingest job needs a "documents" list');
    if (payload.atomic) return performAtomic(payload, payload.atomic.deleteIds, context);
    if (payload.documents.length === 0)
      throw new UnrecoverableError('an ingest job needs a non-empty "documents" list');
    return writeDocuments(payload.documents, context);
  }
}

/** Parses every document (one bad record refuses the job), then applies all writes as one unit. */
async function performAtomic(
  payload: IngestPayload,
  deleteIds: unknown,
  context: JobContext,
): Promise<JobResult> {
  if (!Array.isArray(deleteIds) || deleteIds.some((id) => typeof id !== 'string' || id === ''))
    throw new UnrecoverableError('an atomic ingest job needs a "deleteIds" list of strings');
  const records: CoreRecord[] = [];
  const problems: string[] = [];
  for (const document of payload.documents) {
    const parsed = parseDocuments(document.content, {
      name: document.name,
      ...(document.format === undefined ? {} : { format: document.format }),
      maxDepth: context.config.jsonDepth,
    });
    records.push(...parsed.records);
    problems.push(...parsed.failures.map((failure) => `${failure.name}: ${failure.reason}`));
  }
  if (problems.length > 0)
    throw new UnrecoverableError(`${ATOMIC_REFUSAL}: ${problems.join('; ')}`);
  let applied;
  try {
    applied = await context.backend.applyAtomically({
      upsert: records,
      delete: deleteIds as string[],
    });
  } catch (error) {
    // A record the backend refuses is bad data: final. Anything else is retried.
    if (error instanceof CairnError && error.status < 500)
      throw new UnrecoverableError(`${ATOMIC_REFUSAL}: ${error.message}`);
    throw error;
  }
  const result = emptyJobResult();
  result.read = records.length + deleteIds.length;
  result.written = applied.written;
  result.deleted = applied.deleted;
  for (const record of records) result.records.push({ name: record.id, status: 'written' });
  for (const id of deleteIds as string[]) result.records.push({ name: id, status: 'deleted' });
  return result;
}
