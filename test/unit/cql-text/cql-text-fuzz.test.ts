/**
 * Fuzzing of the CSW CQL_TEXT parser with fast-check: 100,000 inputs (random strings, token
 * soups, mutations of valid constraints, valid constraints). Every input must parse or throw a
 * FilterError, nothing else; every valid constraint must parse. Counts and times are printed.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Geometry, Position } from 'geojson';
import { dateString, geometry, mutateText } from '../cql2/cql2-arbitraries.js';
import { defined } from '../../support/defined.js';

type CqlTextModule = typeof import('../../../shared/query/cql-text/index.js');
type ErrorsModule = typeof import('../../../shared/errors/index.js');

/**
 * Imported dynamically in `before` so that the ES modules run as in production (mocha's tsx
 * require hook recompiles them to CommonJS, which makes the generated parser much slower).
 */
let cqlText: CqlTextModule;
let errors: ErrorsModule;

const RUNS = { random: 35_000, soup: 30_000, mutated: 20_000, valid: 15_000 };

const TEXT_NAMES = ['dc:title', 'x', '/csw:Record/dc:title', '"within"', 'dc:subject'];
const ANY_NAMES = [...TEXT_NAMES, 'eo:cloudCover', 'apiso:Modified'];
const attribute = (names: string[]): fc.Arbitrary<string> => fc.constantFrom(...names);

const quoted = fc.string({ maxLength: 8 }).map((text) => `'${text.replace(/'/g, "''")}'`);
const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);

const position = (p: Position): string => p.join(' ');
const positions = (list: Position[]): string => `(${list.map(position).join(', ')})`;
const rings = (list: Position[][]): string => `(${list.map(positions).join(', ')})`;

