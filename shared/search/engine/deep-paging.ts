/**
 * Pages beyond the result window. They continue with `search_after` from cached sort
 * checkpoints (in this process, and shared by every API process through Redis in scaled mode),
 * reached by walks in strides of sort values over an index sorted by the default sort key, by
 * sampled jumps in that order (jump-estimate.ts) when a walk would be long, and read in that
 * order through ranges on blocks of ids (id-blocks.ts). Kept apart from the reads because it
 * owns the only state a search leaves behind: checkpoints, block widths and counters.
 */
import type { CompiledSearch } from './compile-search.js';
import { ID_FIELD } from './compile-search.js';
import { allOf, range, type Query, type RangeBounds } from './dsl.js';
import { sortValues, type EngineHit, type JsonObject, type SortValue } from './engine-adapter.js';
import { WHOLE_SOURCE } from './engine-document.js';
import {
  BlockWidths,
  FIRST_BLOCK_DROP,
  idBlockEnd,
  isIndexOrder,
  MAX_BLOCKS,
} from './id-blocks.js';
import {
  buildFirstRound,
  buildSecondRound,
  estimateSampleRank,
  findClosestBelow,
} from './jump-estimate.js';
import type { ScopedSearch } from './budgeted-search.js';
import {
  SortCheckpoints,
  type Checkpoint,
  type CheckpointStats,
  type CheckpointStore,
} from './sort-checkpoints.js';

/** What deep paging is given. */
export interface DeepPagingOptions {
  alias: string;
  /** The index's max_result_window. */
  maxResultWindow: number;
  /** Hits per request when walking to a deep offset (at most the result window). */
  walkBatchSize: number;
  /** Queries whose checkpoints (and block widths) are kept. */
  checkpointQueries: number;
  /** Checkpoints shared with the other API processes, consulted when this process has none. */
  sharedCheckpoints: CheckpointStore | undefined;
}

/** A page of hits and the exact count of the query's matches. */
export interface HitPage {
  hits: EngineHit[];
  total: number;
}

/**
 * Walks read sort values only: no `_source` and no stored fields, not even `_id`, whose
 * reading would decompress a stored-fields block per hit.
 */
const NO_STORED_FIELDS = '_none_';
/** Ids sampled for a jump in the index order (jumpInIndexOrder). */
const JUMP_SAMPLES = 500;
/** A jump replaces a walk of more than this many strides. */
const JUMP_MIN_STRIDES = 2;
/** The order of the records index, `id` ascending (a new clause for each request). */
const idOrder = (): JsonObject[] => [{ [ID_FIELD]: { order: 'asc' } }];

/** Checkpoints, walks, jumps and id blocks: the pages past the result window. */
export class DeepPaging {
  private readonly options: DeepPagingOptions;
  private readonly checkpoints: SortCheckpoints;
  private readonly blockWidths: BlockWidths;
  private readonly counters: CheckpointStats = { hits: 0, walks: 0, walkedHits: 0, jumps: 0 };

  constructor(options: DeepPagingOptions) {
    this.options = options;
    this.checkpoints = new SortCheckpoints(options.checkpointQueries);
    this.blockWidths = new BlockWidths(options.checkpointQueries);
  }

  /** Deep paging counters (for tests and metrics). */
  get stats(): Readonly<CheckpointStats> {
    return this.counters;
  }

  /** Forgets every checkpoint and block width here (their index was replaced). */
  clear(): void {
    this.checkpoints.clear();
    this.blockWidths.clear();
  }

  /** Closes the shared checkpoint store. */
  async close(): Promise<void> {
    await this.options.sharedCheckpoints?.close();
  }

  /** The checkpoint at `offset`: this process's, else the shared store's (kept here too). */
  private async checkpointAt(key: string, offset: number): Promise<SortValue[] | undefined> {
    const local = this.checkpoints.get(key, offset);
    const shared = this.options.sharedCheckpoints;
    if (local || !shared) return local;
    const found = await shared.get(key, offset);
    if (found) this.checkpoints.set(key, offset, found);
    return found;
  }

  /** The closest checkpoint below or at `offset`, here or in the shared store. */
  private async nearestCheckpoint(key: string, offset: number): Promise<Checkpoint | undefined> {
    const local = this.checkpoints.nearestBelow(key, offset);
    const shared = this.options.sharedCheckpoints;
    if (!shared || local?.offset === offset) return local;
    const found = await shared.nearestBelow(key, offset);
    return found && (!local || found.offset > local.offset) ? found : local;
  }

