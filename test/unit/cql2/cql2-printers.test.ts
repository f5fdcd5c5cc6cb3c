/**
 * The CQL2 printers: readable text with only the parentheses needed, JSON in the official
 * encoding, and parse(print(tree)) = tree for generated trees of every shape.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { FilterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import {
  parseCql2Json,
  parseCql2Text,
  printCql2Json,
  printCql2Text,
} from '../../../shared/query/cql2/index.js';
import { filterExpression } from './cql2-arbitraries.js';

/** Parses text and prints it again. */
const reprint = (text: string): string => printCql2Text(parseCql2Text(text));

describe('printCql2Text', function () {
  it('writes only the parentheses precedence needs', function () {
    expect(reprint('(a = 1 AND b = 2) OR (c = 3)')).to.equal('a = 1 AND b = 2 OR c = 3');
    expect(reprint('a = 1 AND (b = 2 OR c = 3)')).to.equal('a = 1 AND (b = 2 OR c = 3)');
    expect(reprint('x = ((1 + 2) * 3) - (4 - 5)')).to.equal('x = (1 + 2) * 3 - (4 - 5)');
    expect(reprint('x = (2 ^ 3) ^ 4')).to.equal('x = (2 ^ 3) ^ 4');
    expect(reprint('x = a div (b % c)')).to.equal('x = a div (b % c)');
  });

  it('keeps nested groups of the same operator as written', function () {
    expect(reprint('(a = 1 OR b = 2) OR c = 3')).to.equal('(a = 1 OR b = 2) OR c = 3');
  });

  it('writes the negated predicate forms', function () {
    expect(reprint("NOT a LIKE 'x'")).to.equal("a NOT LIKE 'x'");
    expect(reprint('NOT a BETWEEN 1 AND 2')).to.equal('a NOT BETWEEN 1 AND 2');
    expect(reprint('NOT a IN (1, 2)')).to.equal('a NOT IN (1, 2)');
    expect(reprint('NOT a IS NULL')).to.equal('a IS NOT NULL');
    expect(reprint('NOT (a = 1 OR b = 2)')).to.equal('NOT (a = 1 OR b = 2)');
    expect(reprint('(a = 1) IS NULL')).to.equal('(a = 1) IS NULL');
  });

  it('writes literals: escapes, keywords as quoted names, numbers, WKT and temporal values', function () {
    expect(reprint("\"date\" = 'it''s a \\\\ \\n'")).to.equal("\"date\" = 'it''s a \\\\ \\n'");
    expect(reprint('x IN (-0, 1e21, 0.5, -3)')).to.equal('x IN (-0, 1e+21, 0.5, -3)');
    expect(reprint('S_WITHIN(POLYGON((0 0 1, 1 0 1, 1 1 1, 0 0 1)), g)')).to.equal(
      'S_WITHIN(POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1)), g)',
    );
    expect(
      reprint("T_DURING(INTERVAL(a, '..'), INTERVAL('2020-01-01', '2020-01-02T00:00:00.250Z'))"),
    ).to.equal("T_DURING(INTERVAL(a, '..'), INTERVAL('2020-01-01', '2020-01-02T00:00:00.25Z'))");
    expect(reprint('value = - foo * 2.0')).to.equal('value = -1 * foo * 2');
  });

  it('refuses trees no CQL2 text can express', function () {
    const bad: Expression[] = [
      { kind: 'property', name: 'x' },
      {
        kind: 'op',
        op: 'in',
        args: [
          { kind: 'property', name: 'x' },
          { kind: 'array', items: [] },
        ],
      },
      {
        kind: 'op',
        op: '=',
        args: [
          { kind: 'property', name: 'a b' },
          { kind: 'literal', value: 1 },
        ],
      },
      {
        kind: 'op',
        op: '=',
        args: [
          { kind: 'property', name: 'a' },
          { kind: 'literal', value: NaN },
        ],
      },
      { kind: 'op', op: 'my func', args: [] },
    ];
    for (const tree of bad) expect(() => printCql2Text(tree)).to.throw(FilterError);
  });
});

describe('printCql2Json', function () {
  it('writes the official encoding', function () {
    expect(
      printCql2Json(parseCql2Text("T_AFTER(INTERVAL(s, '..'), DATE('2020-01-01')) AND x IN (1)")),
    ).to.deep.equal({
      op: 'and',
      args: [
        { op: 't_after', args: [{ interval: [{ property: 's' }, '..'] }, { date: '2020-01-01' }] },
        { op: 'in', args: [{ property: 'x' }, [1]] },
      ],
    });
  });
});

describe('CQL2 round trips of generated trees', function () {
  this.timeout(60_000);

  it('parse(print(tree)) deep-equals the tree in both encodings', function () {
    fc.assert(
      fc.property(filterExpression, (tree) => {
        expect(parseCql2Text(printCql2Text(tree))).to.deep.equal(tree);
        expect(parseCql2Json(printCql2Json(tree))).to.deep.equal(tree);
      }),
      { numRuns: 2000 },
    );
  });
});
