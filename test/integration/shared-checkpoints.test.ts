/**
 * Deep-paging checkpoints shared through Redis (scaled mode). The store itself on a real Redis
 * (cap per query, expiry, nearest checkpoint, failure reported once); then, on each engine, two
 * EngineBackends over one alias, each with its own connection to one Redis, stand for two API
 * processes behind a round-robin balancer: a harvester's next deep page on the other process
 * continues from the checkpoint the first one left (a hit, no walk), with the answers of a
 * single backend; a reindex keys checkpoints anew; and a Redis that is down or drops its
 * connection makes deep pages walk, with the right answers, reporting the failure once.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { generateRecords } from '../../scripts/corpus/generator.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { loadConfig } from '../../shared/config/index.js';
import { buildConnection } from '../../shared/queue/connection.js';
import { createBackend, createEngineBackend } from '../../shared/search/create-backend.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import {
  RedisCheckpointStore,
  type RedisCheckpointOptions,
} from '../../shared/search/engine/redis-checkpoints.js';
import {
  createTestBackend,
  parseAll,
  requireEngineUrl,
  uniqueAlias,
} from './engine-backend-cases.js';
import { REDIS_URL, requireRedis } from './worker/worker-support.js';

const PREFIX = `cairn-test-checkpoints-${process.pid}-${Date.now().toString(36)}`;
/** Result window of the backends under test: pages beyond record 100 use checkpoints. */
const WINDOW = 100;
const COUNT = 640;
const PAGE = 40;

