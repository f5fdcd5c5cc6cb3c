/**
 * CASEI on a field's own values, for records that have no `ci` copy of it: plain-ASCII text,
 * whose CASEI fold is ASCII lower case (engine-document.ts writes the copy only for text with
 * other characters). Matching, wildcards and lists use the engines' `case_insensitive` option;
 * an ordering comparison becomes a regular expression over the ways a value can sort below or
 * above the (already folded) literal once its capital letters are lowered.
 */
import { InternalError } from '../../errors/index.js';
import { allOf, anyOf, matchNone, type Query, type RangeBounds } from './dsl.js';

const MAX_CODE_POINT = 0x10ffff;
const SURROGATES = { lo: 0xd800, hi: 0xdfff };
const CAPITALS = { lo: 0x41, hi: 0x5a };
/** Lowering a capital adds this to its code point. */
const TO_LOWER = 0x20;

/** The ranges of code points whose ASCII-lowered value compares with `target` as asked. */
function codePointsWhere(relation: '<' | '=' | '>', target: number): [number, number][] {
  // Lowering is a fixed shift on each of three spans, so each yields one range at most.
  const spans: [number, number, number][] = [
    [0, CAPITALS.lo - 1, 0],
    [CAPITALS.lo, CAPITALS.hi, TO_LOWER],
    [CAPITALS.hi + 1, MAX_CODE_POINT, 0],
  ];
  const ranges: [number, number][] = [];
  for (const [lo, hi, shift] of spans) {
    const pivot = target - shift;
    const [from, to] =
      relation === '<'
        ? [lo, Math.min(hi, pivot - 1)]
        : relation === '>'
          ? [Math.max(lo, pivot + 1), hi]
          : [Math.max(lo, pivot), Math.min(hi, pivot)];
    if (from > to) continue;
    // Lone surrogates are never in a string's code points; leave them out of the classes.
    if (from < SURROGATES.lo && to > SURROGATES.hi) {
      ranges.push([from, SURROGATES.lo - 1], [SURROGATES.hi + 1, to]);
    } else ranges.push([from, to]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** One code point as a literal of the engines' (Lucene's) regular expressions. */
function literal(codePoint: number): string {
  const character = String.fromCodePoint(codePoint);
  // Letters and digits stand for themselves (an escaped one may be a class such as \d);
  // every other character is taken literally after a backslash.
  return /^[A-Za-z0-9]$/.test(character) ? character : `\\${character}`;
}

/** A character class for the ranges, or undefined when they are empty. */
function characterClass(ranges: [number, number][]): string | undefined {
  const [first, ...others] = ranges;
  if (first === undefined) return undefined;
  if (others.length === 0 && first[0] === first[1]) return literal(first[0]);
  const parts = ranges.map(([lo, hi]) =>
    lo === hi ? literal(lo) : `${literal(lo)}-${literal(hi)}`,
  );
  return `[${parts.join('')}]`;
}

const group = (alternatives: (string | undefined)[]): string | undefined => {
  const kept = alternatives.filter((alternative) => alternative !== undefined);
  return kept.length === 0 ? undefined : `(${kept.join('|')})`;
};

const then = (head: string | undefined, tail: string | undefined): string | undefined =>
  head === undefined || tail === undefined ? undefined : head + tail;

/**
 * A regular expression for the values that, lowered, sort below (or, with `orEqual`, up to)
 * `literal`, in code point order: a proper prefix of it, or its first `i` characters followed
 * by a smaller one (or the empty string). Written nested, so it grows linearly with the
 * literal.
 */
function below(codePoints: number[], orEqual: boolean, at = 0): string | undefined {
  const target = codePoints[at];
  if (target === undefined) return orEqual ? '' : undefined;
  // Optional (`?`) for the values that end here; the syntax has no empty alternative.
  const longer = group([
    then(characterClass(codePointsWhere('<', target)), '.*'),
    then(characterClass(codePointsWhere('=', target)), below(codePoints, orEqual, at + 1)),
  ]);
  return longer === undefined ? '' : `${longer}?`;
}

/** The values that, lowered, sort above (or, with `orEqual`, from) the literal. */
function above(codePoints: number[], orEqual: boolean, at = 0): string | undefined {
  const target = codePoints[at];
  if (target === undefined) return orEqual ? '.*' : '.+';
  return group([
    then(characterClass(codePointsWhere('>', target)), '.*'),
    then(characterClass(codePointsWhere('=', target)), above(codePoints, orEqual, at + 1)),
  ]);
}

/**
 * Bounds the engine's work turning a pattern into an automaton. Ours are chains of about two
 * states a literal character; the engines' default (10,000) would refuse literals of a few
 * thousand characters. The pattern's length has its own bound, `index.max_regex_length`, which
 * records.base.json raises for the same reason.
 */
const MAX_DETERMINIZED_STATES = 100_000;

/** A regexp clause (core syntax only), or match_none for an empty language. */
function regexp(path: string, pattern: string | undefined): Query {
  if (pattern === undefined) return matchNone();
  return {
    regexp: {
      [path]: { value: pattern, flags: 'NONE', max_determinized_states: MAX_DETERMINIZED_STATES },
    },
  };
}

/** The range clause on lowered values, as regular expressions (one per bound). */
export function caseInsensitiveRange(path: string, bounds: RangeBounds): Query {
  const clauses: Query[] = [];
  const codePoints = (value: string | number): number[] =>
    Array.from(String(value), (character) => character.codePointAt(0) as number);
  if (bounds.gt !== undefined) clauses.push(regexp(path, above(codePoints(bounds.gt), false)));
  if (bounds.gte !== undefined) clauses.push(regexp(path, above(codePoints(bounds.gte), true)));
  if (bounds.lt !== undefined) clauses.push(regexp(path, below(codePoints(bounds.lt), false)));
  if (bounds.lte !== undefined) clauses.push(regexp(path, below(codePoints(bounds.lte), true)));
  return allOf(clauses);
}

/** The single `{ field: value }` entry of a leaf clause. */
function leaf(body: unknown): [string, unknown] {
  const [entry, ...others] = Object.entries(body as Record<string, unknown>);
  if (entry === undefined || others.length > 0) {
    throw new InternalError('A leaf clause names one field');
  }
  return entry;
}

/**
 * The clause with its string comparisons made ASCII case-insensitive: what a CASEI comparison
 * means on a field whose values are plain ASCII. Numbers are left as they are.
 */
export function caseInsensitively(query: Query): Query {
  const [kind, body] = Object.entries(query)[0] ?? [];
  switch (kind) {
    case 'match_all':
    case 'match_none':
    case 'exists':
      return query;
    case 'term': {
      const [path, value] = leaf(body);
      if (typeof value !== 'string') return query;
      return { term: { [path]: { value, case_insensitive: true } } };
    }
    case 'terms': {
      const [path, values] = leaf(body);
      return anyOf(
        (values as unknown[]).map((value) => caseInsensitively({ term: { [path]: value } })),
      );
    }
    case 'wildcard': {
      const [path, options] = leaf(body);
      return { wildcard: { [path]: { ...(options as object), case_insensitive: true } } };
    }
    case 'range': {
      const [path, bounds] = leaf(body);
      const values = Object.values(bounds as RangeBounds);
      if (values.some((value) => typeof value !== 'string')) return query;
      return caseInsensitiveRange(path, bounds as RangeBounds);
    }
    case 'bool': {
      const bool = body as Record<string, unknown>;
      const rewritten: Record<string, unknown> = {};
      for (const [occurrence, clauses] of Object.entries(bool)) {
        rewritten[occurrence] = Array.isArray(clauses)
          ? clauses.map((clause) => caseInsensitively(clause as Query))
          : clauses;
      }
      return { bool: rewritten };
    }
    default:
      throw new InternalError(`No case-insensitive form for a "${String(kind)}" clause`);
  }
}
