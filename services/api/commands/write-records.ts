/**
 * The HTTP write commands: parse the request's records once (bad records → 400 naming them,
 * nothing written), then either write them through the ingest pipeline (embedded mode) or
 * enqueue a job for the worker (scaled mode: a queue is configured).
 */
import { randomUUID } from 'node:crypto';
import { CairnError, InvalidRecordError, NotFoundError } from '../../../shared/errors/index.js';
import type { IngestLog } from '../../../shared/ingest/ingest-log.js';
import { emptySummary, writeRecords } from '../../../shared/ingest/pipeline.js';
import type { CoreRecord, SourceFormat } from '../../../shared/records/core-record.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { JobQueues } from '../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../shared/search/backend.js';

/** Where a write goes: the backend directly, or a queue. */
export interface WriteTarget {
  backend: SearchBackend;
  /** Present in scaled mode: writes are enqueued. */
  queue?: JobQueues | undefined;
  batchSize: number;
  requestedBy?: string | undefined;
}

/** What a write did: applied now (with per-record status) or queued as a job. */
export type WriteOutcome =
  | { mode: 'applied'; records: { id: string; status: 'created' | 'replaced' | 'deleted' }[] }
  | { mode: 'queued'; jobId: string; records: { id: string }[] };

/** Parses a request body into records; throws a 400 naming every bad record. */
export function parseRequestRecords(
  content: string,
  options: { name: string; format?: SourceFormat; maxBytes: number; maxDepth?: number },
): CoreRecord[] {
  const parsed = parseDocuments(content, options);
  if (parsed.failures.length > 0) {
    const list = parsed.failures.map((failure) => `${failure.name}: ${failure.reason}`);
    throw new InvalidRecordError(
      `${parsed.failures.length} bad record(s), nothing was written: ${list.join('; ')}`,
    );
  }
  if (parsed.records.length === 0) throw new InvalidRecordError('the body holds no record');
  const seen = new Set<string>();
  for (const record of parsed.records) {
    if (seen.has(record.id))
      throw new InvalidRecordError(`record id "${record.id}" appears twice in the body`);
    seen.add(record.id);
  }
  return parsed.records;
}

async function existing(backend: SearchBackend, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const id of ids) if ((await backend.get(id)) !== null) found.add(id);
  return found;
}

/**
 * Creates or replaces records. `mustBeNew` refuses ids already in the catalogue (409), for
 * POST …/items; the bulk ingest and PUT replace.
 */
export async function upsertRecords(
  target: WriteTarget,
  records: CoreRecord[],
  source: { name: string; content: string; format?: SourceFormat },
  options: { mustBeNew?: boolean } = {},
): Promise<WriteOutcome> {
  const ids = records.map((record) => record.id);
  // A queued replace does not need to know what exists, so it is accepted (and waits in the
  // queue) while the search engine is down; a create must check for conflicts first.
  const present =
    options.mustBeNew || !target.queue ? await existing(target.backend, ids) : new Set<string>();
  if (options.mustBeNew && present.size > 0)
    throw new CairnError(
      'CONFLICT',
      409,
      `record(s) already exist: ${[...present].join(', ')}; replace them with PUT`,
      true,
    );
  if (target.queue) {
    const jobId = await target.queue.enqueue('ingest', {
      documents: [source],
      ...(target.requestedBy === undefined ? {} : { requestedBy: target.requestedBy }),
    });
    return { mode: 'queued', jobId, records: ids.map((id) => ({ id })) };
  }
  const summary = emptySummary();
  await writeRecords(target.backend, records, summary, { batchSize: target.batchSize });
  if (summary.rejected.length > 0) {
    const list = summary.rejected.map((failure) => `${failure.name}: ${failure.reason}`);
    throw new InvalidRecordError(`the backend refused: ${list.join('; ')}`);
  }
  return {
    mode: 'applied',
    records: ids.map((id) => ({ id, status: present.has(id) ? 'replaced' : 'created' })),
  };
}

/** Deletes one record; 404 when it does not exist. */
export async function deleteRecord(target: WriteTarget, id: string): Promise<WriteOutcome> {
  if ((await target.backend.get(id)) === null) throw new NotFoundError(`No record "${id}"`);
  if (target.queue) {
    const jobId = await target.queue.enqueue('delete', {
      ids: [id],
      ...(target.requestedBy === undefined ? {} : { requestedBy: target.requestedBy }),
    });
    return { mode: 'queued', jobId, records: [{ id }] };
  }
  await target.backend.delete([id]);
  return { mode: 'applied', records: [{ id, status: 'deleted' }] };
}

/** What a write applied at once changed, for its entry in the ingest log. */
export interface AppliedWrite {
  /** Records read from the request (a CSW Delete reads none). */
  read: number;
  written: number;
  deleted: number;
  requestedBy: string | undefined;
  started: Date;
}

/**
 * Records a write applied at once (embedded mode) in the ingest log, as a completed job of
 * queue "http", and returns the entry's job id.
 */
export async function logAppliedWrite(ingestLog: IngestLog, write: AppliedWrite): Promise<string> {
  const jobId = randomUUID();
  await ingestLog.record({
    jobId,
    queue: 'http',
    status: 'completed',
    attempts: 1,
    read: write.read,
    written: write.written,
    deleted: write.deleted,
    rejected: 0,
    startedAt: write.started.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Date.now() - write.started.getTime(),
    ...(write.requestedBy === undefined ? {} : { requestedBy: write.requestedBy }),
    failures: [],
  });
  return jobId;
}
