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

  it("holds the evaluation to the request's deadline", async () => {
    const caught = await refineSearch(
      standIn({ scope: scopeWithBudget(5), delayMs: 20 }),
      query('a < b'),
      CONTEXT,
    ).catch((error: unknown) => error);
    expect(caught).to.be.instanceOf(QueryTimeoutError);
  });
});
