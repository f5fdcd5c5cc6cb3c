/**
 * Bounds on what one query may ask of a backend. Every input that multiplies the work of a
 * search is counted here, once, on the SearchQuery every protocol produces (so Records, STAC,
 * CSW and OpenSearch refuse the same things the same way, before any backend runs): how deep
 * the filter nests, how many operators and operands it has, how long its arrays are, how many
 * parts and vertices its geometries have, how many free-text words the query holds, and how
 * many sort keys it orders by. The walk is iterative, so a tree of any depth is measured without
 * exhausting the stack. `prepareQuery` also normalises what adds cost but no meaning (sort keys
 * repeated on one property), so the backend runs the smallest equivalent query.
 */
import type { Geometry } from 'geojson';
import { QueryLimitError } from '../errors/index.js';
import type { Expression } from './filter-ast.js';
import type { SearchQuery, SortKey } from './search-query.js';

/** The configured bounds (QUERY_MAX_* in shared/config). */
export interface QueryLimits {
  /** Levels of nesting in a filter (an operator, array or interval inside another). */
  maxFilterDepth: number;
  /** Operators, properties and literals in a filter; scalar items of array literals excepted. */
  maxFilterNodes: number;
  /** Items of one array literal (IN lists, A_* operands) and of one list parameter (ids …). */
  maxArrayItems: number;
  /** Parts of all geometries of a query: polygon rings, line strings and points. */
  maxGeometryParts: number;
  /** Vertices of all geometries of a query. */
  maxGeometryVertices: number;
  /**
   * Words of the free text (`q`, csw:AnyText, OpenSearch searchTerms), over all its terms, as
   * the search engine's analyzer splits them (countTextTokens).
   */
  maxTextWords: number;
  /** Characters of the free text, over all its words. */
  maxTextLength: number;
  /** Distinct sort keys (properties) of one query; repeated keys are dropped, not counted. */
  maxSortKeys: number;
  /**
   * The deepest offset a page in an order other than the index order (sort keys, relevance)
   * may start at, unless a page of the same query ended there (a `next` link).
   */
  maxOffset: number;
  /** Distinct properties one request counts facets of (Records `facets`). */
  maxFacets: number;
  /**
   * Buckets one aggregation may give (STAC `/aggregate`, Records facets): the most terms of a
   * frequency, and the bound on the calendar periods of a date histogram and the cells of a grid
   * over the matched records' span, checked before the aggregation runs.
   */
  maxAggregationBuckets: number;
  /**
   * LIKE patterns of a filter with a wildcard anywhere but a trailing `%` (isCostlyLikePattern):
   * a search engine builds an automaton for each, outside its time budget.
   */
  maxWildcardPatterns: number;
  /**
   * Wildcards in one LIKE pattern (likePatternWildcards: each `_`, each run of `%`): the
   * engine's automaton for the pattern grows with them, and neither engine stops building it
   * when the search is cancelled.
   */
  maxPatternWildcards: number;
}

/** Formats a count with thousands separators, as messages show limits. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** Parts (rings, lines, points) and vertices of a geometry, without recursion on its nesting. */
export function measureGeometry(geometry: Geometry): { parts: number; vertices: number } {
  let parts = 0;
  let vertices = 0;
  const pending: Geometry[] = [geometry];
  const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
  while (pending.length > 0) {
    const next = pending.pop()!;
    switch (next.type) {
      case 'Point':
        parts += 1;
        vertices += 1;
        break;
      case 'MultiPoint':
      case 'LineString':
        parts += next.type === 'MultiPoint' ? lengthOf(next.coordinates) : 1;
        vertices += lengthOf(next.coordinates);
        break;
      case 'MultiLineString':
      case 'Polygon':
        for (const line of Array.isArray(next.coordinates) ? next.coordinates : []) {
          parts += 1;
          vertices += lengthOf(line);
        }
        break;
      case 'MultiPolygon':
        for (const polygon of Array.isArray(next.coordinates) ? next.coordinates : []) {
          for (const ring of Array.isArray(polygon) ? polygon : []) {
            parts += 1;
            vertices += lengthOf(ring);
          }
        }
        break;
      case 'GeometryCollection':
        if (Array.isArray(next.geometries)) pending.push(...next.geometries);
        break;
    }
  }
  return { parts, vertices };
}

