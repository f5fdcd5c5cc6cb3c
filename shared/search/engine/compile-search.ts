/**
 * Compiles a SearchQuery into the query DSL shared by Elasticsearch and OpenSearch: one
 * `query` and one `sort`, with the semantics of the SQLite compiler
 * (shared/search/sqlite/compile-query.ts). Pure: no engine access; what it needs to know about
 * the index (spatial mode, mapped kinds of dynamic fields) comes in the context.
 */
import { operator, propertyRef } from '../../query/filter-ast.js';
import { checkFilter } from '../../query/check-filter.js';
import { canonicalPropertyName, findQueryable, isTextSortable } from '../../query/queryables.js';
import type { SearchQuery, SortKey, TemporalConstraint } from '../../query/search-query.js';
import { freeTextStems, type StemmedWord } from '../../records/stems.js';
import { parseTimeValue } from '../../records/time.js';
import { compileFilterDsl, type FilterContext } from './compile-filter.js';
import { compileSpatialRelation } from './compile-spatial.js';
import {
  allOf,
  anyOf,
  exists,
  matchAll,
  matchNone,
  not,
  range,
  term,
  terms,
  type Query,
} from './dsl.js';
import {
  fieldOf,
  FOLDS,
  TIME_RANGE_FIELD,
  type EngineField,
  type FieldKind,
} from './engine-fields.js';

/** The catch-all text field free text searches. */
export const ANYTEXT_FIELD = 'anytext';
/** The record's stems, one text field per stemmed language (`stems.en`, `stems.fr` …). */
export const STEMS_FIELD = 'stems';

/** The keyword field every sort ends in. */
export const ID_FIELD = 'id';
/** Where the case- and accent-insensitive sort copies of text properties live. */
export const SORT_KEY_FIELD = 'sort';

/** Sort values standing for a missing date: beyond every instant JavaScript can represent. */
export const MISSING_DATE_LAST_ASC = 8.64e15;
export const MISSING_DATE_LAST_DESC = -8.64e15;

export type SortClause = Record<string, unknown>;

export interface CompiledSearch {
  query: Query;
  sort: SortClause[];
  /**
   * The documents in the query's scope (its constraints other than the filter) for which
   * some filter predicate is unproven, with the operators concerned: when any exists, the
   * backend refuses the search rather than give an answer it cannot prove.
   */
  doubt?: { query: Query; operators: string[] };
}

/**
 * One word of free text: a phrase on the catch-all field, or its stems as a phrase on the
 * record's stems in one of its languages (shared/records/stems.ts).
 */
function compileFreeTextWord(word: string, stemmed: readonly StemmedWord[]): Query {
  const phrase = { match_phrase: { [ANYTEXT_FIELD]: FOLDS.ai(word) } };
  if (stemmed.length === 0) return phrase;
  const alternatives = stemmed.map(({ language, stems }) => ({
    match_phrase: { [`${STEMS_FIELD}.${language}`]: stems.join(' ') },
  }));
  return { bool: { should: [phrase, ...alternatives], minimum_should_match: 1 } };
}

/** The free-text clause: OR over terms, every word of a term as compileFreeTextWord matches it. */
export function compileFreeText(text: string[][]): Query {
  const stems = freeTextStems(text);
  const clauses = text
    .map((words, t) => ({
      bool: { must: words.map((word, w) => compileFreeTextWord(word, stems[t]?.[w] ?? [])) },
    }))
    .filter((clause) => clause.bool.must.length > 0);
  const [first, ...others] = clauses;
  if (first === undefined) return matchNone();
  return others.length === 0 ? first : { bool: { should: clauses, minimum_should_match: 1 } };
}

/** The record's time extent against the requested interval, as the SQLite backend defines it. */
export function compileTemporal({ start, end, relation }: TemporalConstraint): Query {
  const hasTime = exists(TIME_RANGE_FIELD);
  const bounds: Record<string, string> = {};
  if (start !== null) bounds.gte = start;
  if (end !== null) bounds.lte = end;
  const intersects =
    start === null && end === null
      ? matchAll()
      : range(TIME_RANGE_FIELD, { ...bounds, relation: 'intersects' } as Record<string, string>);
  switch (relation) {
    case 'intersects':
      return allOf([hasTime, intersects]);
    case 'disjoint':
      return start === null && end === null ? matchNone() : allOf([hasTime, not(intersects)]);
    case 'during':
      return allOf([
        hasTime,
        start === null ? matchAll() : range('time.start', { gte: start }),
        end === null ? matchAll() : range('time.end', { lte: end }),
      ]);
    case 'equals':
      return allOf([
        hasTime,
        start === null ? not(exists('time.start')) : term('time.start', start),
        end === null ? not(exists('time.end')) : term('time.end', end),
      ]);
  }
}

function escapeWildcard(text: string): string {
  return text.replace(/[*?\\]/g, '\\$&');
}

/**
 * External identifiers in the three forms the SQLite backend accepts: `scheme:value` (exact),
 * `scheme:` (any value in the scheme) and `value` (in any scheme or none). The last two are
 * LIKE patterns there, so they ignore ASCII case here too.
 */
export function compileExternalIds(values: string[]): Query {
  const path = fieldOf('externalIds').path;
  return anyOf(
    values.map((value) => {
      const colon = value.indexOf(':');
      if (colon >= 0 && colon === value.length - 1) {
        return { prefix: { [path]: { value, case_insensitive: true } } };
      }
      if (colon >= 0) return term(path, value);
      return anyOf([
        term(path, value),
        { wildcard: { [path]: { value: `*:${escapeWildcard(value)}`, case_insensitive: true } } },
      ]);
    }),
  );
}

