/**
 * fast-check arbitraries for the CQL2 tests: valid filter trees shaped like the CQL2 JSON
 * schema (each operand kind where the schema allows it), text and JSON mutations, and
 * grammar-shaped token soups.
 */
import fc from 'fast-check';
import type { Geometry, Position } from 'geojson';
import type { Expression } from '../../../shared/query/filter-ast.js';
import {
  CQL2_RESERVED_WORDS,
  isCql2Identifier,
  isCql2ReservedWord,
  isCql2TextString,
  normalizeTimestamp,
} from '../../../shared/query/cql2/cql2-lexical.js';
import {
  ARRAY_OPS,
  COMPARISON_OPS,
  SPATIAL_OPS,
  TEMPORAL_OPS,
} from '../../../shared/query/cql2/cql2-operators.js';

const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });
const lit = (value: string | number | boolean): Expression => ({ kind: 'literal', value });

/** Characters worth trying in strings: quotes, escapes, LIKE wildcards, controls, Unicode. */
const stringUnit = fc.oneof(
  fc.constantFrom("'", "''", '\\', "\\'", '\n', '\t', '\r', '\u0007', '\b', '%', '_', '"', ' '),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);

/** Strings CQL2 text can encode. */
export const cql2String = fc
  .string({ unit: stringUnit, maxLength: 12 })
  .filter((value) => isCql2TextString(value));

const identifierStart = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ_:'.split('')) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'Ω', 'ж', '名', '\u{10400}', 'ß', 'ı', '\u212A') },
);
const identifierPart = fc.oneof(
  { weight: 6, arbitrary: identifierStart },
  { weight: 2, arbitrary: fc.constantFrom('.', '0', '7', '9') },
  { weight: 1, arbitrary: fc.constantFrom('\u0301', '\u203F') },
);

/** Identifiers, keywords included (which a property then writes double-quoted). */
export const identifier = fc
  .oneof(
    { weight: 6, arbitrary: fc.tuple(identifierStart, fc.array(identifierPart, { maxLength: 8 })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CQL2_RESERVED_WORDS), fc.constant([])) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom(...CQL2_RESERVED_WORDS.map((w) => w.toLowerCase())),
        fc.constant([]),
      ),
    },
  )
  .map(([start, rest]) => start + rest.join(''));

const functionName = identifier.filter(
  (name) => isCql2Identifier(name) && !isCql2ReservedWord(name),
);

