/**
 * Reindex: builds the next physical index version from the stored source documents, read
 * again with the current parsers (shared/records/formats parseDocuments) and laid out with the
 * current mapping, then moves the alias to it in one atomic alias update.
 *
 * Writes that happen meanwhile are not lost: this process writes to both versions while the
 * new one is built; writes from other processes are picked up by `indexedAt` in two catch-up
 * passes, the second after the old version is write-blocked (other writers then see a
 * retryable 503 until the alias has moved). Records deleted from the old version during the
 * build are removed from the new one before the swap.
 */
import type { CoreRecord } from '../../records/core-record.js';
import { parseDocuments } from '../../records/formats/index.js';
import type { ReindexResult, WriteFailure } from '../backend.js';
import { allOf, matchAll, range, type Query } from './dsl.js';
import {
  ndjsonBody,
  type EngineAdapter,
  type JsonObject,
  type SortValue,
} from './engine-adapter.js';
import { readStoredRecord, type StoredParts } from './engine-document.js';

export type { ReindexResult };

export interface RebuildOptions {
  adapter: EngineAdapter;
  alias: string;
  from: string;
  to: string;
  keepPrevious: boolean;
  /**
   * The new version's refresh interval once built (it is built with refresh off); undefined
   * restores the engine's default.
   */
  refreshInterval: string | undefined;
  /** Writes records into the new version. */
  write(
    records: CoreRecord[],
    changed: ReadonlyMap<string, string>,
  ): Promise<{ written: number; failures: WriteFailure[] }>;
  /** Called once the new version exists, before copying (start of dual writes). */
  onBuildStart(): void;
  /** Called right after the alias moved. */
  onSwapped(): Promise<void>;
}

const BATCH = 1000;
const KEEP_ALIVE = '5m';
/**
 * How far back a catch-up pass looks before it started: `indexedAt` is set before a write is
 * sent, and the write becomes visible only later (request time plus a refresh), so a write in
 * flight when the snapshot was taken carries an earlier timestamp.
 */
const IN_FLIGHT_MARGIN_MS = 120_000;

/** Reads a stored record again from its source document; undefined when that fails. */
export function reparseStored(stored: StoredParts): CoreRecord | undefined {
  const { content, format } = stored.source;
  const parsed = parseDocuments(content, { format: format });
  const id = stored.record.id;
  return (
    parsed.records.find((record) => record.id === id) ??
    (parsed.records.length === 1 && parsed.failures.length === 0 ? parsed.records[0] : undefined)
  );
}

