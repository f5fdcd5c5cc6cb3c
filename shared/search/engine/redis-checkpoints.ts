/**
 * Deep-paging checkpoints shared by every API process of a deployment, in Redis. Each query
 * (its checkpoint key: live index version, alias, compiled query and sort) is one sorted set
 * under `<prefix>:<sha256 of the key>`, scored by offset, whose members are
 * `<offset>:<JSON of the sort values>`. A set keeps at most `perQuery` checkpoints (the lowest
 * offsets go first: a harvester moves forward) and expires `idleMs` after it was last read or
 * written, so Redis holds only the queries being paged.
 *
 * The store never fails a search. Its connection has no offline queue and a short command
 * timeout: while Redis is down or slow, reads answer "unknown" (the backend walks, as a process
 * without the checkpoint would) and writes are dropped. The first failure is reported once
 * (`onUnavailable`); after Redis answers again, the next outage is reported again.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildConnection } from '../../queue/connection.js';
import type { SortValue } from './engine-adapter.js';
import type { Checkpoint, CheckpointStore } from './sort-checkpoints.js';

/** Replaces the checkpoint at an offset, trims the lowest offsets beyond the cap, renews expiry. */
const SET_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * A process's first searches may come before its connection is ready: those deep pages walk
 * unreported for up to this long (an unreachable Redis is reported after it).
 */
const STARTING_MS = 10_000;

/** How long one checkpoint command may take before the search goes on without it. */
const COMMAND_TIMEOUT_MS = 1_000;

export interface RedisCheckpointOptions {
  /** Key prefix, e.g. `cairn:checkpoints`. */
  prefix: string;
  /** Checkpoints kept per query. */
  perQuery: number;
  /** A query's checkpoints expire this long after their last use. */
  idleMs: number;
  /** Called on the first failure of an outage (log it). */
  onUnavailable?: (error: Error) => void;
  /** Failures before the connection was first ready go unreported this long. Default 10 s. */
  startupGraceMs?: number;
  /** Called when Redis answers again after a reported failure. */
  onRecovered?: () => void;
}

export class RedisCheckpointStore implements CheckpointStore {
  private failing = false;
  /** Until the connection is first ready, or this time passes, failures are start-up, not outage. */
  private startingUntil: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisCheckpointOptions,
  ) {
    this.startingUntil =
      redis.status === 'ready' ? 0 : Date.now() + (options.startupGraceMs ?? STARTING_MS);
    redis.once('ready', () => (this.startingUntil = 0));
    if (!Number.isInteger(options.perQuery) || options.perQuery < 1)
      throw new Error('perQuery must be a positive integer');
    if (!Number.isInteger(options.idleMs) || options.idleMs < 1)
      throw new Error('idleMs must be a positive integer');
  }

  /** A store on its own connection to `redisUrl`, made to fail fast (see above). */
  static connect(redisUrl: string, options: RedisCheckpointOptions): RedisCheckpointStore {
    const redis = new Redis({
      ...buildConnection(redisUrl),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectionName: `${options.prefix.replace(/[^!-~]/g, '_')}`,
    });
    // Reconnects by itself; failures reach the store's callers, which report them once.
    redis.on('error', () => undefined);
    return new RedisCheckpointStore(redis, options);
  }

  /** The Redis key of a checkpoint key. */
  redisKey(key: string): string {
    return `${this.options.prefix}:${createHash('sha256').update(key).digest('hex')}`;
  }

  async get(key: string, offset: number): Promise<SortValue[] | undefined> {
    const members = await this.read(key, (pipeline, redisKey) =>
      pipeline.zrangebyscore(redisKey, offset, offset, 'LIMIT', 0, 1),
    );
    return members?.[0] === undefined ? undefined : parseMember(members[0]).after;
  }

  async nearestBelow(key: string, offset: number): Promise<Checkpoint | undefined> {
    const members = await this.read(key, (pipeline, redisKey) =>
      pipeline.zrevrangebyscore(redisKey, offset, '-inf', 'LIMIT', 0, 1),
    );
    return members?.[0] === undefined ? undefined : parseMember(members[0]);
  }

  async set(key: string, offset: number, after: SortValue[]): Promise<void> {
    try {
      await this.redis.eval(
        SET_SCRIPT,
        1,
        this.redisKey(key),
        offset,
        `${offset}:${JSON.stringify(after)}`,
        this.options.perQuery,
        this.options.idleMs,
      );
      this.succeeded();
    } catch (error) {
      this.failed(error);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** One range read and an expiry renewal in one round trip; undefined when Redis failed. */
  private async read(
    key: string,
    range: (pipeline: ReturnType<Redis['pipeline']>, redisKey: string) => unknown,
  ): Promise<string[] | undefined> {
    const redisKey = this.redisKey(key);
    try {
      const pipeline = this.redis.pipeline();
      range(pipeline, redisKey);
      pipeline.pexpire(redisKey, this.options.idleMs);
      const results = await pipeline.exec();
      const [error, members] = results?.[0] ?? [new Error('no reply from Redis'), undefined];
      if (error) throw error;
      this.succeeded();
      return members as string[];
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  private succeeded(): void {
    if (!this.failing) return;
    this.failing = false;
    this.options.onRecovered?.();
  }

  private failed(error: unknown): void {
    if (this.failing || Date.now() < this.startingUntil) return;
    this.failing = true;
    this.options.onUnavailable?.(error instanceof Error ? error : new Error(String(error)));
  }
}

function parseMember(member: string): Checkpoint {
  const colon = member.indexOf(':');
  return {
    offset: Number(member.slice(0, colon)),
    after: JSON.parse(member.slice(colon + 1)) as SortValue[],
  };
}
