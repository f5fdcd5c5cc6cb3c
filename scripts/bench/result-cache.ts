/**
 * What the result cache saves on a repeated query: cold (the cache off: every answer computed)
 * against cached (the same query answered from the cache), for a few cases, in server time
 * (the API's own Server-Timing `app;dur`: from the cache's middleware to the answer sent) and
 * in client time over loopback (one keep-alive connection, one request at a time). A catalogue
 * of generated records (seed 7) is written to a fresh SQLite file or a fresh engine alias;
 * two apps run over it in this process, one with the cache and one without, on their own
 * ports, and take turns round by round (off, on, off, on …). Every round is reported. On the
 * engines the cached app reads the generation from Redis, as scaled mode does (REDIS_URL or
 * --redis). Also times reading the generation alone. The alias or file is removed after.
 *
 *   npx tsx scripts/bench/result-cache.ts [--records 20000] [--rounds 4] [--requests 300]
 *     [--engine elasticsearch|opensearch --url http://127.0.0.1:9250 --redis redis://127.0.0.1:6390]
 *     [--out bench/results/result-cache/<backend>.json]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Express } from 'express';
import { createApp } from '../../services/api/app.js';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { createBackend } from '../../shared/search/create-backend.js';
import {
  generationKey,
  type CatalogueGeneration,
} from '../../shared/search/catalogue-generation.js';
import { Redis } from 'ioredis';
import { generateRecords } from '../corpus/generator.js';
import { median } from './median.js';
import { readLoadAverage, readSystemInfo } from './system-info.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '4' },
    requests: { type: 'string', default: '300' },
    engine: { type: 'string' },
    url: { type: 'string' },
    redis: { type: 'string', default: process.env.REDIS_URL },
    out: { type: 'string' },
  },
});
const records = Number(values.records);
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const engine = values.engine as 'elasticsearch' | 'opensearch' | undefined;
const backendName = engine ?? 'sqlite';
const out = values.out ?? `bench/results/result-cache/${backendName}-${records}.json`;

/** The repeated queries: a page, a text search, a spatial search, a CSW GetRecords. */
const CASES: Record<string, string> = {
  'items-page': '/catalogue/collections/metadata:main/items?limit=10',
  text: '/catalogue/collections/metadata:main/items?q=water&limit=10',
  bbox: '/catalogue/search?bbox=-10,35,30,60&limit=10',
  'csw-getrecords':
    '/catalogue/csw?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results&elementSetName=summary&maxRecords=10',
};

const WARM_UP = 20;

interface Timing {
  serverMs: number;
  clientMs: number;
  outcome: string;
}

/** One request over the keep-alive agent: client time and the server's own figures. */
function timedGet(port: number, agent: Agent, path: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const sent = httpRequest({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.on('end', () => {
        const clientMs = Number(process.hrtime.bigint() - started) / 1e6;
        if (response.statusCode !== 200) {
          reject(new Error(`${path}: ${response.statusCode}`));
          return;
        }
        const timing = String(response.headers['server-timing'] ?? '');
        const serverMs = Number(/app;dur=([\d.]+)/.exec(timing)?.[1] ?? Number.NaN);
        const outcome = /cache;desc=(\w+)/.exec(timing)?.[1] ?? 'none';
        resolve({ serverMs, clientMs, outcome });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** The p-th percentile (nearest rank). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface RoundFigures {
  round: number;
  mode: 'cold' | 'cached';
  load1: number;
  outcomes: Record<string, number>;
  serverP50Ms: number;
  serverP99Ms: number;
  clientP50Ms: number;
  clientP99Ms: number;
}

async function runRound(
  port: number,
  agent: Agent,
  path: string,
  round: number,
  mode: 'cold' | 'cached',
): Promise<RoundFigures> {
  for (let index = 0; index < WARM_UP; index += 1) await timedGet(port, agent, path);
  const timings: Timing[] = [];
  for (let index = 0; index < requests; index += 1) timings.push(await timedGet(port, agent, path));
  const outcomes: Record<string, number> = {};
  for (const timing of timings) outcomes[timing.outcome] = (outcomes[timing.outcome] ?? 0) + 1;
  const server = timings.map((timing) => timing.serverMs);
  const client = timings.map((timing) => timing.clientMs);
  return {
    round,
    mode,
    load1: readLoadAverage()[0],
    outcomes,
    serverP50Ms: percentile(server, 50),
    serverP99Ms: percentile(server, 99),
    clientP50Ms: percentile(client, 50),
    clientP99Ms: percentile(client, 99),
  };
}

function listen(app: Express): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer(app);
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port }),
    );
  });
}

