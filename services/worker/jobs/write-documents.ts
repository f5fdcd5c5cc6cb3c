/**
 * Shared by the ingest and harvest jobs: parse raw documents and write them through the ingest
 * pipeline, with one outcome per record and a dead letter for every bad one.
 */
import { emptySummary, writeRecords } from '../../../shared/ingest/pipeline.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { JobDocument, JobResult } from '../../../shared/queue/job-payloads.js';
import { emptyJobResult, type JobContext } from '../cairn-job.js';

/** Parses and upserts documents (idempotent by record id); bad records become dead letters. */
export async function writeDocuments(
  documents: JobDocument[],
  context: JobContext,
): Promise<JobResult> {
  const result = emptyJobResult();
  const records: CoreRecord[] = [];
  const letters: { name: string; reason: string; payload: unknown }[] = [];
  for (const document of documents) {
    const parsed = parseDocuments(document.content, {
      name: document.name,
      ...(document.format === undefined ? {} : { format: document.format }),
      maxDepth: context.config.jsonDepth,
    });
    result.read += parsed.records.length + parsed.failures.length;
    records.push(...parsed.records);
    for (const failure of parsed.failures)
      letters.push({ name: failure.name, reason: failure.reason, payload: document });
  }
  const summary = emptySummary();
  await writeRecords(context.backend, records, summary, { batchSize: context.config.batchSize });
  const refused = new Map(summary.rejected.map((failure) => [failure.name, failure.reason]));
  for (const record of records) {
    const reason = refused.get(record.id);
    if (reason === undefined) continue;
    letters.push({ name: record.id, reason, payload: record });
  }
  for (const record of records)
    if (!refused.has(record.id)) result.records.push({ name: record.id, status: 'written' });
  for (const letter of letters)
    result.records.push({ name: letter.name, status: 'rejected', reason: letter.reason });
  result.written = summary.written;
  result.rejected = letters.length;
  await context.deadLetter(letters);
  return result;
}
