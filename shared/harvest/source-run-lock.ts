/**
 * One run of a source at a time across every worker (two runs of one slow source
 * held both worker slots). A run takes the source's lock in Redis (`<harvest key>:running:<id>`,
 * SET NX with an expiry past the longest a run may last, so a worker that died frees it by
 * itself) and gives it back when it ends; a second run of the same source finds it taken and
 * waits outside the worker's slots (the worker delays its job, services/worker/start-workers.ts).
 */
import type { Redis } from 'ioredis';
import { CairnError } from '../errors/index.js';

/** A run of this source is in progress elsewhere; this one waits for it. */
export class SourceBusyError extends CairnError {
  constructor(id: string) {
    super('HARVEST_SOURCE_BUSY', 409, `a harvest of source "${id}" is already running`, true);
  }
}

/** Deletes the key only while it still holds this run's token. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Per-source run locks in Redis (see the module comment). */
export class SourceRunLock {
  constructor(
    private readonly redis: Redis,
    /** The harvest store's key prefix (`harvestKey(config)`). */
    private readonly prefix: string,
  ) {}

  /** Takes the source's lock for `token` (a job id) for at most `ttlMs`; false when taken. */
  async acquire(sourceId: string, token: string, ttlMs: number): Promise<boolean> {
    const key = this.key(sourceId);
    const set = await this.redis.set(key, token, 'PX', Math.ceil(ttlMs), 'NX');
    if (set === 'OK') return true;
    // The same job again (a retry after this worker stopped it): the lock is its own.
    return (await this.redis.get(key)) === token;
  }

  /** Gives the lock back if `token` still holds it. */
  async release(sourceId: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, this.key(sourceId), token);
  }

  private key(sourceId: string): string {
    return `${this.prefix}:running:${sourceId}`;
  }
}