/** A connection made as RedisCheckpointStore.connect makes it (no offline queue, fail fast). */
function failFastConnection(url: string): Redis {
  const redis = new Redis({
    ...buildConnection(url),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1_000,
  });
  redis.on('error', () => undefined);
  return redis;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function removeKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(pattern);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

describe('deep-paging checkpoints in Redis: the store', function () {
  this.timeout(30_000);
  const prefix = `${PREFIX}-store`;
  let redis: Redis;
  let admin: Redis;
  const options = (extra: Partial<RedisCheckpointOptions> = {}): RedisCheckpointOptions => ({
    prefix,
    perQuery: 4,
    idleMs: 60_000,
    ...extra,
  });

  before(async () => {
    await requireRedis();
    redis = failFastConnection(REDIS_URL);
    admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await once(redis, 'ready');
  });

  after(async () => {
    await removeKeys(`${prefix}:*`);
    redis?.disconnect();
    await admin?.quit();
  });

  it('reads back checkpoints by offset and the nearest below, under a hashed key', async () => {
    const store = new RedisCheckpointStore(redis, options());
    const key = JSON.stringify(['cairn-records-v1', 'cairn-records', { match_all: {} }, []]);
    await store.set(key, 100, ['b:c', 3.5, null]);
    await store.set(key, 200, ['x', 1, 'id-2']);
    expect(await store.get(key, 100)).to.deep.equal(['b:c', 3.5, null]);
    expect(await store.get(key, 150)).to.equal(undefined);
    expect(await store.nearestBelow(key, 199)).to.deep.equal({
      offset: 100,
      after: ['b:c', 3.5, null],
    });
    expect(await store.nearestBelow(key, 5000)).to.deep.equal({
      offset: 200,
      after: ['x', 1, 'id-2'],
    });
    expect(await store.nearestBelow(key, 99)).to.equal(undefined);
    expect(store.redisKey(key)).to.match(new RegExp(`^${prefix}:[0-9a-f]{64}$`));
    expect(await admin.exists(store.redisKey(key))).to.equal(1);
    // Another live index version is another key.
    const other = JSON.stringify(['cairn-records-v2', 'cairn-records', { match_all: {} }, []]);
    expect(await store.get(other, 100)).to.equal(undefined);
  });

  it('replaces the checkpoint at an offset and keeps at most perQuery, dropping the lowest', async () => {
    const store = new RedisCheckpointStore(redis, options());
    const key = 'cap';
    for (const offset of [10, 20, 30, 40]) await store.set(key, offset, [`at ${offset}`]);
    await store.set(key, 20, ['again']);
    expect(await store.get(key, 20)).to.deep.equal(['again']);
    await store.set(key, 50, ['at 50']);
    expect(await admin.zcard(store.redisKey(key))).to.equal(4);
    expect(await store.get(key, 10)).to.equal(undefined);
    expect(await store.get(key, 50)).to.deep.equal(['at 50']);
  });

  it('expires a query idleMs after its last use, renewed by reads', async () => {
    // Measured with Redis's own clock (PTTL), not with sleeps that a busy machine stretches:
    // each use sets the key's time to live to idleMs, less only the time the call took.
    const IDLE_MS = 60_000;
    const store = new RedisCheckpointStore(redis, options({ idleMs: IDLE_MS }));
    const redisKey = store.redisKey('idle');
    const ttlAfter = async (use: () => Promise<unknown>): Promise<[number, number]> => {
      const started = Date.now();
      await use();
      const ttl = await admin.pttl(redisKey);
      return [ttl, Date.now() - started];
    };
    let [ttl, took] = await ttlAfter(() => store.set('idle', 100, ['a']));
    expect(ttl).to.be.within(IDLE_MS - took, IDLE_MS);
    // Time passes: the key has 1 s left. A read renews it to the whole idleMs.
    await admin.pexpire(redisKey, 1000);
    [ttl, took] = await ttlAfter(async () =>
      expect(await store.get('idle', 100)).to.deep.equal(['a']),
    );
    expect(ttl).to.be.within(IDLE_MS - took, IDLE_MS);
    await admin.pexpire(redisKey, 1000);
    [ttl, took] = await ttlAfter(() => store.nearestBelow('idle', 150));
    expect(ttl).to.be.within(IDLE_MS - took, IDLE_MS);
    // Left unused, it expires: once its time is up the query has no checkpoints.
    await admin.pexpire(redisKey, 50);
    const deadline = Date.now() + 10_000;
    while ((await admin.exists(redisKey)) === 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await admin.exists(redisKey)).to.equal(0);
    expect(await store.get('idle', 100)).to.equal(undefined);
  });

  it('answers "unknown" while Redis is unreachable, reporting it once until it answers again', async () => {
    const down = failFastConnection(`redis://127.0.0.1:${await closedPort()}`);
    const reports: string[] = [];
    const store = new RedisCheckpointStore(
      down,
      options({
        startupGraceMs: 0,
        onUnavailable: (error) => reports.push(error.message),
        onRecovered: () => reports.push('recovered'),
      }),
    );
    try {
      await store.set('down', 100, ['a']);
      expect(await store.get('down', 100)).to.equal(undefined);
      expect(await store.nearestBelow('down', 100)).to.equal(undefined);
      expect(reports).to.have.length(1);
    } finally {
      down.disconnect();
    }
  });
});

function describeEngine(engine: EngineName): void {
  const url = requireEngineUrl(engine);
  if (!url) return;

  describe(`deep-paging checkpoints shared by two ${engine} API processes through one Redis`, function () {
    this.timeout(180_000);
    const prefix = `${PREFIX}-${engine}`;
    /** Process A: loads the records; closing it deletes the alias. */
    let first: EngineBackend;
    /** Process B: the same alias, its own Redis connection. */
    let second: EngineBackend;
    /** A single backend with no shared store: the reference answers. */
    let single: EngineBackend;
    const extra: EngineBackend[] = [];

    const storeOptions = (): RedisCheckpointOptions => ({ prefix, perQuery: 512, idleMs: 60_000 });
    /** A store on its own connection (one per process), once that connection is ready. */
    const connectedStore = async (): Promise<RedisCheckpointStore> => {
      const connection = failFastConnection(REDIS_URL);
      await once(connection, 'ready');
      return new RedisCheckpointStore(connection, storeOptions());
    };
    const startProcess = async (
      options: { store?: RedisCheckpointStore } = {},
    ): Promise<EngineBackend> => {
      const backend = createEngineBackend({
        engine,
        url,
        alias: first.alias,
        spatial: 'envelope',
        maxResultWindow: WINDOW,
        ...(options.store === undefined ? {} : { sharedCheckpoints: options.store }),
      });
      await backend.init();
      extra.push(backend);
      return backend;
    };

    before(async () => {
      await requireRedis();
      first = await createTestBackend(engine, url, {
        spatial: 'envelope',
        refresh: false,
        maxResultWindow: WINDOW,
        sharedCheckpoints: await connectedStore(),
      });
      const records = parseAll(JSON.stringify([...generateRecords(COUNT, 11)]));
      expect((await first.upsert(records)).failures).to.deep.equal([]);
      await first.refresh();
      second = await startProcess({
        store: await connectedStore(),
      });
      single = await startProcess();
    });

    after(async () => {
      for (const backend of extra) await backend.close();
      await first?.close();
      await removeKeys(`${prefix}:*`);
    });

    const page = async (
      backend: EngineBackend,
      offset: number,
      query: Partial<SearchQuery> = {},
    ): Promise<{ total: number; ids: string[] }> => {
      const result = await backend.search({ sort: [], offset, limit: PAGE, ...query });
      return { total: result.total, ids: result.records.map((record) => record.id) };
    };

    /** Every page of a query through the single backend, in order. */
    const reference = async (query: Partial<SearchQuery>): Promise<string[][]> => {
      const pages: string[][] = [];
      for (let offset = 0; offset < COUNT + PAGE; offset += PAGE) {
        pages.push((await page(single, offset, query)).ids);
      }
      return pages;
    };

    for (const [label, query] of [
      ['in id order', {}],
      ['sorted by update time, newest first', { sort: [{ field: 'updated', direction: 'desc' }] }],
    ] as [string, Partial<SearchQuery>][]) {
      it(`continues page N+1 on the other process from the shared checkpoint (${label})`, async () => {
        const expected = await reference(query);
        expect(expected.flat()).to.have.length(COUNT);
        expect(new Set(expected.flat()).size).to.equal(COUNT);
        // Pages 1..N on process A, beyond the window (pages 4..).
        const deepStart = 6;
        for (let n = 0; n < deepStart; n += 1) {
          expect((await page(first, n * PAGE, query)).ids, `page ${n + 1}`).to.deep.equal(
            expected[n],
          );
        }
        // Page N+1 on process B: served from the checkpoint A left, without walking.
        const before = { ...second.pagingStats };
        const next = await page(second, deepStart * PAGE, query);
        expect(next.total).to.equal(COUNT);
        expect(next.ids).to.deep.equal(expected[deepStart]);
        expect(second.pagingStats.hits - before.hits).to.equal(1);
        expect(second.pagingStats.walks).to.equal(before.walks);
        // The rest alternately on A and B, as round-robin would: every page a hit.
        const walks = first.pagingStats.walks + second.pagingStats.walks;
        const seen = [...expected.slice(0, deepStart + 1).flat()];
        for (let n = deepStart + 1; n < expected.length; n += 1) {
          const result = await page(n % 2 === 0 ? second : first, n * PAGE, query);
          expect(result.ids, `page ${n + 1}`).to.deep.equal(expected[n]);
          seen.push(...result.ids);
        }
        expect(first.pagingStats.walks + second.pagingStats.walks).to.equal(walks);
        expect(seen).to.have.length(COUNT);
        expect(new Set(seen).size).to.equal(COUNT);
      });
    }

    it('does not use checkpoints of the index version a reindex replaced', async () => {
      const expected = await reference({});
      for (let n = 0; n <= 4; n += 1) await page(first, n * PAGE);
      await first.reindex();
      // The same page on the new index version is not a checkpoint hit: it walks, correctly.
      const before = { ...first.pagingStats };
      expect((await page(first, 5 * PAGE)).ids).to.deep.equal(expected[5]);
      expect(first.pagingStats.walks - before.walks).to.equal(1);
      expect(first.pagingStats.hits).to.equal(before.hits);
      // And a process that starts now (on the new version) continues from the new checkpoint.
      const late = await startProcess({
        store: await connectedStore(),
      });
      expect((await page(late, 6 * PAGE)).ids).to.deep.equal(expected[6]);
      expect(late.pagingStats).to.deep.include({ hits: 1, walks: 0 });
    });

    it('walks, with the right answers, while Redis is unreachable; reported once', async () => {
      const query: Partial<SearchQuery> = { sort: [{ field: 'title', direction: 'asc' }] };
      const expected = await reference(query);
      for (let n = 0; n <= 8; n += 1) await page(first, n * PAGE, query);
      const reports: Error[] = [];
      const down = await startProcess({
        store: new RedisCheckpointStore(
          failFastConnection(`redis://127.0.0.1:${await closedPort()}`),
          { ...storeOptions(), startupGraceMs: 0, onUnavailable: (error) => reports.push(error) },
        ),
      });
      for (const n of [9, 11, 13]) {
        expect((await page(down, n * PAGE, query)).ids, `page ${n + 1}`).to.deep.equal(expected[n]);
      }
      expect(down.pagingStats.walks).to.equal(3);
      expect(down.pagingStats.hits).to.equal(0);
      expect(reports).to.have.length(1);
    });

    it('walks, with the right answers, after its Redis connection drops mid-harvest', async () => {
      const query: Partial<SearchQuery> = { sort: [{ field: 'title', direction: 'desc' }] };
      const expected = await reference(query);
      const deep = 6;
      for (let n = 0; n < deep; n += 1) await page(first, n * PAGE, query);
      const connection = failFastConnection(REDIS_URL);
      await once(connection, 'ready');
      const reports: Error[] = [];
      const dropping = await startProcess({
        store: new RedisCheckpointStore(connection, {
          ...storeOptions(),
          onUnavailable: (error) => reports.push(error),
        }),
      });
      // While connected: a hit from the checkpoint process A left.
      expect((await page(dropping, deep * PAGE, query)).ids).to.deep.equal(expected[deep]);
      expect(dropping.pagingStats).to.deep.include({ hits: 1, walks: 0 });
      // The connection drops (provoked on the client: the shared Redis is not ours to stop).
      // A deep page A paged but this process did not has to walk, and is still right.
      connection.disconnect();
      const after = { ...dropping.pagingStats };
      expect((await page(dropping, (deep - 1) * PAGE, query)).ids).to.deep.equal(
        expected[deep - 1],
      );
      expect(dropping.pagingStats.walks - after.walks).to.equal(1);
      expect(reports).to.have.length(1);
    });
  });
}

describe('deep-paging checkpoints from configuration (REDIS_URL set)', function () {
  this.timeout(60_000);
  const url = process.env.CAIRN_TEST_OPENSEARCH_URL;

  it('connects the store under <WORKER_QUEUE_PREFIX>:checkpoints; first pages cost no Redis write', async () => {
    if (!url) throw new Error('CAIRN_TEST_OPENSEARCH_URL is not set (scripts/services.sh)');
    await requireRedis();
    const queuePrefix = `${PREFIX}-config`;
    const connectionName = `${queuePrefix}:checkpoints`;
    const config = loadConfig({
      OPENSEARCH_URL: url,
      SEARCH_INDEX_ALIAS: uniqueAlias('config'),
      SEARCH_SPATIAL_MODE: 'envelope',
      SEARCH_REFRESH: 'wait_for',
      REDIS_URL,
      WORKER_QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'silent',
    });
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const clients = async (): Promise<number> =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((line: string) => line.includes(` name=${connectionName} `)).length;
    const backend = (await createBackend(config)) as EngineBackend;
    try {
      expect(backend).to.be.instanceOf(EngineBackend);
      const records = parseAll(JSON.stringify([...generateRecords(30, 3)]));
      expect((await backend.upsert(records)).failures).to.deep.equal([]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await clients()).to.equal(1);
      expect((await backend.search({ sort: [], offset: 0, limit: 10 })).records).to.have.length(10);
      expect(await admin.keys(`${queuePrefix}:checkpoints:*`)).to.deep.equal([]);
    } finally {
      await backend.destroy();
      await backend.close();
    }
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await clients()).to.equal(0);
      // Without REDIS_URL: no connection.
      const withoutRedis = { ...config };
      delete withoutRedis.redisUrl;
      const alone = await createBackend(withoutRedis);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await clients()).to.equal(0);
      await (alone as EngineBackend).destroy();
      await alone.close();
    } finally {
      await removeKeys(`${queuePrefix}:*`);
      await admin.quit();
    }
  });
});

describeEngine('opensearch');
describeEngine('elasticsearch');