/** Visits every document of an index (matching a query) in id order, through a point in time. */
async function* scan(
  adapter: EngineAdapter,
  index: string,
  query: Query,
  source: string[] | false,
): AsyncGenerator<{ id: string; source?: JsonObject | undefined }[]> {
  const pit = await adapter.openPointInTime(index, KEEP_ALIVE);
  try {
    let after: SortValue[] | undefined;
    for (;;) {
      const response = await adapter.search({
        body: {
          query,
          sort: [{ id: { order: 'asc' } }],
          size: BATCH,
          _source: source,
          track_total_hits: false,
          pit: { id: pit, keep_alive: KEEP_ALIVE },
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = response.hits.hits;
      const last = hits.at(-1);
      if (last === undefined) return;
      yield hits.map((hit) => ({ id: hit._id, source: hit._source }));
      after = (last.sort ?? []).slice(0, 1);
      if (hits.length < BATCH) return;
    }
  } finally {
    await adapter.closePointInTime(pit).catch(() => undefined);
  }
}

/** The ids of an index in order, one batch at a time. */
async function* scanIds(adapter: EngineAdapter, index: string): AsyncGenerator<string> {
  for await (const batch of scan(adapter, index, matchAll(), false)) {
    for (const hit of batch) yield hit.id;
  }
}

/** Copies the documents of `from` (matching `query`) into the new version. */
async function copy(options: RebuildOptions, query: Query, result: ReindexResult): Promise<void> {
  const seen = new Set(result.carried.map((entry) => entry.id));
  const fields = ['record', 'source', 'changed', 'indexedAt'];
  for await (const batch of scan(options.adapter, options.from, query, fields)) {
    const records: CoreRecord[] = [];
    // Each record keeps its change time (a record from before change times: its index time).
    const changed = new Map<string, string>();
    for (const hit of batch) {
      const time = hit.source?.changed ?? hit.source?.indexedAt;
      if (typeof time === 'string') changed.set(hit.id, time);
      const stored = hit.source as unknown as StoredParts;
      const reparsed = reparseStored(stored);
      if (reparsed) {
        result.reparsed += 1;
        records.push(reparsed);
      } else {
        if (!seen.has(hit.id)) {
          result.carried.push({ id: hit.id, reason: 'the source document no longer parses' });
          seen.add(hit.id);
        }
        records.push(readStoredRecord(stored));
      }
    }
    const written = await options.write(records, changed);
    result.written += written.written;
    result.failures.push(...written.failures);
  }
}

/** Deletes from the new version the ids that are no longer in the old one (ids in byte order). */
async function removeVanished(options: RebuildOptions): Promise<number> {
  const { adapter, from, to } = options;
  const vanished: string[] = [];
  const oldIds = scanIds(adapter, from);
  let next = await oldIds.next();
  for await (const id of scanIds(adapter, to)) {
    while (!next.done && Buffer.compare(Buffer.from(next.value), Buffer.from(id)) < 0) {
      next = await oldIds.next();
    }
    if (next.done || next.value !== id) vanished.push(id);
  }
  for (let start = 0; start < vanished.length; start += BATCH) {
    const lines = vanished
      .slice(start, start + BATCH)
      .map((id) => ({ delete: { _index: to, _id: id } }));
    await adapter.bulk(ndjsonBody(lines), false);
  }
  return vanished.length;
}

/** Runs the whole rebuild; on failure the old version is unblocked and the new one dropped. */
export async function rebuildIndex(options: RebuildOptions): Promise<ReindexResult> {
  const { adapter, alias, from, to } = options;
  const began = Date.now();
  const result: ReindexResult = {
    from,
    to,
    written: 0,
    reparsed: 0,
    carried: [],
    failures: [],
    removed: 0,
    durationMs: 0,
  };
  const since = (time: number): Query =>
    allOf([range('indexedAt', { gte: new Date(time - IN_FLIGHT_MARGIN_MS).toISOString() })]);
  await adapter.createIndex(to, { settings: { index: { refresh_interval: '-1' } } });
  let blocked = false;
  try {
    options.onBuildStart();
    await copy(options, matchAll(), result);
    // The new version is read far more than written: one segment makes searches that match
    // many records cheaper for the engine (bench/README.md). Merged before the catch-up passes,
    // so writers are not held while it runs; what they add meanwhile lands in small segments.
    await adapter.mergeSegments(to);
    // Catch up with other writers, then stop them (they retry) and catch up once more.
    const secondPass = Date.now();
    await adapter.refresh(from);
    await copy(options, since(began), result);
    await adapter.putSettings(from, { index: { blocks: { write: true } } });
    blocked = true;
    await adapter.refresh(from);
    await copy(options, since(secondPass), result);
    // null resets the setting: the engine's default, with its search-idle behaviour.
    await adapter.putSettings(to, { index: { refresh_interval: options.refreshInterval ?? null } });
    await adapter.refresh(to);
    result.removed = await removeVanished(options);
    await adapter.refresh(to);
    await adapter.updateAliases([
      { remove: { index: from, alias } },
      { add: { index: to, alias, is_write_index: true } },
    ]);
    await options.onSwapped();
  } catch (error) {
    if (blocked) {
      await adapter
        .putSettings(from, { index: { blocks: { write: false } } })
        .catch(() => undefined);
    }
    await adapter.deleteIndex(to).catch(() => undefined);
    throw error;
  }
  if (!options.keepPrevious) await adapter.deleteIndex(from);
  result.durationMs = Date.now() - began;
  return result;
}
