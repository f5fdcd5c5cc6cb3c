/**
 * The refinement threads (shared/search/engine/refine-pool.ts) decide exactly what the
 * evaluator decides on the event loop: the Natural Earth features of the CQL2 suite (countries,
 * places, rivers, with their geometries) in batches, under filters of every kind (comparisons,
 * LIKE, arithmetic, property against property, temporal, spatial with jsts, arrays, NULLs).
 * Also: the checked filter crosses to a thread as plain data, a batch past its request's
 * deadline is a QueryTimeoutError, and an aborted request stops waiting for its batch.
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

/** The records in batches of `size`, as the engine hands candidates over. */
function batches(records: CoreRecord[], size: number): CoreRecord[][] {
  const out: CoreRecord[][] = [];
  for (let start = 0; start < records.length; start += size) {
    out.push(records.slice(start, start + size));
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
      for (const batch of batches(records, 97)) {
        const [inThread, inPool] = await Promise.all([
          inThreadDecider.select(filter, batch, scope),
          pool.select(filter, batch, scope),
        ]);
        expect(inPool).to.deep.equal(inThread);
        selectedSomewhere += inThread.length;
      }
      expect(selectedSomewhere, 'the filter must select some record').to.be.above(0);
    });
  }

  it('refuses a batch whose deadline has passed with QueryTimeoutError', async () => {
    const scope = new SearchScope();
    scope.startDeadline(100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const caught = await pool
      .select(checkFilter(parseCql2Text('rank > 1')), records, scope)
      .catch((error: unknown) => error);
    expect(caught).to.be.instanceOf(QueryTimeoutError);
  });

  it('stops waiting when the request aborts', async () => {
    const scope = new SearchScope();
    const filter = checkFilter(parseCql2Text('S_CROSSES(geom, LINESTRING(-60 -90,-60 90))'));
    const pending = pool.select(filter, records, scope).catch((error: unknown) => error);
    const reason = new Error('client gone');
    scope.abort(reason);
    expect(await pending).to.equal(reason);
    // The pool still answers afterwards.
    const after = await pool.select(filter, records.slice(0, 10), new SearchScope());
    expect(after).to.be.an('array');
    expect(pool.batches).to.be.above(FILTERS.length);
  });
});
