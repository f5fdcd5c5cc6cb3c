/**
 * The value, or a failure naming what is missing: for tests that index into results (a list
 * element, a regex group, a map entry) and must then use the value as present.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}, found nothing`);
  return value;
}
