/**
 * Ingest CLI: `npm run ingest -- <files or folders…> [--format F] [--batch-size N]`.
 * Loads metadata files (JSON, NDJSON, XML; single records or collections) into the
 * configured backend through the same pipeline the services use, with a progress bar and a
 * summary (records written, and how many of them replaced a record of the same id written
 * earlier in the run). Into SQLite, `--workers` threads (default: one per core but one) parse
 * while the main thread writes. Exits non-zero only when nothing could be written.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import cliProgress from 'cli-progress';
import { loadConfig } from '../shared/config/index.js';
import { ingestDocumentsInParallel } from '../shared/ingest/parallel-ingest.js';
import { listFiles, readDocuments } from '../shared/ingest/read-files.js';
import {
  ingestDocuments,
  type IngestOptions,
  type RawDocument,
} from '../shared/ingest/pipeline.js';
import type { SourceFormat } from '../shared/records/core-record.js';
import { createBackend } from '../shared/search/create-backend.js';
import { withDeploymentGeneration } from '../shared/search/catalogue-generation.js';
import { SqliteBackend } from '../shared/search/sqlite/sqlite-backend.js';

const NDJSON_CHUNK_LINES = 2000;

/** Passes documents through, counting the bytes of input read so far. */
async function* countingBytes(
  documents: AsyncIterable<RawDocument>,
  onBytes: (bytes: number) => void,
): AsyncGenerator<RawDocument> {
  for await (const document of documents) {
    onBytes(Buffer.byteLength(document.content));
    yield document;
  }
}

/** `12.3 MB` style size for the progress line. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      'batch-size': { type: 'string', default: '10000' },
      workers: { type: 'string', default: String(Math.max(1, availableParallelism() - 1)) },
      quiet: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 0) {
    console.error(
      'usage: npm run ingest -- <files or folders…> [--format iso19139|ogc-record|…] [--batch-size N] [--workers N]',
    );
    return 2;
  }
  const config = loadConfig();
  // The CLI only writes: no read workers beside its parse workers.
  // Writes to an engine advance the generation the API processes' result caches read.
  const backend = withDeploymentGeneration(
    await createBackend(
      config.search.kind === 'sqlite'
        ? { ...config, search: { ...config.search, readWorkers: 0 } }
        : config,
    ),
    config,
  );
  const unreadable: { name: string; reason: string }[] = [];
  const files: string[] = [];
  for (const path of positionals) {
    try {
      files.push(...(await listFiles(path)));
    } catch (error) {
      unreadable.push({
        name: path,
        reason: `cannot read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      });
    }
  }
  // The bar's total is the input's size, known before reading: it fills as bytes are read,
  // while the records written are counted beside it.
  let totalBytes = 0;
  for (const file of files) totalBytes += (await stat(file)).size;
  let readBytes = 0;
  let progress = { written: 0, rejected: 0 };
  const bar = new cliProgress.SingleBar(
    {
      format:
        'ingest [{bar}] {percentage}% of {size} | {written} records written, {rejected} rejected',
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const show = !values.quiet;
  if (show) bar.start(totalBytes, 0, { size: formatBytes(totalBytes), ...progress });
  const started = performance.now();
  const documents = countingBytes(
    readDocuments(files, {
      format: values.format as SourceFormat | undefined,
      chunkLines: NDJSON_CHUNK_LINES,
      onUnreadable: (name, reason) => unreadable.push({ name, reason }),
    }),
    (bytes) => {
      readBytes = Math.min(totalBytes, readBytes + bytes);
      if (show) bar.update(readBytes, progress);
    },
  );
  const options: IngestOptions = {
    batchSize: Number(values['batch-size']),
    maxBytes: config.limits.bodyBytes * 20,
    onProgress: (summary) => {
      progress = { written: summary.written, rejected: summary.rejected.length };
      if (show) bar.update(readBytes, progress);
    },
  };
  const workers = Number(values.workers);
  // SQLite writes on one thread; parsing moves to worker threads when there are any.
  const summary =
    backend instanceof SqliteBackend && workers > 0
      ? await ingestDocumentsInParallel(backend, documents, { ...options, workers })
      : await ingestDocuments(backend, documents, options);
  if (show) {
    bar.update(totalBytes, progress);
    bar.stop();
  }
  await backend.close();
  const seconds = (performance.now() - started) / 1000;
  const rejected = [...unreadable, ...summary.rejected];
  console.log(`files: ${files.length}`);
  console.log(`records read: ${summary.read}`);
  // A record written with an id written earlier in the run replaces that record: "written"
  // counts every write, "distinct" the records the run leaves in the store.
  console.log(
    `records written: ${summary.written} into ${backend.kind} (${summary.replaced} replaced a record of the same id written earlier in this run)`,
  );
  console.log(`distinct records written: ${summary.written - summary.replaced}`);
  console.log(`records rejected: ${rejected.length}`);
  for (const failure of rejected.slice(0, 50))
    console.log(`  - ${failure.name}: ${failure.reason}`);
  if (rejected.length > 50) console.log(`  … and ${rejected.length - 50} more`);
  console.log(
    `time: ${seconds.toFixed(2)} s, rate: ${Math.round(summary.written / seconds)} records/s`,
  );
  return summary.written > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('ingest failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
