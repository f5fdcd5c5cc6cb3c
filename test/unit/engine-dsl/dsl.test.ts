/** The DSL builders' folding (dsl.ts): repeats, neutral and decisive clauses, nested bools. */
import { expect } from 'chai';
import {
  allOf,
  anyOf,
  exists,
  matchAll,
  matchNone,
  not,
  range,
  term,
} from '../../../shared/search/engine/dsl.js';

describe('engine DSL builders', () => {
  it('drops a repeated leaf clause, built twice or passed twice', () => {
    const clause = exists('geometry');
    expect(
      allOf([exists('geometry'), term('a', 1), exists('geometry'), clause, clause]),
    ).to.deep.equal({ bool: { filter: [exists('geometry'), term('a', 1)] } });
    expect(anyOf([term('a', 1), term('a', 1)])).to.deep.equal(term('a', 1));
  });

  it('keeps leaves that differ only in a value, and drops a bool passed twice', () => {
    const box = allOf([range('x', { lte: 1 }), range('y', { gte: 2 })]);
    const either = anyOf([box, not(term('t', true))]);
    expect(anyOf([either, term('a', 1)])).to.deep.equal({
      bool: { should: [box, not(term('t', true)), term('a', 1)], minimum_should_match: 1 },
    });
    expect(allOf([either, either, term('a', 2), term('a', '2')])).to.deep.equal({
      bool: { filter: [either, term('a', 2), term('a', '2')] },
    });
  });

  it('compares other leaves by identity: a range passed twice is dropped, one built twice kept', () => {
    const bound = range('x', { lte: 1 });
    expect(allOf([bound, bound])).to.deep.equal(bound);
    expect(allOf([range('x', { lte: 1 }), range('x', { lte: 1 })])).to.deep.equal({
      bool: { filter: [range('x', { lte: 1 }), range('x', { lte: 1 })] },
    });
  });

  it('folds match_all and match_none', () => {
    expect(allOf([matchAll(), term('a', 1)])).to.deep.equal(term('a', 1));
    expect(allOf([matchNone(), term('a', 1)])).to.deep.equal(matchNone());
    expect(anyOf([matchAll(), term('a', 1)])).to.deep.equal(matchAll());
    expect(anyOf([])).to.deep.equal(matchNone());
    expect(not(not(term('a', 1)))).to.deep.equal(term('a', 1));
  });
});