/** Finite doubles, with -0, integers and round decimals well represented. */
export const finiteNumber = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 0.1, 1e21, 5e-324, -1.5e-7, Number.MAX_VALUE),
);

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** Valid calendar dates, including leap days. */
export const dateString = fc
  .date({
    min: new Date(Date.UTC(0, 0, 1)),
    max: new Date(Date.UTC(9999, 11, 31)),
    noInvalidDate: true,
  })
  .map(
    (d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`,
  );

/** Valid UTC timestamps, in their canonical spelling. */
export const timestampString = fc
  .tuple(
    dateString,
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
  )
  .map(([date, h, m, s, fraction]) =>
    normalizeTimestamp(
      `${date}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${fraction === undefined ? '' : `.${fraction}`}Z`,
    ),
  );

const position: fc.Arbitrary<Position> = fc.oneof(
  fc.tuple(finiteNumber, finiteNumber),
  fc.tuple(finiteNumber, finiteNumber, finiteNumber),
);
const ring = fc.array(position, { minLength: 4, maxLength: 6 });
const rings = fc.array(ring, { minLength: 1, maxLength: 2 });

const simpleGeometry: fc.Arbitrary<Geometry> = fc.oneof(
  position.map((coordinates): Geometry => ({ type: 'Point', coordinates })),
  fc
    .array(position, { minLength: 2, maxLength: 5 })
    .map((coordinates): Geometry => ({ type: 'LineString', coordinates })),
  rings.map((coordinates): Geometry => ({ type: 'Polygon', coordinates })),
  fc
    .array(position, { minLength: 1, maxLength: 3 })
    .map((coordinates): Geometry => ({ type: 'MultiPoint', coordinates })),
  fc
    .array(fc.array(position, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 2 })
    .map((coordinates): Geometry => ({ type: 'MultiLineString', coordinates })),
  fc
    .array(rings, { minLength: 1, maxLength: 2 })
    .map((coordinates): Geometry => ({ type: 'MultiPolygon', coordinates })),
);

/** GeoJSON geometries both encodings can carry. */
export const geometry: fc.Arbitrary<Geometry> = fc.oneof(
  { weight: 6, arbitrary: simpleGeometry },
  {
    weight: 1,
    arbitrary: fc
      .array(simpleGeometry, { minLength: 2, maxLength: 3 })
      .map((geometries): Geometry => ({ type: 'GeometryCollection', geometries })),
  },
);

const property = identifier.map((name): Expression => ({ kind: 'property', name }));
const stringLiteral = cql2String.map(lit);
const numberLiteral = finiteNumber.map(lit);
const booleanLiteral = fc.boolean().map(lit);
const dateLiteral = dateString.map((value): Expression => ({ kind: 'date', value }));
const timestampLiteral = timestampString.map((value): Expression => ({ kind: 'timestamp', value }));
const instant = fc.oneof(dateLiteral, timestampLiteral);
const spatialLiteral = fc.oneof(
  { weight: 3, arbitrary: geometry.map((g): Expression => ({ kind: 'geometry', geometry: g })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.array(finiteNumber, { minLength: 4, maxLength: 4 }),
        fc.array(finiteNumber, { minLength: 6, maxLength: 6 }),
      )
      .map((bbox): Expression => ({ kind: 'bbox', bbox })),
  },
);

/** Valid CQL2 filter trees nested up to about `maxDepth` levels, one arbitrary per schema context. */
export function filterExpressionOfDepth(maxDepth: number): fc.Arbitrary<Expression> {
  const tree = fc.letrec((tie) => {
    const t = (name: string): fc.Arbitrary<Expression> => tie(name) as fc.Arbitrary<Expression>;
    const choice = { depthSize: 'small' as const, maxDepth, withCrossShrink: true };
    return {
      booleanExpression: fc.oneof(
        choice,
        t('comparison'),
        booleanLiteral,
        t('spatialPredicate'),
        t('temporalPredicate'),
        t('arrayPredicate'),
        t('function'),
        fc
          .tuple(
            fc.constantFrom('and', 'or'),
            fc.array(t('booleanExpression'), { minLength: 2, maxLength: 3 }),
          )
          .map(([name, args]) => op(name, ...args)),
        t('booleanExpression').map((e) => op('not', e)),
      ),
      comparison: fc.oneof(
        choice,
        fc
          .tuple(fc.constantFrom(...COMPARISON_OPS), t('scalar'), t('scalar'))
          .map(([name, a, b]) => op(name, a, b)),
        fc.tuple(t('character'), t('pattern')).map(([a, b]) => op('like', a, b)),
        fc
          .tuple(t('numeric'), t('numeric'), t('numeric'))
          .map(([a, b, c]) => op('between', a, b, c)),
        fc
          .tuple(t('scalar'), fc.array(t('scalar'), { minLength: 1, maxLength: 3 }))
          .map(([a, items]) => op('in', a, { kind: 'array', items })),
        t('isNullOperand').map((a) => op('isNull', a)),
      ),
      scalar: fc.oneof(
        choice,
        stringLiteral,
        numberLiteral,
        booleanLiteral,
        instant,
        property,
        t('character'),
        t('arithmetic'),
        t('function'),
      ),
      character: fc.oneof(
        choice,
        stringLiteral,
        property,
        t('function'),
        fc
          .tuple(fc.constantFrom('casei', 'accenti'), t('character'))
          .map(([name, a]) => op(name, a)),
      ),
      pattern: fc.oneof(
        choice,
        stringLiteral,
        fc.tuple(fc.constantFrom('casei', 'accenti'), t('pattern')).map(([name, a]) => op(name, a)),
      ),
      numeric: fc.oneof(choice, numberLiteral, property, t('function'), t('arithmetic')),
      arithmetic: fc
        .tuple(
          fc.constantFrom('+', '-', '*', '/', '%', 'div', '^'),
          t('arithmeticOperand'),
          t('arithmeticOperand'),
        )
        .map(([name, a, b]) => op(name, a, b)),
      arithmeticOperand: fc.oneof(choice, numberLiteral, property, t('function'), t('arithmetic')),
      isNullOperand: fc.oneof(
        choice,
        t('character'),
        t('numeric'),
        t('booleanExpression'),
        spatialLiteral,
        t('temporalInstance'),
        property,
      ),
      spatialPredicate: fc
        .tuple(fc.constantFrom(...SPATIAL_OPS), t('geometryOperand'), t('geometryOperand'))
        .map(([name, a, b]) => op(name, a, b)),
      geometryOperand: fc.oneof(choice, spatialLiteral, property, t('function')),
      temporalPredicate: fc
        .tuple(fc.constantFrom(...TEMPORAL_OPS), t('temporalOperand'), t('temporalOperand'))
        .map(([name, a, b]) => op(name, a, b)),
      temporalOperand: fc.oneof(choice, t('temporalInstance'), property, t('function')),
      temporalInstance: fc.oneof(
        choice,
        instant,
        fc
          .tuple(t('intervalEnd'), t('intervalEnd'))
          .map(([start, end]): Expression => ({ kind: 'interval', start, end })),
      ),
      intervalEnd: fc.oneof(choice, instant, fc.constant(lit('..')), property, t('function')),
      arrayPredicate: fc
        .tuple(fc.constantFrom(...ARRAY_OPS), t('arrayOperand'), t('arrayOperand'))
        .map(([name, a, b]) => op(name, a, b)),
      arrayOperand: fc.oneof(choice, t('array'), property, t('function')),
      array: fc
        .array(t('value'), { maxLength: 3 })
        .map((items): Expression => ({ kind: 'array', items })),
      value: fc.oneof(
        choice,
        t('character'),
        t('numeric'),
        t('booleanExpression'),
        spatialLiteral,
        t('temporalInstance'),
        t('array'),
        property,
      ),
      function: fc
        .tuple(functionName, fc.array(t('value'), { maxLength: 3 }))
        .map(([name, args]) => op(name, ...args)),
    };
  });

  return tree.booleanExpression;
}

/** Valid CQL2 filter trees. */
export const filterExpression = filterExpressionOfDepth(4);

/** Tokens CQL2 text is made of, for grammar-shaped soups. */
const TOKENS = [
  ...CQL2_RESERVED_WORDS,
  'Z',
  'EMPTY',
  '(',
  ')',
  ',',
  '=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  "'..'",
  "'2020-01-01'",
  "'2020-02-30'",
  "'2020-01-01T00:00:00Z'",
  "'2020-01-01T24:00:00Z'",
  '"id"',
  '"date"',
  '"',
  "'",
  '1',
  '-2.5',
  '.5',
  '1e3',
  '1e999',
  'x',
  'eo:cloud_cover',
  'foo',
  ' ',
  '\n',
];

/** Sequences of CQL2 tokens and random fragments, joined with or without spaces. */
export const tokenSoup = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...TOKENS) },
        { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
        { weight: 1, arbitrary: cql2String.map((s) => `'${s.replace(/'/g, "''")}'`) },
      ),
      { maxLength: 30 },
    ),
    fc.constantFrom(' ', '', '  '),
  )
  .map(([tokens, separator]) => tokens.join(separator));

