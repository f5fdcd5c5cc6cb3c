/**
 * The reads of the records index: one record, a page of a search, the values of a field and
 * the catalogue's extent. A search's first pages are one request within the result window
 * (with the count of its records in doubt beside it when there are any); deeper pages are
 * deep-paging.ts's; a filter the engine cannot decide alone is refined in Node
 * (refine-search.ts). Engine failures become project errors here, at the backend boundary.
 */
import { InvalidParameterError } from '../../errors/index.js';
import { canonicalPropertyName } from '../../query/queryables.js';
import type { SearchQuery } from '../../query/search-query.js';
import type { CoreRecord } from '../../records/core-record.js';
import type {
  CatalogueExtent,
  ChildrenExtent,
  DomainOptions,
  DomainValue,
  SearchResult,
} from '../backend.js';
import { buildChildrenExtentsBody, readChildrenExtents } from './children-extents.js';
import { buildAggregations, readAggregations } from './compile-aggregate.js';
import type { AggregationAnswer, AggregationRequest } from '../aggregations.js';
import type { CompiledSearch } from './compile-search.js';
import { matchAll, type Query } from './dsl.js';
import {
  sortValues,
  type EngineAdapter,
  type EngineHit,
  type EngineSearchResponse,
  type JsonObject,
} from './engine-adapter.js';
import {
  readStoredRecord,
  STORED_FIELDS,
  WHOLE_SOURCE,
  type StoredParts,
} from './engine-document.js';
import { toReadError } from './engine-errors.js';
import { fieldOf } from './engine-fields.js';
import type { DeepPaging } from './deep-paging.js';
import type { IndexLifecycle } from './index-lifecycle.js';
import type { QueryCompiler } from './query-compiler.js';
import { refineSearch } from './refine-search.js';
import type { BudgetedSearch } from './budgeted-search.js';
import type { SearchScope } from '../search-scope.js';

/** What the reads are given. */
export interface RecordReadsOptions {
  adapter: EngineAdapter;
  alias: string;
  lifecycle: IndexLifecycle;
  compiler: QueryCompiler;
  paging: DeepPaging;
  /** Searches of the alias under the query time budget. */
  search: BudgetedSearch;
  /** The index's max_result_window. */
  maxResultWindow: number;
  /** Most candidates a search may check in Node. */
  refineMaxCandidates: number;
}

/**
 * The same promise, marked as handled: a page sent beside a count is awaited only after the
 * count, and when the count fails (the request's deadline passed) the page's failure must not
 * be an unhandled rejection. Awaiting it still throws.
 */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The records of a page's hits (each read with its whole stored `_source`). */
function toRecords(hits: EngineHit[]): CoreRecord[] {
  return hits.map((hit) => readStoredRecord(hit._source as unknown as StoredParts));
}

/** Record, search, domain and extent reads. */
export class RecordReads {
  private readonly options: RecordReadsOptions;

  constructor(options: RecordReadsOptions) {
    this.options = options;
  }

  /** One record by id; null when there is none. */
  async get(id: string): Promise<CoreRecord | null> {
    const { adapter, alias, lifecycle } = this.options;
    try {
      await lifecycle.requireLive();
      const stored = await adapter.getSource(alias, id, STORED_FIELDS);
      return stored ? readStoredRecord(stored as unknown as StoredParts) : null;
    } catch (error) {
      throw toReadError(error);
    }
  }

