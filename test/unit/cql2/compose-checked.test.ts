/**
 * Composing checked filters (shared/query/check-filter.ts): andChecked, notChecked and
 * logicalOperands make checked filters of checked filters only, and what they make translates on
 * every backend as the same filter checked whole would.
 */
import { expect } from 'chai';
import {
  andChecked,
  checkFilter,
  logicalOperands,
  notChecked,
} from '../../../shared/query/check-filter.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import {
  buildFilterSubject,
  compileRecordPredicate,
} from '../../../shared/query/evaluate-filter.js';
import { buildEmptyRecord, type CoreRecord } from '../../../shared/records/core-record.js';
import {
  compileFilterDsl,
  type FilterContext,
} from '../../../shared/search/engine/compile-filter.js';
import { refinedFilter } from '../../../shared/search/engine/refine-search.js';
import { compileFilter } from '../../../shared/search/sqlite/compile-filter.js';

const check = (text: string) => checkFilter(parseCql2Text(text));

const CONTEXT: FilterContext = {
  spatial: 'envelope',
  engineName: 'OpenSearch',
  mappedKind: () => 'absent',
};

function recordWith(extra: Record<string, unknown>): CoreRecord {
  return {
    ...buildEmptyRecord('r1', {
      format: 'geojson',
      mediaType: 'application/geo+json',
      content: '',
    }),
    extra,
  };
}

describe('andChecked: the conjunction of checked filters', () => {
  it('is undefined for no filter, and skips absent ones', () => {
    expect(andChecked()).to.equal(undefined);
    expect(andChecked(undefined, undefined)).to.equal(undefined);
  });

  it('is the filter itself for one', () => {
    const one = check('a = 1');
    expect(andChecked(one)).to.equal(one);
    expect(andChecked(undefined, one, undefined)).to.equal(one);
  });

  it('is one AND of the filters, in their order', () => {
    const a = check('a = 1');
    const b = check('b = 2 OR c = 3');
    const both = andChecked(a, b);
    expect(both).to.deep.equal({ kind: 'op', op: 'and', args: [a, b] });
    expect(both.kind === 'op' && both.args[0]).to.equal(a);
    expect(both).to.deep.equal(check('a = 1 AND (b = 2 OR c = 3)'));
  });

  it('flattens an AND among the filters into its operands, one level deep', () => {
    const ab = check('a = 1 AND b = 2');
    const c = check('c = 3');
    expect(andChecked(ab, c)).to.deep.equal(check('a = 1 AND b = 2 AND c = 3'));
    expect(andChecked(c, ab, check('d = 4 AND e = 5'))).to.deep.equal(
      check('c = 3 AND a = 1 AND b = 2 AND d = 4 AND e = 5'),
    );
    // An AND inside an operand (under OR, or an AND of an AND) keeps its place.
    const nested = check('(a = 1 AND b = 2) AND c = 3');
    expect(andChecked(nested, check('d = 4'))).to.deep.equal(
      check('(a = 1 AND b = 2) AND c = 3 AND d = 4'),
    );
    const either = check('a = 1 OR (b = 2 AND c = 3)');
    expect(andChecked(either, check('d = 4'))).to.deep.equal(
      check('(a = 1 OR (b = 2 AND c = 3)) AND d = 4'),
    );
  });

  it('leaves its operands unchanged', () => {
    const ab = check('a = 1 AND b = 2');
    const copy = structuredClone(ab);
    andChecked(ab, check('c = 3'));
    expect(ab).to.deep.equal(copy);
  });

  it('compiles on SQLite, on the engines and in Node as the filter checked whole does', () => {
    const composed = andChecked(check("a = 1 AND title LIKE 'x%'"), check('b < 2'));
    const whole = check("a = 1 AND title LIKE 'x%' AND b < 2");
    expect(compileFilter(composed)).to.deep.equal(compileFilter(whole));
    expect(compileFilterDsl(composed, CONTEXT)).to.deep.equal(compileFilterDsl(whole, CONTEXT));
    const decide = compileRecordPredicate(andChecked(check('a = 1'), check('b < 2')));
    expect(decide(buildFilterSubject(recordWith({ a: 1, b: 1 })))).to.equal(true);
    expect(decide(buildFilterSubject(recordWith({ a: 1, b: 3 })))).to.equal(false);
    expect(decide(buildFilterSubject(recordWith({ a: 1 })))).to.equal(null);
  });
});

describe('refinedFilter: what the engines decide in Node', () => {
  const area = {
    type: 'Polygon' as const,
    coordinates: [
      [
        [0, 0],
        [4, 0],
        [0, 3],
        [0, 0],
      ],
    ],
  };
  const page = { sort: [], offset: 0, limit: 10 };

  it('is the filter and the geometry constraint, in one flat AND', () => {
    const filter = check('a = 1 AND b = 2');
    expect(refinedFilter({ ...page, filter })).to.equal(filter);
    expect(
      refinedFilter({ ...page, filter, spatial: { geometry: area, relation: 'intersects' } }),
    ).to.deep.equal(
      check('a = 1 AND b = 2 AND S_INTERSECTS(geometry, POLYGON((0 0, 4 0, 0 3, 0 0)))'),
    );
    expect(
      refinedFilter({ ...page, spatial: { geometry: area, relation: 'within' } }),
    ).to.deep.equal(check('S_WITHIN(geometry, POLYGON((0 0, 4 0, 0 3, 0 0)))'));
    expect(refinedFilter(page)).to.equal(undefined);
  });
});

describe('notChecked and logicalOperands', () => {
  it('negate a checked filter as NOT(…) checked whole', () => {
    const negated = notChecked(check('a = 1'));
    expect(negated).to.deep.equal(check('NOT (a = 1)'));
    expect(compileFilter(negated)).to.deep.equal(compileFilter(check('NOT (a = 1)')));
  });

  it('give the operands of AND, OR and NOT as checked filters, and nothing for the rest', () => {
    expect(logicalOperands(check('a = 1 AND b = 2'))).to.deep.equal({
      op: 'and',
      operands: [check('a = 1'), check('b = 2')],
    });
    expect(logicalOperands(check('a = 1 OR b = 2'))?.op).to.equal('or');
    expect(logicalOperands(check('NOT (a = 1)'))).to.deep.equal({
      op: 'not',
      operands: [check('a = 1')],
    });
    expect(logicalOperands(check('a = 1'))).to.equal(undefined);
    expect(logicalOperands(check('a IS NULL'))).to.equal(undefined);
  });
});