/** Totals of a filter tree, gathered in one walk. */
interface FilterMeasure {
  depth: number;
  nodes: number;
  longestArray: number;
  geometries: Geometry[];
  /** LIKE patterns with a wildcard anywhere but at the end (isCostlyLikePattern). */
  wildcardPatterns: number;
  /** The most wildcards in one LIKE pattern (likePatternWildcards). */
  mostPatternWildcards: number;
}

/**
 * Whether a LIKE pattern (`%` any run, `_` one character, `\` escapes) costs more than a
 * prefix: it has a `_`, or a `%` anywhere but in a run at its end. A literal or a prefix
 * (`abc%`) is a term or a prefix lookup; any other pattern is matched against every distinct
 * value of the property, through an automaton that grows with its wildcards.
 */
export function isCostlyLikePattern(pattern: string): boolean {
  let trailingPercent = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const character = pattern[i];
    if (character === '\\') {
      if (trailingPercent) return true;
      i += 1;
    } else if (character === '_') {
      return true;
    } else if (character === '%') {
      trailingPercent = true;
    } else if (trailingPercent) {
      return true;
    }
  }
  return false;
}

/** The string of a LIKE pattern operand (a literal, or one inside CASEI/ACCENTI), if constant. */
function likePattern(operand: Expression | undefined): string | undefined {
  let node = operand;
  while (node?.kind === 'op' && node.args.length === 1) node = node.args[0];
  return node?.kind === 'literal' && typeof node.value === 'string' ? node.value : undefined;
}

/**
 * Wildcards of a LIKE pattern: each `_`, and each run of `%` (one run matches what one `%`
 * does); escaped characters are not wildcards.
 */
export function likePatternWildcards(pattern: string): number {
  let wildcards = 0;
  let inRun = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const character = pattern[i];
    if (character === '%') {
      if (!inRun) wildcards += 1;
      inRun = true;
      continue;
    }
    inRun = false;
    if (character === '\\') i += 1;
    else if (character === '_') wildcards += 1;
  }
  return wildcards;
}

/** Whether an array item is a plain value (compared set-wise, not evaluated as a node). */
function isPlainItem(item: Expression): boolean {
  return item.kind === 'literal' || item.kind === 'date' || item.kind === 'timestamp';
}

