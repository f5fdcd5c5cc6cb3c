/**
 * `npm run bench:checkpoints`: what sharing deep-paging checkpoints through Redis saves when a
 * harvester's pages alternate between two API processes (round-robin, no sticky sessions).
 *
 * Loads `--records` generated records (default 15,000) into a fresh alias on the engine of
 * ELASTICSEARCH_URL or OPENSEARCH_URL, then runs two set-ups side by side, interleaved (their
 * order alternates per repetition): "shared", two EngineBackends each with its own connection
 * to REDIS_URL, and "local", two EngineBackends with in-process checkpoints only. In each
 * repetition process A serves the page at a deep offset and process B the next one (page N+1),
 * as a balancer would send them; B's time is measured, and whether it was a checkpoint hit or a
 * walk. Repetition 1 is B's first deep page (no checkpoint of its own: a walk from the start,
 * here a single from/size request for the boundary hit, since it lies just past the window);
 * later ones find B's own checkpoint two pages back in "local" (a short walk of sort values),
 * while A's pages in "local" walk likewise. Every repetition is printed, and the result is written to
 * bench/results/checkpoints-<engine>-<records>-<time>.json. The alias is deleted at the end.
 *
 *   npm run bench:checkpoints -- --records 15000 --repetitions 10 --page 50 [--start 10000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { generateRecords } from '../corpus/generator.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { buildConnection } from '../../shared/queue/connection.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { RedisCheckpointStore } from '../../shared/search/engine/redis-checkpoints.js';
import { readLoadAverage } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WINDOW = 10_000;

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '15000' },
    repetitions: { type: 'string', default: '10' },
    page: { type: 'string', default: '50' },
    start: { type: 'string', default: String(WINDOW) },
  },
});
const RECORDS = Number(values.records);
const REPETITIONS = Number(values.repetitions);
const PAGE = Number(values.page);
/** Offset of the first page A serves; B's first page (a cold walk in "local") follows it. */
const START = Number(values.start);

const engine = process.env.ELASTICSEARCH_URL ? 'elasticsearch' : 'opensearch';
const engineUrl = process.env.ELASTICSEARCH_URL ?? process.env.OPENSEARCH_URL;
const redisUrl = process.env.REDIS_URL;
if (!engineUrl || !redisUrl) {
  console.error('Set ELASTICSEARCH_URL or OPENSEARCH_URL, and REDIS_URL (scripts/services.sh).');
  process.exit(2);
}
if (START < WINDOW || RECORDS < START + 2 * PAGE * REPETITIONS) {
  console.error(
    `--start must be at least ${WINDOW} and --records at least start + 2 × page × repetitions`,
  );
  process.exit(2);
}

const alias = `cairn-bench-checkpoints-${Date.now().toString(36)}-records`;
const prefix = `cairn-bench-checkpoints-${process.pid}`;

async function store(): Promise<RedisCheckpointStore> {
  const connection = new Redis({
    ...buildConnection(redisUrl!),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1_000,
  });
  await once(connection, 'ready');
  return new RedisCheckpointStore(connection, { prefix, perQuery: 512, idleMs: 600_000 });
}

async function backend(shared?: RedisCheckpointStore): Promise<EngineBackend> {
  const made = createEngineBackend({
    engine,
    ...(engineUrl !== undefined && { url: engineUrl }),
    alias,
    spatial: 'envelope',
    ...(shared !== undefined && { sharedCheckpoints: shared }),
  });
  await made.init();
  return made;
}

interface Sample {
  repetition: number;
  setup: 'shared' | 'local';
  offset: number;
  ms: number;
  hit: boolean;
  walkedHits: number;
}

async function main(): Promise<void> {
  const loader = await backend();
  const samples: Sample[] = [];
  const opened: EngineBackend[] = [loader];
  try {
    const documents = [...generateRecords(RECORDS, 5)];
    for (let start = 0; start < documents.length; start += 2000) {
      const parsed = parseDocuments(JSON.stringify(documents.slice(start, start + 2000)));
      const result = await loader.upsert(parsed.records);
      const [failure] = result.failures;
      if (failure) throw new Error(`load failed: ${failure.reason}`);
    }
    await loader.refresh();
    const setups = {
      shared: { a: await backend(await store()), b: await backend(await store()) },
      local: { a: await backend(), b: await backend() },
    };
    for (const pair of Object.values(setups)) opened.push(pair.a, pair.b);
    // Process A has served the page before `start`, as a harvest's earlier pages would.
    const first = START;
    const query = { sort: [], limit: PAGE };
    for (const pair of Object.values(setups))
      await pair.a.search({ ...query, offset: first - PAGE });
    const order: (keyof typeof setups)[] = ['shared', 'local'];
    for (let repetition = 1; repetition <= REPETITIONS; repetition += 1) {
      // Pages alternate: A serves page N, B page N+1 (measured), A page N+2, …
      const offset = first + (repetition - 1) * 2 * PAGE;
      for (const setup of repetition % 2 === 1 ? order : [...order].reverse()) {
        const { a, b } = setups[setup];
        await a.search({ ...query, offset });
        const before = { ...b.pagingStats };
        const started = performance.now();
        const page = await b.search({ ...query, offset: offset + PAGE });
        const ms = performance.now() - started;
        if (page.records.length !== PAGE) throw new Error(`short page at ${offset + PAGE}`);
        samples.push({
          repetition,
          setup,
          offset: offset + PAGE,
          ms: Math.round(ms * 100) / 100,
          hit: b.pagingStats.hits > before.hits,
          walkedHits: b.pagingStats.walkedHits - before.walkedHits,
        });
      }
    }
  } finally {
    const cleanup = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    const keys = await cleanup.keys(`${prefix}:*`).catch(() => []);
    if (keys.length > 0) await cleanup.del(...keys);
    await cleanup.quit();
    await loader.destroy().catch(() => undefined);
    for (const made of opened) await made.close();
  }

  console.log(`| rep | offset | shared ms | shared | local ms | local |`);
  console.log(`|----:|-------:|----------:|--------|---------:|-------|`);
  for (let repetition = 1; repetition <= REPETITIONS; repetition += 1) {
    const shared = samples.find((s) => s.repetition === repetition && s.setup === 'shared')!;
    const local = samples.find((s) => s.repetition === repetition && s.setup === 'local')!;
    const describe = (s: Sample): string => (s.hit ? 'hit' : `walk ${s.walkedHits}`);
    console.log(
      `| ${repetition} | ${shared.offset} | ${shared.ms} | ${describe(shared)} | ${local.ms} | ${describe(local)} |`,
    );
  }
  const load = readLoadAverage();
  console.log(`load average at the end: ${load.join(' ')}`);
  const time = new Date().toISOString().slice(0, 16).replace(/:/g, '');
  const file = join(
    REPO_ROOT,
    'bench',
    'results',
    `checkpoints-${engine}-${RECORDS}-${START}-${time}.json`,
  );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        benchmark: 'cairn-shared-checkpoints',
        date: new Date().toISOString(),
        engine,
        records: RECORDS,
        start: START,
        page: PAGE,
        repetitions: REPETITIONS,
        loadAverageEnd: load,
        samples,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
