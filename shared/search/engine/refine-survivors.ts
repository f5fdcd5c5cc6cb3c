/**
 * The survivors of refined searches (refine-search.ts), remembered for the catalogue generation
 * they were decided at: the ids a query's filter selected among its candidates, in the search's
 * order. A later page of the same query at the same generation slices them instead of fetching
 * and deciding every candidate again; a write moves the generation on, and nothing decided
 * before it is used after it (the argument of docs/decisions/result-cache.md: the generation is
 * read before the candidates are, so survivors kept under it never miss a write acknowledged
 * before it was read).
 *
 * In process memory, bounded by the ids held in all (an id costs about 100 bytes here), least
 * recently used first out. Only one generation is held: survivors of another are dropped when
 * one of the current generation is kept, so memory never holds what can no longer be served.
 */

/** Ids held at most, over every query: about 20 MB. */
export const DEFAULT_SURVIVOR_IDS = 200_000;

export class SurvivorStore {
  private readonly maxIds: number;
  private generation: string | undefined;
  /** Query key → survivors, least recently used first. */
  private readonly entries = new Map<string, readonly string[]>();
  private held = 0;
  private counts = { reused: 0, decided: 0 };

  constructor(maxIds = DEFAULT_SURVIVOR_IDS) {
    this.maxIds = maxIds;
  }

  /** Survivors kept for `key` at `generation`, or undefined. */
  get(key: string, generation: string): readonly string[] | undefined {
    if (generation !== this.generation) return undefined;
    const ids = this.entries.get(key);
    if (ids === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, ids);
    this.counts.reused += 1;
    return ids;
  }

  /** Keeps `ids` for `key` at `generation` (dropping every other generation's). */
  set(key: string, generation: string, ids: readonly string[]): void {
    this.counts.decided += 1;
    if (ids.length > this.maxIds) return;
    if (generation !== this.generation) {
      this.entries.clear();
      this.held = 0;
      this.generation = generation;
    }
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.held -= previous.length;
    }
    this.entries.set(key, ids);
    this.held += ids.length;
    for (const [oldest, oldIds] of this.entries) {
      if (this.held <= this.maxIds) break;
      this.entries.delete(oldest);
      this.held -= oldIds.length;
    }
  }

  /** Searches answered from kept survivors, and decided and kept (for tests and metrics). */
  get stats(): Readonly<{ reused: number; decided: number; entries: number; ids: number }> {
    return { ...this.counts, entries: this.entries.size, ids: this.held };
  }
}
