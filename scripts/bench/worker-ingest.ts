/**
 * Worker ingest throughput: generates N records, enqueues them as ingest jobs on a
 * real Redis, starts the compiled worker process (dist/services/worker/main.js; `--processes N`
 * starts N of them on the same queue, as an operator scales the worker) against a real
 * engine (or SQLite), and reports records per second from the first job taken to the last job finished,
 * per format, with the load average. Writes bench/results/worker-ingest-<backend>-<date>.json.
 *
 *   npm run bench:worker -- [--backend elasticsearch|opensearch|sqlite] [--records 100000]
 *     [--formats ogc,iso19139] [--job-records 1000] [--concurrency 4] [--batch-size 1000] [--processes 1]
 *     [--url URL] [--redis URL] [--refresh-interval 1s] [--cpu-prof DIR]
 *
 * The engine's figures depend on how its JVM runs: the result file records its heap and JIT
 * (scripts/services.sh starts test engines with the C1 compiler only, which saves start-up
 * CPU but costs indexing speed; the README's figures come from an engine with the JVM's
 * default JIT, started with ES_JAVA_OPTS="-Xms2g -Xmx2g").
 *
 * Engine and Redis URLs default to ELASTICSEARCH_URL / OPENSEARCH_URL / REDIS_URL (or their
 * CAIRN_TEST_* names). Each run uses a fresh alias and queue prefix and removes them afterwards.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { JobDocument } from '../../shared/queue/job-payloads.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { writeIso19139 } from '../../shared/records/writers/xml/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { generateRecords } from '../corpus/generator.js';
import {
  readEngineCpuSeconds,
  readIndexTimes,
  readLoadAverage,
  readSystemInfo,
  measureCpuYardstick,
  type IndexTimes,
} from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FORMATS = ['ogc', 'iso19139'] as const;
type BenchFormat = (typeof FORMATS)[number];
type BackendKind = 'elasticsearch' | 'opensearch' | 'sqlite';

interface Options {
  backend: BackendKind;
  url?: string | undefined;
  redis: string;
  records: number;
  formats: BenchFormat[];
  jobRecords: number;
  concurrency: number;
  processes: number;
  batchSize: number;
  out: string;
  cpuProf?: string | undefined;
  refreshInterval?: string | undefined;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      backend: { type: 'string', default: 'elasticsearch' },
      url: { type: 'string' },
      redis: { type: 'string' },
      records: { type: 'string', default: '100000' },
      formats: { type: 'string', default: 'ogc,iso19139' },
      'job-records': { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '4' },
      processes: { type: 'string', default: '1' },
      'batch-size': { type: 'string', default: '1000' },
      out: { type: 'string', default: join(REPO_ROOT, 'bench', 'results') },
      'cpu-prof': { type: 'string' },
      'refresh-interval': { type: 'string' },
    },
  });
  const env = process.env;
  const backend = values.backend as BackendKind;
  if (!['elasticsearch', 'opensearch', 'sqlite'].includes(backend))
    throw new Error('--backend must be elasticsearch, opensearch or sqlite');
  const engineUrl =
    backend === 'elasticsearch'
      ? (env.ELASTICSEARCH_URL ?? env.CAIRN_TEST_ELASTICSEARCH_URL)
      : backend === 'opensearch'
        ? (env.OPENSEARCH_URL ?? env.CAIRN_TEST_OPENSEARCH_URL)
        : undefined;
  const redis = values.redis ?? env.REDIS_URL ?? env.CAIRN_TEST_REDIS_URL;
  if (!redis) throw new Error('no Redis: pass --redis or set REDIS_URL');
  const url = values.url ?? engineUrl;
  if (backend !== 'sqlite' && !url) throw new Error(`no ${backend} URL: pass --url`);
  const formats = values.formats.split(',').map((format) => format.trim()) as BenchFormat[];
  if (formats.some((format) => !FORMATS.includes(format)))
    throw new Error(`--formats lists ${FORMATS.join(', ')}`);
  const integer = (value: string, name: string): number => {
    const number = Number(value.replace(/_/g, ''));
    if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be ≥ 1`);
    return number;
  };
  return {
    backend,
    url,
    redis,
    records: integer(values.records, 'records'),
    formats,
    jobRecords: integer(values['job-records'], 'job-records'),
    concurrency: integer(values.concurrency, 'concurrency'),
    processes: integer(values.processes, 'processes'),
    batchSize: integer(values['batch-size'], 'batch-size'),
    out: resolve(values.out),
    cpuProf: values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined,
    refreshInterval: values['refresh-interval'],
  };
}

/** The job payloads of one format: OGC records as NDJSON, ISO 19139 as one document each. */
function* buildJobs(format: BenchFormat, options: Options): Generator<JobDocument[]> {
  let batch: Record<string, unknown>[] = [];
  const flush = (): JobDocument[] => {
    const documents: JobDocument[] =
      format === 'ogc'
        ? [
            {
              name: `ogc ${String(batch[0]?.id)}`,
              content: batch.map((r) => JSON.stringify(r)).join('\n'),
            },
          ]
        : batch.map((record) => {
            const [core] = parseDocuments(JSON.stringify(record)).records;
            if (core === undefined) throw new Error('a generated record did not parse');
            return {
              name: `iso19139 ${core.id}`,
              content: writeIso19139(core),
              format: 'iso19139' as const,
            };
          });
    batch = [];
    return documents;
  };
  // A seed per format, so the two formats write different records.
  for (const record of generateRecords(options.records, format === 'ogc' ? 901 : 902)) {
    batch.push(record);
    if (batch.length >= options.jobRecords) yield flush();
  }
  if (batch.length > 0) yield flush();
}

