/**
 * The catalogue generation: a value that moves on with every write, after the write is
 * visible to searches and before it is acknowledged. A read that takes the generation first
 * and then searches sees every write acknowledged before it took it; an answer kept under a
 * generation is therefore never older than the writes acknowledged while that generation is
 * current, which is what lets the API's result cache serve it
 * (docs/decisions/result-cache.md).
 *
 * Three sources, by deployment:
 * - scaled mode (a search engine and REDIS_URL): a counter in Redis that every API process
 *   and worker advances after its writes, read by every API process per request;
 * - the embedded SQLite file: the file's own change counter (`PRAGMA data_version` on a
 *   connection of its own, which changes with every commit of any other connection, this
 *   process's or another's, the ingest CLI included), with a counter of this process's writes;
 * - a process of its own (an in-memory SQLite database): a counter in this process.
 * A search engine without Redis has none: nothing tells one API process of another's writes.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import type { SearchBackend } from './backend.js';

/** Where reads learn the current generation and writes advance it. */
export interface CatalogueGeneration {
  /**
   * The current generation, or undefined when it cannot be known now (Redis unavailable):
   * then nothing may be served from or kept in a cache.
   */
  current(): Promise<string | undefined>;
  /** Moves the generation on; throws when it could not (the write is then not acknowledged). */
  advance(): Promise<void>;
  /** Releases what the generation opened itself (never a connection it was given). */
  close(): void;
}

/** A counter in this process: only for a catalogue no other process writes. */
export class LocalGeneration implements CatalogueGeneration {
  private count = 0;

  current(): Promise<string | undefined> {
    return Promise.resolve(String(this.count));
  }

  advance(): Promise<void> {
    this.count += 1;
    return Promise.resolve();
  }

  close(): void {}
}

/**
 * A SQLite file's change counter, read on a connection of its own, with this process's
 * writes counted beside it (they change the file's counter too; the own count only makes the
 * change visible without waiting for a read of the file).
 */
export class SqliteFileGeneration implements CatalogueGeneration {
  private readonly database: Database.Database;
  private readonly dataVersion: Database.Statement<[], number>;
  private writes = 0;

  constructor(path: string) {
    this.database = new Database(path, { fileMustExist: true });
    this.dataVersion = this.database.prepare<[], number>('PRAGMA data_version').pluck();
  }

  current(): Promise<string | undefined> {
    try {
      return Promise.resolve(`${this.writes}.${this.dataVersion.get()}`);
    } catch {
      return Promise.resolve(undefined);
    }
  }

  advance(): Promise<void> {
    this.writes += 1;
    return Promise.resolve();
  }

  close(): void {
    this.database.close();
  }
}

/**
 * Creates the key at a value no earlier use of it reached (microseconds since the epoch), so
 * that a Redis emptied or replaced never gives a generation again that answers were kept
 * under, then increments it.
 */
const ADVANCE_SCRIPT = `if redis.call('exists', KEYS[1]) == 0 then redis.call('set', KEYS[1], ARGV[1]) end
return redis.call('incr', KEYS[1])`;

/**
 * A fresh starting value: microseconds since the epoch (see ADVANCE_SCRIPT), read from the
 * high-resolution clock. `Date.now()` counts whole milliseconds, so a key lost within the
 * millisecond it was created in would start again at the same value and give again the
 * values its first advances gave; each advance takes a Redis round trip, far more than a
 * microsecond.
 */
function startingValue(): string {
  return String(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}

/** The Redis key of the generation of a deployment: `<WORKER_QUEUE_PREFIX>:generation`. */
export function generationKey(queuePrefix: string): string {
  return `${queuePrefix}:generation`;
}

/** A counter in Redis shared by every process of a deployment, on a connection it is given. */
export class RedisGeneration implements CatalogueGeneration {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async current(): Promise<string | undefined> {
    // A disconnected Redis is not waited for: the read goes on without the cache.
    if (this.redis.status !== 'ready') return undefined;
    try {
      const value = await this.redis.get(this.key);
      if (value !== null) return value;
      await this.redis.set(this.key, startingValue(), 'NX');
      return (await this.redis.get(this.key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async advance(): Promise<void> {
    await this.redis.eval(ADVANCE_SCRIPT, 1, this.key, startingValue());
  }

  close(): void {}
}

/** The backend methods that change what a read may answer. */
const WRITES = new Set<PropertyKey>([
  'upsert',
  'delete',
  'applyAtomically',
  'purgeTombstones',
  'reindex',
]);

/**
 * Wraps a backend so that every write advances the generation once the backend's call has
 * returned (failed or not: a failed batch may have written part of its records), before the
 * caller can acknowledge it. Reads and everything else pass through unchanged.
 */
export function withGenerationAdvance<B extends SearchBackend>(
  backend: B,
  generation: CatalogueGeneration,
): B {
  return new Proxy(backend, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!WRITES.has(property) || typeof value !== 'function') return value;
      return async (...args: unknown[]): Promise<unknown> => {
        try {
          const write = value as (...a: unknown[]) => Promise<unknown>;
          return await write.apply(target, args);
        } finally {
          await generation.advance();
        }
      };
    },
  });
}

/** Why a deployment has no generation, for the start-up log. */
export type NoGenerationReason = 'engine without REDIS_URL' | 'writes not searchable on return';

/**
 * The generation of an embedded catalogue: the SQLite file's (shared with every process that
 * opens it), or this process's for an in-memory database.
 */
export function embeddedGeneration(path: string): CatalogueGeneration {
  return path !== ':memory:' && existsSync(path)
    ? new SqliteFileGeneration(path)
    : new LocalGeneration();
}

/**
 * Why a search engine deployment cannot have a generation, or undefined when it can (Redis
 * shared by every process, and writes searchable once acknowledged).
 */
export function engineGenerationRefusal(
  backend: SearchBackend,
  redisUrl: string | undefined,
): NoGenerationReason | undefined {
  if (!redisUrl) return 'engine without REDIS_URL';
  if (backend.writesSearchableOnReturn === false) return 'writes not searchable on return';
  return undefined;
}

/**
 * For the command-line tools that write (ingest, purge-tombstones, seed-samples): a search
 * engine backend whose every write advances the deployment's generation in Redis when
 * REDIS_URL is set, so that the API processes' result caches see those writes too; closing it
 * closes its Redis connection. A SQLite backend comes back unchanged (the file's change
 * counter moves by itself).
 */
export function withDeploymentGeneration<B extends SearchBackend>(
  backend: B,
  config: { redisUrl?: string | undefined; worker?: { queuePrefix: string } | undefined },
): B {
  if (backend.kind === 'sqlite' || !config.redisUrl) return backend;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined); // reconnects by itself; a failed advance fails the write
  const generation = new RedisGeneration(
    redis,
    generationKey(config.worker?.queuePrefix ?? 'cairn'),
  );
  const advancing = withGenerationAdvance(backend, generation);
  return new Proxy(advancing, {
    get(target, property, receiver) {
      if (property !== 'close') return Reflect.get(target, property, receiver) as unknown;
      return async (): Promise<void> => {
        try {
          await backend.close();
        } finally {
          redis.disconnect();
        }
      };
    },
  });
}