/** The kind of a property's values as the index maps them. */
function kindOf(field: EngineField, context: FilterContext): FieldKind | 'absent' {
  const queryable = findQueryable(field.name);
  if (queryable?.name === field.name) {
    if (queryable.type === 'number' || queryable.type === 'integer') return 'number';
    if (queryable.type === 'datetime') return 'time';
    if (queryable.type !== 'geometry') return 'string';
  }
  return field.declared ?? context.mappedKind(field.path);
}

/** Property equality (`name=value1,value2`): the property, or one of its elements, equals a value. */
export function compilePropertyEquality(
  name: string,
  values: string[],
  context: FilterContext,
): Query {
  const field = fieldOf(canonicalPropertyName(name));
  switch (kindOf(field, context)) {
    case 'absent':
      return matchNone();
    case 'number': {
      const numbers = values
        .filter((value) => value.trim() !== '')
        .map(Number)
        .filter((value) => Number.isFinite(value));
      return terms(field.path, numbers);
    }
    case 'time': {
      const instants = values.flatMap((value) => {
        const span = parseTimeValue(value);
        return span && span.start === span.end ? [span.start] : [];
      });
      return terms(field.path, instants);
    }
    default:
      return terms(field.path, values);
  }
}

/**
 * One sort key: missing values last in both directions. Text sorts by its case- and
 * accent-insensitive copy under `sort.*` (engine-document.ts), then by the value itself; an
 * index written before mapping version 4 has no such copies and sorts by the value alone.
 */
export function compileSortKey(
  { field, direction }: SortKey,
  context: FilterContext,
): SortClause[] {
  const name = canonicalPropertyName(field);
  if (name === 'id') return [{ [ID_FIELD]: { order: direction } }];
  const engineField = fieldOf(name);
  if (kindOf(engineField, context) === 'time') {
    // The engine's own `_last` sentinel for dates is a long JavaScript cannot carry back intact.
    const missing = direction === 'asc' ? MISSING_DATE_LAST_ASC : MISSING_DATE_LAST_DESC;
    return [{ [engineField.path]: { order: direction, missing, unmapped_type: 'date' } }];
  }
  const raw = {
    [engineField.path]: { order: direction, missing: '_last', unmapped_type: 'keyword' },
  };
  if (!isTextSortable(name)) return [raw];
  const folded = `${SORT_KEY_FIELD}.${engineField.foldKey}`;
  return [{ [folded]: { order: direction, missing: '_last', unmapped_type: 'keyword' } }, raw];
}

/** The sort: the requested keys, else relevance when there is free text, always ending in the id. */
export function compileSort(query: SearchQuery, context: FilterContext): SortClause[] {
  const keys = query.sort.flatMap((key) => compileSortKey(key, context));
  if (keys.length === 0 && query.text && query.text.length > 0) {
    keys.push({ _score: { order: 'desc' } });
  }
  if (!keys.some((key) => ID_FIELD in key)) keys.push({ [ID_FIELD]: { order: 'asc' } });
  return keys;
}

/**
 * Compiles the query's constraints and order. `settled` holds the ids of the records in doubt
 * (see CompiledSearch.doubt) that an exact evaluation in Node selected: the predicates then
 * select the engine's answer outside the doubt and exactly those records inside it.
 */
export function compileSearchQuery(
  query: SearchQuery,
  context: FilterContext,
  settled?: string[],
): CompiledSearch {
  const filters: Query[] = [];
  // The filter predicates, apart from the constraints that bound the scope of the search.
  const predicates: Query[] = [];
  const doubts: NonNullable<FilterContext['doubts']> = [];
  if (query.spatial) {
    const { bbox, geometry, relation } = query.spatial;
    if (bbox) {
      filters.push(compileSpatialRelation(context.spatial, relation, { bbox }));
    } else if (geometry) {
      predicates.push(
        compileFilterDsl(
          checkFilter(
            operator(`s_${relation}`, propertyRef('geometry'), { kind: 'geometry', geometry }),
          ),
          { ...context, doubts },
        ),
      );
    }
  }
  if (query.temporal) filters.push(compileTemporal(query.temporal));
  if (query.ids) filters.push(terms(ID_FIELD, query.ids));
  if (query.types) filters.push(terms(fieldOf('type').path, query.types));
  if (query.collections) filters.push(terms(fieldOf('parentId').path, query.collections));
  if (query.externalIds) filters.push(compileExternalIds(query.externalIds));
  for (const { name, values } of query.properties ?? []) {
    filters.push(compilePropertyEquality(name, values, context));
  }
  const scope = allOf(filters);
  if (query.filter) predicates.push(compileFilterDsl(query.filter, { ...context, doubts }));
  const decided =
    settled && doubts.length > 0
      ? [
          anyOf([
            allOf([...predicates, not(anyOf(doubts.map((item) => item.query)))]),
            terms(ID_FIELD, settled),
          ]),
        ]
      : predicates;

  const filter = allOf([...filters, ...decided]);
  const hasText = Boolean(query.text && query.text.length > 0);
  let compiled: Query;
  if (hasText) {
    compiled = {
      bool: {
        must: [compileFreeText(query.text!)],
        ...(filter.match_all ? {} : { filter: [filter] }),
      },
    };
  } else {
    compiled = filter.match_all || filter.match_none ? filter : { bool: { filter: [filter] } };
  }
  const doubt =
    doubts.length > 0 && !settled
      ? {
          query: allOf([scope, anyOf(doubts.map((item) => item.query))]),
          operators: [...new Set(doubts.map((item) => item.operator))],
        }
      : undefined;
  return { query: compiled, sort: compileSort(query, context), ...(doubt && { doubt }) };
}