/** A GeoJSON geometry as WKT. */
function wkt(g: Geometry): string {
  switch (g.type) {
    case 'Point':
      return `POINT (${position(g.coordinates)})`;
    case 'LineString':
      return `LINESTRING ${positions(g.coordinates)}`;
    case 'Polygon':
      return `POLYGON ${rings(g.coordinates)}`;
    case 'MultiPoint':
      return `MULTIPOINT ${positions(g.coordinates)}`;
    case 'MultiLineString':
      return `MULTILINESTRING ${rings(g.coordinates)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON (${g.coordinates.map(rings).join(', ')})`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION (${g.geometries.map(wkt).join(', ')})`;
  }
}

const period = fc.tuple(dateString, dateString, fc.boolean()).map(([a, b, quote]) => {
  const text = a <= b ? `${a}/${b}` : `${b}/${a}`;
  return quote ? `'${text}'` : text;
});
const periodWithDuration = fc
  .tuple(
    dateString.filter((d) => d > '0001' && d < '9998'),
    fc.constantFrom('P1D', 'PT12H', 'P1Y2M', 'P3W'),
    fc.boolean(),
  )
  .map(([date, duration, after]) => (after ? `${date}/${duration}` : `${duration}/${date}`));

/** One valid CQL_TEXT predicate. */
const predicate: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(attribute(TEXT_NAMES), fc.constantFrom('=', '<>', '!=', '<', '>', '<=', '>='), quoted)
    .map(([a, o, v]) => `${a} ${o} ${v}`),
  fc
    .tuple(
      attribute(ANY_NAMES),
      fc.constantFrom('=', '<', '>='),
      fc.oneof(number, fc.constantFrom('TRUE', 'false')),
    )
    .map(([a, o, v]) => `${a}${o}${v}`),
  fc
    .tuple(attribute(TEXT_NAMES), fc.constantFrom('LIKE', 'NOT LIKE', 'ILIKE', 'not ilike'), quoted)
    .map(([a, o, v]) => `${a} ${o} ${v}`),
  fc
    .tuple(attribute(ANY_NAMES), fc.constantFrom('', 'NOT '), number, number)
    .map(([a, not, lo, hi]) => `${a} ${not}BETWEEN ${lo} AND ${hi}`),
  fc
    .tuple(
      attribute(TEXT_NAMES),
      fc.constantFrom('IN', 'NOT IN'),
      fc.array(quoted, { minLength: 1, maxLength: 3 }),
    )
    .map(([a, o, items]) => `${a} ${o} (${items.join(', ')})`),
  fc
    .tuple(attribute(ANY_NAMES), fc.constantFrom('IS NULL', 'IS NOT NULL'))
    .map(([a, o]) => `${a} ${o}`),
  fc
    .tuple(fc.constantFrom('BEFORE', 'AFTER'), fc.oneof(dateString, period))
    .map(([o, t]) => `apiso:Modified ${o} ${t}`),
  fc
    .tuple(
      fc.constantFrom('DURING', 'BEFORE OR DURING', 'DURING OR AFTER'),
      fc.oneof(period, periodWithDuration),
    )
    .map(([o, t]) => `apiso:Modified ${o} ${t}`),
  fc
    .tuple(
      fc.constantFrom(
        'INTERSECTS',
        'WITHIN',
        'CONTAINS',
        'DISJOINT',
        'EQUALS',
        'TOUCHES',
        'CROSSES',
        'OVERLAPS',
      ),
      geometry,
      fc.boolean(),
    )
    .map(([o, g, first]) => (first ? `${o}(${wkt(g)}, geom)` : `${o}(ows:BoundingBox, ${wkt(g)})`)),
  fc
    .tuple(
      fc.constantFrom('DWITHIN', 'BEYOND'),
      geometry,
      fc.nat(100_000),
      fc.constantFrom('meters', 'kilometers', 'feet', 'statute miles', "'nautical miles'", 'm'),
    )
    .map(([o, g, d, u]) => `${o}(geom, ${wkt(g)}, ${d}, ${u})`),
  fc
    .tuple(
      fc.array(number, { minLength: 4, maxLength: 4 }),
      fc.constantFrom('', ", 'EPSG:4326'", ", 'urn:ogc:def:crs:EPSG::4326'", ', CRS:84'),
    )
    .map(([box, crs]) => `BBOX(ows:BoundingBox, ${box.join(', ')}${crs})`),
  fc.constantFrom('INCLUDE', 'EXCLUDE'),
);

/** Valid CQL_TEXT constraints: predicates under AND, OR, NOT and parentheses. */
const constraint: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    predicate,
    fc
      .tuple(
        tie('node') as fc.Arbitrary<string>,
        fc.constantFrom(' AND ', ' OR ', ' and\n'),
        tie('node') as fc.Arbitrary<string>,
      )
      .map(([a, o, b]) => `(${a})${o}(${b})`),
    (tie('node') as fc.Arbitrary<string>).map((a) => `NOT (${a})`),
  ),
})).node;

const TOKENS = [
  'AND',
  'OR',
  'NOT',
  'LIKE',
  'ILIKE',
  'BETWEEN',
  'IN',
  'IS',
  'NULL',
  'TRUE',
  'FALSE',
  'BEFORE',
  'AFTER',
  'DURING',
  'BBOX',
  'INTERSECTS',
  'DWITHIN',
  'BEYOND',
  'POINT',
  'POLYGON',
  'MULTIPOINT',
  'GEOMETRYCOLLECTION',
  'INCLUDE',
  '(',
  ')',
  ',',
  '=',
  '<>',
  '!=',
  '<',
  '>=',
  '/',
  "'",
  '"',
  "'x'",
  '2020-01-01',
  '2020-02-30',
  '2020-01-01T00:00:00Z',
  'P1D',
  'P',
  '1',
  '-2.5',
  '1e999',
  'dc:title',
  '/csw:Record/dc:title',
  'apiso:Modified',
  'meters',
  "'EPSG:4326'",
  ' ',
  '\n',
];

const tokenSoup = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...TOKENS) },
        { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
      ),
      { maxLength: 25 },
    ),
    fc.constantFrom(' ', ''),
  )
  .map(([tokens, separator]) => tokens.join(separator));

/** A pool of valid constraints, made once, for the mutation family. */
const POOL = fc.sample(constraint, { numRuns: 300, seed: 20_251_122 });
const MUTATORS = POOL.map(mutateText);

interface Tally {
  parsed: number;
  rejected: number;
}

/** Runs one family; every input parses or throws FilterError (and must parse when `valid`). */
function runFamily(
  name: string,
  runs: number,
  inputs: fc.Arbitrary<string>,
  valid: boolean,
): Tally & { ms: number; cpuMs: number } {
  const tally: Tally = { parsed: 0, rejected: 0 };
  const started = performance.now();
  const cpu = process.cpuUsage();
  fc.assert(
    fc.property(inputs, (text) => {
      try {
        cqlText.parseCqlText(text);
        tally.parsed += 1;
      } catch (error) {
        if (!(error instanceof errors.FilterError) || valid) throw error;
        tally.rejected += 1;
      }
    }),
    { numRuns: runs },
  );
  const used = process.cpuUsage(cpu);
  const result = {
    ...tally,
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
  };
  console.log(
    `      CQL text fuzz, ${name}: ${tally.parsed + tally.rejected} inputs (${tally.parsed} parsed, ` +
      `${tally.rejected} FilterError) in ${Math.round(result.ms)} ms (CPU ${Math.round(result.cpuMs)} ms)`,
  );
  return result;
}

describe('CQL text parser fuzzing', function () {
  this.timeout(180_000);

  before(async function () {
    cqlText = await import('../../../shared/query/cql-text/index.js');
    errors = await import('../../../shared/errors/index.js');
  });

  it('every input parses or throws FilterError; valid constraints parse', function () {
    const randomText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom(...'()\',."/ -+:=<>!0123456789TZPaANDORnotLIKEBBOX'.split('')),
        maxLength: 40,
      }),
    );
    const results = [
      runFamily('random strings', RUNS.random, randomText, false),
      runFamily('token soups', RUNS.soup, tokenSoup, false),
      runFamily(
        'mutated valid constraints',
        RUNS.mutated,
        fc.nat({ max: MUTATORS.length - 1 }).chain((i) => defined(MUTATORS[i], `mutator ${i}`)),
        false,
      ),
      runFamily('valid constraints', RUNS.valid, constraint, true),
    ];
    const total = results.reduce((sum, r) => sum + r.parsed + r.rejected, 0);
    const ms = results.reduce((sum, r) => sum + r.ms, 0);
    const cpuMs = results.reduce((sum, r) => sum + r.cpuMs, 0);
    console.log(
      `      CQL text fuzz total: ${total} inputs in ${Math.round(ms)} ms (CPU ${Math.round(cpuMs)} ms)`,
    );
    expect(total).to.be.at.least(100_000);
  });
});
