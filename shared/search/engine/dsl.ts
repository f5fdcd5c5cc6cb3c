/**
 * Small builders for the query DSL Elasticsearch and OpenSearch share, with the
 * simplifications that keep compiled queries readable (match_all / match_none folding).
 */
/** One query DSL clause, as plain JSON. */
export type Query = Record<string, unknown>;

export interface RangeBounds {
  gt?: string | number;
  gte?: string | number;
  lt?: string | number;
  lte?: string | number;
}

/** Matches every document. */
export const matchAll = (): Query => ({ match_all: {} });

/** Matches no document. */
export const matchNone = (): Query => ({ match_none: {} });

/** True for a match_all clause. */
export const isMatchAll = (query: Query): boolean => 'match_all' in query;

/** True for a match_none clause. */
export const isMatchNone = (query: Query): boolean => 'match_none' in query;

/** Documents where the field has at least one value. */
export const exists = (field: string): Query => ({ exists: { field } });

/** Exact value of a keyword, number or date field. */
export const term = (field: string, value: string | number | boolean): Query => ({
  term: { [field]: value },
});

/** Any of the exact values. */
export const terms = (field: string, values: (string | number | boolean)[]): Query =>
  values.length === 0 ? matchNone() : { terms: { [field]: values } };

/** A range on a keyword, number or date field. */
export const range = (field: string, bounds: RangeBounds): Query => ({
  range: { [field]: bounds },
});

/** The clauses of a bool that only has the given occurrence (and its minimum_should_match). */
function onlyClauses(query: Query, occurrence: 'filter' | 'should'): Query[] | undefined {
  const bool = query.bool as Record<string, unknown> | undefined;
  if (!bool || Object.keys(query).length !== 1) return undefined;
  const keys = Object.keys(bool).sort().join(',');
  const expected = occurrence === 'filter' ? 'filter' : 'minimum_should_match,should';
  if (keys !== expected) return undefined;
  if (occurrence === 'should' && bool.minimum_should_match !== 1) return undefined;
  return bool[occurrence] as Query[];
}

/**
 * How a bool occurrence folds: the clause that changes nothing (dropped), the clause that
 * decides alone (wins), and the bool that holds the rest.
 */
const FOLDING = {
  filter: {
    isNeutral: isMatchAll,
    neutral: matchAll,
    isDecisive: isMatchNone,
    decisive: matchNone,
    bool: (kept: Query[]): Query => ({ bool: { filter: kept } }),
  },
  should: {
    isNeutral: isMatchNone,
    neutral: matchNone,
    isDecisive: isMatchAll,
    decisive: matchAll,
    bool: (kept: Query[]): Query => ({ bool: { should: kept, minimum_should_match: 1 } }),
  },
} as const;

/**
 * The clauses without repeats (a repeat changes nothing under filter or should): the same
 * exists or term clause often comes from several operands, so those are compared by their
 * JSON. Every other clause is compared by identity: serialising each range and shape clause
 * at every level it is combined into took about 40 % of compiling a spatial CQL2 filter, and a
 * repeated one is only a longer query.
 */
function withoutRepeats(queries: Query[]): Query[] {
  const seen = new Set<string | Query>();
  return queries.filter((query) => {
    const key = 'exists' in query || 'term' in query ? JSON.stringify(query) : query;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The clauses under one occurrence, nested bools of the same occurrence flattened and folded. */
function combine(queries: Query[], occurrence: 'filter' | 'should'): Query {
  const { isNeutral, neutral, isDecisive, decisive, bool } = FOLDING[occurrence];
  const kept = withoutRepeats(
    queries
      .flatMap((query) => onlyClauses(query, occurrence) ?? [query])
      .filter((query) => !isNeutral(query)),
  );
  if (kept.some(isDecisive)) return decisive();
  const [first] = kept;
  if (first === undefined) return neutral();
  if (kept.length === 1) return first;
  return bool(kept);
}

/** All of the clauses (filter context); match_all clauses drop out, match_none wins. */
export function allOf(queries: Query[]): Query {
  return combine(queries, 'filter');
}

/** At least one of the clauses; match_none clauses drop out, match_all wins. */
export function anyOf(queries: Query[]): Query {
  return combine(queries, 'should');
}

/** Documents the clause does not match. */
export function not(query: Query): Query {
  if (isMatchAll(query)) return matchNone();
  if (isMatchNone(query)) return matchAll();
  const bool = query.bool as { must_not?: Query[] } | undefined;
  if (bool && Object.keys(bool).length === 1 && bool.must_not?.length === 1) {
    const [negated] = bool.must_not;
    if (negated !== undefined) return negated;
  }
  return { bool: { must_not: [query] } };
}
