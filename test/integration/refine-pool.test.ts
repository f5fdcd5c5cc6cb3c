/**
 * The refinement threads (shared/search/engine/refine-pool.ts) decide exactly what the
 * evaluator decides on the event loop: the Natural Earth features of the CQL2 suite (countries,
 * places, rivers, with their geometries) in batches, under filters of every kind (comparisons,
 * LIKE, arithmetic, property against property, temporal, spatial with jsts, arrays, NULLs).
 * Each batch crosses as the engine would answer it (the JSON text of a search's hits), which the
 * thread parses. Also: the checked filter crosses to a thread as plain data, a batch past its
 * request's deadline, or one the engine cut at its timeout, is a QueryTimeoutError, and an
 * aborted request stops waiting for its batch.
 */
import { expect } from 'chai';
import { QueryTimeoutError } from '../../shared/errors/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { inThreadDecider, RefinePool } from '../../shared/search/engine/refine-pool.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import { readAllFeatures, toRecord } from './cql2/ne110m.js';

const FILTERS = [
  'pop_other between 1000000 and 3000000',
  "name LIKE 'B%' OR name LIKE '%ia'",
  'NOT (rank > 1)',
  'POP_EST / 1000000 > 100',
  'S_INTERSECTS(geom, BBOX(0,40,10,50))',
  'S_INTERSECTS(geom, POLYGON((0 40,10 40,10 50,0 50,0 40))) AND NOT S_INTERSECTS(geom, BBOX(5,50,10,60))',
  'S_WITHIN(geom, BBOX(-180,-90,0,90))',
  'S_CROSSES(geom, LINESTRING(-60 -90,-60 90))',
  'boolean = true OR nosuchproperty = 1',
  "T_INTERSECTS(datetime, INTERVAL('2017-06-10T07:30:00Z','2017-06-11T10:30:00Z'))",
  "CASEI(name) LIKE casei('b%') OR ACCENTI(name) LIKE accenti('%ô%')",
];

/**
 * The records in batches of `size`, each as the JSON text of the engine's answer to a candidate
 * search: hits with the `record` part and sort values (the position, then a tiebreaker the
 * engine adds under a point in time).
 */
function batches(records: CoreRecord[], size: number, timedOut = false): string[] {
  const out: string[] = [];
  for (let start = 0; start < records.length; start += size) {
    const hits = records.slice(start, start + size).map((record, index) => ({
      _id: record.id,
      _source: { record },
      sort: [start + index, 42],
    }));
    out.push(JSON.stringify({ took: 1, timed_out: timedOut, hits: { hits } }));
  }
  return out;
}

describe('refinement threads decide as the event loop does', function () {
  this.timeout(60_000);
  const records = readAllFeatures().map(toRecord);
  const pool = new RefinePool(2);
  after(() => pool.close());

  it('has records of every layer to decide', () => {
    expect(records.length).to.be.above(300);
  });

  for (const text of FILTERS) {
    it(text, async () => {
      const filter = checkFilter(parseCql2Text(text));
      const scope = new SearchScope();
      let selectedSomewhere = 0;
      let decided = 0;
      for (const batch of batches(records, 97)) {
        const [inThread, inPool] = await Promise.all([
          inThreadDecider.decide(filter, batch, 1, scope),
          pool.decide(filter, batch, 1, scope),
        ]);
        expect(inPool).to.deep.equal(inThread);
        // The next batch starts after the last hit's own sort value, without the tiebreaker.
        expect(inThread.lastSort).to.deep.equal([decided + inThread.hits - 1]);
        decided += inThread.hits;
        selectedSomewhere += inThread.ids.length;
      }
      expect(decided).to.equal(records.length);
      expect(selectedSomewhere, 'the filter must select some record').to.be.above(0);
      expect(selectedSomewhere, 'the filter must leave some record out').to.be.below(
        records.length,
      );
    });
  }

  it('selects every candidate, in order, when there is no filter', async () => {
    const [batch] = batches(records.slice(0, 50), 50);
    const expected = records.slice(0, 50).map((record) => record.id);
    for (const decider of [inThreadDecider, pool]) {
      const result = await decider.decide(undefined, batch!, 1, new SearchScope());
      expect(result).to.deep.equal({ ids: expected, hits: 50, lastSort: [49] });
    }
  });

  it('refuses a batch whose deadline has passed with QueryTimeoutError', async () => {
    const scope = new SearchScope();
    scope.startDeadline(100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const [all] = batches(records, records.length);
    const caught = await pool
      .decide(checkFilter(parseCql2Text('rank > 1')), all!, 1, scope)
      .catch((error: unknown) => error);
    expect(caught).to.be.instanceOf(QueryTimeoutError);
  });

  it('refuses an answer the engine cut at its timeout, on a thread and on the event loop', async () => {
    const [cut] = batches(records.slice(0, 20), 20, true);
    for (const decider of [inThreadDecider, pool]) {
      const caught = await decider
        .decide(checkFilter(parseCql2Text('rank > 1')), cut!, 1, new SearchScope())
        .catch((error: unknown) => error);
      expect(caught).to.be.instanceOf(QueryTimeoutError);
    }
  });

  it('stops waiting when the request aborts', async () => {
    const scope = new SearchScope();
    const filter = checkFilter(parseCql2Text('S_CROSSES(geom, LINESTRING(-60 -90,-60 90))'));
    const [all] = batches(records, records.length);
    const pending = pool.decide(filter, all!, 1, scope).catch((error: unknown) => error);
    const reason = new Error('client gone');
    scope.abort(reason);
    expect(await pending).to.equal(reason);
    // The pool still answers afterwards.
    const [few] = batches(records.slice(0, 10), 10);
    const after = await pool.decide(filter, few!, 1, new SearchScope());
    expect(after.hits).to.equal(10);
    expect(pool.batches).to.be.above(FILTERS.length);
  });
});
