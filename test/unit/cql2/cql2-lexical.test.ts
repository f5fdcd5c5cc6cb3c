/**
 * The grammar and cql2-lexical.ts each carry the CQL2 lexical rules (the generated parser
 * cannot import TypeScript); these tests check that they agree.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { FilterError } from '../../../shared/errors/index.js';
import {
  CQL2_RESERVED_WORDS,
  describeInvalidDate,
  describeInvalidTimestamp,
  isCql2Identifier,
  isCql2ReservedWord,
  isCql2TextString,
  normalizeTimestamp,
} from '../../../shared/query/cql2/cql2-lexical.js';
import { parseCql2Json, parseCql2Text } from '../../../shared/query/cql2/index.js';
import { dateString, identifier } from './cql2-arbitraries.js';

/** Whether the text parser accepts `text`, failing the test on anything but a FilterError. */
function accepts(text: string): boolean {
  try {
    parseCql2Text(text);
    return true;
  } catch (error) {
    expect(error).to.be.instanceOf(FilterError);
    return false;
  }
}

describe('CQL2 lexical rules', function () {
  it('reserves exactly the keyword list in the grammar', function () {
    for (const word of CQL2_RESERVED_WORDS) {
      if (word === 'TRUE' || word === 'FALSE') {
        expect(parseCql2Text(`${word} = 1`)).to.have.nested.property('args[0].kind', 'literal');
      } else {
        expect(accepts(`${word} = 1`), word).to.equal(false);
      }
      expect(accepts(`${word.toLowerCase()}x = 1`), word).to.equal(true);
      expect(accepts(`"${word}" = 1`), word).to.equal(true);
    }
    for (const word of ['Z', 'EMPTY', 'ESCAPE', 'ILIKE', 'DURING']) {
      expect(isCql2ReservedWord(word)).to.equal(false);
      expect(accepts(`${word} = 1`), word).to.equal(true);
    }
  });

  it('reads private-use, supplementary and lone-surrogate characters as the BNF says', function () {
    expect(accepts('"\uE000" = 1')).to.equal(false);
    expect(accepts('"a\u{10400}" = 1')).to.equal(true);
    expect(accepts('"a\u{F0000}" = 1')).to.equal(false);
    expect(accepts('"a\uD801" = 1')).to.equal(false);
    expect(accepts("x = '\uE000\u{10FFFF}'")).to.equal(true);
    expect(accepts("x = '\uFFFE'")).to.equal(false);
    expect(accepts("x = '\uDC00'")).to.equal(false);
  });

  it('recognises the same identifiers as the grammar', function () {
    const candidate = fc.oneof(
      identifier,
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
    );
    fc.assert(
      fc.property(candidate, (name) => {
        if (name.includes('"')) return;
        expect(accepts(`"${name}" = 1`), name).to.equal(isCql2Identifier(name));
      }),
      { numRuns: 3000 },
    );
  });

  it('recognises the same string characters as the grammar', function () {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 4 }), (value) => {
        const written = value.replace(/\\/g, '\\\\').replace(/'/g, "''");
        expect(accepts(`x = '${written}'`), JSON.stringify(value)).to.equal(
          isCql2TextString(value),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('validates dates as the grammar does', function () {
    const candidate = fc.oneof(
      dateString,
      fc
        .tuple(fc.nat(9999), fc.nat(14), fc.nat(33))
        .map(
          ([y, m, d]) =>
            `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        ),
    );
    fc.assert(
      fc.property(candidate, (date) => {
        const valid = describeInvalidDate(date) === undefined;
        expect(accepts(`d = DATE('${date}')`), date).to.equal(valid);
        expect(valid).to.equal(
          !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) &&
            date.slice(8) !== '00' &&
            Number(date.slice(5, 7)) !== 0 &&
            new Date(`${date}T00:00:00Z`).toISOString().startsWith(date),
        );
      }),
      { numRuns: 3000 },
    );
    expect(describeInvalidDate('2000-02-29')).to.equal(undefined);
    expect(describeInvalidDate('1900-02-29')).to.match(/no day 29/);
  });

  it('validates and normalises timestamps as the grammar does', function () {
    const candidate = fc
      .tuple(
        fc.nat(25),
        fc.nat(61),
        fc.nat(61),
        fc.constantFrom('', '.0', '.500', '.123', '.000000'),
      )
      .map(
        ([h, m, s, f]) =>
          `2020-06-30T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}${f}Z`,
      );
    fc.assert(
      fc.property(candidate, (timestamp) => {
        const valid = describeInvalidTimestamp(timestamp) === undefined;
        expect(accepts(`t = TIMESTAMP('${timestamp}')`), timestamp).to.equal(valid);
        if (valid) {
          const json = { op: '=', args: [{ property: 't' }, { timestamp }] };
          expect(parseCql2Json(json)).to.deep.equal(parseCql2Text(`t = TIMESTAMP('${timestamp}')`));
        }
      }),
      { numRuns: 2000 },
    );
    expect(normalizeTimestamp('2020-01-01t00:00:00.000z')).to.equal('2020-01-01T00:00:00Z');
    expect(normalizeTimestamp('2020-01-01T00:00:00.120Z')).to.equal('2020-01-01T00:00:00.12Z');
  });
});
