/**
 * Removes the tombstones older than the configured age (OAI_TOMBSTONE_MAX_AGE_DAYS), so that
 * OAI-PMH's deletedRecord support is `transient`; without an age nothing is removed and it is
 * `persistent`. Run by `npm run purge-tombstones` (scripts/purge-tombstones.ts), e.g. daily.
 */
import type { SearchBackend } from './backend.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a purge did: the cut-off time and how many tombstones it removed. */
export interface PurgeResult {
  /** Tombstones deleted before this time (ISO) were removed; undefined: none (no maximum age). */
  before?: string;
  purged: number;
}

/** Removes the tombstones older than `maxAgeDays` at `now`; nothing when it is undefined. */
export async function purgeExpiredTombstones(
  backend: Pick<SearchBackend, 'purgeTombstones'>,
  maxAgeDays: number | undefined,
  now: Date = new Date(),
): Promise<PurgeResult> {
  if (maxAgeDays === undefined) return { purged: 0 };
  const before = new Date(now.getTime() - maxAgeDays * DAY_MS).toISOString();
  return { before, purged: await backend.purgeTombstones(before) };
}