/** Random edits of a string: deletions, insertions, replacements, duplications, cuts. */
export function mutateText(text: string): fc.Arbitrary<string> {
  const index = fc.nat({ max: Math.max(0, text.length) });
  const edit = fc.oneof(
    fc.tuple(index, index).map(
      ([a, b]) =>
        (s: string) =>
          s.slice(0, Math.min(a, b)) + s.slice(Math.max(a, b)),
    ),
    fc.tuple(index, fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 2 }))).map(
      ([a, token]) =>
        (s: string) =>
          s.slice(0, a) + token + s.slice(a),
    ),
    fc.tuple(index, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })).map(
      ([a, c]) =>
        (s: string) =>
          s.slice(0, a) + c + s.slice(a + 1),
    ),
    fc.tuple(index, index).map(
      ([a, b]) =>
        (s: string) =>
          s.slice(0, b) + s.slice(Math.min(a, b), Math.max(a, b)) + s.slice(b),
    ),
    index.map((a) => (s: string) => s.slice(0, a)),
  );
  return fc
    .array(edit, { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce((s, e) => e(s), text));
}

/** A JSON value with one node replaced, removed or altered. */
export function mutateJson(value: unknown): fc.Arbitrary<unknown> {
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    paths.push(path);
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i]));
    else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node)) walk(item, [...path, key]);
    }
  };
  walk(value, []);
  const replacement = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom<unknown>(
      { op: 'and', args: [] },
      { op: 'S_INTERSECTS', args: [] },
      { op: 't_finishedby', args: [{ property: 'a' }, { property: 'b' }] },
      { op: 'x y', args: [] },
      { property: 'a b' },
      { property: 'x', op: 'casei', args: [] },
      { date: '2020-02-30' },
      { timestamp: '2020-01-01T23:59:60Z' },
      { interval: ['..', '2020-13-01'] },
      { bbox: [1, 2, 3, 4, 5] },
      { type: 'Point', coordinates: [1, 2, 3, 4] },
      { type: 'MultiPoint', coordinates: [] },
      'a\u0001b',
      [],
      null,
      -0,
    ),
  );
  return fc
    .tuple(fc.constantFrom(...paths), replacement, fc.boolean())
    .map(([path, next, remove]) => {
      const last = path.at(-1);
      if (last === undefined) return next;
      const copy = structuredClone(value) as Record<string | number, unknown>;
      let parent = copy;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
      if (remove && Array.isArray(parent)) parent.splice(last as number, 1);
      else if (remove) delete parent[last];
      else parent[last] = next;
      return copy;
    });
}

