/**
 * refineSearch without an engine: a stand-in target (named as such) answers the count, the
 * candidate batch and the page, so that the cap, the order of the survivors and the time budget
 * are tested on their own. The real engines run the same code in
 * test/integration/engine-refine.test.ts and the whole CQL2 suite.
 */
import { expect } from 'chai';
import { QueryTimeoutError, UnsupportedFilterError } from '../../../shared/errors/index.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { buildEmptyRecord, type CoreRecord } from '../../../shared/records/core-record.js';
import type { FilterContext } from '../../../shared/search/engine/compile-filter.js';
import type {
  EngineAdapter,
  EngineSearchRequest,
  EngineSearchResponse,
} from '../../../shared/search/engine/engine-adapter.js';
import { lastSortInAnswer } from '../../../shared/search/engine/refine-batch.js';
import { refineSearch, type RefineTarget } from '../../../shared/search/engine/refine-search.js';
import { SearchScope } from '../../../shared/search/search-scope.js';

const CONTEXT: FilterContext = {
  spatial: 'envelope',
  engineName: 'OpenSearch',
  mappedKind: () => 'number',
};

function recordOf(id: string, a: number, b: number): CoreRecord {
  const record = buildEmptyRecord(id, {
    format: 'geojson',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.extra = { a, b };
  return record;
}

/** Candidates in the engine's order (z, y, x): y does not pass a < b. */
const CANDIDATES = [recordOf('z', 1, 2), recordOf('y', 3, 2), recordOf('x', 1, 5)];

/** A stand-in for the engine: counts, candidate batches and pages from CANDIDATES. */
function standIn(options: Partial<RefineTarget> & { delayMs?: number } = {}): RefineTarget {
  const search = async (request: EngineSearchRequest): Promise<EngineSearchResponse> => {
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
    const body = request.body;
    if (body.size === 0) {
      return { hits: { total: { value: CANDIDATES.length, relation: 'eq' }, hits: [] } };
    }
    const filter = (body.query as { bool?: { filter?: { terms?: { id: string[] } }[] } }).bool
      ?.filter?.[0]?.terms?.id;
    const records = filter ? CANDIDATES.filter((record) => filter.includes(record.id)) : CANDIDATES;
    return {
      hits: {
        hits: records.map((record) => ({
          _id: record.id,
          _source: { record: { ...record, source: {} }, source: record.source },
          sort: [record.id],
        })),
      },
    };
  };
  return {
    adapter: {} as EngineAdapter,
    alias: 'cairn-records',
    engineName: 'OpenSearch',
    maxCandidates: 10,
    batchSize: 100,
    storedFields: ['record', 'source'],
    search,
    searchText: async (request) => JSON.stringify(await search(request)),
    scope: new SearchScope(),
    ...options,
  };
}

/** Six candidates in the engine's order, ids f … a; a < b holds for f, d, c and b. */
const SIX = ['f', 'e', 'd', 'c', 'b', 'a'].map((id, index) =>
  recordOf(id, index % 2 === 0 || id === 'c' ? 1 : 3, 2),
);

/**
 * A stand-in for an engine with points in time: candidate batches of `size` from SIX after
 * `search_after` (each hit sorted by its id), as JSON text. With `sortFirst`, each hit's `sort`
 * comes before its `_source`, whose own `sort` holds another array, so that the sort values read
 * from the end of the text are wrong. Records the `search_after` of every batch asked for.
 */
function pagingStandIn(sortFirst: boolean): { target: RefineTarget; asked: string[] } {
  const asked: string[] = [];
  const batch = (body: Record<string, unknown>) => {
    const after = (body.search_after as string[] | undefined)?.[0];
    asked.push(after ?? '-');
    const start = after === undefined ? 0 : SIX.findIndex((record) => record.id === after) + 1;
    return SIX.slice(start, start + (body.size as number)).map((record) => {
      const source = { record: { ...record, source: {} }, sort: ['not the hit sort'] };
      return sortFirst
        ? { _id: record.id, sort: [record.id, 7], _source: source }
        : { _id: record.id, _source: source, sort: [record.id, 7] };
    });
  };
  const target = standIn({ batchSize: 2 });
  target.adapter = {
    openPointInTime: async () => 'pit-1',
    closePointInTime: async () => undefined,
  } as unknown as EngineAdapter;
  target.search = async (request) =>
    request.body.size === 0
      ? { hits: { total: { value: SIX.length, relation: 'eq' }, hits: [] } }
      : {
          hits: {
            hits: SIX.filter((record) =>
              (
                request.body.query as { bool: { filter: { terms: { id: string[] } }[] } }
              ).bool.filter[0]!.terms.id.includes(record.id),
            ).map((record) => ({ _id: record.id, _source: { record, source: record.source } })),
          },
        };
  target.searchText = async (request) =>
    JSON.stringify({ took: 1, timed_out: false, hits: { hits: batch(request.body) } });
  return { target, asked };
}

/** A request scope whose deadline, `budgetMs` from now, is already running. */
function scopeWithBudget(budgetMs: number): SearchScope {
  const scope = new SearchScope();
  scope.startDeadline(budgetMs);
  return scope;
}

const query = (text: string, offset = 0, limit = 10) => ({
  sort: [],
  offset,
  limit,
  filter: checkFilter(parseCql2Text(text)),
});

describe('refineSearch: candidates from the engine, the filter decided in Node', () => {
  it("keeps the survivors in the engine's order, counts them all and pages them", async () => {
    const all = await refineSearch(standIn(), query('a < b'), CONTEXT);
    expect(all.total).to.equal(2);
    expect(all.records.map((record) => record.id)).to.deep.equal(['z', 'x']);
    const second = await refineSearch(standIn(), query('a < b', 1, 1), CONTEXT);
    expect(second).to.deep.include({ total: 2 });
    expect(second.records.map((record) => record.id)).to.deep.equal(['x']);
  });

  it('refuses more candidates than the cap with a 400 naming both numbers', async () => {
    const caught = await refineSearch(standIn({ maxCandidates: 2 }), query('a < b'), CONTEXT).catch(
      (error: unknown) => error,
    );
    expect(caught).to.be.instanceOf(UnsupportedFilterError);
    expect((caught as Error).message).to.match(/checking 3 candidate records, more than the 2/);
  });

  it('reads the last sort values from the end of an answer, or gives none it cannot read', () => {
    const answer = (sort: string) =>
      `{"took":1,"hits":{"hits":[{"_id":"a","_source":{"sort":[1]},"sort":[1,"a"]},{"_id":"b","_source":{},"sort":${sort}}]}}`;
    expect(lastSortInAnswer(answer('[2.5,"b",9]'), 2)).to.deep.equal([2.5, 'b']);
    expect(lastSortInAnswer(answer('["x]y",9]'), 1)).to.equal(undefined);
    expect(lastSortInAnswer('{"hits":{"hits":[]}}', 1)).to.equal(undefined);
  });

  it('asks for each next batch while deciding the last, after the sort values read from its text', async () => {
    const { target, asked } = pagingStandIn(false);
    const result = await refineSearch(target, query('a < b', 0, 10), CONTEXT);
    expect(result.records.map((record) => record.id)).to.deep.equal(['f', 'd', 'c', 'b']);
    expect(result.total).to.equal(4);
    // Three batches of two, each asked for once, then the empty one that shows the end (a
    // record written since the count would be in it); that one is not asked for ahead, as the
    // count says the third batch is the last.
    expect(asked).to.deep.equal(['-', 'e', 'c', 'a']);
  });

  it('asks again, after the decided sort values, when those read from the text were wrong', async () => {
    const { target, asked } = pagingStandIn(true);
    const result = await refineSearch(target, query('a < b', 0, 10), CONTEXT);
    expect(result.records.map((record) => record.id)).to.deep.equal(['f', 'd', 'c', 'b']);
    // Each wrong guess ('not the hit sort') was asked for in vain, then the right batch.
    expect(asked).to.deep.equal(['-', 'not the hit sort', 'e', 'not the hit sort', 'c', 'a']);
  });

  it("holds the evaluation to the request's deadline", async () => {
    const caught = await refineSearch(
      standIn({ scope: scopeWithBudget(5), delayMs: 20 }),
      query('a < b'),
      CONTEXT,
    ).catch((error: unknown) => error);
    expect(caught).to.be.instanceOf(QueryTimeoutError);
  });
});
