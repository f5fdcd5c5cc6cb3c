/**
 * The ingest pipeline: raw documents → CoreRecords → backend upserts in batches, with a
 * per-record account of what was written and what was rejected and why. Used by the CLI,
 * the HTTP write endpoints (embedded mode) and the worker.
 */
import { parseDocuments, type ParseOptions, type RecordFailure } from '../records/formats/index.js';
import type { CoreRecord } from '../records/core-record.js';
import type { SearchBackend } from '../search/backend.js';

export interface RawDocument {
  /** Names the document in failure reasons (file path, request, job item). */
  name: string;
  content: string;
  format?: ParseOptions['format'];
}

export interface IngestSummary {
  /** Records read from the documents (parsed or not). */
  read: number;
  written: number;
  rejected: RecordFailure[];
}

export interface IngestOptions {
  batchSize?: number;
  maxBytes?: number;
  /** Called after each batch is written, with the running summary. */
  onProgress?: (summary: IngestSummary) => void;
}

/** Creates an empty summary. */
export function emptySummary(): IngestSummary {
  return { read: 0, written: 0, rejected: [] };
}

/** Writes parsed records in batches, adding the outcome to `summary`. */
export async function writeRecords(
  backend: SearchBackend,
  records: CoreRecord[],
  summary: IngestSummary,
  options: IngestOptions = {},
): Promise<void> {
  const batchSize = options.batchSize ?? 1000;
  for (let start = 0; start < records.length; start += batchSize) {
    const result = await backend.upsert(records.slice(start, start + batchSize));
    summary.written += result.written;
    summary.rejected.push(...result.failures.map((f) => ({ name: f.id, reason: f.reason })));
    options.onProgress?.(summary);
  }
}

/** Parses and writes a sequence of raw documents; one bad record or document never stops the rest. */
export async function ingestDocuments(
  backend: SearchBackend,
  documents: AsyncIterable<RawDocument> | Iterable<RawDocument>,
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const summary = emptySummary();
  const batchSize = options.batchSize ?? 1000;
  let pending: CoreRecord[] = [];
  for await (const document of documents) {
    const parsed = parseDocuments(document.content, {
      name: document.name,
      format: document.format,
      maxBytes: options.maxBytes,
    });
    summary.read += parsed.records.length + parsed.failures.length;
    summary.rejected.push(...parsed.failures);
    pending.push(...parsed.records);
    if (pending.length >= batchSize) {
      await writeRecords(backend, pending, summary, options);
      pending = [];
    }
  }
  await writeRecords(backend, pending, summary, options);
  return summary;
}