  /**
   * Remembers a checkpoint here and, when `share`, in the shared store (one Redis round trip:
   * only for checkpoints a deep page may start from).
   */
  async remember(key: string, offset: number, after: SortValue[], share = true): Promise<void> {
    this.checkpoints.set(key, offset, after);
    if (share) await this.options.sharedCheckpoints?.set(key, offset, after);
  }

  /**
   * The page of `limit` hits at `offset` (beyond the result window) of a compiled search whose
   * checkpoints are kept under `key`: from a checkpoint, a jump or a walk; leaves a checkpoint
   * at its end when it is full.
   */
  async page(
    key: string,
    compiled: CompiledSearch,
    offset: number,
    limit: number,
    search: ScopedSearch,
  ): Promise<HitPage> {
    let after = await this.checkpointAt(key, offset);
    if (after) this.counters.hits += 1;
    else {
      const jumped = (await this.worthJumping(key, compiled, offset))
        ? await this.jumpInIndexOrder(compiled, offset, search)
        : undefined;
      if (Array.isArray(jumped)) await this.remember(key, offset, jumped);
      after =
        jumped === undefined
          ? await this.walkTo(key, compiled, offset, search)
          : (jumped ?? undefined);
    }
    if (after === undefined) {
      // The offset lies beyond the last hit: only the count is needed.
      const response = await search.search({
        index: this.options.alias,
        body: { query: compiled.query, size: 0, track_total_hits: true },
      });
      return { total: response.hits.total?.value ?? 0, hits: [] };
    }
    let page: HitPage;
    if (isIndexOrder(compiled.sort)) {
      page = await this.hitsAfterInIndexOrder(key, compiled.query, after, limit, search);
    } else {
      const response = await search.search({
        index: this.options.alias,
        body: {
          query: compiled.query,
          sort: compiled.sort,
          track_total_hits: true,
          size: limit,
          search_after: after,
          _source: WHOLE_SOURCE,
        },
      });
      page = { hits: response.hits.hits, total: response.hits.total?.value ?? 0 };
    }
    const { hits } = page;
    const last = hits.at(-1);
    if (hits.length === limit && last !== undefined) {
      await this.remember(key, offset + limit, sortValues(last, compiled.sort.length));
    }
    return page;
  }

  /**
   * Finds the sort values of the hit just before `offset`: from the nearest checkpoint below
   * (or the start), in strides of sort values only, leaving checkpoints behind. Undefined when
   * the offset lies beyond the last hit.
   *
   * A stride asks for `walkBatchSize` hits after the last sort values with no `_source`, no
   * stored fields (not even `_id`), no hit counting and no point in time: on an index sorted
   * by the walk's sort (the default, `id`; mapping version 6) the engine stops each segment
   * after the stride's hits, so a stride costs about its own length, not the matches before
   * it. A point in time would make Elasticsearch add its `_shard_doc` tiebreaker to the sort,
   * which then does not match the index sort, and it measured slower on both engines
   * (docs/decisions/deep-pages-on-the-engines.md). Without one, each stride
   * sees the latest refresh, as the pages a harvester fetches one after another do.
   */
  private async walkTo(
    key: string,
    compiled: CompiledSearch,
    offset: number,
    search: ScopedSearch,
  ): Promise<SortValue[] | undefined> {
    const { alias, maxResultWindow, walkBatchSize } = this.options;
    this.counters.walks += 1;
    const start = await this.nearestCheckpoint(key, offset);
    if (!start && offset <= maxResultWindow) {
      // Inside the window: one request for the boundary hit.
      const response = await search.search({
        index: alias,
        body: {
          query: compiled.query,
          sort: compiled.sort,
          from: offset - 1,
          size: 1,
          stored_fields: NO_STORED_FIELDS,
          track_total_hits: false,
        },
        filterPath: ['hits.hits.sort'],
      });
      const hit = response.hits?.hits?.[0];
      this.counters.walkedHits += offset;
      return hit ? sortValues(hit, compiled.sort.length) : undefined;
    }
    let position = start?.offset ?? 0;
    let after = start?.after;
    while (position < offset) {
      const size = Math.min(walkBatchSize, offset - position);
      const response = await search.search({
        index: alias,
        body: {
          query: compiled.query,
          sort: compiled.sort,
          size,
          stored_fields: NO_STORED_FIELDS,
          track_total_hits: false,
          ...(after ? { search_after: after } : {}),
        },
        filterPath: ['hits.hits.sort'],
      });
      const hits = response.hits?.hits ?? [];
      const last = hits.at(-1);
      if (last === undefined) return undefined;
      after = sortValues(last, compiled.sort.length);
      position += hits.length;
      this.counters.walkedHits += hits.length;
      await this.remember(key, position, after);
      if (hits.length < size && position < offset) return undefined;
    }
    return after;
  }

