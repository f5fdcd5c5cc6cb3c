/**
 * Property-based fuzzing of the OpenSearch parsers with fast-check: 100 000 EO values (half
 * built from the notation, half noise) and 100 000 parameter sets. Every input must either
 * succeed with a well-formed result or fail with a typed CairnError; the EO notation must also
 * mean what 13-026r9 says it means.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import {
  EO_PARAMETERS,
  OPENSEARCH_PARAMETERS,
  parseEoValue,
  parseOpenSearchParameters,
} from '../../../shared/query/opensearch/index.js';
import {
  check,
  checkBbox,
  checkExpression,
  checkGeometry,
  OutcomeTally,
  withoutStackTraces,
} from '../fes/fuzz-helpers.js';

const RUNS = 100_000;

const noiseUnit = fc.constantFrom(
  ...'[]{},.-+eE0123456789 ()/:TZ*%_\\aSPOTxyz'.split(''),
  'POINT',
  'POLYGON',
  '\u0000',
  '\t',
  'é',
  '𝔸',
  '\uD800',
);
const noise = fc.string({ unit: noiseUnit, maxLength: 24 });

const numberText = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: -400, max: 400 }) },
    { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 90, -90, 180, -180, 1e308, 5e-324, 0.5) },
  )
  .map(String);

/** A numeric EO value and the mathematical predicate it stands for (undefined: empty set). */
interface NumericCase {
  text: string;
  holds?: ((x: number) => boolean) | undefined;
  points: number[];
}

const numeric = fc.oneof(
  fc.integer({ min: -50, max: 150 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
);

const numericCase: fc.Arbitrary<NumericCase> = fc.oneof(
  numeric.map((a) => ({ text: String(a), holds: (x: number) => x === a, points: [a] })),
  fc.array(numeric, { minLength: 1, maxLength: 6 }).map((items) => ({
    text: `{${items.join(',')}}`,
    holds: (x: number) => items.includes(x),
    points: items,
  })),
  fc
    .tuple(fc.constantFrom('[', ']'), numeric, numeric, fc.constantFrom('[', ']'))
    .map(([open, a, b, close]) => {
      const lowerOk = (x: number): boolean => (open === '[' ? x >= a : x > a);
      const upperOk = (x: number): boolean => (close === ']' ? x <= b : x < b);
      const empty = a > b || (a === b && (open === ']' || close === '['));
      return {
        text: `${open}${a},${b}${close}`,
        holds: empty ? undefined : (x: number) => lowerOk(x) && upperOk(x),
        points: [a, b, (a + b) / 2],
      };
    }),
  fc.tuple(fc.constantFrom('[', ']'), numeric).map(([open, a]) => ({
    text: `${open}${a}`,
    holds: (x: number) => (open === '[' ? x >= a : x > a),
    points: [a],
  })),
  fc.tuple(numeric, fc.constantFrom('[', ']')).map(([a, close]) => ({
    text: `${a}${close}`,
    holds: (x: number) => (close === ']' ? x <= a : x < a),
    points: [a],
  })),
);

/** Evaluates the comparison trees parseEoValue builds, for property value x. */
function evaluate(expression: Expression, x: number): boolean {
  if (expression.kind !== 'op') throw new Error(`not an operator: ${expression.kind}`);
  const value = (index: number): number => {
    const arg = expression.args[index];
    if (arg?.kind !== 'literal' || typeof arg.value !== 'number') throw new Error('not a number');
    return arg.value;
  };
  switch (expression.op) {
    case 'and':
      return expression.args.every((arg) => evaluate(arg, x));
    case '=':
      return x === value(1);
    case '>':
      return x > value(1);
    case '>=':
      return x >= value(1);
    case '<':
      return x < value(1);
    case '<=':
      return x <= value(1);
    case 'between':
      return x >= value(1) && x <= value(2);
    case 'in': {
      const list = expression.args[1];
      if (list?.kind !== 'array') throw new Error('IN without a list');
      return list.items.some((item) => item.kind === 'literal' && item.value === x);
    }
    default:
      throw new Error(`unexpected op ${expression.op}`);
  }
}

const eoName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...EO_PARAMETERS.map((entry) => entry.parameter)) },
  { weight: 1, arbitrary: fc.constantFrom('updated', 'apiso:CloudCover', 'geometry', 'eo:nope') },
  { weight: 1, arbitrary: noise },
);

const eoValue = fc.oneof(
  { weight: 3, arbitrary: numericCase.map((item) => item.text) },
  { weight: 2, arbitrary: noise },
  {
    weight: 1,
    arbitrary: fc.tuple(numericCase, fc.nat(), noise).map(([item, at, extra]) => {
      const i = at % (item.text.length + 1);
      return item.text.slice(0, i) + extra + item.text.slice(i);
    }),
  },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()) },
);

const time = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString().replace('Z', '+05:30')),
  noise,
);

const position = fc.tuple(numberText, numberText).map(([x, y]) => `${x} ${y}`);
const ring = fc
  .array(position, { minLength: 2, maxLength: 6 })
  .chain((items) =>
    fc.boolean().map((closed) => `(${[...items, ...(closed ? [items[0]] : [])].join(', ')})`),
  );
