/**
 * What both backends share for the change listing (ChangeQuery): the (change time, id) order
 * and the merge of the live records' page with the tombstones' page into one page of that order.
 * Ids compare by their UTF-8 bytes, as SQLite's BINARY collation and the engines' keyword sort do.
 */
import type { ChangeCheckpoint, ChangeEntry } from './backend.js';

/** Negative, zero or positive as `a` comes before, with or after `b` in the listing order. */
export function compareChanges(a: ChangeCheckpoint, b: ChangeCheckpoint): number {
  if (a.changed !== b.changed) return a.changed < b.changed ? -1 : 1;
  return Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

/**
 * The first `limit` entries of two pages that are each in listing order and each hold the first
 * `limit` entries of their table after the same checkpoint: together, the first `limit` of the
 * whole listing.
 */
export function mergeChangePages(
  live: readonly ChangeEntry[],
  deleted: readonly ChangeEntry[],
  limit: number,
): ChangeEntry[] {
  const merged: ChangeEntry[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < limit && (i < live.length || j < deleted.length)) {
    const a = live[i];
    const b = deleted[j];
    if (b === undefined || (a !== undefined && compareChanges(a, b) <= 0)) {
      merged.push(a!);
      i += 1;
    } else {
      merged.push(b);
      j += 1;
    }
  }
  return merged;
}
