/** Helpers for plain JSON values (records' parts, query DSL clauses). */

/** The values without repeats, by JSON equality (key order counts); the first of each is kept. */
export function distinctJson<T>(values: readonly T[]): T[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
