/**
 * Deep paging checkpoints: for a query (its canonical JSON), the sort values of the last hit
 * before an offset. A page beyond the engine's result window continues with `search_after`
 * from the checkpoint at its offset, so sequential pages (CSW harvesting, OpenSearch
 * `startIndex`) cost what the first page costs. `SortCheckpoints` is the bounded in-memory LRU
 * of one process (least recently used queries go first, and each query keeps its most recent
 * checkpoints); in scaled mode a `CheckpointStore` shared by every API process sits behind it
 * (`redis-checkpoints.ts`), so a harvester's next page continues on whichever process gets it.
 */
import type { SortValue } from './engine-adapter.js';

export interface Checkpoint {
  offset: number;
  after: SortValue[];
}

/**
 * Checkpoints shared by several processes. Keys are the backend's checkpoint keys (the live
 * index version, the alias and the compiled query and sort). A shared store never fails a
 * search: when it cannot answer, it answers "unknown" and the backend walks.
 */
export interface CheckpointStore {
  get(key: string, offset: number): Promise<SortValue[] | undefined>;
  nearestBelow(key: string, offset: number): Promise<Checkpoint | undefined>;
  set(key: string, offset: number, after: SortValue[]): Promise<void>;
  close(): Promise<void>;
}

export interface CheckpointStats {
  /** Deep pages served straight from a checkpoint at their offset. */
  hits: number;
  /** Deep pages that had to walk (from the nearest checkpoint below, or the start). */
  walks: number;
  /** Hits skipped over by walks (and by the last step of jumps), in total. */
  walkedHits: number;
  /** Deep pages in the index order found by a sampled jump (counted, not walked). */
  jumps: number;
}

export class SortCheckpoints {
  private readonly queries = new Map<string, Map<number, SortValue[]>>();

  constructor(
    private readonly maxQueries = 1000,
    private readonly maxCheckpointsPerQuery = 512,
  ) {}

  private touch(key: string): Map<number, SortValue[]> | undefined {
    const checkpoints = this.queries.get(key);
    if (checkpoints) {
      this.queries.delete(key);
      this.queries.set(key, checkpoints);
    }
    return checkpoints;
  }

  /** The sort values of the hit just before `offset`, if known. */
  get(key: string, offset: number): SortValue[] | undefined {
    const checkpoints = this.touch(key);
    const after = checkpoints?.get(offset);
    if (after && checkpoints) {
      checkpoints.delete(offset);
      checkpoints.set(offset, after);
    }
    return after;
  }

  /** The known checkpoint closest below or at `offset`, if any. */
  nearestBelow(key: string, offset: number): Checkpoint | undefined {
    const checkpoints = this.touch(key);
    let best: Checkpoint | undefined;
    for (const [known, after] of checkpoints ?? []) {
      if (known <= offset && (!best || known > best.offset)) best = { offset: known, after };
    }
    return best;
  }

  /** Remembers the sort values of the hit just before `offset`. */
  set(key: string, offset: number, after: SortValue[]): void {
    let checkpoints = this.touch(key);
    if (!checkpoints) {
      checkpoints = new Map();
      this.queries.set(key, checkpoints);
      if (this.queries.size > this.maxQueries) {
        this.queries.delete(this.queries.keys().next().value as string);
      }
    }
    checkpoints.delete(offset);
    checkpoints.set(offset, after);
    if (checkpoints.size > this.maxCheckpointsPerQuery) {
      checkpoints.delete(checkpoints.keys().next().value as number);
    }
  }

  clear(): void {
    this.queries.clear();
  }
}
