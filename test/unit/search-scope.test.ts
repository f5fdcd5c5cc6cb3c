/**
 * The request's deadline (shared/search/search-scope.ts): counted from the request's arrival when
 * the scope knows it, less the time kept back for the answer (at most a twentieth of the budget), and from
 * the first search otherwise; a deadline already past when the first search comes aborts the
 * scope with the budget's QueryTimeoutError.
 */
import { expect } from 'chai';
import { QueryTimeoutError } from '../../shared/errors/index.js';
import { SearchScope } from '../../shared/search/search-scope.js';

describe('SearchScope deadline', () => {
  it('counts from the arrival, less the answer reserve', () => {
    const startedAt = Date.now() - 1000;
    const scope = new SearchScope({ startedAt, reserveMs: 50 });
    scope.startDeadline(3000);
    expect(scope.deadlineAt).to.equal(startedAt + 2950);
    expect(scope.remainingMs()).to.be.at.most(1950);
    expect(scope.budgetMs).to.equal(3000);
    scope.end();
  });

  it('keeps back at most a twentieth of the budget', () => {
    const startedAt = Date.now();
    const scope = new SearchScope({ startedAt, reserveMs: 5000 });
    scope.startDeadline(300);
    expect(scope.deadlineAt).to.equal(startedAt + 285);
    scope.end();
  });

  it('counts from the first search without an arrival time, with no reserve', () => {
    const before = Date.now();
    const scope = new SearchScope();
    scope.startDeadline(3000);
    expect(scope.deadlineAt)
      .to.be.at.least(before + 3000)
      .and.at.most(Date.now() + 3000);
    scope.end();
  });

  it('aborts with the budget’s timeout when the deadline has passed before the first search', async () => {
    const scope = new SearchScope({ startedAt: Date.now() - 5000, reserveMs: 50 });
    scope.startDeadline(3000);
    expect(() => scope.check()).to.throw(QueryTimeoutError);
    expect(scope.signal.aborted).to.equal(true);
    expect(scope.signal.reason).to.be.instanceOf(QueryTimeoutError);
  });
});

describe('SearchScope generation', () => {
  it('reads the catalogue generation once per request, for every caller', async () => {
    let reads = 0;
    const scope = new SearchScope({ readGeneration: () => Promise.resolve(String(++reads)) });
    expect(await Promise.all([scope.generation(), scope.generation()])).to.deep.equal(['1', '1']);
    expect(await scope.generation()).to.equal('1');
    expect(reads).to.equal(1);
  });

  it('knows none without a reader, or when the read fails', async () => {
    expect(await new SearchScope().generation()).to.equal(undefined);
    const failing = new SearchScope({ readGeneration: () => Promise.reject(new Error('down')) });
    expect(await failing.generation()).to.equal(undefined);
  });
});
