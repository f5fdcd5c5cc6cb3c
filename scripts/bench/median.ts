/** The median of some numbers (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle];
  if (upper === undefined) return Number.NaN;
  const lower = sorted.length % 2 === 0 ? sorted[middle - 1] : undefined;
  return lower === undefined ? upper : (lower + upper) / 2;
}
