/**
 * Stores with expiry for the admin pages' browser sessions (whose tokens stay on the server;
 * sign-ins in progress travel sealed in a cookie instead, see sign-in-state.ts).
 *
 * Entries are keyed by 256-bit random ids, which is what the browser's cookie carries, so a
 * cookie names an entry and proves nothing by itself. Each entry expires at a fixed time; past
 * `maxEntries` the oldest entry is dropped, so memory stays bounded (only a completed sign-in
 * adds an entry). `ExpiringStore` lives in one process (embedded mode); in scaled mode the
 * entries live in Redis (`RedisExpiringStore`), so a browser may reach any API process.
 */
import { randomBytes } from 'node:crypto';

/** What the admin sessions need of a store; one process's memory or Redis. */
export interface SessionStore<T> {
  /** Keeps `value` until `expiresAt` (ms since the epoch) and returns its new random id. */
  add(value: T, expiresAt: number): Promise<string>;
  /** The value under `id`, or undefined when there is none or it has expired. */
  get(id: string | undefined): Promise<T | undefined>;
  /** Replaces the value under `id` if it is still there (its expiry unchanged). */
  replace(id: string, value: T): Promise<void>;
  /** Removes and returns the value under `id` (single use), or undefined. */
  take(id: string | undefined): Promise<T | undefined>;
  /** Forgets `id`. */
  delete(id: string | undefined): Promise<void>;
}

/** A store made on first use (so that merely configuring one opens no connection). */
export function lazyStore<T>(make: () => SessionStore<T>): SessionStore<T> {
  let store: SessionStore<T> | undefined;
  const made = (): SessionStore<T> => (store ??= make());
  return {
    add: (value, expiresAt) => made().add(value, expiresAt),
    get: (id) => made().get(id),
    replace: (id, value) => made().replace(id, value),
    take: (id) => made().take(id),
    delete: (id) => made().delete(id),
  };
}

/** A new 256-bit random entry id, base64url. */
export function newEntryId(): string {
  return randomBytes(32).toString('base64url');
}

export interface ExpiringStoreOptions {
  /** Most entries kept; adding one more drops the oldest. */
  maxEntries: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** Values under random ids until their expiry time, in this process; see the module comment. */
export class ExpiringStore<T> implements SessionStore<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly now: () => number;

  constructor(private readonly options: ExpiringStoreOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1)
      throw new Error('maxEntries must be a positive integer');
    this.now = options.now ?? Date.now;
  }

  async add(value: T, expiresAt: number): Promise<string> {
    this.dropExpired();
    while (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    const id = newEntryId();
    this.entries.set(id, { value, expiresAt });
    return id;
  }

  async get(id: string | undefined): Promise<T | undefined> {
    return this.live(id)?.value;
  }

  async replace(id: string, value: T): Promise<void> {
    const entry = this.live(id);
    if (entry) entry.value = value;
  }

  async take(id: string | undefined): Promise<T | undefined> {
    const value = this.live(id)?.value;
    if (id !== undefined) this.entries.delete(id);
    return value;
  }

  async delete(id: string | undefined): Promise<void> {
    if (id !== undefined) this.entries.delete(id);
  }

  /** The unexpired entry under `id`; an expired one is dropped on the way. */
  private live(id: string | undefined): Entry<T> | undefined {
    if (id === undefined) return undefined;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** How many entries are held (expired ones included until they are next looked at). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Drops expired entries from the oldest end. Entries of one store share one lifetime, so
   * insertion order is expiry order and the walk stops at the first live entry.
   */
  private dropExpired(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(id);
    }
  }
}
