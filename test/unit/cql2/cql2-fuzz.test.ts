/**
 * Fuzzing of both CQL2 parsers with fast-check: at least 100,000 inputs each (random strings
 * or JSON values, grammar-shaped soups, mutations of valid expressions, valid expressions).
 * Every input must parse or throw a FilterError, nothing else; whatever parses must print and
 * parse back to the same tree. The counts and wall times are printed.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { printCql2Json, printCql2Text } from '../../../shared/query/cql2/index.js';
import {
  filterExpressionOfDepth,
  jsonSoup,
  mutateJson,
  mutateText,
  tokenSoup,
} from './cql2-arbitraries.js';
import { defined } from '../../support/defined.js';

type Cql2Module = typeof import('../../../shared/query/cql2/index.js');
type ErrorsModule = typeof import('../../../shared/errors/index.js');

/**
 * The modules under test, imported dynamically in `before`. Mocha loads spec files through
 * tsx's require hook, which recompiles ES modules to CommonJS and wraps every function in a
 * naming helper; the generated parser re-creates its rule functions on each call, so that
 * makes it three to four times slower than in production. A dynamic import runs the ES
 * modules as they run in production.
 */
let cql2: Cql2Module;
let errors: ErrorsModule;

/** Inputs per family, 100,000 per parser; the cheap families get the most. */
const RUNS = { random: 35_000, soup: 30_000, mutated: 20_000, valid: 15_000 };

/** Every how many parsed inputs the print-and-parse-back round trip is checked too. */
const ROUND_TRIP_EVERY = 8;

/**
 * Valid trees are costly to generate, so a pool of them is made once; the fuzzed inputs are
 * mutations of pool members and new valid expressions combining them.
 */
const POOL = fc.sample(filterExpressionOfDepth(2), { numRuns: 300, seed: 20_251_122 });
const TEXT_POOL = POOL.map(printCql2Text);
const JSON_POOL = POOL.map(printCql2Json);

/** Mutations of a random pool member (each member's mutator is built once). */
const mutationOf = <T>(mutators: fc.Arbitrary<T>[]): fc.Arbitrary<T> =>
  fc.nat({ max: mutators.length - 1 }).chain((i) => defined(mutators[i], `mutator ${i}`));

/** Valid text: pool members joined with AND, OR, NOT and parentheses. */
const validText = fc
  .tuple(
    fc.constantFrom(...TEXT_POOL),
    fc.constantFrom(...TEXT_POOL),
    fc.constantFrom('%a', '%a', '%a', '(%a) AND (%b)', '(%a) OR NOT (%b)', 'NOT ((%a))'),
  )
  .map(([a, b, shape]) => shape.replace('%a', () => a).replace('%b', () => b));

/** Valid JSON: pool members combined with and, or and not. */
const validJson = fc
  .tuple(
    fc.constantFrom(...JSON_POOL),
    fc.constantFrom(...JSON_POOL),
    fc.constantFrom('none', 'none', 'none', 'and', 'or', 'not'),
  )
  .map(([a, b, op]) => (op === 'none' ? a : { op, args: op === 'not' ? [a] : [a, b] }));

interface Tally {
  parsed: number;
  rejected: number;
  roundTrips: number;
}

/**
 * Parses one input. A FilterError is a fine outcome; anything else thrown fails the property.
 * Every few parsed trees must also survive printing and parsing in both encodings.
 */
function check(parse: () => Expression, tally: Tally): void {
  let tree: Expression;
  try {
    tree = parse();
  } catch (error) {
    if (!(error instanceof errors.FilterError)) throw error;
    tally.rejected += 1;
    return;
  }
  tally.parsed += 1;
  if (tally.parsed % ROUND_TRIP_EVERY !== 1) return;
  tally.roundTrips += 1;
  // isDeepStrictEqual is fast; chai explains a difference when there is one.
  const viaText = cql2.parseCql2Text(cql2.printCql2Text(tree));
  if (!isDeepStrictEqual(viaText, tree)) expect(viaText).to.deep.equal(tree);
  const viaJson = cql2.parseCql2Json(cql2.printCql2Json(tree));
  if (!isDeepStrictEqual(viaJson, tree)) expect(viaJson).to.deep.equal(tree);
}