/** CPU seconds a process has used so far (Linux /proc), or undefined elsewhere. */
function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const [, afterName] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
    if (afterName === undefined) return undefined;
    const fields = afterName.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The bench's environment without engine or Redis URLs: the worker gets only the run's own. */
function inheritedEnvironment(): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  for (const name of ['ELASTICSEARCH_URL', 'OPENSEARCH_URL', 'REDIS_URL']) delete environment[name];
  return environment;
}

interface FormatResult {
  format: BenchFormat;
  records: number;
  jobs: number;
  written: number;
  rejected: number;
  inBackend: number;
  enqueueSeconds: number;
  /** From the first job taken to the last job finished. */
  seconds: number;
  recordsPerSecond: number;
  /** CPU time of the worker processes (start-up included), and records per worker CPU-second. */
  workerCpuSeconds?: number | undefined;
  recordsPerWorkerCpuSecond?: number | undefined;
  /** The engine node's CPU time over the same span (it serves only this run, if nothing else is). */
  engineCpuSeconds?: number | undefined;
  /** Where the index's writing time went, from the engine's index statistics. */
  engineIndexTimes?: IndexTimes | undefined;
  /**
   * Milliseconds of a fixed integer loop, just before the worker starts and just after it
   * finishes (`measureCpuYardstick`): how fast the machine ran around this run.
   */
  yardstickMs: { before: number; after: number };
  loadAverageBefore: [number, number, number];
  loadAverageAfter: [number, number, number];
}