  /** A page of a search and the exact count of its matches, within the request's deadline. */
  async search(query: SearchQuery, scope: SearchScope): Promise<SearchResult> {
    const { alias, lifecycle, compiler, paging, maxResultWindow } = this.options;
    const search = this.options.search.within(scope);
    const hasFilter = query.filter !== undefined;
    try {
      const candidate = await compiler.compileCandidate(query);
      const { offset, limit } = query;
      if (limit > maxResultWindow) {
        throw new InvalidParameterError(
          'limit',
          `A page holds at most ${maxResultWindow} records on this backend`,
        );
      }
      const firstPageBody = (compiled: CompiledSearch): JsonObject | undefined =>
        offset + limit > maxResultWindow && limit !== 0
          ? undefined
          : {
              query: compiled.query,
              sort: compiled.sort,
              track_total_hits: true,
              from: limit === 0 ? 0 : offset,
              size: limit,
              _source: WHOLE_SOURCE,
            };
      let firstPage: Promise<EngineSearchResponse> | undefined;
      let inDoubt: number | undefined;
      if (candidate) {
        const body = firstPageBody(candidate);
        if (candidate.doubt && body) {
          // A first page is sent with the count of records in doubt, in one round trip (e.g.
          // for an intersects geometry), and used only when that count is 0.
          const [counted, page] = await search.searchPair(
            { query: candidate.doubt.query, size: 0, track_total_hits: true },
            body,
          );
          inDoubt = counted.hits.total?.value ?? 0;
          firstPage = Promise.resolve(page);
        } else {
          if (body) firstPage = settled(search.search({ index: alias, body }));
          inDoubt = candidate.doubt ? await search.count(candidate.doubt.query) : 0;
        }
      }
      let exact = inDoubt === 0 ? candidate : undefined;
      if (
        !exact &&
        candidate?.doubt &&
        inDoubt !== undefined &&
        inDoubt <= this.options.refineMaxCandidates
      ) {
        // Few records in doubt: those are decided in Node, the engine answers for the rest.
        const { spatial } = await lifecycle.requireLive();
        exact = await compiler.settleDoubt(
          query,
          candidate.doubt,
          candidate,
          inDoubt,
          spatial,
          search,
        );
        const body = firstPageBody(exact);
        firstPage = body && search.search({ index: alias, body });
      }
      if (!exact) {
        const { spatial } = await lifecycle.requireLive();
        const context = compiler.filterContext(spatial, new Set());
        return await refineSearch(compiler.refineTarget(search), query, context);
      }
      const compiled = exact;
      // The live index version is part of the key: checkpoints of an index a reindex replaced
      // are never used against its successor, in this process or any other.
      const key = JSON.stringify([lifecycle.liveIndex, alias, compiled.query, compiled.sort]);
      if (firstPage) {
        const response = await firstPage;
        const hits = response.hits.hits;
        const last = hits.at(-1);
        if (hits.length === limit && last !== undefined) {
          // Shared only when the next page of this size lies beyond the window: discovery
          // queries' first pages cost no Redis round trip.
          await paging.remember(
            key,
            offset + limit,
            sortValues(last, compiled.sort.length),
            offset + 2 * limit > maxResultWindow,
          );
        }
        return { total: response.hits.total?.value ?? 0, records: toRecords(hits) };
      }
      const { hits, total } = await paging.page(key, compiled, offset, limit, search);
      return { total, records: toRecords(hits) };
    } catch (error) {
      throw toReadError(error, hasFilter);
    }
  }

  /** The most frequent values of a field (among a query's matches), most frequent first. */
  async domain(field: string, options: DomainOptions, scope: SearchScope): Promise<DomainValue[]> {
    const { alias, compiler } = this.options;
    const search = this.options.search.within(scope);
    const hasFilter = options.query?.filter !== undefined;
    try {
      const query: Query = options.query
        ? (await compiler.compile(options.query, search)).query
        : matchAll();
      const engineField = fieldOf(canonicalPropertyName(field));
      const size = options.limit ?? 100;
      const response = await search.search({
        index: alias,
        body: {
          query,
          size: 0,
          aggs: {
            values: {
              terms: {
                field: engineField.path,
                size,
                shard_size: Math.max(size * 2, 100),
                order: [{ _count: 'desc' }, { _key: 'asc' }],
              },
            },
          },
        },
      });
      const buckets = ((response.aggregations?.values as JsonObject | undefined)?.buckets ??
        []) as {
        key: string | number;
        key_as_string?: string;
        doc_count: number;
      }[];
      return buckets.map((bucket) => ({
        value: bucket.key_as_string ?? String(bucket.key),
        count: bucket.doc_count,
      }));
    } catch (error) {
      throw toReadError(error, hasFilter);
    }
  }

