/**
 * parseCql2Text keeps the trees of the texts it parsed last (a filter comes again with every
 * page): the same frozen tree for the same text, a fresh parse once the text has been pushed
 * out, and nothing kept for a text that failed.
 */
import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { PARSED_TEXTS_KEPT, parseCql2Text } from '../../../shared/query/cql2/parse-cql2-text.js';
import type { Expression } from '../../../shared/query/filter-ast.js';

const FILTER =
  "S_INTERSECTS(geometry, BBOX(-10,40,20,60)) AND T_INTERSECTS(INTERVAL(start_datetime,end_datetime), INTERVAL('2000-01-01T00:00:00Z','2015-12-31T23:59:59Z'))";

describe('CQL2 text: parsed trees kept for the texts parsed last', () => {
  it('answers the same text with the same tree, frozen through to its coordinates', () => {
    const first = parseCql2Text(FILTER);
    const again = parseCql2Text(FILTER);
    expect(again).to.equal(first);
    expect(Object.isFrozen(first)).to.equal(true);
    const args = (first as Extract<Expression, { kind: 'op' }>).args;
    expect(Object.isFrozen(args)).to.equal(true);
    expect(() => {
      args.push(first);
    }).to.throw(TypeError);
    const text = JSON.stringify(first);
    expect(text).to.contain('-10').and.to.contain('2015-12-31');
  });

  it('parses a text again once as many others have been parsed after it', () => {
    const first = parseCql2Text("title = 'kept'");
    for (let index = 0; index < PARSED_TEXTS_KEPT; index += 1) parseCql2Text(`n = ${index}`);
    const again = parseCql2Text("title = 'kept'");
    expect(again).to.not.equal(first);
    expect(again).to.deep.equal(first);
  });

  it('keeps refusing a text that does not parse', () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(() => parseCql2Text('title = ')).to.throw(FilterError);
    }
  });
});
