/**
 * `npm run soak`: runs mixed queries (Records, CQL2, STAC, CSW, OpenSearch)
 * and writes (bulk ingest, create, replace, delete — applied by the API, or queued for a worker
 * process with --redis) against an API process on loopback for a while (default 10 minutes),
 * then reports the errors (there must be none: the exit code is non-zero otherwise), the
 * latency drift between the first and the last minute, and the memory of the API (RSS and V8
 * heap) over time. The result goes to bench/results/soak-<backend>-<time>.json.
 *
 *   npm run soak -- --duration 3m --backend sqlite
 *   npm run soak -- --help
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSystemInfo } from './bench/system-info.js';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiHandle,
  type CairnProcess,
} from './processes/cairn-process.js';
import { prepareSoakCatalogue } from './soak/soak-catalogue.js';
import { parseSoakOptions, USAGE, type SoakOptions } from './soak/soak-options.js';
import {
  formatSummary,
  measureLatencyDrift,
  measureMemoryTrend,
  type MemoryPoint,
} from './soak/soak-report.js';
import { buildSoakCases, SoakToken, SoakTraffic, type SoakError } from './soak/soak-traffic.js';

/** How long the final count may take to settle (queued writes, engine refresh). */
const SETTLE_TIMEOUT_MS = 120_000;

/** Samples the processes' memory every few seconds until stopped. */
function sampleMemory(
  processes: Record<string, CairnProcess | undefined>,
  traffic: SoakTraffic,
  intervalSeconds: number,
): { points: Record<string, MemoryPoint[]>; stop: () => Promise<void> } {
  const points: Record<string, MemoryPoint[]> = {};
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [name, child] of Object.entries(processes)) {
        const sample = child?.running ? await child.memory() : undefined;
        if (sample) (points[name] ??= []).push({ atSeconds: traffic.elapsed / 1000, ...sample });
      }
      await new Promise((resolve) => setTimeout(resolve, intervalSeconds * 1000));
    }
  })();
  return {
    points,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** The catalogue's record count, as the Records API reports it. */
async function countRecords(origin: string): Promise<number> {
  const response = await fetch(`${origin}/catalogue/collections/metadata:main/items?limit=1`);
  return ((await response.json()) as { numberMatched: number }).numberMatched;
}

/** Waits until the catalogue shows every accepted write; an error when it never does. */
async function checkFinalCount(origin: string, expected: number): Promise<SoakError | undefined> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let count = -1;
  while (Date.now() < deadline) {
    count = await countRecords(origin).catch(() => -1);
    if (count === expected) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return {
    at: -1,
    case: 'final-count',
    status: 0,
    detail: `the catalogue holds ${count} records, expected ${expected} (corpus plus created minus deleted)`,
  };
}

async function soak(options: SoakOptions): Promise<number> {
  const startedAt = new Date();
  const system = await readSystemInfo(
    process.cwd(),
    options.url ? { url: options.url, kind: options.backend } : undefined,
  );
  console.log(`loading ${options.records} records into a new ${options.backend} catalogue…`);
  const catalogue = await prepareSoakCatalogue(options);
  const token = new SoakToken(options.keycloak);
  let api: ApiHandle | undefined;
  let worker: CairnProcess | undefined;
  try {
    await token.current().catch((error: unknown) => {
      throw new Error(
        `no write token from ${options.keycloak} (the soak writes as user alice of the cairn-test realm; start Keycloak with \`bash scripts/services.sh start keycloak\`): ${(error as Error).message}`,
      );
    });
    api = await startApiProcess(catalogue.environment, join(catalogue.directory, 'api.log'), {
      reportMemory: true,
    });
    if (options.redis)
      worker = startWorkerProcess(catalogue.environment, join(catalogue.directory, 'worker.log'), {
        reportMemory: true,
      });
    const cases = buildSoakCases(options.records);
    const traffic = new SoakTraffic({ origin: api.origin, cases, token, ...options });
    await traffic.probe();
    console.log(
      `running ${cases.length} query cases on ${options.concurrency} connections and ${options.writers} writer(s) for ${options.durationSeconds} s…`,
    );
    const memory = sampleMemory({ api: api.process, worker }, traffic, options.sampleSeconds);
    await traffic.run(options.durationSeconds);
    await memory.stop();

    const errors = [...traffic.errors];
    for (const child of [api.process, worker])
      if (child && !child.running)
        errors.push({ at: -1, case: child.name, status: 0, detail: `exited:\n${child.logTail()}` });
    const countError = api.process.running
      ? await checkFinalCount(api.origin, options.records + traffic.netCreated)
      : undefined;
    if (countError) errors.push(countError);

    const latency = measureLatencyDrift(traffic.latencies, options.durationSeconds);
    const memoryTrends = {
      'API RSS': measureMemoryTrend(memory.points.api ?? [], 'rssMiB', options.durationSeconds),
      'API heap used': measureMemoryTrend(
        memory.points.api ?? [],
        'heapUsedMiB',
        options.durationSeconds,
      ),
      'worker RSS': measureMemoryTrend(
        memory.points.worker ?? [],
        'rssMiB',
        options.durationSeconds,
      ),
    };
    const requests = [...traffic.requestsByCase.values()].reduce((sum, n) => sum + n, 0);
    const summary = {
      backend: options.backend + (options.redis ? ' + queue' : ''),
      durationSeconds: options.durationSeconds,
      requests,
      writes: traffic.created.size + traffic.deleted.size,
      errors: errors.length,
      latency,
      memory: memoryTrends,
    };
    const result = {
      kind: 'soak',
      startedAt: startedAt.toISOString(),
      options: { ...options, url: options.url && new URL(options.url).origin },
      system,
      ...summary,
      requestsByCase: Object.fromEntries(traffic.requestsByCase),
      writesDone: { created: traffic.created.size, deleted: traffic.deleted.size },
      errorSamples: errors.slice(0, 50),
      memorySamples: memory.points,
    };
    mkdirSync(options.outDir, { recursive: true });
    const stamp = startedAt.toISOString().slice(0, 16).replace(/:/g, '');
    const file = join(options.outDir, `soak-${options.backend}-${stamp}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(formatSummary(summary));
    console.log(`result: ${file}`);
    return errors.length === 0 ? 0 : 1;
  } finally {
    await api?.process.stop();
    await worker?.stop();
    await catalogue.remove();
  }
}

try {
  const options = parseSoakOptions(process.argv.slice(2), process.env);
  if (options === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  process.exit(await soak(options));
} catch (error) {
  console.error(`soak failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