/** Depth, node count, longest array and geometry literals of a filter tree. */
export function measureFilter(filter: Expression): FilterMeasure {
  const measure: FilterMeasure = {
    depth: 0,
    nodes: 0,
    longestArray: 0,
    geometries: [],
    wildcardPatterns: 0,
    mostPatternWildcards: 0,
  };
  const pending: [Expression, number][] = [[filter, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    measure.nodes += 1;
    if (depth > measure.depth) measure.depth = depth;
    switch (node.kind) {
      case 'op': {
        if (node.op.toLowerCase() === 'like') {
          const pattern = likePattern(node.args[1]);
          if (pattern !== undefined && isCostlyLikePattern(pattern)) {
            measure.wildcardPatterns += 1;
            measure.mostPatternWildcards = Math.max(
              measure.mostPatternWildcards,
              likePatternWildcards(pattern),
            );
          }
        }
        for (const argument of node.args) pending.push([argument, depth + 1]);
        break;
      }
      case 'array':
        measure.longestArray = Math.max(measure.longestArray, node.items.length);
        for (const item of node.items) {
          if (!isPlainItem(item)) pending.push([item, depth + 1]);
        }
        break;
      case 'interval':
        pending.push([node.start, depth + 1], [node.end, depth + 1]);
        break;
      case 'geometry':
        measure.geometries.push(node.geometry);
        break;
      default:
        break;
    }
  }
  return measure;
}

/**
 * Characters the standard tokenizer (Unicode word boundaries, UAX #29) keeps inside one token
 * between letters or digits: `e.g`, `don't`, `3.14` are one token each; any other punctuation,
 * a hyphen included, ends a token.
 */
const TEXT_TOKEN = /[\p{L}\p{N}\p{M}\p{Pc}]+(?:[.'\u2019:][\p{L}\p{N}\p{M}\p{Pc}]+)*/gu;
/** Scripts whose every character the standard tokenizer makes a token of its own. */
const SINGLE_CHARACTER_TOKEN = /[\p{sc=Han}\p{sc=Hiragana}]/gu;
/** The longest token the standard tokenizer emits; a longer run is split into several. */
const MAX_TOKEN_LENGTH = 255;

/**
 * How many tokens the search engine's analyzer (the standard tokenizer, es-mappings/) makes of
 * a word of free text: it splits on hyphens and other punctuation, makes one token of each Han
 * or Hiragana character, and cuts runs longer than 255 characters. A word the protocols see as
 * one (`a-b-c`) can be thousands of tokens, each a term the engine must match in sequence.
 */
export function countTextTokens(word: string): number {
  let tokens = 0;
  const rest = word.replace(SINGLE_CHARACTER_TOKEN, () => {
    tokens += 1;
    return ' ';
  });
  for (const match of rest.matchAll(TEXT_TOKEN)) {
    tokens += Math.ceil(match[0].length / MAX_TOKEN_LENGTH);
  }
  return tokens;
}

/** The tokens the engine's analyzer makes of all the free text's words (countTextTokens). */
export function countFreeTextTokens(text: readonly (readonly string[])[]): number {
  let tokens = 0;
  for (const term of text) for (const word of term) tokens += countTextTokens(word);
  return tokens;
}

/** Checks the free text's length, then its tokens as the engine's analyzer counts them. */
function checkText(text: readonly (readonly string[])[], limits: QueryLimits): void {
  let length = 0;
  for (const term of text) for (const word of term) length += word.length;
  if (length > limits.maxTextLength) {
    throw new QueryLimitError(
      'q',
      `The free text has ${count(length)} characters; at most ${count(limits.maxTextLength)} are allowed (QUERY_MAX_TEXT_LENGTH)`,
    );
  }
  const words = countFreeTextTokens(text);
  if (words > limits.maxTextWords) {
    throw new QueryLimitError(
      'q',
      `The free text has ${count(words)} words (counted as the search engine splits them, at spaces, hyphens and other punctuation); at most ${count(limits.maxTextWords)} are allowed (QUERY_MAX_TEXT_WORDS)`,
    );
  }
}

/**
 * Sort keys without repeats of a property: the first occurrence of each property keeps its
 * place and direction, later ones are dropped, as they can never reorder records the earlier key
 * has already ordered (records equal on a property stay equal on it in either direction).
 */
export function distinctSortKeys(keys: readonly SortKey[]): SortKey[] {
  const seen = new Set<string>();
  const distinct: SortKey[] = [];
  for (const key of keys) {
    if (seen.has(key.field)) continue;
    seen.add(key.field);
    distinct.push(key);
  }
  return distinct;
}

/**
 * Throws QueryLimitError when a request asks for the counts of more distinct facet properties
 * than QUERY_MAX_FACETS (each one is a count over every matching record).
 */
export function checkFacetCount(facets: number, limits: Pick<QueryLimits, 'maxFacets'>): void {
  if (facets > limits.maxFacets) {
    throw new QueryLimitError(
      'facets',
      `The request asks for facets of ${count(facets)} distinct properties; at most ${count(limits.maxFacets)} are allowed (QUERY_MAX_FACETS)`,
    );
  }
}

/**
 * Throws QueryLimitError when an aggregation would give more buckets than
 * QUERY_MAX_AGGREGATION_BUCKETS; `what` names the aggregation and the choice that made it so.
 */
export function checkBucketCount(
  parameter: string,
  buckets: number,
  what: string,
  limits: Pick<QueryLimits, 'maxAggregationBuckets'>,
): void {
  if (buckets > limits.maxAggregationBuckets) {
    throw new QueryLimitError(
      parameter,
      `${what} gives up to ${count(buckets)} buckets; at most ${count(limits.maxAggregationBuckets)} are allowed (QUERY_MAX_AGGREGATION_BUCKETS)`,
    );
  }
}

/**
 * Whether a query pages in the index order (by record id), the order in which a deep page is
 * found without walking the records before it: no sort keys but `id` ascending, no free text
 * (whose default order is relevance).
 */
export function isIndexOrder(query: SearchQuery): boolean {
  const [first, ...rest] = query.sort;
  const sortedById =
    first === undefined || (rest.length === 0 && first.field === 'id' && first.direction === 'asc');
  return sortedById && !(query.text && query.text.length > 0);
}

/**
 * Whether a query asks for a page that is costly unless it continues an earlier page: one
 * beyond QUERY_MAX_OFFSET in an order other than the index order (counts alone, limit 0, are
 * not paged).
 */
export function isDeepPage(query: SearchQuery, limits: QueryLimits): boolean {
  return query.limit > 0 && query.offset > limits.maxOffset && !isIndexOrder(query);
}

/**
 * The identity of a query's result list, whatever page of it is asked for: the key under which
 * the ends of its pages are remembered.
 */
export function pagingKey(query: SearchQuery): string {
  return JSON.stringify({ ...query, offset: undefined, limit: undefined });
}

/**
 * The query a backend should run for `query`: checked against the limits (QueryLimitError when
 * over one), with repeated sort keys dropped. A deep page (isDeepPage) is refused unless
 * `continues` says an earlier page of the query ended at its offset. The one place every
 * protocol's query passes before any backend work.
 */
export function prepareQuery(
  query: SearchQuery,
  limits: QueryLimits,
  continues: (prepared: SearchQuery) => boolean = () => false,
): SearchQuery {
  const sort = distinctSortKeys(query.sort);
  const prepared = sort.length === query.sort.length ? query : { ...query, sort };
  checkQueryLimits(prepared, limits);
  if (isDeepPage(prepared, limits) && !continues(prepared)) {
    throw new QueryLimitError(
      'offset',
      `The page starts at offset ${count(prepared.offset)}, beyond QUERY_MAX_OFFSET (${count(limits.maxOffset)}) for a sorted or free-text search: to go deeper, follow the "next" links (CSW: nextRecord) page by page from an earlier page`,
    );
  }
  return prepared;
}

/**
 * Throws QueryLimitError (400) when a query exceeds one of the limits; the message names the
 * limit's setting and its value.
 */
export function checkQueryLimits(query: SearchQuery, limits: QueryLimits): void {
  const sortKeys = distinctSortKeys(query.sort).length;
  if (sortKeys > limits.maxSortKeys) {
    throw new QueryLimitError(
      'sortby',
      `The query sorts by ${count(sortKeys)} distinct properties; at most ${count(limits.maxSortKeys)} are allowed (QUERY_MAX_SORT_KEYS)`,
    );
  }
  checkText(query.text ?? [], limits);
  if ((query.text ?? []).some((term) => term.some((word) => word.includes('\u0000')))) {
    throw new QueryLimitError('q', 'The free text contains a NUL character (U+0000)');
  }
  const lists: [string, readonly unknown[] | undefined][] = [
    ['ids', query.ids],
    ['types', query.types],
    ['collections', query.collections],
    ['externalIds', query.externalIds],
    ...(query.properties ?? []).map((property): [string, string[]] => [
      property.name,
      property.values,
    ]),
  ];
  for (const [name, values] of lists) {
    if (values && values.length > limits.maxArrayItems) {
      throw new QueryLimitError(
        name,
        `"${name.slice(0, 64)}" lists ${count(values.length)} values; at most ${count(limits.maxArrayItems)} are allowed (QUERY_MAX_ARRAY_ITEMS)`,
      );
    }
  }
  const geometries: Geometry[] = query.spatial?.geometry ? [query.spatial.geometry] : [];
  if (query.filter) geometries.push(...checkFilterShape(query.filter, limits));
  checkGeometryTotals(geometries, limits, query.filter ? 'filter' : 'geometry');
}

/**
 * The limits on a filter alone, checked before the filter checker (check-filter.ts) validates
 * its literals, so an oversized filter is refused before any work on it. The query as a whole
 * (with its other geometries) is checked again by checkQueryLimits.
 */
export function checkFilterLimits(filter: Expression, limits: QueryLimits): void {
  checkGeometryTotals(checkFilterShape(filter, limits), limits, 'filter');
}

/** Checks a filter's depth, size and arrays; returns its geometries. */
function checkFilterShape(expression: Expression, limits: QueryLimits): Geometry[] {
  const filter = measureFilter(expression);
  if (filter.depth > limits.maxFilterDepth) {
    throw new QueryLimitError(
      'filter',
      `The filter nests ${count(filter.depth)} levels deep; at most ${count(limits.maxFilterDepth)} are allowed (QUERY_MAX_FILTER_DEPTH)`,
    );
  }
  if (filter.nodes > limits.maxFilterNodes) {
    throw new QueryLimitError(
      'filter',
      `The filter has ${count(filter.nodes)} operators and operands; at most ${count(limits.maxFilterNodes)} are allowed (QUERY_MAX_FILTER_NODES)`,
    );
  }
  if (filter.longestArray > limits.maxArrayItems) {
    throw new QueryLimitError(
      'filter',
      `An array in the filter has ${count(filter.longestArray)} items; at most ${count(limits.maxArrayItems)} are allowed (QUERY_MAX_ARRAY_ITEMS)`,
    );
  }
  if (filter.wildcardPatterns > limits.maxWildcardPatterns) {
    throw new QueryLimitError(
      'filter',
      `The filter has ${count(filter.wildcardPatterns)} LIKE patterns with a wildcard other than a trailing %; at most ${count(limits.maxWildcardPatterns)} are allowed (QUERY_MAX_WILDCARD_PATTERNS)`,
    );
  }
  if (filter.mostPatternWildcards > limits.maxPatternWildcards) {
    throw new QueryLimitError(
      'filter',
      `A LIKE pattern of the filter has ${count(filter.mostPatternWildcards)} wildcards (each _ and each run of %); at most ${count(limits.maxPatternWildcards)} are allowed in one pattern (QUERY_MAX_PATTERN_WILDCARDS)`,
    );
  }
  return filter.geometries;
}

/** Checks the parts and vertices of a query's geometries together. */
function checkGeometryTotals(geometries: Geometry[], limits: QueryLimits, locator: string): void {
  let parts = 0;
  let vertices = 0;
  for (const geometry of geometries) {
    const measured = measureGeometry(geometry);
    parts += measured.parts;
    vertices += measured.vertices;
  }
  if (parts > limits.maxGeometryParts) {
    throw new QueryLimitError(
      locator,
      `The query's geometries have ${count(parts)} parts (polygon rings, lines and points); at most ${count(limits.maxGeometryParts)} are allowed (QUERY_MAX_GEOMETRY_PARTS)`,
    );
  }
  if (vertices > limits.maxGeometryVertices) {
    throw new QueryLimitError(
      locator,
      `The query's geometries have ${count(vertices)} vertices; at most ${count(limits.maxGeometryVertices)} are allowed (QUERY_MAX_GEOMETRY_VERTICES)`,
    );
  }
}

/**
 * How many tokens a filter text within the limits can have, at most: a few per operator or
 * operand, one per array item, two per vertex. Parsing cost grows with tokens, so text beyond
 * this is refused before it is parsed.
 */
function maxFilterTokens(limits: QueryLimits): number {
  return 8 * limits.maxFilterNodes + 2 * limits.maxArrayItems + 3 * limits.maxGeometryVertices;
}

/** Tokens of a filter text, roughly (quoted strings count as one): an upper bound's input. */
const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|[A-Za-z_][\w:.]*|-?\d[\d.eE+-]*|[^\s\w'"]/g;

/**
 * Refuses, before parsing, a filter text (CQL2 text, OGC CQL) far larger than any filter within
 * the limits: parsing alone would cost more than the query.
 */
export function checkFilterTextSize(text: string, limits: QueryLimits): void {
  const bound = maxFilterTokens(limits);
  let tokens = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text) !== null) {
    tokens += 1;
    if (tokens > bound) {
      throw new QueryLimitError(
        'filter',
        `The filter text has more than ${count(bound)} tokens, more than any filter within QUERY_MAX_FILTER_NODES (${count(limits.maxFilterNodes)}), QUERY_MAX_ARRAY_ITEMS (${count(limits.maxArrayItems)}) and QUERY_MAX_GEOMETRY_VERTICES (${count(limits.maxGeometryVertices)}) can have`,
      );
    }
  }
}

/**
 * Checks a CQL2 JSON filter before it is validated and built (schema validation costs time per
 * value): operator objects against QUERY_MAX_FILTER_NODES, arrays of plain values against
 * QUERY_MAX_ARRAY_ITEMS, positions against QUERY_MAX_GEOMETRY_VERTICES, and nesting against a
 * depth no filter within QUERY_MAX_FILTER_DEPTH exceeds. Iterative: any depth is measured.
 */
export function checkFilterJsonSize(input: unknown, limits: QueryLimits): void {
  const maxJsonDepth = 2 * limits.maxFilterDepth + 8;
  let objects = 0;
  let positions = 0;
  let parts = 0;
  const pending: [unknown, number][] = [[input, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (depth > maxJsonDepth) {
      throw new QueryLimitError(
        'filter',
        `The filter nests more than ${count(limits.maxFilterDepth)} levels deep (QUERY_MAX_FILTER_DEPTH)`,
      );
    }
    if (Array.isArray(value)) {
      const isPosition =
        value.length >= 2 && value.length <= 4 && value.every((item) => typeof item === 'number');
      if (isPosition) {
        positions += 1;
        if (positions > limits.maxGeometryVertices) {
          throw new QueryLimitError(
            'filter',
            `The filter's geometries have more than ${count(limits.maxGeometryVertices)} vertices (QUERY_MAX_GEOMETRY_VERTICES)`,
          );
        }
        continue;
      }
      const holdsPositions = value.length > 0 && Array.isArray(value[0]);
      if (holdsPositions && typeof (value[0] as unknown[])[0] === 'number') {
        parts += 1;
        if (parts > limits.maxGeometryParts) {
          throw new QueryLimitError(
            'filter',
            `The filter's geometries have more than ${count(limits.maxGeometryParts)} parts (polygon rings, lines and points) (QUERY_MAX_GEOMETRY_PARTS)`,
          );
        }
      }
      if (!holdsPositions && value.length > limits.maxArrayItems) {
        throw new QueryLimitError(
          'filter',
          `An array in the filter has ${count(value.length)} items; at most ${count(limits.maxArrayItems)} are allowed (QUERY_MAX_ARRAY_ITEMS)`,
        );
      }
      for (const item of value)
        if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
    } else if (typeof value === 'object' && value !== null) {
      objects += 1;
      if (objects > limits.maxFilterNodes) {
        throw new QueryLimitError(
          'filter',
          `The filter has more than ${count(limits.maxFilterNodes)} operators and operands (QUERY_MAX_FILTER_NODES)`,
        );
      }
      for (const [key, member] of Object.entries(value)) {
        // An operator's operands count as nodes, not as the items of an array.
        const items = key === 'args' && Array.isArray(member) ? (member as unknown[]) : [member];
        for (const item of items) {
          if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
        }
      }
    }
  }
}
