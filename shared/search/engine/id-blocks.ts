/**
 * Deep pages in the index order. Every records index from mapping version 6 on is sorted by
 * `id` (`index.sort.*`), the default sort. A `search_after` request in that order still makes
 * the engine step through every match before the "after" value (Elasticsearch and OpenSearch
 * skip straight to it only when continuing a scroll, through `SearchAfterSortedDocQuery`), so
 * a page after offset 900,000 cost ~10× page 1. A range on `id` does skip: the engine builds
 * the page's candidates from the terms in the range, and then stops after the page's hits as
 * for page 1. An open range (`id > after`) costs the terms after the checkpoint, so the range
 * is bounded above by the end of a block of ids that share a prefix with the checkpoint: the
 * ids `after` < id < {@link idBlockEnd}(after, drop). When the block holds fewer matches than
 * the page needs, a wider block (a shorter prefix) is tried; the page is the same from any
 * block that holds it, since every id in a block sorts before every id after it. When no block
 * of the few tried holds the page (after `…0099999` the blocks of `…00999`, `…0099` and `…00`
 * are empty), the page falls back to `search_after`, whose cost is known.
 */
import { ID_FIELD, type SortClause } from './compile-search.js';

/** True for the sort the records index is sorted by: `id` ascending alone. */
export function isIndexOrder(sort: readonly SortClause[]): boolean {
  const [clause] = sort;
  if (clause === undefined || sort.length !== 1) return false;
  const keys = Object.keys(clause);
  if (keys.length !== 1 || keys[0] !== ID_FIELD) return false;
  const options = clause[ID_FIELD] as Record<string, unknown> | undefined;
  return (
    typeof options === 'object' &&
    options !== null &&
    Object.keys(options).length === 1 &&
    options.order === 'asc'
  );
}

const MAX_CODE_POINT = 0x10ffff;

/**
 * The smallest string (in code point order, the engines' keyword order) above every string
 * that starts with `after` less its last `drop` code points; undefined when no shorter prefix
 * is left (the block is unbounded). `drop` ≥ 1.
 */
export function idBlockEnd(after: string, drop: number): string | undefined {
  const codePoints = Array.from(after, (character) => character.codePointAt(0)!);
  let length = codePoints.length - Math.max(1, drop);
  while (length > 0) {
    const last = codePoints[length - 1]!; // 0 < length < codePoints.length
    if (last < MAX_CODE_POINT) {
      // The successor of the prefix's last code point; surrogates are not code points of a string.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return String.fromCodePoint(...codePoints.slice(0, length - 1), next);
    }
    // U+10FFFF has no successor: the block of the shorter prefix ends at the same place.
    length -= 1;
  }
  return undefined;
}

/** Code points dropped from the checkpoint's id for a query's first block. */
export const FIRST_BLOCK_DROP = 2;

/** Blocks tried (each wider than the last) before `search_after`. */
export const MAX_BLOCKS = 3;

/**
 * The blocks a query's pages start with, learned from its earlier pages: how many code points
 * to drop from the checkpoint's id so that a block holds a page. Bounded; the oldest queries go.
 */
export class BlockWidths {
  private readonly drops = new Map<string, number>();

  constructor(private readonly maxQueries = 1000) {}

  /** The drop to start from for a query and page size. */
  get(key: string, size: number): number {
    return this.drops.get(`${size}\u0000${key}`) ?? FIRST_BLOCK_DROP;
  }

  /** Remembers the drop whose block held the page. */
  set(key: string, size: number, drop: number): void {
    const entry = `${size}\u0000${key}`;
    this.drops.delete(entry);
    this.drops.set(entry, drop);
    if (this.drops.size > this.maxQueries) {
      this.drops.delete(this.drops.keys().next().value!);
    }
  }

  clear(): void {
    this.drops.clear();
  }
}
