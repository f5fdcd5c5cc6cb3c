import { expect } from 'chai';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { EO_PARAMETERS, parseEoValue } from '../../../shared/query/opensearch/index.js';
import { canonicalPropertyName } from '../../../shared/query/queryables.js';

const prop = (name: string): Expression => ({ kind: 'property', name });
const lit = (value: string | number): Expression => ({ kind: 'literal', value });
const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });
const array = (...values: Array<string | number>): Expression => ({
  kind: 'array',
  items: values.map(lit),
});

function expectInvalid(fn: () => unknown, locator: string, fragment = ''): void {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).locator).to.equal(locator);
    expect((error as Error).message)
      .to.contain(locator)
      .and.to.contain(fragment);
    return;
  }
  expect.fail(`expected an InvalidParameterError for ${locator}`);
}

describe('parseEoValue (OpenSearch EO value notation)', () => {
  const cloud = prop('cloudCover');

  describe('numeric notation, every form', () => {
    const cases: Array<[string, Expression]> = [
      ['20', op('=', cloud, lit(20))],
      ['12.5', op('=', cloud, lit(12.5))],
      ['{10,20,30}', op('in', cloud, array(10, 20, 30))],
      ['{ 5 }', op('in', cloud, array(5))],
      ['[0,20]', op('between', cloud, lit(0), lit(20))],
      ['[0,20[', op('and', op('>=', cloud, lit(0)), op('<', cloud, lit(20)))],
      [']0,20[', op('and', op('>', cloud, lit(0)), op('<', cloud, lit(20)))],
      [']0,20]', op('and', op('>', cloud, lit(0)), op('<=', cloud, lit(20)))],
      ['[20', op('>=', cloud, lit(20))],
      [']20', op('>', cloud, lit(20))],
      ['20]', op('<=', cloud, lit(20))],
      ['20[', op('<', cloud, lit(20))],
      [' [ 1.5 , 2e1 ] ', op('between', cloud, lit(1.5), lit(20))],
      ['[-5,5]', op('between', cloud, lit(-5), lit(5))],
      ['[7,7]', op('between', cloud, lit(7), lit(7))],
    ];
    for (const [value, expected] of cases) {
      it(`eo:cloudCover=${value}`, () => {
        expect(parseEoValue('eo:cloudCover', value)).to.deep.equal(expected);
      });
    }

    it('pycsw functional-test requests (20[, ]20, ]0,1[)', () => {
      expect(parseEoValue('eo:cloudCover', '20[')).to.deep.equal(op('<', cloud, lit(20)));
      expect(parseEoValue('eo:cloudCover', ']20')).to.deep.equal(op('>', cloud, lit(20)));
      expect(parseEoValue('eo:cloudCover', ']0,1[')).to.deep.equal(
        op('and', op('>', cloud, lit(0)), op('<', cloud, lit(1))),
      );
    });

    it('eo:snowCover and eo:orbitNumber use their canonical names', () => {
      expect(parseEoValue('eo:snowCover', '[0,10]')).to.deep.equal(
        op('between', prop('snowCover'), lit(0), lit(10)),
      );
      expect(parseEoValue('eo:orbitNumber', '{101,102}')).to.deep.equal(
        op('in', prop('orbitNumber'), array(101, 102)),
      );
    });
  });

  describe('invalid numeric values', () => {
    const invalid: Array<[string, string]> = [
      ['', 'empty'],
      ['   ', 'empty'],
      ['abc', '"abc" is not a number'],
      ['1,2', 'set {a,b'],
      ['[2,1]', 'lower bound is above'],
      [']1,1]', 'empty'],
      ['[1,1[', 'empty'],
      [']1,1[', 'empty'],
      ['[1,2,3]', 'interval is written'],
      ['[5]', 'interval is written'],
      [']5[', 'interval is written'],
      ['[', 'missing'],
      [']', 'missing'],
      ['[]', 'interval is written'],
      ['{}', 'missing'],
      ['{1,,2}', 'missing'],
      ['{1,2', 'set is written'],
      ['1,2}', 'set is written'],
      ['{', 'set is written'],
      ['[[1,2]', 'misplaced bracket'],
      ['[1,2]]', 'misplaced bracket'],
      ['{[1,2]}', 'not a number'],
      ['1e400', 'not a number'],
      ['NaN', 'not a number'],
      ['Infinity', 'not a number'],
      ['0x10', 'not a number'],
      ['1 2', 'not a number'],
    ];
    for (const [value, fragment] of invalid) {
      it(`eo:cloudCover="${value}" → InvalidParameterError`, () => {
        expectInvalid(() => parseEoValue('eo:cloudCover', value), 'eo:cloudCover', fragment);
      });
    }

    it('eo:orbitNumber must be an integer', () => {
      expectInvalid(() => parseEoValue('eo:orbitNumber', '12.5'), 'eo:orbitNumber', 'integer');
      expectInvalid(() => parseEoValue('eo:orbitNumber', '[1,2.5]'), 'eo:orbitNumber', 'integer');
    });

    it('refuses sets above the limit', () => {
      expectInvalid(
        () => parseEoValue('eo:cloudCover', '{1,2,3}', { maxListValues: 2 }),
        'eo:cloudCover',
        'more than 2',
      );
    });
  });

  describe('date parameters', () => {
    it('eo:modificationDate ranges become DATE / TIMESTAMP comparisons on updated', () => {
      expect(parseEoValue('eo:modificationDate', '[2020-01-01,2021-01-01[')).to.deep.equal(
        op(
          'and',
          op('>=', prop('updated'), { kind: 'date', value: '2020-01-01' }),
          op('<', prop('updated'), { kind: 'date', value: '2021-01-01' }),
        ),
      );
      expect(
        parseEoValue('eo:modificationDate', '[2020-01-01T00:00:00Z,2020-06-01]'),
      ).to.deep.equal(
        op(
          'and',
          op('>=', prop('updated'), { kind: 'timestamp', value: '2020-01-01T00:00:00Z' }),
          op('<=', prop('updated'), { kind: 'date', value: '2020-06-01' }),
        ),
      );
      expect(parseEoValue('eo:modificationDate', ']2020-01-01T10:00:00+02:00')).to.deep.equal(
        op('>', prop('updated'), { kind: 'timestamp', value: '2020-01-01T08:00:00Z' }),
      );
    });

    it('refuses impossible dates and reversed ranges', () => {
      expectInvalid(
        () => parseEoValue('eo:modificationDate', '2021-02-30'),
        'eo:modificationDate',
        'RFC 3339',
      );
      expectInvalid(
        () => parseEoValue('eo:modificationDate', '[2021-01-01,2020-01-01]'),
        'eo:modificationDate',
        'above',
      );
    });

    it('falls back to the queryables registry for other names (updated)', () => {
      expect(parseEoValue('updated', '2020-01-01]')).to.deep.equal(
        op('<=', prop('updated'), { kind: 'date', value: '2020-01-01' }),
      );
      expect(parseEoValue('apiso:CloudCover', '[10')).to.deep.equal(op('>=', cloud, lit(10)));
    });
  });

  describe('text parameters', () => {
    it('a single value → =', () => {
      expect(parseEoValue('eo:orbitDirection', 'DESCENDING')).to.deep.equal(
        op('=', prop('orbitDirection'), lit('DESCENDING')),
      );
    });

    it('a comma list or a set → IN', () => {
      const expected = op('in', prop('instrument'), array('MSI', 'OLCI'));
      expect(parseEoValue('eo:instrument', 'MSI,OLCI')).to.deep.equal(expected);
      expect(parseEoValue('eo:instrument', '{MSI, OLCI}')).to.deep.equal(expected);
    });

    it('* is a wildcard (CEOS-DG), other LIKE characters are literal', () => {
      expect(parseEoValue('eo:platform', 'SPOT*')).to.deep.equal(
        op('like', prop('platform'), lit('SPOT%')),
      );
      expect(parseEoValue('eo:productType', 'L1_*%')).to.deep.equal(
        op('like', prop('productType'), lit('L1\\_%\\%')),
      );
      expect(parseEoValue('eo:platform', 'Sentinel-2A,SPOT*')).to.deep.equal(
        op(
          'or',
          op('=', prop('platform'), lit('Sentinel-2A')),
          op('like', prop('platform'), lit('SPOT%')),
        ),
      );
    });

    it('every text parameter maps to its canonical name', () => {
      const cases: Array<[string, string]> = [
        ['eo:platform', 'platform'],
        ['eo:instrument', 'instrument'],
        ['eo:sensorType', 'sensorType'],
        ['eo:orbitDirection', 'orbitDirection'],
        ['eo:processingLevel', 'processingLevel'],
        ['eo:productType', 'productType'],
        ['eo:spectralRange', 'spectralRange'],
        ['eo:parentIdentifier', 'parentId'],
      ];
      for (const [name, property] of cases) {
        expect(parseEoValue(name, 'x'), name).to.deep.equal(op('=', prop(property), lit('x')));
      }
    });

    it('refuses interval notation, empty items and unclosed sets', () => {
      expectInvalid(() => parseEoValue('eo:platform', '[a,b]'), 'eo:platform', 'interval notation');
      expectInvalid(() => parseEoValue('eo:platform', 'a]'), 'eo:platform', 'interval notation');
      expectInvalid(() => parseEoValue('eo:platform', 'a,,b'), 'eo:platform', 'missing');
      expectInvalid(() => parseEoValue('eo:platform', '{a,b'), 'eo:platform', 'set is written');
      expectInvalid(() => parseEoValue('eo:platform', '{}'), 'eo:platform', 'missing');
    });
  });

  it('refuses unknown parameters and non-comparable queryables', () => {
    expectInvalid(
      () => parseEoValue('eo:illuminationAzimuthAngle', '10'),
      'eo:illuminationAzimuthAngle',
      'not a supported',
    );
    expectInvalid(() => parseEoValue('geometry', '10'), 'geometry', 'not a supported');
  });

  it('the EO table agrees with the queryables registry', () => {
    for (const entry of EO_PARAMETERS) {
      const canonical = canonicalPropertyName(entry.parameter);
      if (canonical !== entry.parameter)
        expect(entry.property, entry.parameter).to.equal(canonical);
    }
  });
});
