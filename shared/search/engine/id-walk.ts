/**
 * The walk over the record ids (SearchBackend.walkIds, for the sitemaps) on the engines: searches
 * sorted on the `id` keyword field, the field every records index is sorted by, so that the
 * engine stops collecting at a page's end; no hit count (`track_total_hits: false`); neither
 * `_source` nor stored fields (the id is the hit's sort value, `updated` comes from the doc values
 * of `props.updated`). A search reads at most a result window of ids.
 *
 * Where a walk starts is a range on `id`, not `search_after`: a `search_after` search makes the
 * engine step through every record before its value, so its cost grows with the depth, and it
 * takes no `from`. A range skips there, but costs the terms it covers (the engine gathers their
 * documents before the first hit), so a range open above (`id > after`) is bounded: by the
 * file's last id when the walk has one (`through`), else by an id a little more than the ids
 * needed beyond `after`, taken from a sample of the index's ids (random, kept a minute: the
 * bounds are hints, a stale one only makes a range wider or narrower). A range that holds too
 * few ids is widened, and at last left open. Blocks of ids sharing a prefix (deep-paging.ts)
 * do not serve here: with decimal ids a block is ten times the last, and the one after the block
 * of `…0099999` that holds 10,000 ids is the whole rest of the catalogue.
 *
 * Records to pass over (`skip`) are passed in hops of a result window each, a search of one hit
 * at `from` window - 1 reading only the id the hop ends at; the last hop and the first ids listed
 * are one search when they fit in a window.
 *
 * `updated` is read as the instant the engine indexed, written as ISO 8601 UTC with milliseconds:
 * the text every record format's reader gives `updated` (parseTimeValue's start), so the same
 * text SQLite gives back as stored. Reading the stored `record.updated` instead would make the
 * engine parse each hit's whole `_source` (docs/decisions/million-record-benchmarks.md).
 */
import type { IdWalkEntry, IdWalkQuery } from '../backend.js';
import type { ScopedSearch } from './budgeted-search.js';
import { ID_FIELD } from './compile-search.js';
import { allOf, matchAll, range, type Query, type RangeBounds } from './dsl.js';
import type { EngineHit, JsonObject } from './engine-adapter.js';
import { encodeFieldName } from './engine-fields.js';

/** Where the engine document keeps `updated` (mapped as a date). */
const UPDATED_FIELD = `props.${encodeFieldName('updated')}`;
/** Hits of a walk carry their sort value (the id) and doc values, nothing else. */
const WALK_FILTER_PATH = ['hits.hits.sort', 'hits.hits.fields'];
/** Ids sampled for the bounds of open ranges (at most a result window). */
const SAMPLE_SIZE = 2000;
/** How long a sample serves before the next walk that needs one takes a new one. */
const SAMPLE_MAX_AGE_MS = 60_000;
/** A range is bounded to hold about this many times the ids it needs, then twice, four times. */
const BLOCK_MARGIN = 1.5;
/** Bounded ranges tried before a range open above. */
const BLOCKS_TRIED = 3;

/** Ids sampled at random from the index, in UTF-8 order, and the records per sampled id. */
export interface IdSample {
  ids: string[];
  /** Records in the index per sampled id: about how many lie between two neighbours. */
  spacing: number;
}

