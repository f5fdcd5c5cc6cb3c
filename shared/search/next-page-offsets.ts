/**
 * The offsets this process has handed out as a next page, by query: a page beyond
 * QUERY_MAX_OFFSET on a sort other than the index order is answered only at an offset where an
 * earlier page of the same query ended, the offset a `next` link (STAC `token`, CSW
 * `nextRecord`, OpenSearch `next`) points to. The backend keeps its paging position there
 * (search engines: a sort checkpoint), so such a page costs what the first page costs, while a
 * cold deep offset would walk every record before it.
 *
 * `NextPageOffsets` is one process's bounded LRU: least recently used queries go first, and each
 * query keeps its most recent offsets. In scaled mode (REDIS_URL) `sharedNextPages` keeps them in
 * Redis too, so a client following `next` links continues on whichever API process it reaches.
 */
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import { buildConnection } from '../queue/connection.js';
import { RedisCheckpointStore } from './engine/redis-checkpoints.js';
import type { CheckpointStore } from './engine/sort-checkpoints.js';

/** Where the door keeps the offsets next pages start at. */
export interface NextPageStore {
  /** Whether a page of the query (its key) ended at `offset`. */
  has(key: string, offset: number): Promise<boolean>;
  /** Remembers that a page of the query ended at `offset`. */
  add(key: string, offset: number): Promise<void>;
  close(): Promise<void>;
}

export class NextPageOffsets {
  private readonly queries = new Map<string, Set<number>>();

  constructor(
    private readonly maxQueries = 1000,
    private readonly maxOffsetsPerQuery = 512,
  ) {}

  /** Whether a page of the query (its key) ended at `offset`. */
  has(key: string, offset: number): boolean {
    const offsets = this.queries.get(key);
    if (!offsets?.has(offset)) return false;
    this.queries.delete(key);
    this.queries.set(key, offsets);
    return true;
  }

  /** Remembers that a page of the query ended at `offset` (a next page starts there). */
  add(key: string, offset: number): void {
    let offsets = this.queries.get(key);
    if (offsets) this.queries.delete(key);
    else offsets = new Set();
    this.queries.set(key, offsets);
    offsets.delete(offset);
    offsets.add(offset);
    if (offsets.size > this.maxOffsetsPerQuery) {
      offsets.delete(offsets.values().next().value as number);
    }
    if (this.queries.size > this.maxQueries) {
      this.queries.delete(this.queries.keys().next().value as string);
    }
  }
}

/** This process's offsets alone (one API process, or no Redis). */
export function localNextPages(offsets = new NextPageOffsets()): NextPageStore {
  return {
    has: async (key, offset) => offsets.has(key, offset),
    add: async (key, offset) => offsets.add(key, offset),
    close: async () => undefined,
  };
}

/**
 * This process's offsets, and those of every API process in a shared store (Redis), connected
 * on the first deep page: a process that never serves one opens no connection. The store never
 * fails a search: when it cannot answer, the offset is unknown there.
 */
export function sharedNextPages(
  connect: () => Promise<CheckpointStore>,
  offsets = new NextPageOffsets(),
): NextPageStore {
  let shared: Promise<CheckpointStore> | undefined;
  const store = (): Promise<CheckpointStore> => (shared ??= connect());
  return {
    has: async (key, offset) => {
      if (offsets.has(key, offset)) return true;
      if ((await (await store()).get(key, offset)) === undefined) return false;
      offsets.add(key, offset);
      return true;
    },
    add: async (key, offset) => {
      offsets.add(key, offset);
      await (await store()).set(key, offset, []);
    },
    close: async () => {
      const opened = shared;
      shared = undefined;
      if (opened) await (await opened).close();
    },
  };
}

/** How long the first deep page waits for the Redis connection before going on without it. */
const CONNECT_WAIT_MS = 1000;

/**
 * The next-page offsets of the configuration: shared in Redis under
 * `<WORKER_QUEUE_PREFIX>:next-pages` when API processes share a search engine (REDIS_URL set,
 * kept as long as its deep-paging checkpoints), else this process's alone.
 */
export function openNextPages(
  config: Pick<Config, 'redisUrl' | 'search'> & { worker?: Pick<Config['worker'], 'queuePrefix'> },
): NextPageStore {
  const { redisUrl, search } = config;
  if (!redisUrl || search.kind === 'sqlite') return localNextPages();
  const prefix = `${config.worker?.queuePrefix ?? 'cairn'}:next-pages`;
  return sharedNextPages(async () => {
    // Commands fail fast rather than queue while Redis is away (the store answers "unknown").
    const redis = new Redis({
      ...buildConnection(redisUrl),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: CONNECT_WAIT_MS,
      connectionName: prefix.replace(/[^!-~]/g, '_'),
    });
    redis.on('error', () => undefined);
    // The first offset is remembered once the connection is ready, not dropped for want of it.
    await Promise.race([once(redis, 'ready').catch(() => undefined), delay(CONNECT_WAIT_MS)]);
    return new RedisCheckpointStore(redis, {
      prefix,
      perQuery: search.checkpoints.perQuery,
      idleMs: search.checkpoints.idleSeconds * 1000,
    });
  });
}
