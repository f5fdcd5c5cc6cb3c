/**
 * Shared set-up for the worker suite: a real Redis (CAIRN_TEST_REDIS_URL, default the test instance on
 * 127.0.0.1:6390), a queue prefix of its own per run, a temporary folder for SQLite files, and
 * generated record documents. When Redis is not reachable the suite FAILS saying how to start it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../../shared/config/index.js';
import type { JobDocument } from '../../../shared/queue/job-payloads.js';
import { generateRecords } from '../../../scripts/corpus/generator.js';

export const REDIS_URL = process.env.CAIRN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6390';

/** Fails (never skips) with instructions when Redis is not reachable. */
export async function requireRedis(): Promise<void> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${REDIS_URL} (${(error as Error).message}). Start it with ` +
        '`bash scripts/services.sh start redis` and `source ~/.cache/cairn/run/env.sh`.',
      { cause: error },
    );
  } finally {
    redis.disconnect();
  }
}

/**
 * Redis connections for one suite under a key prefix of its own: `connect()` opens one,
 * `cleanUp()` deletes the prefix's keys and closes every connection (call it in `after`).
 */
export function redisUnderPrefix(name: string): {
  prefix: string;
  connect: () => Redis;
  cleanUp: () => Promise<void>;
} {
  const prefix = `cairn-test-${name}-${process.pid}-${Date.now()}`;
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    connections.push(redis);
    return redis;
  };
  const cleanUp = async (): Promise<void> => {
    const redis = connect();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all(connections.map((connection) => connection.quit()));
  };
  return { prefix, connect, cleanUp };
}

/** The environment of one test: its own SQLite files and queue prefix, fast stall detection. */
export function buildTestEnvironment(name: string): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), `cairn-worker-${name}-`));
  return {
    LOG_LEVEL: 'silent',
    REDIS_URL,
    SQLITE_PATH: join(directory, 'cairn.sqlite'),
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    WORKER_QUEUE_PREFIX: `cairn-test-${name}-${process.pid}-${Date.now()}`,
    WORKER_STALLED_INTERVAL_MS: '1000',
    WORKER_LOCK_DURATION_MS: '3000',
    WORKER_BACKOFF_MS: '50',
    WORKER_ATTEMPTS: '4',
    WORKER_CONCURRENCY: '2',
    // Spawned workers serve no metrics unless a test asks (they would share the default port).
    WORKER_METRICS_PORT: '0',
  };
}

/** Loads the config of a test environment. */
export function configFor(environment: Record<string, string>): Readonly<Config> {
  return loadConfig(environment);
}

/** Generated records as one-record JSON documents, `from` the given index. */
export function generatedDocuments(count: number, from = 0): JobDocument[] {
  return [...generateRecords(count, 11, from)].map((record, index) => ({
    name: `generated ${from + index}`,
    content: JSON.stringify(record),
  }));
}

/** Polls `check` until it returns true or the time runs out. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
