/**
 * The admin sign-in stores of scaled mode: each entry is one Redis string under
 * `<prefix>:<id>` that Redis expires itself (PXAT), so any API process behind the balancer reads
 * a session another one opened, and a sign-in begun on one finishes on another. A sorted set
 * `<prefix>:index` (score: expiry) keeps the cap of the in-process store: adding past
 * `maxEntries` drops the entries that expire first, so Redis holds a bounded number. Values
 * are JSON.
 */
import type { Redis } from 'ioredis';
import { newEntryId, type SessionStore } from './session-store.js';

/** Drops expired ids from the index, then the soonest to expire beyond the cap, then adds. */
const ADD_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[5])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[6]) + 1
if excess > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #dropped, 2 do redis.call('DEL', ARGV[1] .. dropped[i]) end
end
redis.call('SET', ARGV[1] .. ARGV[2], ARGV[3], 'PXAT', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
return 1
`;

export interface RedisExpiringStoreOptions {
  /** Key prefix of this store's entries, e.g. `cairn:admin:session`. */
  prefix: string;
  /** Most entries kept; adding one more drops those that expire first. */
  maxEntries: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

export class RedisExpiringStore<T> implements SessionStore<T> {
  private readonly now: () => number;
  private readonly index: string;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisExpiringStoreOptions,
  ) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1)
      throw new Error('maxEntries must be a positive integer');
    this.now = options.now ?? Date.now;
    this.index = `${options.prefix}:index`;
  }

  async add(value: T, expiresAt: number): Promise<string> {
    const id = newEntryId();
    await this.redis.eval(
      ADD_SCRIPT,
      1,
      this.index,
      `${this.options.prefix}:`,
      id,
      JSON.stringify(value),
      Math.ceil(expiresAt),
      this.now(),
      this.options.maxEntries,
    );
    return id;
  }

  async get(id: string | undefined): Promise<T | undefined> {
    if (!isEntryId(id)) return undefined;
    return parse<T>(await this.redis.get(this.key(id)));
  }

  async replace(id: string, value: T): Promise<void> {
    // XX: only while the entry lives; KEEPTTL: its expiry stays.
    await this.redis.set(this.key(id), JSON.stringify(value), 'KEEPTTL', 'XX');
  }

  async take(id: string | undefined): Promise<T | undefined> {
    if (!isEntryId(id)) return undefined;
    const [[, value]] = (await this.redis
      .multi()
      .getdel(this.key(id))
      .zrem(this.index, id)
      .exec()) as [[Error | null, string | null], [Error | null, number]];
    return parse<T>(value);
  }

  async delete(id: string | undefined): Promise<void> {
    if (!isEntryId(id)) return;
    await this.redis.multi().del(this.key(id)).zrem(this.index, id).exec();
  }

  private key(id: string): string {
    return `${this.options.prefix}:${id}`;
  }
}

/** Ids are what `newEntryId` makes; anything else in a cookie names no entry. */
function isEntryId(id: string | undefined): id is string {
  return id !== undefined && /^[A-Za-z0-9_-]{43}$/.test(id);
}

function parse<T>(value: string | null): T | undefined {
  return value === null ? undefined : (JSON.parse(value) as T);
}
