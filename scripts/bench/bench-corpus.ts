/**
 * The benchmark corpus: loads the deterministic generator's records into a backend through
 * the ingest pipeline (batched), or reuses a corpus already loaded with the same seed and
 * size (recorded in a marker file next to the data), and measures ingest rate per format.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { generateRecord } from '../corpus/generator.js';

/** What the marker file records about a loaded corpus. */
export interface CorpusMarker {
  seed: number;
  size: number;
  backend: string;
  /** Where the corpus lives: the SQLite file, or the engine URL and alias. */
  location: string;
  loadedAt: string;
  loadSeconds: number;
  recordsPerSecond: number;
}

/** How the corpus step went. */
export interface CorpusOutcome {
  reused: boolean;
  marker: CorpusMarker;
  /** Records the backend reports after loading. */
  backendRecords?: number | undefined;
  written: number;
  rejected: number;
}

/** The record documents of a generated corpus, as NDJSON chunks for the pipeline. */
export function* generateCorpusDocuments(
  size: number,
  seed: number,
  chunk = 2000,
  from = 0,
): Generator<RawDocument> {
  for (let start = from; start < from + size; start += chunk) {
    const end = Math.min(from + size, start + chunk);
    const lines: string[] = [];
    for (let index = start; index < end; index += 1) {
      lines.push(JSON.stringify(generateRecord(index, seed)));
    }
    yield { name: `generated:${seed}:${start}-${end}`, content: lines.join('\n') };
  }
}

/** Reads a marker file, or undefined when absent or unreadable. */
export function readMarker(path: string): CorpusMarker | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CorpusMarker;
  } catch {
    return undefined;
  }
}

/** Options of {@link loadOrReuseCorpus}. */
export interface CorpusOptions {
  backend: SearchBackend;
  markerPath: string;
  location: string;
  seed: number;
  size: number;
  batchSize: number;
  maxBytes: number;
  /** Reload even when a matching marker exists. */
  force: boolean;
  onProgress?: (written: number) => void;
}

/**
 * Reuses the corpus when the marker names the same seed, size and location and the backend
 * holds at least that many records; otherwise loads it and writes the marker.
 */
export async function loadOrReuseCorpus(options: CorpusOptions): Promise<CorpusOutcome> {
  const existing = readMarker(options.markerPath);
  const health = await options.backend.health();
  if (
    !options.force &&
    existing &&
    existing.seed === options.seed &&
    existing.size === options.size &&
    existing.location === options.location &&
    (health.records ?? 0) >= options.size
  ) {
    return {
      reused: true,
      marker: existing,
      backendRecords: health.records,
      written: 0,
      rejected: 0,
    };
  }
  rmSync(options.markerPath, { force: true });
  const started = performance.now();
  const summary = await ingestDocuments(
    options.backend,
    generateCorpusDocuments(options.size, options.seed),
    {
      batchSize: options.batchSize,
      maxBytes: options.maxBytes,
      onProgress: (progress) => options.onProgress?.(progress.written),
    },
  );
  const loadSeconds = (performance.now() - started) / 1000;
  const marker: CorpusMarker = {
    seed: options.seed,
    size: options.size,
    backend: options.backend.kind,
    location: options.location,
    loadedAt: new Date().toISOString(),
    loadSeconds: round(loadSeconds, 2),
    recordsPerSecond: Math.round(summary.written / loadSeconds),
  };
  if (summary.written === options.size) {
    mkdirSync(dirname(options.markerPath), { recursive: true });
    writeFileSync(options.markerPath, `${JSON.stringify(marker, null, 2)}\n`);
  }
  const after = await options.backend.health();
  return {
    reused: false,
    marker,
    backendRecords: after.records,
    written: summary.written,
    rejected: summary.rejected.length,
  };
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** ISO 19139 samples replicated `count` times with fresh file identifiers. */
export function* replicateIso19139(
  directory: string,
  count: number,
  idPrefix: string,
): Generator<RawDocument & { id: string }> {
  const templates = readdirSync(directory)
    .filter((name) => name.endsWith('.xml'))
    .sort()
    .map((name) => readFileSync(join(directory, name), 'utf8'));
  if (templates.length === 0) throw new Error(`no .xml samples in ${directory}`);
  const identifier =
    /(<gmd:fileIdentifier>\s*<gco:CharacterString>)([^<]*)(<\/gco:CharacterString>)/;
  for (let index = 0; index < count; index += 1) {
    const id = `${idPrefix}-${String(index).padStart(7, '0')}`;
    const template = templates[index % templates.length]!; // non-empty, checked above
    yield {
      id,
      name: `iso19139:${id}`,
      content: template.replace(identifier, `$1${id}$3`),
      format: 'iso19139',
    };
  }
}

/** The ingest rate of one format. */
export interface FormatIngestResult {
  format: string;
  records: number;
  written: number;
  rejected: number;
  seconds: number;
  recordsPerSecond: number;
}

/** Ingests documents through the pipeline and times it. */
export async function timeIngest(
  backend: SearchBackend,
  format: string,
  documents: Iterable<RawDocument>,
  batchSize: number,
  maxBytes: number,
): Promise<FormatIngestResult> {
  const started = performance.now();
  const summary = await ingestDocuments(backend, documents, { batchSize, maxBytes });
  const seconds = (performance.now() - started) / 1000;
  return {
    format,
    records: summary.read,
    written: summary.written,
    rejected: summary.rejected.length,
    seconds: round(seconds, 2),
    recordsPerSecond: Math.round(summary.written / seconds),
  };
}
