/**
 * A small in-memory store with expiry, for the admin pages' browser sign-in: sessions (whose
 * tokens stay on the server) and sign-ins in progress (state, nonce, PKCE verifier).
 *
 * Entries are keyed by 256-bit random ids, which is what the browser's cookie carries, so a
 * cookie names an entry and proves nothing by itself. Each entry expires at a fixed time; past
 * `maxEntries` the oldest entry is dropped, so a flood of unauthenticated sign-in starts cannot
 * exhaust memory. The store lives in one process: behind several API processes, a browser must
 * reach the same one (sticky sessions), or sign in again.
 */
import { randomBytes } from 'node:crypto';

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

/** Values under random ids until their expiry time; see the module comment. */
export class ExpiringStore<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly now: () => number;

  constructor(private readonly options: ExpiringStoreOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1)
      throw new Error('maxEntries must be a positive integer');
    this.now = options.now ?? Date.now;
  }

  /** Keeps `value` until `expiresAt` (ms since the epoch) and returns its new random id. */
  add(value: T, expiresAt: number): string {
    this.dropExpired();
    while (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    const id = randomBytes(32).toString('base64url');
    this.entries.set(id, { value, expiresAt });
    return id;
  }

  /** The value under `id`, or undefined when there is none or it has expired. */
  get(id: string | undefined): T | undefined {
    if (id === undefined) return undefined;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  /** Removes and returns the value under `id` (single use), or undefined. */
  take(id: string | undefined): T | undefined {
    const value = this.get(id);
    if (id !== undefined) this.entries.delete(id);
    return value;
  }

  /** Forgets `id`. */
  delete(id: string | undefined): void {
    if (id !== undefined) this.entries.delete(id);
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