/** Objects shaped like CQL2 JSON nodes with random contents, nested up to `depth` levels. */
function jsonSoupOfDepth(depth: number): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.record({ property: fc.oneof(identifier, fc.string({ maxLength: 4 })) }),
    fc.record({ date: fc.oneof(dateString, fc.string({ maxLength: 10 })) }),
    fc.record({ timestamp: fc.oneof(timestampString, fc.string({ maxLength: 10 })) }),
    fc.record({ bbox: fc.array(finiteNumber, { maxLength: 7 }) }),
    fc.record({
      type: fc.constantFrom('Point', 'LineString', 'Polygon', 'MultiPoint', 'GeometryCollection'),
      coordinates: fc.jsonValue({ maxDepth: 3 }),
    }),
  );
  if (depth === 0) return leaf;
  const child = jsonSoupOfDepth(depth - 1);
  return fc.oneof(
    leaf,
    fc.record({
      op: fc.oneof(
        fc.constantFrom(
          'and',
          'or',
          'not',
          'like',
          'between',
          'in',
          'isNull',
          'casei',
          'accenti',
          'div',
          's_within',
          't_metBy',
          'a_equals',
          '=',
          '+',
          'foo',
        ),
        fc.string({ maxLength: 4 }),
      ),
      args: fc.array(child, { maxLength: 3 }),
    }),
    fc.record({
      interval: fc.array(fc.oneof(fc.constant('..'), dateString, child), { maxLength: 3 }),
    }),
    fc.array(child, { maxLength: 3 }),
  );
}

/** Objects shaped like CQL2 JSON nodes with random contents. */
export const jsonSoup = jsonSoupOfDepth(3);
