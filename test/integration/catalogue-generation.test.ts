/**
 * The catalogue generation against its real stores: the SQLite file's counter moves with a
 * commit of another connection (as another process or the ingest CLI would make) and not with a
 * read; the Redis counter starts at a fresh value, moves with every advance, and after the key
 * is lost starts above every value it gave before; the CLIs' wrapper advances it after an
 * engine backend's write and closes its connection with the backend.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import type { SearchBackend } from '../../shared/search/backend.js';
import {
  generationKey,
  RedisGeneration,
  SqliteFileGeneration,
  withDeploymentGeneration,
} from '../../shared/search/catalogue-generation.js';
import { REDIS_URL, requireRedis } from './worker/worker-support.js';

describe('catalogue generation (real SQLite file and Redis)', () => {
  it('follows the SQLite file: a commit of another connection moves it, a read does not', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cairn-generation-'));
    const path = join(directory, 'catalogue.sqlite');
    const writer = new Database(path);
    try {
      writer.pragma('journal_mode = WAL');
      writer.exec('CREATE TABLE records (id TEXT)');
      const generation = new SqliteFileGeneration(path);
      const first = await generation.current();
      writer.prepare('SELECT count(*) FROM records').get();
      assert.equal(await generation.current(), first, 'a read changes nothing');
      writer.exec("INSERT INTO records VALUES ('a')");
      const second = await generation.current();
      assert.notEqual(second, first, 'a commit elsewhere moves it');
      await generation.advance();
      assert.notEqual(await generation.current(), second, 'so does a write of this process');
      generation.close();
    } finally {
      writer.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  describe('in Redis', () => {
    const prefix = `cairn-test-generation-${process.pid}-${Date.now()}`;
    const key = generationKey(prefix);
    let redis: Redis;
    before(async () => {
      await requireRedis();
      redis = new Redis(REDIS_URL);
    });
    after(async () => {
      await redis?.del(key);
      redis?.disconnect();
    });

    it('starts fresh, moves with every advance, and restarts above its old values when lost', async () => {
      await redis.ping();
      const generation = new RedisGeneration(redis, key);
      const start = Number(await generation.current());
      assert.ok(start >= (Date.now() - 60_000) * 1000, 'starts at the time in microseconds');
      await generation.advance();
      await generation.advance();
      const advanced = Number(await generation.current());
      assert.equal(advanced, start + 2);
      // An emptied or replaced Redis, again and again, each time within a millisecond or so
      // of the last start.
      let highest = advanced;
      for (let loss = 0; loss < 20; loss += 1) {
        await redis.del(key);
        await generation.advance();
        const restarted = Number(await generation.current());
        assert.ok(restarted > highest, `never a value given before (loss ${loss + 1})`);
        await generation.advance();
        highest = Number(await generation.current());
      }
    });

    it('advances after a write of an engine backend through the CLIs wrapper', async () => {
      const generation = new RedisGeneration(redis, key);
      await redis.ping();
      const before = await generation.current();
      let closed = false;
      const engine = {
        kind: 'elasticsearch',
        upsert: () => Promise.resolve({ written: 1, failures: [] }),
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      } as unknown as SearchBackend;
      const wrapped = withDeploymentGeneration(engine, {
        redisUrl: REDIS_URL,
        worker: { queuePrefix: prefix },
      });
      await wrapped.upsert([]);
      assert.equal(Number(await generation.current()), Number(before) + 1);
      await wrapped.close();
      assert.equal(closed, true);
      const sqlite = { kind: 'sqlite' } as unknown as SearchBackend;
      assert.equal(withDeploymentGeneration(sqlite, { redisUrl: REDIS_URL }), sqlite);
    });
  });
});