async function runFormat(format: BenchFormat, options: Options): Promise<FormatResult> {
  const stamp = `${Date.now().toString(36)}-${format}`;
  const directory = mkdtempSync(join(tmpdir(), 'cairn-bench-worker-'));
  const indexAlias = `cairn-bench-worker-${stamp}-records`;
  const environment: Record<string, string> = {
    LOG_LEVEL: 'warn',
    REDIS_URL: options.redis,
    WORKER_QUEUE_PREFIX: `cairn-bench-${stamp}`,
    WORKER_CONCURRENCY: String(options.concurrency),
    WORKER_BATCH_SIZE: String(options.batchSize),
    WORKER_METRICS_PORT: '0',
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    SQLITE_PATH: join(directory, 'cairn.sqlite'),
    SEARCH_INDEX_ALIAS: indexAlias,
  };
  if (options.backend === 'elasticsearch') environment.ELASTICSEARCH_URL = options.url!;
  if (options.backend === 'opensearch') environment.OPENSEARCH_URL = options.url!;
  if (options.refreshInterval) environment.SEARCH_REFRESH_INTERVAL = options.refreshInterval;
  const config = loadConfig(environment);
  const backend = await createBackend(config);
  const queues = new JobQueues(options.redis, config.worker);
  try {
    process.stderr.write(`${format}: building and enqueueing ${options.records} records…\n`);
    const enqueueStarted = performance.now();
    const ids: string[] = [];
    for (const documents of buildJobs(format, options))
      ids.push(await queues.enqueue('ingest', { documents }));
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

    const loadAverageBefore = readLoadAverage();
    const yardstickBefore = measureCpuYardstick();
    const engineCpuBefore = options.url ? await readEngineCpuSeconds(options.url) : undefined;
    process.stderr.write(`${format}: ${ids.length} jobs queued; running the worker…\n`);
    // As `npm run worker` and docker-compose start it (package.json): compiled, no TypeScript
    // loader (main() builds dist/ first).
    const nodeOptions = ['--max-semi-space-size=64'];
    if (options.cpuProf) nodeOptions.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`);
    const workers = Array.from({ length: options.processes }, () =>
      spawn(process.execPath, [...nodeOptions, 'dist/services/worker/main.js'], {
        cwd: REPO_ROOT,
        env: { ...inheritedEnvironment(), ...environment },
        stdio: ['ignore', 'inherit', 'inherit'],
      }),
    );
    const queue = queues.queues.ingest;
    for (;;) {
      const counts = await queue.getJobCounts('completed', 'failed');
      if ((counts.completed ?? 0) + (counts.failed ?? 0) >= ids.length) break;
      const exited = workers.find((worker) => worker.exitCode !== null);
      if (exited) throw new Error(`a worker exited (${exited.exitCode})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const loadAverageAfter = readLoadAverage();
    const workerCpuSeconds = workers
      .map((worker) => processCpuSeconds(worker.pid))
      .reduce(
        (sum, seconds) => (sum === undefined || seconds === undefined ? undefined : sum + seconds),
        0 as number | undefined,
      );
    const engineCpuAfter = options.url ? await readEngineCpuSeconds(options.url) : undefined;
    const yardstickAfter = measureCpuYardstick();
    for (const worker of workers) worker.kill('SIGTERM');
    await Promise.all(
      workers.filter((worker) => worker.exitCode === null).map((worker) => once(worker, 'exit')),
    );

    let first = Infinity;
    let last = 0;
    let written = 0;
    let rejected = 0;
    for (const id of ids) {
      const job = await queue.getJob(id);
      if (!job) continue;
      first = Math.min(first, job.processedOn ?? Infinity);
      last = Math.max(last, job.finishedOn ?? 0);
      const result = job.returnvalue as { written?: number; rejected?: number } | null;
      written += result?.written ?? 0;
      rejected += result?.rejected ?? 0;
    }
    if (backend instanceof EngineBackend) await backend.refresh();
    const inBackend = (await backend.health()).records ?? 0;
    const engineIndexTimes = options.url
      ? await readIndexTimes(options.url, indexAlias)
      : undefined;
    const seconds = (last - first) / 1000;
    return {
      format,
      records: options.records,
      jobs: ids.length,
      written,
      rejected,
      inBackend,
      enqueueSeconds: Math.round(enqueueSeconds * 100) / 100,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round(written / seconds),
      workerCpuSeconds,
      recordsPerWorkerCpuSecond: workerCpuSeconds
        ? Math.round(written / workerCpuSeconds)
        : undefined,
      engineCpuSeconds:
        engineCpuBefore !== undefined && engineCpuAfter !== undefined
          ? Math.round((engineCpuAfter - engineCpuBefore) * 10) / 10
          : undefined,
      engineIndexTimes,
      yardstickMs: { before: yardstickBefore, after: yardstickAfter },
      loadAverageBefore,
      loadAverageAfter,
    };
  } finally {
    await queues.obliterate().catch(() => undefined);
    await queues.close();
    if (backend instanceof EngineBackend) await backend.destroy().catch(() => undefined);
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = readOptions();
  process.stderr.write('building dist/ (npm run build)…\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const results: FormatResult[] = [];
  for (const format of options.formats) {
    const result = await runFormat(format, options);
    results.push(result);
    console.log(
      `${format}: ${result.written} written (${result.rejected} rejected, ${result.inBackend} in ${options.backend}) ` +
        `in ${result.seconds} s = ${result.recordsPerSecond} records/s (${result.recordsPerWorkerCpuSecond ?? '?'} per worker CPU-second; engine CPU ${result.engineCpuSeconds ?? '?'} s; yardstick ${result.yardstickMs.before}/${result.yardstickMs.after} ms); load average ${result.loadAverageAfter.join(' ')}`,
    );
  }
  const date = new Date().toISOString().slice(0, 19).replace(/:/g, '');
  const file = join(
    options.out,
    `worker-ingest-${options.backend}-${options.records}-${date}.json`,
  );
  mkdirSync(options.out, { recursive: true });
  const settings = {
    backend: options.backend,
    records: options.records,
    formats: options.formats,
    jobRecords: options.jobRecords,
    concurrency: options.concurrency,
    processes: options.processes,
    batchSize: options.batchSize,
    refreshInterval: options.refreshInterval ?? 'unset (engine default; search-idle after 5s)',
  };
  const system = await readSystemInfo(
    REPO_ROOT,
    options.url && options.backend !== 'sqlite'
      ? { url: options.url, kind: options.backend }
      : undefined,
  );
  writeFileSync(
    file,
    `${JSON.stringify({ command: `npm run bench:worker -- ${process.argv.slice(2).join(' ')}`, settings, system, results }, null, 2)}\n`,
  );
  console.log(`written to ${file}`);
}

main().catch((error: unknown) => {
  console.error('bench failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
