/**
 * Worker-thread half of the parallel SQLite load (parallel-ingest.ts): parses one raw document
 * and builds the stored rows of its records, so the main thread only writes.
 */
import { parentPort } from 'node:worker_threads';
import { parseDocuments, type RecordFailure } from '../records/formats/index.js';
import { toSqliteRow, type SqliteRow } from '../search/sqlite/rows.js';
import type { RowTask, RowTaskResult } from './parallel-ingest.js';

/** Parses a document and builds its rows; records that cannot be indexed become failures. */
export function buildRows(task: RowTask): RowTaskResult {
  const parsed = parseDocuments(task.document.content, {
    name: task.document.name,
    format: task.document.format,
    maxBytes: task.maxBytes,
  });
  const rows: SqliteRow[] = [];
  const failures: RecordFailure[] = [...parsed.failures];
  for (const record of parsed.records) {
    try {
      rows.push(toSqliteRow(record));
    } catch (error) {
      failures.push({ name: record.id, reason: (error as Error).message });
    }
  }
  return { id: task.id, read: parsed.records.length + parsed.failures.length, rows, failures };
}

parentPort?.on('message', (task: RowTask) => {
  parentPort!.postMessage(buildRows(task));
});
