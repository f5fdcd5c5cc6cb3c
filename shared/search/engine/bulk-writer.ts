/**
 * Writes to the records index: batched bulk requests keyed by record id, bounded in records and
 * in bytes, with the operations the engine refuses for transient reasons retried after a
 * back-off, and all-or-nothing changes rolled back by putting the read versions back. Writes
 * reach the alias and, while a reindex builds the next version, that index too, so the new
 * version misses nothing written meanwhile.
 */
import { InternalError, InvalidRecordError, ServiceUnavailableError } from '../../errors/index.js';
import type { CoreRecord } from '../../records/core-record.js';
import { buildIndexDocument } from '../../records/index-document.js';
import type { AtomicChanges, AtomicResult, UpsertResult, WriteFailure } from '../backend.js';
import {
  BulkBody,
  type BulkItemResult,
  type EngineAdapter,
  type RefreshPolicy,
} from './engine-adapter.js';
import { buildEngineDocument } from './engine-document.js';
import { RETRY_AFTER_SECONDS, toWriteError } from './engine-errors.js';
import type { IndexLifecycle } from './index-lifecycle.js';
import type { SpatialMode } from './index-templates.js';
import type { TombstoneDocument } from './change-feed.js';

/** What the writer is given. */
export interface BulkWriterOptions {
  adapter: EngineAdapter;
  alias: string;
  /** The live index and the one a reindex is building. */
  lifecycle: IndexLifecycle;
  /** Refresh after writes to the alias: false, true, or `wait_for` (tests). */
  refresh: RefreshPolicy;
  /** Largest bulk request, in records and in characters of documents. */
  maxRecords: number;
  maxBytes: number;
  /** The tombstones index (change-feed.ts): every delete leaves one, every write clears it. */
  tombstones: string;
  /** The sets of records about to be deleted, for their tombstones. */
  setsOf: (ids: readonly string[]) => Promise<Map<string, Omit<TombstoneDocument, 'changed'>>>;
}

/** Attempts at a bulk request whose operations the engine refuses for transient reasons. */
const TRANSIENT_RETRIES = 5;
/** A write request's body starts at 1 MiB and doubles as needed (about 200 records of 5 KB). */
const BULK_BODY_CAPACITY = 1024 * 1024;

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** A short, engine-message-free reason for a record the engine refused. */
export function describeBulkFailure(error: { type: string; reason?: string | undefined }): string {
  const field = /failed to parse field \[([^\]]+)\]/.exec(error.reason ?? '')?.[1];
  const property = field?.startsWith('props.')
    ? decodeURIComponent(field.slice('props.'.length).replace(/\.keyword$/, ''))
    : field;
  return `rejected by the search engine (${error.type}${property ? ` at "${property}"` : ''})`;
}

/** True for an operation refused for a reason that passes: overload or a blocked cluster. */
function isTransient(item: BulkItemResult): boolean {
  return (
    item.status === 429 ||
    item.status === 502 ||
    item.status === 503 ||
    item.status === 504 ||
    item.error?.type === 'cluster_block_exception'
  );
}

/** Bulk upserts and deletes, with retry and rollback. */
export class BulkWriter {
  private readonly options: BulkWriterOptions;

  constructor(options: BulkWriterOptions) {
    this.options = options;
  }

