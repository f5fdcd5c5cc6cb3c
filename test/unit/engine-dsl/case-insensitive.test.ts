import { expect } from 'chai';
import {
  caseInsensitiveRange,
  caseInsensitively,
} from '../../../shared/search/engine/case-insensitive.js';
import type { Query, RangeBounds } from '../../../shared/search/engine/dsl.js';
import { defined } from '../../support/defined.js';

/**
 * The patterns use the core syntax of the engines' (Lucene's) regular expressions: literals,
 * `\`-escapes, classes with ranges, `.`, `*`, `+`, groups and `|`. This reads them as a
 * JavaScript RegExp, so the languages they describe can be checked against plain comparisons.
 */
function toJavaScript(pattern: string): RegExp {
  let source = '';
  const characters = Array.from(pattern);
  for (let i = 0; i < characters.length; i += 1) {
    const character = characters[i];
    if (character === '\\') {
      i += 1;
      source += `\\u{${characters[i]?.codePointAt(0)?.toString(16)}}`;
    } else source += character;
  }
  return new RegExp(`^(?:${source})$`, 'us');
}

/** The values whose ASCII-lowered form satisfies every bound, in code point order. */
function expected(value: string, bounds: RangeBounds): boolean {
  const lowered = Array.from(
    value.replace(/[A-Z]/g, (c) => c.toLowerCase()),
    (c) => c.codePointAt(0) as number,
  );
  const compare = (literal: string): number => {
    const other = Array.from(literal, (c) => c.codePointAt(0) as number);
    for (const [i, code] of lowered.entries()) {
      const otherCode = other[i];
      if (otherCode === undefined) break;
      if (code !== otherCode) return code - otherCode;
    }
    return lowered.length - other.length;
  };
  return (
    (bounds.gt === undefined || compare(String(bounds.gt)) > 0) &&
    (bounds.gte === undefined || compare(String(bounds.gte)) >= 0) &&
    (bounds.lt === undefined || compare(String(bounds.lt)) < 0) &&
    (bounds.lte === undefined || compare(String(bounds.lte)) <= 0)
  );
}

/** Whether the compiled clause (regexps under a bool filter, or match_none) matches the value. */
function matches(query: Query, value: string): boolean {
  if ('match_none' in query) return false;
  if ('match_all' in query) return true;
  if ('regexp' in query) {
    const [options] = Object.values(query.regexp as Record<string, { value: string }>);
    return toJavaScript(defined(options, 'a regexp clause').value).test(value);
  }
  const filter = (query.bool as { filter: Query[] }).filter;
  return filter.every((clause) => matches(clause, value));
}

// Around the places where lowering reorders: capitals, the signs between Z and a, braces,
// characters beyond ASCII and beyond the Basic Multilingual Plane, and control characters.
const ALPHABET = [
  'A',
  'B',
  'M',
  'Z',
  'a',
  'b',
  'm',
  'z',
  '[',
  '_',
  '`',
  '{',
  '~',
  ' ',
  '0',
  'é',
  'É',
  '\u0000',
  '😀',
  '.',
  '*',
  '\\',
  '-',
  ']',
];

function randomText(random: () => number, length: number): string {
  return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
}

/** A small deterministic generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('engine DSL: CASEI on plain-ASCII values', () => {
  it('orders by the ASCII-lowered value: every bound, against plain comparisons', () => {
    const random = seeded(7);
    const values = Array.from({ length: 400 }, (_, i) => randomText(random, i % 5));
    for (let round = 0; round < 120; round += 1) {
      const literal = randomText(random, round % 4).replace(/[A-Z]/g, (c) => c.toLowerCase());
      for (const bound of ['gt', 'gte', 'lt', 'lte'] as const) {
        const bounds = { [bound]: literal };
        const clause = caseInsensitiveRange('props.title', bounds);
        for (const value of values) {
          expect(
            matches(clause, value),
            `${JSON.stringify(value)} ${bound} ${JSON.stringify(literal)}`,
          ).to.equal(expected(value, bounds));
        }
      }
    }
  });

  it('compares with literals that keep capitals (time bounds) and with both bounds at once', () => {
    const bounds = { gte: '2020-01-01T00:00:00Z', lte: '2020-12-31T23:59:59Z' };
    const clause = caseInsensitiveRange('p', bounds);
    for (const value of [
      '2020-06-01T00:00:00Z',
      '2020-06-01t00:00:00z',
      '2019-12-31T00:00:00Z',
      '2020-13',
    ]) {
      expect(matches(clause, value), value).to.equal(expected(value, bounds));
    }
    // Nothing lowers to a capital: no value equals a literal with one, only sorts around it.
    expect(matches(caseInsensitiveRange('p', { lte: 'T' }), 'T')).to.equal(false);
    expect(matches(caseInsensitiveRange('p', { lte: 'T' }), '5')).to.equal(true);
  });

  it('grows linearly with the literal and asks the engine for the work it needs', () => {
    const clause = caseInsensitiveRange('p', { lt: 'x'.repeat(2000) }) as {
      regexp: { p: { value: string; flags: string; max_determinized_states: number } };
    };
    expect(clause.regexp.p.value.length).to.be.below(2000 * 40);
    expect(clause.regexp.p.flags).to.equal('NONE');
    // Lucene's syntax has no empty alternative: the engines matched nothing with one.
    for (const bounds of [{ lt: 'ab' }, { lte: 'ab' }, { gt: 'ab' }, { gte: 'ab' }]) {
      const { regexp } = caseInsensitiveRange('p', bounds) as { regexp: { p: { value: string } } };
      expect(regexp.p.value).not.to.match(/\(\||\|\||\|\)/);
    }
    expect(clause.regexp.p.max_determinized_states).to.be.at.least(4 * 2000);
  });

  it('rewrites terms, lists, wildcards and negations, and leaves numbers and presence alone', () => {
    expect(caseInsensitively({ term: { f: 'abc' } })).to.deep.equal({
      term: { f: { value: 'abc', case_insensitive: true } },
    });
    expect(caseInsensitively({ term: { f: 3 } })).to.deep.equal({ term: { f: 3 } });
    expect(caseInsensitively({ terms: { f: ['a', 'b'] } })).to.deep.equal({
      bool: {
        should: [
          { term: { f: { value: 'a', case_insensitive: true } } },
          { term: { f: { value: 'b', case_insensitive: true } } },
        ],
        minimum_should_match: 1,
      },
    });
    expect(caseInsensitively({ wildcard: { f: { value: 'a*' } } })).to.deep.equal({
      wildcard: { f: { value: 'a*', case_insensitive: true } },
    });
    expect(caseInsensitively({ bool: { must_not: [{ term: { f: 'a' } }] } })).to.deep.equal({
      bool: { must_not: [{ term: { f: { value: 'a', case_insensitive: true } } }] },
    });
    expect(caseInsensitively({ range: { f: { gt: 1 } } })).to.deep.equal({
      range: { f: { gt: 1 } },
    });
    expect(caseInsensitively({ exists: { field: 'f' } })).to.deep.equal({ exists: { field: 'f' } });
    expect(() => caseInsensitively({ geo_shape: {} })).to.throw(/geo_shape/);
  });
});