interface FamilyResult extends Tally {
  name: string;
  wallMs: number;
  cpuMs: number;
}

/** Runs one family of inputs and reports what happened to them. */
function runFamily<T>(
  name: string,
  runs: number,
  inputs: fc.Arbitrary<T>,
  parse: (input: T) => Expression,
): FamilyResult {
  const tally: Tally = { parsed: 0, rejected: 0, roundTrips: 0 };
  const started = performance.now();
  const cpu = process.cpuUsage();
  fc.assert(
    fc.property(inputs, (input) => {
      check(() => parse(input), tally);
    }),
    { numRuns: runs },
  );
  const used = process.cpuUsage(cpu);
  return {
    name,
    ...tally,
    wallMs: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
  };
}

/** Prints one line per family and a total, and checks the total count. */
function report(parser: string, results: FamilyResult[]): void {
  let total = 0;
  let wallMs = 0;
  let cpuMs = 0;
  for (const result of results) {
    total += result.parsed + result.rejected;
    wallMs += result.wallMs;
    cpuMs += result.cpuMs;
    console.log(
      `      ${parser} fuzz, ${result.name}: ${result.parsed + result.rejected} inputs ` +
        `(${result.parsed} parsed, ${result.rejected} FilterError, ${result.roundTrips} ` +
        `round trips) in ${Math.round(result.wallMs)} ms (CPU ${Math.round(result.cpuMs)} ms)`,
    );
  }
  console.log(
    `      ${parser} fuzz total: ${total} inputs in ${Math.round(wallMs)} ms ` +
      `(CPU ${Math.round(cpuMs)} ms)`,
  );
  expect(total).to.be.at.least(100_000);
}

describe('CQL2 parser fuzzing', function () {
  this.timeout(180_000);

  before(async function () {
    cql2 = await import('../../../shared/query/cql2/index.js');
    errors = await import('../../../shared/errors/index.js');
  });

  it('CQL2 text: every input parses or throws FilterError', function () {
    const randomText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom(...'()\',."\\ -+*/^%<>=:_.0123456789eEaANDORnotZ'.split('')),
        maxLength: 40,
      }),
    );
    report('CQL2 text', [
      runFamily('random strings', RUNS.random, randomText, (text) => cql2.parseCql2Text(text)),
      runFamily('token soups', RUNS.soup, tokenSoup, (text) => cql2.parseCql2Text(text)),
      runFamily(
        'mutated valid expressions',
        RUNS.mutated,
        mutationOf(TEXT_POOL.map(mutateText)),
        (text) => cql2.parseCql2Text(text),
      ),
      runFamily('valid expressions', RUNS.valid, validText, (text) => cql2.parseCql2Text(text)),
    ]);
  });

  it('CQL2 JSON: every input parses or throws FilterError', function () {
    const randomJson = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.string({ maxLength: 30 }),
      fc.constantFrom(...JSON_POOL).map((value) => JSON.stringify(value).slice(0, -3)),
    );
    report('CQL2 JSON', [
      runFamily('random JSON values and text', RUNS.random, randomJson, (input) =>
        cql2.parseCql2Json(input),
      ),
      runFamily('grammar-shaped soups', RUNS.soup, jsonSoup, (input) => cql2.parseCql2Json(input)),
      runFamily(
        'mutated valid expressions',
        RUNS.mutated,
        mutationOf(JSON_POOL.map(mutateJson)),
        (input) => cql2.parseCql2Json(input),
      ),
      runFamily('valid expressions', RUNS.valid, validJson, (input) => cql2.parseCql2Json(input)),
    ]);
  });
});
