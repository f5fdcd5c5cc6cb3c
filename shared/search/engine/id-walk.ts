/**
 * The walk over the record ids (SearchBackend.walkIds, for the sitemaps) on the engines: searches
 * sorted on the `id` keyword field, the field every records index is sorted by, so that the
 * engine stops collecting at a page's end; no hit count (`track_total_hits: false`); neither
 * `_source` nor stored fields (the id is the hit's sort value, `updated` comes from the doc values
 * of `props.updated`). A search reads at most a result window of ids.
 *
 * Where a walk starts is a range on `id`, not `search_after`: a `search_after` search makes the
 * engine step through every record before its value, so its cost grows with the depth, and it
 * takes no `from`. A range skips there, and costs the terms it covers, so an open range (`id >
 * after`) is bounded above: by the file's last id when the walk has one (`through`), else by the
 * end of a block of ids sharing a prefix with `after` (id-blocks.ts, as deep-paging.ts does),
 * widened when it holds too few ids; past the few blocks tried, the range is left open.
 *
 * Records to pass over (`skip`) are passed in hops of a result window each, a search of one hit
 * at `from` window - 1 reading only the id the hop ends at; the last hop and the first ids listed
 * are one search when they fit in a window.
 *
 * `updated` is read as the instant the engine indexed, written as ISO 8601 UTC with milliseconds:
 * the text every record format's reader gives `updated` (parseTimeValue's start), so the same
 * text SQLite gives back as stored. Reading the stored `record.updated` instead would make the
 * engine parse each hit's whole `_source`: about three times the cost of a batch (10,000 ids,
 * 1,000,000 records, docs/decisions/million-record-benchmarks.md).
 */
import type { IdWalkEntry, IdWalkQuery } from '../backend.js';
import type { ScopedSearch } from './budgeted-search.js';
import { ID_FIELD } from './compile-search.js';
import { allOf, matchAll, range, type Query, type RangeBounds } from './dsl.js';
import type { EngineHit, JsonObject } from './engine-adapter.js';
import { encodeFieldName } from './engine-fields.js';
import { BlockWidths, idBlockEnd, MAX_BLOCKS } from './id-blocks.js';

/** Where the engine document keeps `updated` (mapped as a date). */
const UPDATED_FIELD = `props.${encodeFieldName('updated')}`;
/** Hits of a walk carry their sort value (the id) and doc values, nothing else. */
const WALK_FILTER_PATH = ['hits.hits.sort', 'hits.hits.fields'];

/** What one search of a walk asks: ids after `after` through `through`, from `from`, `size`. */
export interface WalkStep {
  after?: string | undefined;
  through?: string | undefined;
  /** The end (exclusive) of the block of ids the range is bounded by, when `through` is not. */
  blockEnd?: string | undefined;
  from: number;
  size: number;
  withUpdated: boolean;
}

/** The query of one search of a walk: the range of ids it covers (match_all: every id). */
export function buildWalkQuery(step: WalkStep): Query {
  const bounds: RangeBounds = {};
  if (step.after !== undefined) bounds.gt = step.after;
  if (step.through !== undefined) bounds.lte = step.through;
  else if (step.blockEnd !== undefined) bounds.lt = step.blockEnd;
  return Object.keys(bounds).length === 0 ? matchAll() : allOf([range(ID_FIELD, bounds)]);
}

/** The body of one search of a walk. */
export function buildWalkBody(step: WalkStep): JsonObject {
  return {
    query: buildWalkQuery(step),
    sort: [{ [ID_FIELD]: { order: 'asc' } }],
    from: step.from,
    size: step.size,
    track_total_hits: false,
    _source: false,
    stored_fields: '_none_',
    ...(step.withUpdated
      ? { docvalue_fields: [{ field: UPDATED_FIELD, format: 'epoch_millis' }] }
      : {}),
  };
}

/** A walk's entry of a hit: its sort value and, when read, its `updated` as an ISO instant. */
export function readWalkHit(hit: EngineHit): IdWalkEntry {
  const id = String(hit.sort?.[0]);
  const value = hit.fields?.[UPDATED_FIELD]?.[0];
  if (value === undefined || value === null) return { id };
  const instant = new Date(Number(value));
  return Number.isNaN(instant.getTime()) ? { id } : { id, updated: instant.toISOString() };
}

/** The id walks of one alias. */
export class EngineIdWalk {
  /** How wide a block held a result window of ids last time (the ids' shape is the catalogue's). */
  private readonly blockWidths = new BlockWidths(64);

  constructor(
    private readonly alias: string,
    /** The index's max_result_window: the most ids a search reads, and the longest hop. */
    private readonly window: number,
  ) {}

  /** Forgets the block widths learned (the index was replaced). */
  clear(): void {
    this.blockWidths.clear();
  }

  async walk(query: IdWalkQuery, search: ScopedSearch): Promise<IdWalkEntry[]> {
    const { through, limit } = query;
    const withUpdated = query.withUpdated === true;
    const entries: IdWalkEntry[] = [];
    let after = query.after;
    let skip = Math.max(0, query.skip ?? 0);
    while (entries.length < limit) {
      const size = Math.min(limit - entries.length, this.window);
      if (skip > 0 && skip + size > this.window) {
        const hop = Math.min(skip, this.window);
        const [end] = await this.read(search, { after, through, from: hop - 1, size: 1 }, false);
        if (end === undefined) return entries;
        after = end.id;
        skip -= hop;
        continue;
      }
      const read = await this.read(search, { after, through, from: skip, size }, withUpdated);
      skip = 0;
      entries.push(...read);
      const last = read.at(-1);
      if (read.length < size || last === undefined) break;
      after = last.id;
    }
    return entries;
  }

  /**
   * One search of a walk. Open above (no `through`), it is bounded by blocks of ids after
   * `after`, each wider than the last, until one holds `from + size` ids; then left open.
   */
  private async read(
    search: ScopedSearch,
    step: Omit<WalkStep, 'withUpdated' | 'blockEnd'>,
    withUpdated: boolean,
  ): Promise<IdWalkEntry[]> {
    const send = async (blockEnd?: string): Promise<IdWalkEntry[]> => {
      const response = await search.search({
        index: this.alias,
        body: buildWalkBody({ ...step, blockEnd, withUpdated }),
        filterPath: WALK_FILTER_PATH,
      });
      return (response.hits?.hits ?? []).map(readWalkHit);
    };
    const { after, through } = step;
    if (after === undefined || through !== undefined) return send();
    const needed = step.from + step.size;
    let drop = this.blockWidths.get('', needed);
    for (let block = 0; block < MAX_BLOCKS; block += 1) {
      const end = idBlockEnd(after, drop);
      if (end === undefined) break;
      const read = await send(end);
      if (read.length >= step.size) {
        this.blockWidths.set('', needed, drop);
        return read;
      }
      // Each wider block drops one more code point than the last, then two.
      drop += block + 1;
    }
    return send();
  }
}