  /**
   * True when a deep page in the index order lies more than two walk strides beyond the
   * nearest checkpoint below it: a sampled jump costs about what two strides cost.
   */
  private async worthJumping(
    key: string,
    compiled: CompiledSearch,
    offset: number,
  ): Promise<boolean> {
    if (!isIndexOrder(compiled.sort)) return false;
    const start = await this.nearestCheckpoint(key, offset);
    return offset - (start?.offset ?? 0) > JUMP_MIN_STRIDES * this.options.walkBatchSize;
  }

  /**
   * The sort values of the hit just before `offset` in the index order, found without walking
   * (no stride collects 10,000 hits to step over them): ids sampled at random among the
   * matches, beside the exact count, give the ids whose ranks should lie near the offset; counts
   * of the matches before a few of them (in parallel; a count of a range on `id` costs the terms
   * in the range, no hit collection) give their exact ranks; a page with `from` = the distance
   * from the closest one at or below the offset (within the result window) gives the hit.
   * Undefined when no counted sample lies within a window below the offset (the caller walks
   * then), and `null` when the offset lies beyond the last match.
   */
  private async jumpInIndexOrder(
    compiled: CompiledSearch,
    offset: number,
    search: ScopedSearch,
  ): Promise<SortValue[] | null | undefined> {
    const { alias, maxResultWindow } = this.options;
    const [counted, sampled] = await Promise.all([
      search.search({
        index: alias,
        body: { query: compiled.query, size: 0, track_total_hits: true },
        filterPath: ['hits.total'],
      }),
      search.search({
        index: alias,
        body: {
          query: {
            function_score: { query: compiled.query, random_score: {}, boost_mode: 'replace' },
          },
          size: JUMP_SAMPLES,
          stored_fields: NO_STORED_FIELDS,
          docvalue_fields: [ID_FIELD],
          track_total_hits: false,
        },
        filterPath: ['hits.hits.fields'],
      }),
    ]);
    const total = counted.hits?.total?.value ?? 0;
    if (offset > total) return null;
    this.counters.jumps += 1;
    const samples = (sampled.hits?.hits ?? [])
      .map((hit) => hit.fields?.[ID_FIELD]?.[0])
      .filter((id): id is string => typeof id === 'string')
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const estimate = estimateSampleRank(offset, total, samples.length);
    const { target } = estimate;
    const ranked = new Map<number, number>();
    const countRange = async (bounds: RangeBounds): Promise<number> => {
      const response = await search.search({
        index: alias,
        body: {
          query: allOf([compiled.query, range(ID_FIELD, bounds)]),
          size: 0,
          track_total_hits: true,
        },
        filterPath: ['hits.total'],
      });
      return response.hits?.total?.value ?? 0;
    };
    // Ranks of samples from counts in parallel: one from the nearer end of the matches (the start
    // below the middle, the end above it) or from a counted sample, then the matches between
    // consecutive samples; a count of a range on id costs the terms in it, so narrow counts.
    const rankAll = async (indices: number[]): Promise<void> => {
      const fresh = [...new Set(indices)]
        .filter((index) => index >= 0 && index < samples.length && !ranked.has(index))
        .sort((a, b) => a - b);
      const first = fresh[0];
      const last = fresh.at(-1);
      if (first === undefined || last === undefined) return;
      const sampleAt = (index: number): string => {
        const sample = samples[index];
        if (sample === undefined) throw new Error(`No sample ${index} among ${samples.length}`);
        return sample;
      };
      if (estimate.fromStart) {
        // The counted sample just below the first fresh one, else the start (rank 0).
        const [anchor, anchorRank] = [...ranked]
          .filter(([index]) => index < first)
          .reduce((best, entry) => (entry[0] > best[0] ? entry : best), [-1, 0]);
        // Each count runs from the fresh sample before (the anchor for the first).
        const counts = await Promise.all(
          fresh.map(async (index, k) => {
            const low = fresh[k - 1] ?? anchor;
            const bounds =
              low >= 0 ? { gte: sampleAt(low), lt: sampleAt(index) } : { lt: sampleAt(index) };
            return { index, count: await countRange(bounds) };
          }),
        );
        let rank = anchorRank;
        for (const { index, count } of counts) ranked.set(index, (rank += count));
      } else {
        // The counted sample just above the last fresh one, else the end (rank `total`).
        const [anchor, anchorRank] = [...ranked]
          .filter(([index]) => index > last)
          .reduce((best, entry) => (entry[0] < best[0] ? entry : best), [samples.length, total]);
        // Each count runs up to the fresh sample after (the anchor for the last).
        const counts = await Promise.all(
          fresh.map(async (index, k) => {
            const high = fresh[k + 1] ?? anchor;
            const bounds =
              high < samples.length
                ? { gte: sampleAt(index), lt: sampleAt(high) }
                : { gte: sampleAt(index) };
            return { index, count: await countRange(bounds) };
          }),
        );
        let rank = anchorRank;
        for (const { index, count } of counts.reverse()) ranked.set(index, (rank -= count));
      }
    };
    // Two rounds of counts in parallel: samples 4σ either side a σ apart, then those between
    // the closest below the target and the next counted one above it.
    await rankAll(buildFirstRound(estimate));
    await rankAll(buildSecondRound(ranked, estimate, samples.length));
    const best = findClosestBelow(ranked, target);
    const start = { id: best.index >= 0 ? samples[best.index] : undefined, rank: best.rank };
    if (target - start.rank >= maxResultWindow) return undefined;
    const response = await search.search({
      index: alias,
      body: {
        query:
          start.id === undefined
            ? compiled.query
            : allOf([compiled.query, range(ID_FIELD, { gte: start.id })]),
        sort: idOrder(),
        from: target - start.rank,
        size: 1,
        stored_fields: NO_STORED_FIELDS,
        track_total_hits: false,
      },
      filterPath: ['hits.hits.sort'],
    });
    const hit = response.hits?.hits?.[0];
    this.counters.walkedHits += target - start.rank + 1;
    // No hit: the matches changed between the counts; the caller walks.
    return hit ? sortValues(hit, 1) : undefined;
  }

