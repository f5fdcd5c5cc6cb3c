/**
 * The properties a filter may name beyond the core queryables: those the catalogue learned
 * from its records (SearchBackend.learnedProperties), as last read by this process. The
 * backend's store is the truth (a table of the SQLite file, the engine's index mapping); this is
 * only a read cache with invalidation on a miss: a filter naming a property the cache lacks
 * reads the store again (once, shared by the requests waiting for it) before it is refused, so
 * a record written through another process is filterable here as soon as it is written.
 * Learned properties are never forgotten by the store but by a reindex, so a cached name that
 * no record has any more only matches nothing.
 */
import { performance } from 'node:perf_hooks';
import { UnknownQueryableError, UnsortablePropertyError } from '../../../shared/errors/index.js';
import type { LearnedProperty } from '../../../shared/query/queryables.js';
import type { SearchBackend } from '../../../shared/search/backend.js';

/** The learned properties as read once, and when that read started. */
export interface LearnedSnapshot {
  properties: readonly LearnedProperty[];
  /** Their names, for the filter checker. */
  names: ReadonlySet<string>;
  /** The names of those a sort can order by, for `sortby`. */
  sortable: ReadonlySet<string>;
  /** performance.now() when the read began: it holds everything written before then. */
  readStartedAt: number;
}

export class KnownQueryables {
  private readonly backend: Pick<SearchBackend, 'learnedProperties'>;
  private snapshot: LearnedSnapshot | undefined;
  /** The read under way, if any, and when it began. */
  private pending: { startedAt: number; read: Promise<LearnedSnapshot> } | undefined;

  constructor(backend: Pick<SearchBackend, 'learnedProperties'>) {
    this.backend = backend;
  }

  /** The learned properties as last read (read now if never read). */
  current(): Promise<LearnedSnapshot> {
    return this.snapshot ? Promise.resolve(this.snapshot) : this.readSince(performance.now());
  }

  /** The learned properties as they are now (for the queryables documents). */
  fresh(): Promise<LearnedSnapshot> {
    return this.readSince(performance.now());
  }

  /**
   * The learned properties as read by a read that began at `since` or later: the one under way
   * when it did, else a new one. Everything written before `since` is in it.
   */
  readSince(since: number): Promise<LearnedSnapshot> {
    if (this.snapshot && this.snapshot.readStartedAt >= since) {
      return Promise.resolve(this.snapshot);
    }
    if (this.pending && this.pending.startedAt >= since) return this.pending.read;
    const startedAt = performance.now();
    const read = this.backend.learnedProperties().then(
      (properties) => {
        const snapshot: LearnedSnapshot = {
          properties,
          names: new Set(properties.map((property) => property.name)),
          sortable: new Set(
            properties.filter((property) => property.sortable).map((property) => property.name),
          ),
          readStartedAt: startedAt,
        };
        if (!this.snapshot || this.snapshot.readStartedAt < startedAt) this.snapshot = snapshot;
        if (this.pending?.read === read) this.pending = undefined;
        return snapshot;
      },
      (error: unknown) => {
        if (this.pending?.read === read) this.pending = undefined;
        throw error;
      },
    );
    this.pending = { startedAt, read };
    return read;
  }

  /**
   * Runs a request's pure parse with the known property names (and the sortable ones); when it
   * refuses a property as unknown or unsortable, reads them again (a read begun after the
   * request) and parses once more, so only a property no record written before the request has
   * is refused.
   */
  async parse<T>(
    parse: (names: ReadonlySet<string>, sortable: ReadonlySet<string>) => T,
  ): Promise<T> {
    const since = performance.now();
    const snapshot = await this.current();
    try {
      return parse(snapshot.names, snapshot.sortable);
    } catch (error) {
      const unknown =
        error instanceof UnknownQueryableError || error instanceof UnsortablePropertyError;
      if (!unknown || snapshot.readStartedAt >= since) throw error;
      const again = await this.readSince(since);
      return parse(again.names, again.sortable);
    }
  }
}