  /**
   * Aggregations over the records a query matches, in one search of size 0. The query must be
   * one the engine answers exactly (QueryCompiler.compile refuses the others, 400): counts are
   * never given for candidates that Node would still have to decide.
   */
  async aggregate(
    query: SearchQuery,
    requests: Readonly<Record<string, AggregationRequest>>,
    scope: SearchScope,
  ): Promise<Record<string, AggregationAnswer>> {
    const { alias, compiler } = this.options;
    const search = this.options.search.within(scope);
    try {
      const compiled = await compiler.compile(query, search);
      const response = await search.search({
        index: alias,
        body: {
          query: compiled.query,
          size: 0,
          track_total_hits: true,
          aggs: buildAggregations(requests),
        },
      });
      const hits = response.hits.total;
      const total = typeof hits === 'number' ? hits : (hits?.value ?? 0);
      return readAggregations(requests, response.aggregations ?? {}, total);
    } catch (error) {
      throw toReadError(error, query.filter !== undefined);
    }
  }

  /** The count and extent of the records naming each of these parents. */
  async childrenExtents(
    parentIds: readonly string[],
    scope: SearchScope,
  ): Promise<ChildrenExtent[]> {
    if (parentIds.length === 0) return [];
    const { alias } = this.options;
    const search = this.options.search.within(scope);
    try {
      const response = await search.search({
        index: alias,
        body: buildChildrenExtentsBody(parentIds),
      });
      return readChildrenExtents(response.aggregations);
    } catch (error) {
      throw toReadError(error);
    }
  }

  /** The bounding box and time span of every record. */
  async extent(): Promise<CatalogueExtent> {
    const { adapter, alias, lifecycle } = this.options;
    try {
      await lifecycle.requireLive();
      const aggs: JsonObject = {};
      for (const part of [0, 1]) {
        aggs[`west${part}`] = { min: { field: `box${part}.minx` } };
        aggs[`south${part}`] = { min: { field: `box${part}.miny` } };
        aggs[`east${part}`] = { max: { field: `box${part}.maxx` } };
        aggs[`north${part}`] = { max: { field: `box${part}.maxy` } };
      }
      aggs.start = { min: { field: 'time.start' } };
      aggs.end = { max: { field: 'time.end' } };
      const response = await adapter.search({
        index: alias,
        body: { size: 0, query: matchAll(), aggs },
      });
      const values = (response.aggregations ?? {}) as Record<
        string,
        { value: number | null; value_as_string?: string }
      >;
      const pick = (name: string, choose: (a: number, b: number) => number): number | undefined => {
        const found = [values[`${name}0`]?.value, values[`${name}1`]?.value].filter(
          (value): value is number => typeof value === 'number',
        );
        return found.length === 0 ? undefined : found.reduce((a, b) => choose(a, b));
      };
      const extent: CatalogueExtent = {};
      const west = pick('west', Math.min);
      if (west !== undefined) {
        // Every box has all four sides: a west bound means the other three are there too.
        extent.bbox = [
          west,
          pick('south', Math.min)!,
          pick('east', Math.max)!,
          pick('north', Math.max)!,
        ];
      }
      if (values.start?.value !== null && values.start?.value !== undefined) {
        extent.start = new Date(values.start.value).toISOString();
      }
      if (values.end?.value !== null && values.end?.value !== undefined) {
        extent.end = new Date(values.end.value).toISOString();
      }
      return extent;
    } catch (error) {
      throw toReadError(error);
    }
  }
}
