/**
 * Narrows a value that the type system cannot prove is present (an indexed
 * access under `noUncheckedIndexedAccess`, a `find` result, a regex group) and
 * fails the test with a message naming what was missing when it is absent.
 */
export function defined<T>(value: T | null | undefined, what = 'value'): T {
  if (value === undefined || value === null) {
    throw new Error(`expected ${what} to be defined`);
  }
  return value;
}
