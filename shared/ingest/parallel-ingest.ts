/**
 * Bulk loading into SQLite with parsing off the main thread. Parsing a record and building its
 * row costs about as much as writing it, and SQLite writes are single-threaded, so worker
 * threads parse and build rows (row-worker.ts) while the main thread writes them in
 * transactions, in input order: the outcome is the same as ingestDocuments' (a later record
 * with the same id replaces an earlier one), only faster on a machine with two or more cores.
 */
import type { Worker } from 'node:worker_threads';
import type { RecordFailure } from '../records/formats/index.js';
import { startSiblingWorker } from '../threads/start-worker.js';
import type { SqliteRow } from '../search/sqlite/rows.js';
import type { SqliteBackend } from '../search/sqlite/sqlite-backend.js';
import {
  emptySummary,
  RunIds,
  type IngestOptions,
  type IngestSummary,
  type RawDocument,
} from './pipeline.js';

/** One document for a worker to parse. */
export interface RowTask {
  id: number;
  document: RawDocument;
  maxBytes?: number | undefined;
}

export interface RowTaskResult {
  id: number;
  read: number;
  rows: SqliteRow[];
  failures: RecordFailure[];
}

export interface ParallelIngestOptions extends IngestOptions {
  /** Worker threads that parse (at least 1). */
  workers: number;
}

/** Documents each worker may hold at once, so that none idles while the main thread writes. */
const TASKS_PER_WORKER = 4;

interface PooledWorker {
  worker: Worker;
  waiting: Map<number, { resolve: (result: RowTaskResult) => void; reject: (e: Error) => void }>;
}

/** Starts a row worker (start-worker.ts: from dist, or the TypeScript source under tsx). */
function startRowWorker(): Worker {
  return startSiblingWorker(import.meta.url, 'row-worker');
}

/** A fixed set of row workers; each task goes to the worker with the fewest tasks waiting. */
class RowWorkerPool {
  private readonly workers: PooledWorker[];
  private nextId = 0;

  constructor(size: number) {
    this.workers = Array.from({ length: size }, () => {
      const pooled: PooledWorker = { worker: startRowWorker(), waiting: new Map() };
      pooled.worker.on('message', (result: RowTaskResult) => {
        pooled.waiting.get(result.id)?.resolve(result);
        pooled.waiting.delete(result.id);
      });
      const failAll = (error: Error) => {
        for (const { reject } of pooled.waiting.values()) reject(error);
        pooled.waiting.clear();
      };
      pooled.worker.on('error', failAll);
      pooled.worker.on('exit', (code) => {
        if (pooled.waiting.size > 0) failAll(new Error(`a parse worker exited with code ${code}`));
      });
      return pooled;
    });
  }

  run(document: RawDocument, maxBytes: number | undefined): Promise<RowTaskResult> {
    const pooled = this.workers.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      pooled.waiting.set(id, { resolve, reject });
      pooled.worker.postMessage({ id, document, maxBytes } satisfies RowTask);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }
}

/**
 * Parses documents on worker threads and writes their records into SQLite in batches; one bad
 * record or document never stops the rest.
 */
export async function ingestDocumentsInParallel(
  backend: SqliteBackend,
  documents: AsyncIterable<RawDocument> | Iterable<RawDocument>,
  options: ParallelIngestOptions,
): Promise<IngestSummary> {
  const summary = emptySummary();
  const ids = new RunIds();
  const batchSize = options.batchSize ?? 1000;
  const pool = new RowWorkerPool(Math.max(1, options.workers));
  const inFlight: { result: Promise<RowTaskResult>; settled: boolean }[] = [];
  let batch: SqliteRow[] = [];
  const flush = () => {
    summary.written += backend.upsertRows(batch);
    // upsertRows writes every row or throws. Ids that came from a worker are fresh strings
    // (structured clone), so they are kept without copying.
    for (const row of batch) if (ids.written(row.id, false)) summary.replaced += 1;
    batch = [];
    options.onProgress?.(summary);
  };
  // Results are taken in the order their documents were read, whichever worker ends first.
  // Rows are written once a batch is full or when the next result is not ready yet: waiting to
  // fill a batch would leave the workers idle behind their task limit while this thread writes.
  const take = async () => {
    const result = await inFlight.shift()!.result;
    summary.read += result.read;
    summary.rejected.push(...result.failures);
    for (const row of result.rows) batch.push(row);
    if (batch.length >= batchSize || !inFlight[0]?.settled) flush();
  };
  return backend.bulkLoad(async () => {
    try {
      for await (const document of documents) {
        const task = { result: pool.run(document, options.maxBytes), settled: false };
        task.result.then(
          () => (task.settled = true),
          () => undefined, // observed by take()
        );
        inFlight.push(task);
        if (inFlight.length >= options.workers * TASKS_PER_WORKER) await take();
      }
      while (inFlight.length > 0) await take();
      if (batch.length > 0) flush();
    } finally {
      // A failed write must not leave tasks rejecting unobserved.
      for (const pending of inFlight) pending.result.catch(() => undefined);
      await pool.close();
    }
    return summary;
  });
}
