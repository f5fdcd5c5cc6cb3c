/**
 * The search `timeout` BudgetedSearch puts in a request body: what is left of the request's
 * deadline rounded up to whole seconds, so that the body (the key of the engine's shard request
 * cache) of a later request of one API request is the body of the first request of another; the
 * HTTP request's own timeout stays exact.
 */
import { expect } from 'chai';
import { BudgetedSearch } from '../../../shared/search/engine/budgeted-search.js';
import type {
  EngineAdapter,
  EngineSearchRequest,
  EngineSearchResponse,
} from '../../../shared/search/engine/engine-adapter.js';
import { SearchScope } from '../../../shared/search/search-scope.js';

/** An adapter that keeps the search requests it is sent and answers none of them found. */
function recordingAdapter(sent: EngineSearchRequest[]): EngineAdapter {
  const answer: EngineSearchResponse = {
    hits: { hits: [], total: { value: 0, relation: 'eq' } },
    timed_out: false,
  };
  return {
    search: (request: EngineSearchRequest) => {
      sent.push(request);
      return Promise.resolve(answer);
    },
  } as unknown as EngineAdapter;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

describe('the search timeout of a budgeted search', () => {
  it('is the rest of the deadline rounded up to whole seconds, the same for the requests of the first second', async () => {
    const sent: EngineSearchRequest[] = [];
    const search = new BudgetedSearch(recordingAdapter(sent), 'records', 3000);
    const scope = new SearchScope();
    scope.startDeadline(3000);
    await search.search({ index: 'records', body: { size: 0 } }, scope);
    await sleep(30);
    await search.search({ index: 'records', body: { size: 0 } }, scope);
    expect(sent.map((request) => request.body.timeout)).to.deep.equal(['3000ms', '3000ms']);
    // The HTTP request's timeout is the exact rest of the deadline, below the rounded one.
    const [first, second] = sent.map((request) => (request as { timeoutMs?: number }).timeoutMs);
    expect(first).to.be.a('number').at.most(3000);
    expect(second).to.be.a('number').below(first!);
    scope.end();
  });

  it('rounds a rest below a second up to one second, and sends none without a deadline', async () => {
    const sent: EngineSearchRequest[] = [];
    const search = new BudgetedSearch(recordingAdapter(sent), 'records', undefined);
    const scope = new SearchScope();
    scope.startDeadline(250);
    await search.search({ index: 'records', body: { size: 0 } }, scope);
    const unbounded = new SearchScope();
    await search.search({ index: 'records', body: { size: 0 } }, unbounded);
    expect(sent.map((request) => request.body.timeout)).to.deep.equal(['1000ms', undefined]);
    scope.end();
  });
});