const wkt = fc.oneof(
  position.map((p) => `POINT(${p})`),
  fc.array(position, { minLength: 0, maxLength: 5 }).map((p) => `LINESTRING(${p.join(',')})`),
  fc.array(ring, { minLength: 1, maxLength: 2 }).map((rings) => `POLYGON(${rings.join(',')})`),
  fc
    .array(fc.array(ring, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })
    .map(
      (polygons) => `MULTIPOLYGON(${polygons.map((rings) => `(${rings.join(',')})`).join(',')})`,
    ),
  fc.array(position, { minLength: 1, maxLength: 3 }).map((p) => `MULTIPOINT(${p.join(',')})`),
  fc.tuple(position, noise).map(([p, n]) => `POINT(${p}${n})`),
  noise,
);

const entry = fc.oneof(
  fc.tuple(fc.constant('searchTerms'), noise),
  fc.tuple(
    fc.constant('geo:box'),
    fc.oneof(
      fc.tuple(numberText, numberText, numberText, numberText).map((n) => n.join(',')),
      noise,
    ),
  ),
  fc.tuple(fc.constant('geo:geometry'), wkt),
  fc.tuple(fc.constant('geo:uid'), noise),
  fc.tuple(fc.constant('geo:lat'), fc.oneof(numberText, noise)),
  fc.tuple(fc.constant('geo:lon'), fc.oneof(numberText, noise)),
  fc.tuple(
    fc.constant('geo:radius'),
    fc.oneof(fc.double({ min: 0, max: 3e7, noNaN: true }).map(String), numberText, noise),
  ),
  fc.tuple(
    fc.constant('geo:relation'),
    fc.oneof(fc.constantFrom('intersects', 'contains', 'disjoint', 'within', 'equals'), noise),
  ),
  fc.tuple(fc.constant('time:start'), time),
  fc.tuple(fc.constant('time:end'), time),
  fc.tuple(
    fc.constant('time:relation'),
    fc.oneof(fc.constantFrom('intersects', 'during', 'disjoint', 'equals'), noise),
  ),
  fc.tuple(fc.constantFrom(...EO_PARAMETERS.map((item) => item.parameter)), eoValue),
  fc.tuple(fc.constantFrom('count', 'startIndex', 'geo:name', '__proto__', 'constructor'), noise),
);

const parameterSet = fc.array(entry, { maxLength: 5 }).map((entries) => {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of entries) params[key] = value;
  return params;
});

describe('OpenSearch parsers under fuzzing', function () {
  this.timeout(120_000);

  it(`parseEoValue: ${RUNS} generated values → success or a typed error`, () => {
    const tally = new OutcomeTally();
    withoutStackTraces(() => {
      fc.assert(
        fc.property(eoName, eoValue, (name, value) => {
          const result = tally.run(() => parseEoValue(name, value));
          if (result !== undefined) checkExpression(result);
        }),
        { numRuns: RUNS / 2 },
      );
      fc.assert(
        fc.property(
          numericCase,
          fc.double({ min: -2e6, max: 2e6, noNaN: true }),
          (item, random) => {
            const outcome = tally.run(() => parseEoValue('eo:cloudCover', item.text));
            const { holds } = item;
            if (holds === undefined) {
              check(outcome === undefined, () => `${item.text} should be refused as empty`);
              return;
            }
            check(outcome !== undefined, () => `${item.text} should parse`);
            const expression = outcome as Expression;
            checkExpression(expression);
            for (const x of [
              ...item.points,
              random,
              ...item.points.slice(0, 1).flatMap((p) => [p - 1, p + 1]),
            ]) {
              check(evaluate(expression, x) === holds(x), () => `${item.text} is wrong at ${x}`);
            }
          },
        ),
        { numRuns: RUNS / 2 },
      );
    });
    console.log(`      ${tally.summary('parseEoValue')}`);
    expect(tally.total).to.equal(RUNS);
  });

  it(`parseEoValue refuses every empty interval with an InvalidParameterError`, () => {
    fc.assert(
      fc.property(
        numeric,
        numeric,
        fc.constantFrom('[', ']'),
        fc.constantFrom('[', ']'),
        (a, b, o, c) => {
          fc.pre(a > b || (a === b && (o === ']' || c === '[')));
          expect(() => parseEoValue('eo:snowCover', `${o}${a},${b}${c}`)).to.throw(
            InvalidParameterError,
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it(`parseOpenSearchParameters: ${RUNS} generated parameter sets → success or a typed error`, () => {
    const tally = new OutcomeTally();
    const keys = new Set(['text', 'spatial', 'temporal', 'ids', 'filter']);
    withoutStackTraces(() =>
      fc.assert(
        fc.property(parameterSet, (params) => {
          const result = tally.run(() => parseOpenSearchParameters(params));
          if (result === undefined) return;
          if (result.spatial?.bbox !== undefined) checkBbox(result.spatial.bbox);
          if (result.spatial?.geometry !== undefined) checkGeometry(result.spatial.geometry);
          if (result.temporal !== undefined) {
            const { start, end } = result.temporal;
            check(start === null || end === null || start <= end, 'time:start after time:end');
          }
          if (result.filter !== undefined) checkExpression(result.filter);
          for (const id of result.ids ?? []) check(id !== '', 'empty id');
          for (const term of result.text ?? []) check(term.length > 0, 'empty term');
          for (const key of Object.keys(result)) check(keys.has(key), `unexpected key ${key}`);
        }),
        { numRuns: RUNS },
      ),
    );
    console.log(`      ${tally.summary('parseOpenSearchParameters')}`);
    expect(tally.total).to.equal(RUNS);
    expect(tally.counts.get('success') ?? 0).to.be.greaterThan(RUNS / 10);
  });

  it('knows every parameter it is fuzzed with', () => {
    expect(OPENSEARCH_PARAMETERS).to.include('geo:radius');
  });
});
