/**
 * The harvest source store of scaled mode, in the Redis every API and worker process reaches:
 *
 *   <prefix>:ids              set of registered source ids
 *   <prefix>:source:<id>      hash: definition (JSON), url, protocol, createdAt, updatedAt,
 *                             lastSuccessStartedAt, lastRun (JSON)
 *   <prefix>:owned:<id>       set of the record ids the source contributed
 *
 * Changes that read before they write (create, put, recordRun) are Lua scripts, so two
 * processes registering or finishing runs at once cannot lose each other's state.
 */
import type { Redis } from 'ioredis';
import type { HarvestSourceDefinition } from './harvest-source.js';
import {
  readStoredSource,
  SourceExistsError,
  type HarvestRunSummary,
  type HarvestStore,
  type StoredSource,
  type StoredSourceFields,
} from './harvest-store.js';

/** Ids per SADD/SREM/SMISMEMBER command. */
const CHUNK = 1000;

/** KEYS: source hash, ids set. ARGV: id, definition, url, protocol, now. 1 = created. */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'definition', ARGV[2], 'url', ARGV[3], 'protocol', ARGV[4],
  'createdAt', ARGV[5], 'updatedAt', ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`;

/** As CREATE, but replaces; another URL or protocol forgets the incremental starting point. */
const PUT = `
local created = redis.call('EXISTS', KEYS[1]) == 0
if created then
  redis.call('HSET', KEYS[1], 'createdAt', ARGV[5])
elseif redis.call('HGET', KEYS[1], 'url') ~= ARGV[3]
    or redis.call('HGET', KEYS[1], 'protocol') ~= ARGV[4] then
  redis.call('HDEL', KEYS[1], 'lastSuccessStartedAt')
end
redis.call('HSET', KEYS[1], 'definition', ARGV[2], 'url', ARGV[3], 'protocol', ARGV[4],
  'updatedAt', ARGV[5])
redis.call('SADD', KEYS[2], ARGV[1])
if created then return 1 else return 0 end
`;

/** KEYS: source hash. ARGV: run (JSON), success start ('' when the run failed). */
const RECORD_RUN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'lastRun', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'lastSuccessStartedAt', ARGV[2]) end
return 1
`;

function chunks(ids: Iterable<string>): string[][] {
  const all = [...ids];
  const result: string[][] = [];
  for (let start = 0; start < all.length; start += CHUNK)
    result.push(all.slice(start, start + CHUNK));
  return result;
}

export class RedisHarvestStore implements HarvestStore {
  constructor(
    private readonly redis: Redis,
    /** Key prefix, e.g. `<queue prefix>:harvest`. */
    private readonly prefix: string,
  ) {}

  private get idsKey(): string {
    return `${this.prefix}:ids`;
  }

  private sourceKey(id: string): string {
    return `${this.prefix}:source:${id}`;
  }

  private ownedKey(id: string): string {
    return `${this.prefix}:owned:${id}`;
  }

  async list(): Promise<StoredSource[]> {
    const ids = (await this.redis.smembers(this.idsKey)).sort();
    const sources = await Promise.all(ids.map((id) => this.get(id)));
    return sources.filter((source): source is StoredSource => source !== null);
  }

  async get(id: string): Promise<StoredSource | null> {
    const [[, fields], [, count]] = (await this.redis
      .multi()
      .hgetall(this.sourceKey(id))
      .scard(this.ownedKey(id))
      .exec()) as [[Error | null, Record<string, string>], [Error | null, number]];
    if (!fields.definition) return null;
    // The hash holds the StoredSourceFields its scripts wrote (see the header).
    return readStoredSource(fields as unknown as StoredSourceFields, count);
  }

  async create(definition: HarvestSourceDefinition): Promise<StoredSource> {
    const created = await this.redis.eval(
      CREATE,
      2,
      this.sourceKey(definition.id),
      this.idsKey,
      ...this.definitionArguments(definition),
    );
    if (created === 0) throw new SourceExistsError(definition.id);
    return (await this.get(definition.id)) as StoredSource;
  }

  async put(
    definition: HarvestSourceDefinition,
  ): Promise<{ source: StoredSource; created: boolean }> {
    const created = await this.redis.eval(
      PUT,
      2,
      this.sourceKey(definition.id),
      this.idsKey,
      ...this.definitionArguments(definition),
    );
    return { source: (await this.get(definition.id)) as StoredSource, created: created === 1 };
  }

  async remove(id: string): Promise<boolean> {
    const [[, removed]] = (await this.redis
      .multi()
      .del(this.sourceKey(id))
      .del(this.ownedKey(id))
      .srem(this.idsKey, id)
      .exec()) as [[Error | null, number], ...unknown[]];
    return removed > 0;
  }

  async recordRun(id: string, run: HarvestRunSummary): Promise<void> {
    const success = run.status === 'completed' ? run.startedAt : '';
    await this.redis.eval(RECORD_RUN, 1, this.sourceKey(id), JSON.stringify(run), success);
  }

  async ownedIds(sourceId: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(this.ownedKey(sourceId)));
  }

  async addOwned(sourceId: string, recordIds: Iterable<string>): Promise<void> {
    for (const chunk of chunks(recordIds)) await this.redis.sadd(this.ownedKey(sourceId), chunk);
  }

  async removeOwned(sourceId: string, recordIds: Iterable<string>): Promise<void> {
    for (const chunk of chunks(recordIds)) await this.redis.srem(this.ownedKey(sourceId), chunk);
  }

  async ownedElsewhere(sourceId: string, recordIds: Iterable<string>): Promise<Set<string>> {
    const others = (await this.redis.smembers(this.idsKey)).filter((id) => id !== sourceId);
    const shared = new Set<string>();
    for (const chunk of chunks(recordIds)) {
      for (const other of others) {
        const flags = await this.redis.smismember(this.ownedKey(other), chunk);
        chunk.forEach((id, index) => flags[index] === 1 && shared.add(id));
      }
    }
    return shared;
  }

  /** The connection is shared (the queues' or the worker's): nothing to release. */
  async close(): Promise<void> {}

  private definitionArguments(definition: HarvestSourceDefinition): string[] {
    return [
      definition.id,
      JSON.stringify(definition),
      definition.url,
      definition.protocol,
      new Date().toISOString(),
    ];
  }
}