  /** Sends one bulk request, retrying the operations the engine refused for transient reasons. */
  private async sendBulk(
    body: BulkBody,
    refresh: RefreshPolicy = this.options.refresh,
  ): Promise<BulkItemResult[]> {
    const results = new Array<BulkItemResult>(body.count);
    let pending = Array.from(results, (_, position) => position);
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 0) await sleep(200 * 2 ** (attempt - 1));
      const items = await this.options.adapter.bulk(
        body.toBuffer(attempt === 0 ? undefined : pending),
        refresh,
      );
      const retry: number[] = [];
      for (const [i, item] of items.entries()) {
        const position = pending[i];
        if (position === undefined) {
          throw new Error(
            `The engine answered ${items.length} bulk items to ${pending.length} actions`,
          );
        }
        if (isTransient(item)) retry.push(position);
        else results[position] = item;
      }
      if (retry.length === 0) return results;
      if (attempt + 1 >= TRANSIENT_RETRIES) {
        // Still refused after backing off: an infrastructure problem the caller should retry.
        throw new ServiceUnavailableError('The search engine is not accepting writes', {
          retryAfter: RETRY_AFTER_SECONDS,
        });
      }
      pending = retry;
    }
  }

  /**
   * Writes documents built for `spatial` into `index`; returns the failures. An index being
   * built by reindex has refresh off, so writes to it never wait for a refresh.
   *
   * Each document is serialised once and encoded into the bulk body at once, so neither its
   * text nor its intermediate objects outlive the loop turn that built them: with several jobs
   * in flight, documents kept until the engine answered were what the worker's garbage
   * collector spent its time copying. Requests are bounded by count and by bytes (a document
   * is measured in UTF-16 code units before it is added: exact for ASCII).
   */
  async writeDocuments(
    records: CoreRecord[],
    index: string,
    spatial: SpatialMode,
    refresh: RefreshPolicy = this.options.refresh,
    changed: ReadonlyMap<string, string> = new Map(),
  ): Promise<{ written: number; failures: WriteFailure[] }> {
    const { maxRecords, maxBytes } = this.options;
    const failures: WriteFailure[] = [];
    let written = 0;
    let body = new BulkBody(BULK_BODY_CAPACITY);
    let ids: string[] = [];
    const send = async (): Promise<void> => {
      const items = await this.sendBulk(body, refresh);
      for (const [position, id] of ids.entries()) {
        // An action the engine left unanswered counts neither as written nor as failed.
        const item = items[position];
        if (item === undefined) continue;
        if (item.error) failures.push({ id, reason: describeBulkFailure(item.error) });
        else written += 1;
      }
      body = new BulkBody(BULK_BODY_CAPACITY);
      ids = [];
    };
    for (const record of records) {
      let document: string;
      try {
        const indexedAt = new Date().toISOString();
        document = JSON.stringify(
          buildEngineDocument(
            buildIndexDocument(record),
            record,
            spatial,
            indexedAt,
            changed.get(record.id) ?? indexedAt,
          ),
        );
      } catch (error) {
        failures.push({ id: record.id, reason: (error as Error).message });
        continue;
      }
      if (ids.length > 0 && (ids.length >= maxRecords || body.bytes + document.length > maxBytes)) {
        await send();
      }
      body.add({ index: { _id: record.id, _index: index } }, document);
      ids.push(record.id);
    }
    if (ids.length > 0) await send();
    return { written, failures };
  }

  /** Writes records to the alias (and to the index a reindex is building). */
  async upsert(records: CoreRecord[]): Promise<UpsertResult> {
    const { lifecycle } = this.options;
    try {
      const live = await lifecycle.requireLive();
      const building = lifecycle.building;
      // One change time for the batch, the same in the index a reindex is building.
      const time = new Date().toISOString();
      const changed = new Map(records.map((record) => [record.id, time]));
      const result = await this.writeDocuments(
        records,
        this.options.alias,
        live.spatial,
        this.options.refresh,
        changed,
      );
      if (building)
        await this.writeDocuments(records, building.index, building.spatial, false, changed);
      const failed = new Set(result.failures.map((failure) => failure.id));
      await this.clearTombstones(
        records.map((record) => record.id).filter((id) => !failed.has(id)),
      );
      return result;
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /** Deletes records by id; returns how many existed. */
  async delete(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { lifecycle, alias, maxRecords } = this.options;
    try {
      await lifecycle.requireLive();
      const unique = [...new Set(ids)];
      const deletions = (batch: string[], index: string): BulkBody => {
        const body = new BulkBody();
        for (const id of batch) body.add({ delete: { _id: id, _index: index } });
        return body;
      };
      let deleted = 0;
      for (let start = 0; start < unique.length; start += maxRecords) {
        const batch = unique.slice(start, start + maxRecords);
        const sets = await this.options.setsOf(batch);
        const items = await this.sendBulk(deletions(batch, alias));
        const gone = items.flatMap((item) => (item.result === 'deleted' ? [item.id] : []));
        deleted += gone.length;
        await this.recordTombstones(gone, sets);
        const building = lifecycle.building;
        if (building) await this.sendBulk(deletions(batch, building.index), false);
      }
      return deleted;
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /** Removes the tombstones of records written again (ids without one are no-ops). */
  private async clearTombstones(ids: readonly string[]): Promise<void> {
    const { tombstones, maxRecords } = this.options;
    for (let start = 0; start < ids.length; start += maxRecords) {
      const body = new BulkBody();
      for (const id of ids.slice(start, start + maxRecords))
        body.add({ delete: { _id: id, _index: tombstones } });
      await this.sendBulk(body);
    }
  }

  /** Leaves a tombstone, deleted now, for each record deleted. */
  private async recordTombstones(
    ids: readonly string[],
    sets: ReadonlyMap<string, Omit<TombstoneDocument, 'changed'>>,
  ): Promise<void> {
    if (ids.length === 0) return;
    const changed = new Date().toISOString();
    const body = new BulkBody();
    for (const id of ids) {
      const document: TombstoneDocument = {
        id,
        changed,
        type: sets.get(id)?.type ?? null,
        parentId: sets.get(id)?.parentId ?? null,
      };
      body.add({ index: { _id: id, _index: this.options.tombstones } }, JSON.stringify(document));
    }
    const items = await this.sendBulk(body);
    if (items.some((item) => item.error)) {
      throw new InternalError('The search engine refused tombstones of deleted records');
    }
  }

  /**
   * Removes the tombstones deleted before a time, given as batches of their ids; returns how
   * many.
   */
  async purgeTombstones(batches: AsyncIterable<string[]>): Promise<number> {
    let purged = 0;
    try {
      for await (const ids of batches) {
        const body = new BulkBody();
        for (const id of ids) body.add({ delete: { _id: id, _index: this.options.tombstones } });
        const items = await this.sendBulk(body);
        purged += items.filter((item) => item.result === 'deleted').length;
      }
      return purged;
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /**
   * The engines have no multi-document transaction: the current version of every record the
   * changes touch is read first (`read`), the changes are written in bulk, and on any refused
   * record or failure the read versions are put back (records that did not exist are deleted
   * again). Readers may see the changes for the moment between a failed write and its rollback.
   */
  async applyAtomically(
    changes: AtomicChanges,
    read: (id: string) => Promise<CoreRecord | null>,
  ): Promise<AtomicResult> {
    const touched = [...new Set([...changes.upsert.map((record) => record.id), ...changes.delete])];
    const before = new Map<string, CoreRecord | null>();
    for (const id of touched) before.set(id, await read(id));
    try {
      const result = await this.upsert(changes.upsert);
      if (result.failures.length > 0)
        throw new InvalidRecordError(
          `the search engine refused: ${result.failures.map((failure) => `${failure.id}: ${failure.reason}`).join('; ')}`,
        );
      return { written: result.written, deleted: await this.delete(changes.delete) };
    } catch (error) {
      await this.restore(before);
      throw error;
    }
  }

  /** Puts records back as they were read (null: the record did not exist). */
  private async restore(before: ReadonlyMap<string, CoreRecord | null>): Promise<void> {
    const previous = [...before.values()].filter((record): record is CoreRecord => record !== null);
    const absent = [...before].filter(([, record]) => record === null).map(([id]) => id);
    const result = await this.upsert(previous);
    await this.delete(absent);
    if (result.failures.length > 0)
      throw new InternalError('The search engine refused to restore records after a failed write');
  }
}
