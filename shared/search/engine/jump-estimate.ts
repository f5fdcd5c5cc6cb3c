/**
 * The arithmetic of a jump in the index order (deep-paging.ts), apart from its requests so that
 * it can be tested without an engine. A jump samples ids at random among a query's matches and
 * sorts them; the sample at index i then has a rank of about i/n of the matches, known only
 * within a few standard deviations (σ ≈ √(n·p·(1 − p)) samples for a share p). These functions
 * say which samples to count the exact ranks of, and which counted sample a page starts from.
 */

/** Where the hit just before a deep offset should lie among the sorted samples. */
export interface RankEstimate {
  /** The rank (0-based) of the hit just before the offset. */
  target: number;
  /** The index of the sample whose rank should be nearest the target. */
  estimate: number;
  /** About one standard deviation of that index, in samples; at least 1. */
  step: number;
  /** True when the target lies in the first half of the matches: ranks count from the start. */
  fromStart: boolean;
}

/** A sample whose exact rank was counted (index -1: the start of the matches, rank 0). */
export interface CountedSample {
  index: number;
  rank: number;
}

/**
 * Estimates which of `sampleCount` sorted samples of `total` matches lies nearest the hit just
 * before `offset` (1 ≤ offset ≤ total), and how far off that estimate may be.
 */
export function estimateSampleRank(
  offset: number,
  total: number,
  sampleCount: number,
): RankEstimate {
  const target = offset - 1;
  const share = Math.min(1, target / total);
  return {
    target,
    estimate: Math.floor(share * sampleCount),
    step: Math.max(1, Math.ceil(Math.sqrt(sampleCount * share * (1 - share)))),
    fromStart: 2 * target < total,
  };
}

/**
 * The samples counted first: nine, a step apart, from four steps below the estimate to four
 * above (indices outside the samples are left out by the counting).
 */
export function buildFirstRound(estimate: RankEstimate): number[] {
  return Array.from({ length: 9 }, (_, k) => estimate.estimate + (k - 4) * estimate.step);
}

/**
 * The counted sample with the highest rank at or below `target`; the start of the matches
 * (index -1, rank 0) when none is above 0 and at or below it.
 */
export function findClosestBelow(
  ranked: ReadonlyMap<number, number>,
  target: number,
): CountedSample {
  return [...ranked].reduce(
    (best, [index, rank]) => (rank <= target && rank > best.rank ? { index, rank } : best),
    { index: -1, rank: 0 },
  );
}

/**
 * The samples counted second: those just after the closest counted sample below the target, up
 * to the next counted one above the target (or the last sample), at most two steps of them.
 */
export function buildSecondRound(
  ranked: ReadonlyMap<number, number>,
  estimate: RankEstimate,
  sampleCount: number,
): number[] {
  const below = findClosestBelow(ranked, estimate.target);
  const above = [...ranked]
    .filter(([index, rank]) => index > below.index && rank > estimate.target)
    .reduce((lowest, [index]) => Math.min(lowest, index), sampleCount);
  return Array.from(
    { length: Math.min(above - below.index - 1, 2 * estimate.step) },
    (_, k) => below.index + 1 + k,
  );
}
