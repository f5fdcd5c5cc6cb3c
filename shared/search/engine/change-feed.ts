/**
 * The catalogue's change listing on the engines (ChangeQuery, for OAI-PMH): the live records
 * carry their change time in `changed`, and every deleted record leaves a tombstone in an index
 * of its own beside the alias (`…-tombstones`: id, deletion time, the sets it was in), written by
 * the bulk writer. Keeping tombstones out of the records index means no search, count, facet or
 * deep page has to exclude them. A listing reads one keyset page (search_after on changed, id)
 * from each index and merges them.
 *
 * A `search_after` alone makes the engine go through the records changed after the checkpoint,
 * so an open page in the middle of a listing of 1,000,000 records cost five times the first
 * (30–37 ms against 6 ms, measured on one segment). A page of live records is therefore first
 * asked within a window of change times after its checkpoint (1 s, then 1 min, 1 h, 1 day),
 * which the engine answers from the records in the window: a window that holds a whole page
 * holds the page the open search would give, since every record in it comes before every record
 * after it; a window that holds less is widened, and last the page is asked open.
 */
import type { ChangeEntry, ChangePage, ChangeQuery, ChangeSet } from '../backend.js';
import { mergeChangePages } from '../change-feed.js';
import type { EngineAdapter, EngineHit, JsonObject } from './engine-adapter.js';
import { encodeFieldName } from './engine-fields.js';
import { readStoredRecord, type StoredParts } from './engine-document.js';

/** The longest document id the engines take (a longer one is refused, not looked up). */
const MAX_ID_BYTES = 512;

/** The tombstones index: created with this body by the index lifecycle. */
export const TOMBSTONES_INDEX_BODY: JsonObject = Object.freeze({
  settings: { index: { number_of_shards: 1, auto_expand_replicas: '0-1' } },
  mappings: {
    dynamic: 'strict',
    properties: {
      id: { type: 'keyword' },
      changed: { type: 'date' },
      type: { type: 'keyword' },
      parentId: { type: 'keyword' },
    },
  },
});

/** The tombstones index beside an alias: `…records` → `…tombstones`, else `<alias>-tombstones`. */
export function tombstonesBeside(alias: string): string {
  return alias.endsWith('records')
    ? `${alias.slice(0, -'records'.length)}tombstones`
    : `${alias}-tombstones`;
}

/** A tombstone as stored. */
export interface TombstoneDocument {
  id: string;
  changed: string;
  type: string | null;
  parentId: string | null;
}

/** Where the listing's fields are in each index. */
interface ListingFields {
  type: string;
  parentId: string;
}

const LIVE_FIELDS: ListingFields = {
  type: `props.${encodeFieldName('type')}`,
  parentId: `props.${encodeFieldName('parentId')}`,
};
const TOMBSTONE_FIELDS: ListingFields = { type: 'type', parentId: 'parentId' };

/** The query of a listing on one index (the checkpoint is search_after). */
export function buildListingQuery(query: ChangeQuery, fields: ListingFields): JsonObject {
  const filter: JsonObject[] = [];
  const range: JsonObject = {};
  if (query.from !== undefined) range.gte = query.from;
  if (query.before !== undefined) range.lt = query.before;
  // Records from before change times were kept have none: never listed.
  filter.push(
    Object.keys(range).length > 0
      ? { range: { changed: range } }
      : { exists: { field: 'changed' } },
  );
  const set: ChangeSet | undefined = query.set;
  if (set) {
    const field = fields[set.field];
    filter.push(set.value === undefined ? { exists: { field } } : { term: { [field]: set.value } });
  }
  return { bool: { filter } };
}

/** The windows of change times a page after a checkpoint is first asked within, narrowest first. */
export const CHANGE_WINDOWS_MS: readonly number[] = Object.freeze([
  1000, 60_000, 3_600_000, 86_400_000,
]);

/**
 * The search body of one page of a listing; with `windowMs`, of the page within that window of
 * change times after the checkpoint (the listing's own `before` still bounds it).
 */
export function buildListingPage(
  query: ChangeQuery,
  fields: ListingFields,
  source: string[],
  windowMs?: number,
): JsonObject {
  const listing = buildListingQuery(query, fields);
  const window =
    windowMs !== undefined && query.after !== undefined
      ? {
          range: {
            changed: {
              gte: Date.parse(query.after.changed),
              lte: Date.parse(query.after.changed) + windowMs,
            },
          },
        }
      : undefined;
  return {
    query: window
      ? { bool: { filter: [...((listing.bool as JsonObject).filter as JsonObject[]), window] } }
      : listing,
    sort: [{ changed: { order: 'asc' } }, { id: { order: 'asc' } }],
    size: query.limit,
    track_total_hits: false,
    _source: source,
    ...(query.after ? { search_after: [Date.parse(query.after.changed), query.after.id] } : {}),
  };
}

const LIVE_SOURCE = ['changed', LIVE_FIELDS.type, LIVE_FIELDS.parentId];
const LIVE_SOURCE_WITH_RECORDS = [...LIVE_SOURCE, 'record', 'source'];

/** A string, or null. */
function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A live record's listing entry from its `_source` (with its record when it holds one). */
function liveEntry(id: string, source: JsonObject): ChangeEntry {
  const props = (source.props ?? {}) as JsonObject;
  const entry: ChangeEntry = {
    id,
    changed: new Date(String(source.changed)).toISOString(),
    deleted: false,
    type: text(props[encodeFieldName('type')]),
    parentId: text(props[encodeFieldName('parentId')]),
  };
  if (source.record !== undefined && source.source !== undefined) {
    entry.record = readStoredRecord(source as unknown as StoredParts);
  }
  return entry;
}