/** Compares ids as the engines order keywords: by their UTF-8 bytes. */
function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The position of the first of `ids` (in UTF-8 order) after `after`. */
function firstAfter(ids: readonly string[], after: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareIds(ids[middle]!, after) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The upper bounds (exclusive) to try for a range of ids after `after` that must hold `needed`
 * ids, narrowest first: sampled ids about `BLOCK_MARGIN` × `needed` ids on, then twice and four
 * times as far; fewer (none) where the sample ends first, which leaves the range open.
 */
export function sampledBlockEnds(sample: IdSample, after: string, needed: number): string[] {
  const { ids, spacing } = sample;
  const low = firstAfter(ids, after);
  const span = Math.max(1, Math.ceil((needed * BLOCK_MARGIN) / Math.max(spacing, 1)));
  const ends: string[] = [];
  for (let block = 0; block < BLOCKS_TRIED; block += 1) {
    const end = ids[low + span * 2 ** block];
    if (end === undefined) break;
    ends.push(end);
  }
  return ends;
}

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

/**
 * Sampled ids whose count of records from `after` (exclusive) through them should lie within
 * `reach` below `skip`: one near each of three quarters, a half and a quarter of `reach` below,
 * in id order. A sampled id k places after `after` has about k × spacing records before it,
 * give or take spacing × √k (the sample is random), so some of them usually land in reach.
 */
export function jumpCandidates(
  sample: IdSample,
  after: string | undefined,
  skip: number,
  reach: number,
): string[] {
  const { ids, spacing } = sample;
  const first = after === undefined ? 0 : firstAfter(ids, after);
  const candidates: string[] = [];
  for (const fraction of [0.75, 0.5, 0.25]) {
    const places = Math.floor((skip - reach * fraction) / Math.max(spacing, 1));
    if (places < 1) continue;
    const id = ids[first + places - 1];
    if (id !== undefined && !candidates.includes(id)) candidates.push(id);
  }
  return candidates;
}

/** The id walks of one alias. */
export class EngineIdWalk {
  /** The last sample of the index's ids, and when it was taken. */
  private sample: { taken: number; sample: IdSample } | undefined;

  constructor(
    private readonly alias: string,
    /** The index's max_result_window: the most ids a search reads, and the longest hop. */
    private readonly window: number,
  ) {}

  /** Forgets the sample (the index was replaced). */
  clear(): void {
    this.sample = undefined;
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
        const jumped = await this.jump(search, { after, through, skip, size });
        if (jumped) {
          ({ after, skip } = jumped);
          if (skip + size <= this.window) continue;
        }
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
   * Passes over most of `skip` records after `after` in one round trip: the records from
   * `after` to the first of a few sampled ids about `skip` records on, and from each to the next,
   * are counted side by side (`_msearch`; a count of a range on `id` costs the terms in it), and
   * the walk goes on from the furthest one with at most `skip` records up to it, with what is
   * left to skip. Undefined when no sampled id lies far enough on, or each lies too far.
   */
  private async jump(
    search: ScopedSearch,
    at: { after: string | undefined; through: string | undefined; skip: number; size: number },
  ): Promise<{ after: string; skip: number } | undefined> {
    const { after, through, skip, size } = at;
    const sample = await this.sampled(search);
    const candidates = jumpCandidates(sample, after, skip, this.window - size).filter(
      (id) => through === undefined || compareIds(id, through) <= 0,
    );
    if (candidates.length === 0) return undefined;
    // Counted between consecutive candidates (in id order), so that no term is counted twice.
    const counts = await search.searchMany(
      candidates.map((id, index) => ({
        query: buildWalkQuery({
          after: index === 0 ? after : candidates[index - 1],
          through: id,
          from: 0,
          size: 0,
          withUpdated: false,
        }),
        size: 0,
        track_total_hits: true,
      })),
    );
    let best: { after: string; skip: number } | undefined;
    let passed = 0;
    candidates.forEach((id, index) => {
      passed += counts[index]?.hits?.total?.value ?? Number.POSITIVE_INFINITY;
      if (passed <= skip) best = { after: id, skip: skip - passed };
    });
    return best;
  }

  /**
   * One search of a walk. Open above (no `through`), its range is bounded by sampled ids, each
   * bound further than the last, until one holds `size` hits; then left open.
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
    const sample = await this.sampled(search);
    for (const end of sampledBlockEnds(sample, after, step.from + step.size)) {
      const read = await send(end);
      if (read.length >= step.size) return read;
    }
    return send();
  }

  /** The sample of ids: the one kept, when it is younger than a minute, else a new one. */
  private async sampled(search: ScopedSearch): Promise<IdSample> {
    const kept = this.sample;
    if (kept && Date.now() - kept.taken < SAMPLE_MAX_AGE_MS) return kept.sample;
    const response = await search.search({
      index: this.alias,
      body: {
        query: { function_score: { query: matchAll(), random_score: {}, boost_mode: 'replace' } },
        size: Math.min(SAMPLE_SIZE, this.window),
        stored_fields: '_none_',
        docvalue_fields: [ID_FIELD],
        track_total_hits: true,
      },
      filterPath: ['hits.total', 'hits.hits.fields'],
    });
    const ids = (response.hits?.hits ?? [])
      .map((hit) => hit.fields?.[ID_FIELD]?.[0])
      .filter((id): id is string => typeof id === 'string')
      .sort(compareIds);
    const total = response.hits?.total?.value ?? 0;
    const sample = { ids, spacing: ids.length > 0 ? total / ids.length : 1 };
    this.sample = { taken: Date.now(), sample };
    return sample;
  }
}