  /**
   * The first `size` hits after `after` in the index order (`id` ascending), without counting:
   * a range on `id` bounded by the end of a block of ids that share a prefix with `after`,
   * wider blocks while a block holds fewer than `size` matches (id-blocks.ts), and at last
   * `search_after`, whose cost is known (the matches before `after`), rather than an open range
   * (the terms after it). The first block tried is one narrower than the block that held the
   * query's last page of this size, so a page that needed a wide block (at the end of a block
   * of ids: after `…0899999`, the block of `…09`) does not make the next ones wide.
   */
  private async hitsAfterInIndexOrder(
    key: string,
    query: Query,
    after: SortValue[],
    size: number,
    search: ScopedSearch,
  ): Promise<HitPage> {
    // A range on id cannot count the matches: the first request carries the count beside it
    // (`_msearch`, one round trip).
    let total: number | undefined;
    const send = async (body: JsonObject): Promise<HitPage> => {
      if (total !== undefined) {
        const response = await search.search({ index: this.options.alias, body });
        return { hits: response.hits?.hits ?? [], total };
      }
      const [counted, page] = await search.searchPair(
        { query, size: 0, track_total_hits: true },
        body,
      );
      total = counted.hits?.total?.value ?? 0;
      return { hits: page.hits?.hits ?? [], total };
    };
    const id = String(after[0]);
    let drop = Math.max(FIRST_BLOCK_DROP, this.blockWidths.get(key, size) - 1);
    for (let block = 0; block < MAX_BLOCKS; block += 1) {
      const end = idBlockEnd(id, drop);
      if (end === undefined) break;
      const page = await send({
        query: allOf([query, range(ID_FIELD, { gt: id, lt: end })]),
        sort: idOrder(),
        size,
        track_total_hits: false,
        _source: WHOLE_SOURCE,
      });
      if (page.hits.length >= size) {
        this.blockWidths.set(key, size, drop);
        return page;
      }
      // Each wider block drops one more code point than the last, then two.
      drop += block + 1;
    }
    return send({
      query,
      sort: idOrder(),
      size,
      track_total_hits: false,
      search_after: after,
      _source: WHOLE_SOURCE,
    });
  }
}