/** A tombstone's listing entry. */
function tombstoneEntry(id: string, source: JsonObject): ChangeEntry {
  return {
    id,
    changed: new Date(String(source.changed)).toISOString(),
    deleted: true,
    type: text(source.type),
    parentId: text(source.parentId),
  };
}

function entries(
  hits: EngineHit[],
  read: (id: string, source: JsonObject) => ChangeEntry,
): ChangeEntry[] {
  return hits.map((hit) => read(hit._id, hit._source ?? {}));
}

/** Reads of the change listing, on the alias and the tombstones index. */
export class EngineChangeFeed {
  constructor(
    private readonly adapter: EngineAdapter,
    private readonly alias: string,
    private readonly tombstones: string,
    private readonly windowsMs: readonly number[] = CHANGE_WINDOWS_MS,
  ) {}

  /** One page of live records: within the narrowest window that holds a whole page, else open. */
  private async livePage(query: ChangeQuery): Promise<EngineHit[]> {
    const source = query.withRecords ? LIVE_SOURCE_WITH_RECORDS : LIVE_SOURCE;
    const ask = async (windowMs?: number): Promise<EngineHit[]> =>
      (
        await this.adapter.search({
          index: this.alias,
          body: buildListingPage(query, LIVE_FIELDS, source, windowMs),
        })
      ).hits.hits;
    if (query.after !== undefined) {
      const after = Date.parse(query.after.changed);
      const before = query.before === undefined ? Infinity : Date.parse(query.before);
      for (const windowMs of this.windowsMs) {
        const hits = await ask(windowMs);
        // A window reaching the listing's end holds what the open page would.
        if (hits.length >= query.limit || after + windowMs >= before) return hits;
      }
    }
    return ask();
  }

  async changes(query: ChangeQuery): Promise<ChangePage> {
    const { adapter, alias, tombstones } = this;
    const [live, deleted, liveCount, deletedCount] = await Promise.all([
      this.livePage(query),
      adapter.search({
        index: tombstones,
        body: buildListingPage(query, TOMBSTONE_FIELDS, ['changed', 'type', 'parentId']),
      }),
      query.count ? adapter.count(alias, buildListingQuery(query, LIVE_FIELDS)) : 0,
      query.count ? adapter.count(tombstones, buildListingQuery(query, TOMBSTONE_FIELDS)) : 0,
    ]);
    const merged = mergeChangePages(
      entries(live, liveEntry),
      entries(deleted.hits.hits, tombstoneEntry),
      query.limit,
    );
    return query.count ? { entries: merged, total: liveCount + deletedCount } : { entries: merged };
  }

  async change(id: string): Promise<ChangeEntry | null> {
    // The engines refuse a document id over 512 bytes: no record or tombstone has one.
    if (Buffer.byteLength(id) > MAX_ID_BYTES) return null;
    const live = await this.adapter.getSource(this.alias, id, LIVE_SOURCE_WITH_RECORDS);
    if (live) return live.changed === undefined ? null : liveEntry(id, live);
    const tombstone = await this.adapter.getSource(this.tombstones, id, [
      'changed',
      'type',
      'parentId',
    ]);
    return tombstone ? tombstoneEntry(id, tombstone) : null;
  }

  async earliestChange(): Promise<string | null> {
    const first = (index: string) =>
      this.adapter.search({
        index,
        body: {
          query: { exists: { field: 'changed' } },
          sort: [{ changed: { order: 'asc' } }],
          size: 1,
          track_total_hits: false,
          _source: ['changed'],
        },
      });
    const times = (await Promise.all([first(this.alias), first(this.tombstones)]))
      .map((response) => response.hits.hits[0]?._source?.changed)
      .filter((time): time is string => typeof time === 'string')
      .map((time) => new Date(time).toISOString())
      .sort();
    return times[0] ?? null;
  }

  /** The ids of the tombstones deleted before `before`, a batch at a time, in id order. */
  async *tombstonesBefore(before: string, batch = 1000): AsyncGenerator<string[]> {
    let after: string | undefined;
    for (;;) {
      const response = await this.adapter.search({
        index: this.tombstones,
        body: {
          query: { range: { changed: { lt: before } } },
          sort: [{ id: { order: 'asc' } }],
          size: batch,
          track_total_hits: false,
          _source: false,
          ...(after === undefined ? {} : { search_after: [after] }),
        },
      });
      const ids = response.hits.hits.map((hit) => hit._id);
      if (ids.length === 0) return;
      yield ids;
      after = ids.at(-1);
      if (ids.length < batch) return;
    }
  }

  /** The sets (type, parent collection) of records about to be deleted, by id. */
  async setsOf(ids: readonly string[]): Promise<Map<string, Omit<TombstoneDocument, 'changed'>>> {
    const found = new Map<string, Omit<TombstoneDocument, 'changed'>>();
    if (ids.length === 0) return found;
    const response = await this.adapter.search({
      index: this.alias,
      body: {
        query: { ids: { values: ids } },
        size: ids.length,
        track_total_hits: false,
        _source: [LIVE_FIELDS.type, LIVE_FIELDS.parentId],
      },
    });
    for (const hit of response.hits.hits) {
      const entry = liveEntry(hit._id, { ...hit._source, changed: 0 });
      found.set(hit._id, { id: hit._id, type: entry.type, parentId: entry.parentId });
    }
    // Records written since the last refresh are not searchable yet: read them in real time.
    for (const id of ids) {
      if (found.has(id)) continue;
      const source = await this.adapter.getSource(this.alias, id, [
        LIVE_FIELDS.type,
        LIVE_FIELDS.parentId,
      ]);
      if (source) {
        const entry = liveEntry(id, { ...source, changed: 0 });
        found.set(id, { id, type: entry.type, parentId: entry.parentId });
      }
    }
    return found;
  }
}
