/**
 * Helpers for the FES tests: wrappers that put a predicate into a namespaced FES 1.1 or 2.0
 * Filter (the way OWSLib and the CITE suites write them), small AST builders, and an assertion
 * that a call fails with a given typed error whose message names something.
 */
import { expect } from 'chai';
import type { Expression } from '../../../shared/query/filter-ast.js';

export const OGC = 'http://www.opengis.net/ogc';
export const FES = 'http://www.opengis.net/fes/2.0';
export const GML = 'http://www.opengis.net/gml';
export const GML32 = 'http://www.opengis.net/gml/3.2';

/** A FES 1.1 filter (CSW 2.0.2 style) around the given predicate XML. */
export function fes11(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<ogc:Filter xmlns:ogc="${OGC}" xmlns:gml="${GML}">
  ${body}
</ogc:Filter>`;
}

/** A FES 2.0 filter (CSW 3.0 style) around the given predicate XML. */
export function fes20(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<fes:Filter xmlns:fes="${FES}" xmlns:gml="${GML32}">
  ${body}
</fes:Filter>`;
}

export const prop = (name: string): Expression => ({ kind: 'property', name });
export const lit = (value: string | number | boolean): Expression => ({ kind: 'literal', value });
export const op = (name: string, ...args: Expression[]): Expression => ({
  kind: 'op',
  op: name,
  args,
});
export const casei = (expression: Expression): Expression => op('casei', expression);

/** Asserts that `fn` throws an instance of `type` whose message contains every `fragment`. */
export function expectError(
  fn: () => unknown,
  type: abstract new (...args: never[]) => Error,
  ...fragments: string[]
): Error {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    for (const fragment of fragments) expect((error as Error).message).to.contain(fragment);
    return error as Error;
  }
  return expect.fail(`expected a ${type.name}`);
}
