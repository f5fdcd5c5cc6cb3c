/**
 * The corpus of the 1,000,000-record benchmarks: the deterministic generator's records (seed 42)
 * with a parent collection each, written through the ingest pipeline (ingestDocuments →
 * writeRecords → backend.upsert, the bulk path the ingest CLI and the worker's write job share)
 * in batches, with the rate of every slice of the load and the machine's load average recorded.
 */
import { loadavg } from 'node:os';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { generateRecord } from '../corpus/generator.js';

/** How many parent collections the records are spread over. */
export const MILLION_COLLECTIONS = 20;

/** The parent collection of record `index`: records are dealt round the collections. */
export function collectionOf(index: number): string {
  return `cairn-bench-collection-${String(index % MILLION_COLLECTIONS).padStart(2, '0')}`;
}

/** A generated record with its parent collection set (the generator gives none). */
export function millionRecord(index: number, seed: number): Record<string, unknown> {
  const record = generateRecord(index, seed);
  const properties = record.properties as Record<string, unknown>;
  properties.parentId = collectionOf(index);
  return record;
}

/** The records `from`…`from + size - 1` as NDJSON chunks for the pipeline. */
export function* millionDocuments(
  size: number,
  seed: number,
  from = 0,
  chunk = 1000,
): Generator<RawDocument> {
  for (let start = from; start < from + size; start += chunk) {
    const end = Math.min(from + size, start + chunk);
    const lines: string[] = [];
    for (let index = start; index < end; index += 1) {
      lines.push(JSON.stringify(millionRecord(index, seed)));
    }
    yield { name: `million:${seed}:${start}-${end}`, content: lines.join('\n') };
  }
}

/** One slice of the load. */
export interface LoadSlice {
  written: number;
  seconds: number;
  recordsPerSecond: number;
  loadAverage1m: number;
}

/** How a load went. */
export interface LoadOutcome {
  from: number;
  size: number;
  written: number;
  rejected: number;
  seconds: number;
  recordsPerSecond: number;
  batchSize: number;
  slices: LoadSlice[];
  startedAt: string;
  finishedAt: string;
}

/**
 * Writes records `from`…`from + size - 1` through the ingest pipeline in batches of
 * `batchSize`, timing each slice of `sliceSize` records.
 */
export async function loadMillionCorpus(options: {
  backend: SearchBackend;
  seed: number;
  from: number;
  size: number;
  batchSize: number;
  sliceSize?: number;
  onSlice?: (slice: LoadSlice, total: number) => void;
}): Promise<LoadOutcome> {
  const sliceSize = options.sliceSize ?? 50_000;
  const startedAt = new Date().toISOString();
  const started = performance.now();
  let sliceStarted = started;
  let sliceWritten = 0;
  const slices: LoadSlice[] = [];
  const closeSlice = (written: number) => {
    const now = performance.now();
    const seconds = (now - sliceStarted) / 1000;
    const slice = {
      written: written - sliceWritten,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round((written - sliceWritten) / seconds),
      loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    };
    slices.push(slice);
    options.onSlice?.(slice, written);
    sliceStarted = now;
    sliceWritten = written;
  };
  const summary = await ingestDocuments(
    options.backend,
    millionDocuments(options.size, options.seed, options.from, options.batchSize),
    {
      batchSize: options.batchSize,
      onProgress: (progress) => {
        if (progress.written - sliceWritten >= sliceSize) closeSlice(progress.written);
      },
    },
  );
  if (summary.written > sliceWritten) closeSlice(summary.written);
  const seconds = (performance.now() - started) / 1000;
  return {
    from: options.from,
    size: options.size,
    written: summary.written,
    rejected: summary.rejected.length,
    seconds: Math.round(seconds * 100) / 100,
    recordsPerSecond: Math.round(summary.written / seconds),
    batchSize: options.batchSize,
    slices,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}