/** Microseconds one generation read takes (median of batches of 200). */
async function timeGenerationReads(generation: CatalogueGeneration): Promise<number> {
  const batches: number[] = [];
  for (let batch = 0; batch < 10; batch += 1) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < 200; index += 1) await generation.current();
    batches.push(Number(process.hrtime.bigint() - started) / 1e3 / 200);
  }
  return median(batches);
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-bench-cache-'));
  const prefix = `cairn-bench-cache-${Date.now().toString(36)}`;
  const environment: Record<string, string> = {
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    WORKER_QUEUE_PREFIX: prefix,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
  };
  if (engine) {
    if (!values.url) throw new Error('--engine needs --url');
    if (!values.redis) throw new Error('--engine needs --redis (or REDIS_URL)');
    environment[engine === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL'] = values.url;
    environment.SEARCH_INDEX_ALIAS = `${prefix}-records`;
    environment.SEARCH_REFRESH = 'wait_for';
    environment.REDIS_URL = values.redis;
  } else {
    environment.SQLITE_PATH = join(directory, 'cairn.sqlite');
  }
  const config: Readonly<Config> = loadConfig(environment);
  const uncachedConfig = loadConfig({ ...environment, RESULT_CACHE_ENABLED: 'false' });
  const backend: SearchBackend = await createBackend(config);
  const queue = engine ? new JobQueues(values.redis!, config.worker) : undefined;
  const servers: Server[] = [];
  try {
    const loadStarted = Date.now();
    const documents = [...generateRecords(records, 7)].map((record, index) => ({
      name: `generated ${index}`,
      content: JSON.stringify(record),
    }));
    await ingestDocuments(backend, documents);
    console.log(`loaded ${records} records in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
    const logger = createLogger('silent', 'bench');
    const cached = await listen(createApp({ config, backend, logger, queue }));
    const cold = await listen(createApp({ config: uncachedConfig, backend, logger }));
    servers.push(cached.server, cold.server);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const generation =
      queue?.generation() ??
      (await import('../../shared/search/catalogue-generation.js')).embeddedGeneration(
        config.search.kind === 'sqlite' ? config.search.path : ':memory:',
      );
    const generationReadMicros = await timeGenerationReads(generation);
    const results: Record<string, RoundFigures[]> = {};
    for (const [name, path] of Object.entries(CASES)) {
      const figures: RoundFigures[] = [];
      for (let round = 1; round <= rounds; round += 1) {
        figures.push(await runRound(cold.port, agent, path, round, 'cold'));
        figures.push(await runRound(cached.port, agent, path, round, 'cached'));
      }
      results[name] = figures;
      const summary = (mode: 'cold' | 'cached', field: keyof RoundFigures) =>
        median(figures.filter((f) => f.mode === mode).map((f) => f[field] as number)).toFixed(3);
      console.log(
        `${name}: server p50 cold ${summary('cold', 'serverP50Ms')} ms, cached ${summary('cached', 'serverP50Ms')} ms; ` +
          `client p50 cold ${summary('cold', 'clientP50Ms')} ms, cached ${summary('cached', 'clientP50Ms')} ms`,
      );
    }
    agent.destroy();
    console.log(`generation read: ${generationReadMicros.toFixed(1)} µs`);
    const system = await readSystemInfo(
      process.cwd(),
      engine ? { url: values.url!, kind: engine } : undefined,
    );
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify(
        {
          at: new Date().toISOString(),
          backend: backendName,
          generation: engine ? 'redis' : 'sqlite-file',
          records,
          rounds,
          requestsPerRound: requests,
          warmUpPerRound: WARM_UP,
          system,
          generationReadMicros,
          cases: CASES,
          results,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${out}`);
  } finally {
    for (const server of servers) server.close();
    if (queue) {
      await queue.close();
      // The generation key this run made.
      const redis = new Redis(values.redis!);
      await redis.del(generationKey(prefix));
      redis.disconnect();
    }
    const destroyable = backend as SearchBackend & { destroy?: () => Promise<void> };
    if (engine && destroyable.destroy) await destroyable.destroy();
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
