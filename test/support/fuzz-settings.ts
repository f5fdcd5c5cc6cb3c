/**
 * Run settings shared by the fuzz suites (test/unit/fuzz, test/system/fuzz-*): how many inputs
 * each property tries and with which seed, so that CI stays quick and reproducible while a
 * developer can run deeper or replay a failure.
 *
 *   CAIRN_FUZZ_SCALE=20 npx mocha test/unit/fuzz/*.test.ts     # 20× the default run counts
 *   CAIRN_FUZZ_SEED=123456 npx mocha …                          # replay the seed a failure printed
 *   CAIRN_FUZZ_SEED=random npx mocha …                          # a fresh seed (printed)
 *
 * fast-check prints the seed and the shrunk counterexample of any failure; the suites also print
 * the seed and the counts they ran, so every run can be repeated exactly.
 */
import fc from 'fast-check';

/** The seed CI uses: fixed, so a failure there is reproducible without its log. */
const DEFAULT_SEED = 20_260_512;

function readScale(): number {
  const raw = process.env.CAIRN_FUZZ_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`CAIRN_FUZZ_SCALE must be a positive number, got "${raw}"`);
  return scale;
}

function readSeed(): number {
  const raw = process.env.CAIRN_FUZZ_SEED;
  if (raw === undefined || raw === '') return DEFAULT_SEED;
  if (raw === 'random') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed))
    throw new Error(`CAIRN_FUZZ_SEED must be an integer, got "${raw}"`);
  return seed;
}

/** Multiplier applied to every default run count (CAIRN_FUZZ_SCALE, default 1). */
export const FUZZ_SCALE = readScale();

/** The seed of this run (CAIRN_FUZZ_SEED, default fixed). */
export const FUZZ_SEED = readSeed();

/** A default run count scaled by CAIRN_FUZZ_SCALE (at least 1). */
export function fuzzRuns(base: number): number {
  return Math.max(1, Math.round(base * FUZZ_SCALE));
}

/**
 * fast-check parameters for one property: the scaled run count and this run's seed (the same
 * seed for every property, so the seed a failure prints replays it through CAIRN_FUZZ_SEED).
 */
export function fuzzParameters<T>(baseRuns: number): fc.Parameters<T> {
  return { numRuns: fuzzRuns(baseRuns), seed: FUZZ_SEED };
}

/** One line for the test output: what ran, with which seed, and the outcome counts. */
export function describeRun(
  name: string,
  runs: number,
  counts: ReadonlyMap<string, number>,
): string {
  const parts = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} ${count}`);
  return `      ${name}: ${runs} inputs, seed ${FUZZ_SEED} (${parts.join(', ')})`;
}

/** Counts outcomes by label, for describeRun. */
export class Tally {
  readonly counts = new Map<string, number>();
  total = 0;

  add(label: string): void {
    this.total += 1;
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }
}
