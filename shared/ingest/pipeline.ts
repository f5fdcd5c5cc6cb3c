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
  /** Records written, each write counted (a record that replaced another included). */
  written: number;
  /**
   * Of the records written, those that replaced a record of the same id written earlier in the
   * same run (the later one wins); `written - replaced` distinct records were written. Records
   * the store held before the run are not counted here.
   */
  replaced: number;
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
  return { read: 0, written: 0, replaced: 0, rejected: [] };
}

/**
 * The ids written so far in one run, to count the records that replaced one of the same id
 * written earlier in the run. Each distinct id is held once: about 50–80 MB of heap per million
 * ids of up to 40 characters (measured on Node 20), the price of an exact count; a load of tens
 * of millions of records needs that much more heap. Ids are kept as copies when asked: an id cut
 * out of a document's text (an XML parser's substring) would otherwise keep the whole text alive.
 */
export class RunIds {
  private readonly seen = new Set<string>();

  /**
   * Notes one record written with this id; returns true when the run had written the id before.
   * `copy` stores a fresh copy of a new id (for ids that may be substrings of a larger text).
   */
  written(id: string, copy: boolean): boolean {
    if (this.seen.has(id)) return true;
    // UTF-16 round trip: a copy of any string, lone surrogates included.
    this.seen.add(copy ? Buffer.from(id, 'utf16le').toString('utf16le') : id);
    return false;
  }

  /** Distinct ids written in the run. */
  get size(): number {
    return this.seen.size;
  }
}

/**
 * Writes parsed records in batches, adding the outcome to `summary`. `ids` carries the ids
 * written across calls of one run (ingestDocuments); without it, `replaced` counts the
 * records of this call that replaced one of the same id earlier in the call.
 */
export async function writeRecords(
  backend: SearchBackend,
  records: CoreRecord[],
  summary: IngestSummary,
  options: IngestOptions = {},
  ids: RunIds = new RunIds(),
): Promise<void> {
  const batchSize = options.batchSize ?? 1000;
  for (let start = 0; start < records.length; start += batchSize) {
    const batch = records.slice(start, start + batchSize);
    const result = await backend.upsert(batch);
    summary.written += result.written;
    summary.rejected.push(...result.failures.map((f) => ({ name: f.id, reason: f.reason })));
    // The records written are the batch but its refused ones. Refusals name an id, not a
    // position: when two records share an id and one is refused, skipping either leaves the
    // same ids written, so counting refusals per id is exact.
    const refused = new Map<string, number>();
    for (const failure of result.failures)
      refused.set(failure.id, (refused.get(failure.id) ?? 0) + 1);
    for (const record of batch) {
      const left = refused.get(record.id);
      if (left) refused.set(record.id, left - 1);
      else if (ids.written(record.id, true)) summary.replaced += 1;
    }
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
  const ids = new RunIds();
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
      await writeRecords(backend, pending, summary, options, ids);
      pending = [];
    }
  }
  await writeRecords(backend, pending, summary, options, ids);
  return summary;
}
