/**
 * `npm run bench`: end-to-end benchmark of Cairn on SQLite, Elasticsearch or
 * OpenSearch. Loads (or reuses) a deterministic corpus through the ingest pipeline, starts the
 * API on loopback and drives a query mix with autocannon at several concurrencies, times the
 * same SearchQueries directly on the backend (Cairn's overhead), samples sequential deep
 * paging, measures ingest rate per format and the API's memory, then writes
 * bench/results/bench-<backend>-<size>-<time>.json and prints markdown tables.
 *
 *   npm run bench -- --backend sqlite --size 20000 --duration 3 --concurrency 1,8,64
 *
 * Figures depend on the machine and its load: the load average is recorded with them.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format as formatWithPrettier, resolveConfig } from 'prettier';
import { loadConfig } from '../../shared/config/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { readApiLimits, timeBackendQueries, type BackendCaseResult } from './backend-timing.js';
import { startApi, startPassThrough, stopApi, type ApiProcess } from './api-process.js';
import {
  generateCorpusDocuments,
  loadOrReuseCorpus,
  replicateIso19139,
  timeIngest,
  type CorpusOutcome,
  type FormatIngestResult,
} from './bench-corpus.js';
import { parseBenchOptions, USAGE, type BenchOptions } from './bench-options.js';
import { renderMarkdown } from './bench-report.js';
import { probeCase, runHttpCase, type HttpCaseResult } from './http-load.js';
import {
  captureEngineRequests,
  overheadRow,
  replayRequest,
  type EngineHttpRequest,
  type OverheadRow,
} from './engine-direct.js';
import {
  measureColdJump,
  measureDeepPaging,
  type ColdJumpResult,
  type DeepPagingResult,
} from './deep-paging.js';
import { buildQueryMix, deepestOffset, type QueryCase } from './query-mix.js';
import { readLoadAverage, readSystemInfo, type SystemInfo } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ISO_SAMPLES = resolve(REPO_ROOT, 'data', 'samples', 'iso19139');
const PAGE_SIZE = 10;

/** Everything one run records. */
export interface BenchResult {
  benchmark: 'cairn-bench';
  date: string;
  command: string;
  machine: SystemInfo;
  loadAverageEnd: [number, number, number];
  /** Highest 1-minute load average seen between cases. */
  loadAverageMax1m: number;
  parameters: Record<string, unknown>;
  corpus?: CorpusOutcome;
  probes: { case: string; status: number; snippet?: string }[];
  http: HttpCaseResult[];
  backend: BackendCaseResult[];
  overhead: { case: string; apiP50Ms: number; backendP50Ms: number; ratio: number }[];
  /** The engine alone: each case's own engine request replayed, A/B with the API (part engine). */
  engine?: {
    url: string;
    requests: { case: string; engineRequests: number; replay?: EngineHttpRequest | undefined }[];
    runs: HttpCaseResult[];
    /** The pass-through floor's runs (scripts/bench/pass-through.ts), interleaved with both. */
    floorRuns: HttpCaseResult[];
    /** The hop's runs (scripts/bench/pass-through.ts --tcp), interleaved likewise. */
    hopRuns: HttpCaseResult[];
    /** The reader's runs (scripts/bench/pass-through.ts --read), interleaved likewise. */
    readerRuns: HttpCaseResult[];
    overhead: OverheadRow[];
  };
  paging?: DeepPagingResult;
  /** Jumps straight to a deep page, each in a fresh API process without shared checkpoints. */
  coldJumps?: ColdJumpResult[];
  ingest?: { mode: string; target: string; formats: FormatIngestResult[] } | undefined;
  notes: string[];
}

function log(message: string): void {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** The environment that selects the backend, for both this process and the API child. */
function backendEnvironment(options: BenchOptions, sqlitePath: string): Record<string, string> {
  if (options.backend === 'sqlite') return { SQLITE_PATH: sqlitePath };
  return {
    [options.backend === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL']:
      options.url ?? '',
    SEARCH_INDEX_ALIAS: options.alias ?? 'cairn-records',
    ...(options.spatial !== undefined && { SEARCH_SPATIAL_MODE: options.spatial }),
  };
}

async function openBackend(environment: Record<string, string>): Promise<SearchBackend> {
  return createBackend(loadConfig({ ...environment, LOG_LEVEL: 'warn' }));
}

/** Ingest rate per format (generated OGC JSON, replicated ISO 19139) through the pipeline. */
async function runIngestPart(
  options: BenchOptions,
  backend: SearchBackend,
  maxBytes: number,
  notes: string[],
): Promise<BenchResult['ingest']> {
  const worker = existsSync(join(REPO_ROOT, 'services', 'worker'));
  const mode = worker
    ? 'direct pipeline (services/worker exists but the benchmark does not drive the queue yet)'
    : 'direct pipeline (no services/worker yet)';
  let target: SearchBackend = backend;
  let scratch: string | undefined;
  if (options.backend === 'sqlite') {
    scratch = resolve(options.dataDir, 'ingest-scratch.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${scratch}${suffix}`, { force: true });
    target = await openBackend({ SQLITE_PATH: scratch });
  }
  const count = options.ingestRecords;
  const ogcSeed = options.seed + 1_000;
  const isoPrefix = `cairn-bench-iso-${options.seed}`;
  const formats: FormatIngestResult[] = [];
  try {
    log(`ingest: ${count} generated OGC API Records (seed ${ogcSeed})`);
    formats.push(
      await timeIngest(
        target,
        'ogc-record (generated)',
        generateCorpusDocuments(count, ogcSeed, 500),
        options.batchSize,
        maxBytes,
      ),
    );
    log(`ingest: ${count} ISO 19139 documents replicated from ${ISO_SAMPLES}`);
    formats.push(
      await timeIngest(
        target,
        'iso19139 (samples, new ids)',
        replicateIso19139(ISO_SAMPLES, count, isoPrefix),
        options.batchSize,
        maxBytes,
      ),
    );
  } finally {
    if (scratch !== undefined) {
      await target.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${scratch}${suffix}`, { force: true });
    } else {
      // Engines: the records went into the live alias; remove them again.
      const ids = [
        ...Array.from(
          { length: count },
          (_, i) => `cairn-${ogcSeed}-${String(i).padStart(7, '0')}`,
        ),
        ...Array.from({ length: count }, (_, i) => `${isoPrefix}-${String(i).padStart(7, '0')}`),
      ];
      for (let start = 0; start < ids.length; start += 1000) {
        await backend.delete(ids.slice(start, start + 1000));
      }
    }
  }
  notes.push(
    options.backend === 'sqlite'
      ? 'ingest: into a fresh scratch SQLite file (deleted afterwards)'
      : 'ingest: into the live alias next to the corpus; the ingested ids are deleted afterwards',
  );
  return { mode, target: scratch ?? `${options.backend} ${options.url}`, formats };
}

/** The engine-alone side of the A/B runs: what to replay for each case. */
interface EngineReplay {
  url: string;
  /** The pass-through floor in front of the engine (a process of its own). */
  floor?: ApiProcess;
  /** The hop: a byte pipe in front of the engine (a process of its own). */
  hop?: ApiProcess;
  /** The reader: the floor that parses the answer and writes a page of it (a process of its own). */
  reader?: ApiProcess;
  requests: Map<string, { engineRequests: number; replay?: EngineHttpRequest | undefined }>;
}

async function runHttpPart(
  api: ApiProcess,
  cases: QueryCase[],
  options: BenchOptions,
  result: BenchResult,
  engine: EngineReplay | undefined,
): Promise<void> {
  const rounds = engine ? options.rounds : 1;
  for (const queryCase of cases) {
    const probe = await probeCase(api.origin, queryCase);
    result.probes.push({
      case: queryCase.name,
      status: probe.status,
      ...(probe.status !== 200 && { snippet: probe.snippet }),
    });
    if (probe.status !== 200) log(`${queryCase.name}: probe answered ${probe.status}`);
    const captured = engine?.requests.get(queryCase.name);
    const replay = captured?.replay;
    for (const concurrency of options.concurrency) {
      const apiRuns: HttpCaseResult[] = [];
      const engineRuns: HttpCaseResult[] = [];
      const floorRuns: HttpCaseResult[] = [];
      const hopRuns: HttpCaseResult[] = [];
      const readerRuns: HttpCaseResult[] = [];
      const loads: number[] = [];
      // A B A B: the API and the engine alone take turns, so both see the same machine load.
      for (let round = 1; round <= rounds; round += 1) {
        log(
          `http: ${queryCase.name} × ${concurrency} for ${options.duration} s${rounds > 1 ? ` (round ${round})` : ''}`,
        );
        const outcome = await runHttpCase(
          api.origin,
          api.pid,
          queryCase,
          concurrency,
          options.duration,
        );
        if (probe.status !== 200) outcome.ok = false;
        result.http.push(outcome);
        apiRuns.push(outcome);
        // The same captured engine request, through the floor, the reader, the hop and straight
        // at the engine.
        const replayAt = async (
          captured: NonNullable<typeof replay>,
          origin: string,
          pid: number,
          label: string,
          what: string,
        ) => {
          log(
            `${label}: ${queryCase.name} × ${concurrency} for ${options.duration} s (round ${round})`,
          );
          return runHttpCase(
            origin,
            pid,
            {
              name: queryCase.name,
              description: `${queryCase.name}, ${what}`,
              method: 'POST',
              path: captured.path,
              body: captured.body,
              ...(captured.contentType && { contentType: captured.contentType }),
              buildQuery: queryCase.buildQuery,
            },
            concurrency,
            options.duration,
          );
        };
        if (engine?.floor && replay) {
          const floor = await replayAt(
            replay,
            engine.floor.origin,
            engine.floor.pid,
            'floor',
            'pass-through floor',
          );
          result.engine?.floorRuns.push(floor);
          floorRuns.push(floor);
        }
        if (engine?.reader && replay) {
          const read = await replayAt(
            replay,
            engine.reader.origin,
            engine.reader.pid,
            'reader',
            'the reader',
          );
          result.engine?.readerRuns.push(read);
          readerRuns.push(read);
        }
        if (engine?.hop && replay) {
          const hop = await replayAt(replay, engine.hop.origin, engine.hop.pid, 'hop', 'the hop');
          result.engine?.hopRuns.push(hop);
          hopRuns.push(hop);
        }
        if (engine && replay) {
          const direct = await replayAt(replay, engine.url, 0, 'engine', 'engine alone');
          result.engine?.runs.push(direct);
          engineRuns.push(direct);
        }
        const load = readLoadAverage()[0];
        loads.push(load);
        result.loadAverageMax1m = Math.max(result.loadAverageMax1m, load);
      }
      if (engine && replay && captured) {
        result.engine?.overhead.push(
          overheadRow(apiRuns, engineRuns, captured.engineRequests, {
            loadAverages: loads,
            floor: floorRuns,
            hop: hopRuns,
            reader: readerRuns,
          }),
        );
      }
    }
  }
}

/**
 * Cold jumps: for each offset and endpoint, a fresh API process (no REDIS_URL, so no
 * checkpoints shared from earlier processes either) goes from page 1 straight to the offset.
 */
async function runColdJumps(
  options: BenchOptions,
  environment: Record<string, string>,
  notes: string[],
): Promise<ColdJumpResult[]> {
  // The deepest offset that still has the three sequential pages after it.
  const deepest = deepestOffset(options.size, PAGE_SIZE * 4);
  const offsets = [
    ...new Set(
      options.coldOffsets.map(
        (offset) => Math.floor(Math.min(offset, deepest) / PAGE_SIZE) * PAGE_SIZE,
      ),
    ),
  ];
  const clamped = options.coldOffsets.filter((offset) => offset > deepest);
  if (clamped.length > 0) {
    notes.push(
      `cold jumps: the corpus has ${options.size} records, so offsets ${clamped.join(', ')} are replaced by ${deepest}`,
    );
  }
  notes.push(
    'cold jumps: each in a fresh API process started without REDIS_URL (no checkpoints at all)',
  );
  const results: ColdJumpResult[] = [];
  for (const offset of offsets) {
    for (const endpoint of options.coldEndpoints) {
      const api = await startApi(REPO_ROOT, environment, undefined, ['REDIS_URL']);
      try {
        log(`cold jump: ${endpoint} offset ${offset}`);
        const jump = await measureColdJump(api.origin, endpoint, offset, PAGE_SIZE);
        log(`cold jump: ${jump.request} ${jump.jumpMs} ms (page 1 ${jump.page1Ms} ms)`);
        results.push(jump);
      } finally {
        await stopApi(api);
      }
    }
  }
  return results;
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  const started = new Date();
  const sqlitePath = resolve(
    options.dataDir,
    `cairn-bench-${options.size}-seed${options.seed}.sqlite`,
  );
  const environment = backendEnvironment(options, sqlitePath);
  const config = loadConfig({ ...environment, LOG_LEVEL: 'warn' });
  const limits = readApiLimits(config);
  const machine = await readSystemInfo(
    REPO_ROOT,
    options.url ? { url: options.url, kind: options.backend } : undefined,
  );
  const result: BenchResult = {
    benchmark: 'cairn-bench',
    date: started.toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine,
    loadAverageEnd: machine.loadAverage,
    loadAverageMax1m: machine.loadAverage[0],
    parameters: {
      backend: options.backend,
      engineUrl: options.url ?? null,
      alias: options.alias ?? null,
      spatial: options.spatial ?? null,
      size: options.size,
      seed: options.seed,
      durationSeconds: options.duration,
      concurrency: options.concurrency,
      parts: [...options.parts],
      pageSize: PAGE_SIZE,
      deepOffsetWanted: options.deepOffset,
      pagesWanted: options.pages,
      coldOffsetsWanted: options.coldOffsets,
      coldEndpoints: options.coldEndpoints,
      ingestRecords: options.ingestRecords,
      backendRepetitions: options.backendRepetitions,
      rounds: options.rounds,
      batchSize: options.batchSize,
    },
    probes: [],
    http: [],
    backend: [],
    overhead: [],
    notes: [],
  };
  log(`machine: ${machine.cpus} cpus, load ${machine.loadAverage.join(' ')}`);

  const backend = await openBackend(environment);
  let api: ApiProcess | undefined;
  try {
    // 1. Corpus: build or reuse.
    const alias = 'alias' in backend ? String(backend.alias) : undefined;
    const location = options.backend === 'sqlite' ? sqlitePath : `${options.url} alias ${alias}`;
    const markerPath =
      options.backend === 'sqlite'
        ? `${sqlitePath}.corpus.json`
        : resolve(
            options.dataDir,
            `${options.backend}-${new URL(options.url ?? '').port}-${alias}.corpus.json`,
          );
    log(`corpus: ${options.size} records, seed ${options.seed} on ${location}`);
    let lastReport = 0;
    result.corpus = await loadOrReuseCorpus({
      backend,
      markerPath,
      location,
      seed: options.seed,
      size: options.size,
      batchSize: options.batchSize,
      maxBytes: config.limits.bodyBytes * 20,
      force: options.force,
      onProgress: (written) => {
        if (written - lastReport >= 20_000) {
          lastReport = written;
          log(`corpus: ${written} written`);
        }
      },
    });
    log(
      result.corpus.reused
        ? `corpus: reused (loaded ${result.corpus.marker.loadedAt} in ${result.corpus.marker.loadSeconds} s)`
        : `corpus: loaded ${result.corpus.written} in ${result.corpus.marker.loadSeconds} s (${result.corpus.marker.recordsPerSecond} records/s)`,
    );
    if (options.backend !== 'sqlite') {
      result.notes.push(
        `engine corpus: alias ${alias}${alias === 'cairn-records' ? ' (the configuration in use has no SEARCH_INDEX_ALIAS setting, so the default alias)' : ''}; reuse is recorded in a marker file under the data directory and checked against the alias document count`,
      );
      // Writes become visible at the next refresh.
      const deadline = Date.now() + 60_000;
      while (((await backend.health()).records ?? 0) < options.size && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 1000));
      }
      result.corpus.backendRecords = (await backend.health()).records;
    }

    const mix = buildQueryMix({
      corpusSize: options.size,
      deepOffset: options.deepOffset,
      pageSize: PAGE_SIZE,
    }).filter((queryCase) => !options.cases || options.cases.has(queryCase.name));
    for (const queryCase of mix) if (queryCase.note) result.notes.push(queryCase.note);

    // 2 and 6. HTTP load with memory sampling.
    if (options.parts.has('http') || options.parts.has('paging')) {
      api = await startApi(REPO_ROOT, environment);
      log(`api: ${api.origin} (pid ${api.pid})`);
    }
    let engine: EngineReplay | undefined;
    if (api && options.parts.has('http') && options.parts.has('engine')) {
      if (options.backend === 'sqlite') {
        result.notes.push('engine alone: not measured on SQLite (no separate engine)');
      } else {
        log(`engine: capturing the engine requests of ${mix.length} cases`);
        const captured = await captureEngineRequests(
          config,
          mix.map((queryCase) => ({
            name: queryCase.name,
            query: queryCase.buildQuery(limits),
          })),
        );
        const requests = captured.map((entry) => ({
          case: entry.case,
          engineRequests: entry.requests.length,
          replay: replayRequest(entry),
        }));
        engine = {
          url: (options.url ?? '').replace(/\/+$/, ''),
          requests: new Map(requests.map((entry) => [entry.case, entry])),
        };
        engine.floor = await startPassThrough(REPO_ROOT, engine.url);
        log(`floor: pass-through ${engine.floor.origin} (pid ${engine.floor.pid})`);
        engine.reader = await startPassThrough(REPO_ROOT, engine.url, { mode: 'read' });
        log(`reader: pass-through --read ${engine.reader.origin} (pid ${engine.reader.pid})`);
        engine.hop = await startPassThrough(REPO_ROOT, engine.url, { mode: 'tcp' });
        log(`hop: TCP pipe ${engine.hop.origin} (pid ${engine.hop.pid})`);
        result.engine = {
          url: engine.url,
          requests,
          runs: [],
          floorRuns: [],
          hopRuns: [],
          readerRuns: [],
          overhead: [],
        };
        result.notes.push(
          `engine alone: each case's search request, captured from a backend configured as the API's, replayed at the engine's _search with autocannon at the same concurrency; API and engine runs alternate (${options.rounds} rounds, A B A B); ratios are of the medians over the rounds`,
          'floor: the same engine request through scripts/bench/pass-through.ts (a bare node:http server, its own process, forwarding to the engine over keep-alive and returning its JSON as is), run between the API and the engine in each round: what any HTTP API in front of the engine costs on this machine',
          "reader: the same engine request through scripts/bench/pass-through.ts --read (the floor that also parses the engine's answer and writes its hits' sources as a page with JSON.stringify), run after the floor in each round: the least a front that answers from the records it reads can cost on this machine",
          'hop: the same engine request through scripts/bench/pass-through.ts --tcp (its own process piping the bytes of each connection to the engine and back, parsing nothing), run after the floor in each round: what one more process on the path costs on this machine before any HTTP is parsed',
        );
      }
    }
    try {
      if (api && options.parts.has('http')) await runHttpPart(api, mix, options, result, engine);
    } finally {
      if (engine?.floor) await stopApi(engine.floor);
      if (engine?.hop) await stopApi(engine.hop);
      if (engine?.reader) await stopApi(engine.reader);
    }

    // 3. Backend time for the same SearchQueries.
    if (options.parts.has('backend')) {
      log(`backend: ${mix.length} queries × ${options.backendRepetitions}`);
      result.backend = await timeBackendQueries(backend, mix, limits, options.backendRepetitions);
      for (const timing of result.backend) {
        const http = result.http.find(
          (entry) => entry.case === timing.case && entry.concurrency === 1,
        );
        if (http && timing.p50Ms > 0) {
          result.overhead.push({
            case: timing.case,
            apiP50Ms: http.latencyMs.p50,
            backendP50Ms: timing.p50Ms,
            ratio: Math.round((http.latencyMs.p50 / timing.p50Ms) * 100) / 100,
          });
        }
      }
    }

    // 4. Sequential deep paging.
    if (api && options.parts.has('paging')) {
      log('paging: sampling deep pages');
      result.paging = await measureDeepPaging(api.origin, options.size, options.pages, PAGE_SIZE);
      if (result.paging.note) result.notes.push(result.paging.note);
    }
    if (api) {
      await stopApi(api);
      api = undefined;
    }
    if (options.parts.has('paging') && options.coldOffsets.length > 0) {
      result.coldJumps = await runColdJumps(options, environment, result.notes);
    }

    // 5. Ingest rate per format.
    if (options.parts.has('ingest')) {
      result.ingest = await runIngestPart(
        options,
        backend,
        config.limits.bodyBytes * 20,
        result.notes,
      );
    }
  } finally {
    if (api) await stopApi(api);
    await backend.close();
  }

  result.loadAverageEnd = readLoadAverage();
  result.loadAverageMax1m = Math.max(result.loadAverageMax1m, result.loadAverageEnd[0]);
  mkdirSync(options.outDir, { recursive: true });
  const stamp = started.toISOString().replace(/[:]/g, '').slice(0, 15);
  const file = join(options.outDir, `bench-${options.backend}-${options.size}-${stamp}.json`);
  // Formatted as the repository's Prettier settings would, so result files pass `npm run lint`.
  const prettierOptions = (await resolveConfig(file)) ?? {};
  writeFileSync(
    file,
    await formatWithPrettier(JSON.stringify(result), { ...prettierOptions, parser: 'json' }),
  );
  console.log(renderMarkdown(result));
  console.log(`\nresult file: ${file}`);
  const failed = result.http.filter((entry) => !entry.ok).length;
  if (failed > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(message === USAGE ? message : `bench failed: ${message}`);
  process.exit(message === USAGE ? 0 : 1);
});
