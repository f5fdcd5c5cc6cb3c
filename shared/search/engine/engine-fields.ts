/**
 * Where each queryable lives in an engine document, and the text folding Cairn does in Node
 * because the minimal distributions have no asciifolding and their lowercase normalizer is not
 * CQL2's CASEI: one place, used by the document layout and by the DSL compiler alike.
 *
 * Layout (es-mappings/records.base.json): every property of the IndexDocument under `props.*`
 * (keyword by default, text with a `.keyword` sub-field for the searched text fields, `date`
 * and `double` where the base mapping says so), the record's time bounds under `time.*`, and
 * folded copies of string values under `ci.*` (CASEI), `ai.*` (ACCENTI) and `cai.*` (both),
 * each written only where folding changes the value.
 */
import { findQueryable, type Queryable } from '../../query/queryables.js';
import { foldCase, stripAccents } from '../../query/text-folding.js';
import { readDeclaredPropertyTypes } from './index-templates.js';

/** The folding views of a string property: none, CASEI, ACCENTI or both. */
export type FoldView = 'raw' | 'ci' | 'ai' | 'cai';

/** The folded copies and the function computing each (shared with the SQLite backend). */
export const FOLDS: Readonly<Record<Exclude<FoldView, 'raw'>, (text: string) => string>> = {
  ci: foldCase,
  ai: stripAccents,
  cai: (text) => foldCase(stripAccents(text)),
};

/** Record time bounds live beside their date_range, not among the other properties. */
export const TIME_FIELDS: Readonly<Record<string, string>> = {
  start_datetime: 'time.start',
  end_datetime: 'time.end',
};

/** The date_range of a record's time extent; present whenever the record has a time. */
export const TIME_RANGE_FIELD = 'time.range';

/** What an engine field holds. */
export type FieldKind = 'string' | 'number' | 'time' | 'unknown';

export interface EngineField {
  /** The property name the document stores (canonical for registered queryables). */
  name: string;
  /** The registered queryable, when the name is one of its names. */
  queryable?: Queryable | undefined;
  /** The field for exact comparisons, sorting and aggregations, and for testing presence. */
  path: string;
  /** The mapped kind, when the base mapping declares it. */
  declared?: FieldKind | undefined;
  /** The segment under `ci.` / `ai.` / `cai.` holding folded copies (string fields). */
  foldKey: string;
}

/** Encoded names already seen: every record of a catalogue repeats the same few dozen. */
const encodedNames = new Map<string, string>();
const ENCODED_NAMES_KEPT = 10_000;

/** Encodes a property name as one engine field name segment (no dots, no wildcards). */
export function encodeFieldName(name: string): string {
  let encoded = encodedNames.get(name);
  if (encoded === undefined) {
    encoded =
      name === ''
        ? '%'
        : name.replace(/[%.*]/g, (character) =>
            character === '%' ? '%25' : character === '.' ? '%2E' : '%2A',
          );
    if (encodedNames.size >= ENCODED_NAMES_KEPT) encodedNames.clear();
    encodedNames.set(name, encoded);
  }
  return encoded;
}

/** The property name an engine field name segment encodes (encodeFieldName reversed). */
export function decodeFieldName(segment: string): string {
  if (segment === '%') return '';
  return segment.replace(/%(25|2E|2A)/g, (_, code: string) =>
    code === '25' ? '%' : code === '2E' ? '.' : '*',
  );
}

const declared = readDeclaredPropertyTypes();

function declaredKind(mappingType: string | undefined): FieldKind | undefined {
  switch (mappingType) {
    case undefined:
      return undefined;
    case 'date':
      return 'time';
    case 'double':
      return 'number';
    default:
      return 'string';
  }
}

/**
 * Whether a property gets folded copies: not when the base mapping declares it a date or a
 * number, since CASEI and ACCENTI refuse such properties (compile-filter.ts), so a folded
 * copy of, say, `created` could never be queried.
 */
export function hasFoldedCopies(name: string): boolean {
  const kind = declaredKind(declared.get(name));
  return kind !== 'time' && kind !== 'number';
}

/**
 * The date fields holding the first and last instant of a date-like string property's value
 * (`tlo.<name>`, `thi.<name>`): what comparisons and temporal operators with a time literal
 * read, as the SQLite backend compares such a value by the span it stands for.
 */
export const TIME_SPAN_VIEWS = { start: 'tlo', end: 'thi' } as const;

/** Whether a property gets time span fields: not when it is mapped as a date or a number. */
export function hasTimeSpans(name: string): boolean {
  return hasFoldedCopies(name) && TIME_FIELDS[name] === undefined;
}

/** The span fields of a property: first and last instant of its date-like values. */
export function timeSpanPaths(field: EngineField): { lo: string; hi: string } {
  return {
    lo: `${TIME_SPAN_VIEWS.start}.${field.foldKey}`,
    hi: `${TIME_SPAN_VIEWS.end}.${field.foldKey}`,
  };
}

/** The longest string a keyword field indexes (`ignore_above` in records.base.json). */
export const KEYWORD_LIMIT = 8191;

/** Whether one scalar is certainly indexed by a field of the given mapped kind. */
function indexedBy(kind: FieldKind | undefined, item: unknown): boolean {
  switch (typeof item) {
    case 'string':
      // A dynamic field first mapped from a number refuses strings (ignore_malformed).
      return (kind === 'string' && item.length <= KEYWORD_LIMIT) || kind === 'time';
    case 'number':
      // A keyword field indexes a number as its text; a dynamic one is double or keyword.
      return kind === undefined || kind === 'number' || kind === 'string';
    case 'boolean':
      return kind === 'string';
    default:
      return false;
  }
}

/**
 * Whether a property's own field shows that a record has it, so that it need not be listed in
 * the document's `has` field: some value of it is certainly indexed there (not an empty array,
 * not an object, not a string beyond the keyword limit, not a value the field's mapped type
 * would drop as malformed). The filter compiler tests presence as "the field has a value, or
 * `has` names the property" (compile-filter.ts), which also reads documents written when every
 * property was listed.
 */
export function presenceShowsOnField(name: string, value: unknown): boolean {
  if (TIME_FIELDS[name] !== undefined) return typeof value === 'string';
  const kind = declaredKind(declared.get(name));
  return Array.isArray(value)
    ? value.some((item) => indexedBy(kind, item))
    : indexedBy(kind, value);
}

/** The engine field of a stored property name (canonical or extra). */
export function fieldOf(name: string, queryable?: Queryable): EngineField {
  const timePath = TIME_FIELDS[name];
  const encoded = encodeFieldName(name);
  if (timePath) {
    return {
      name,
      queryable,
      path: timePath,
      declared: 'time',
      foldKey: encoded,
    };
  }
  const base = `props.${encoded}`;
  const mappingType = declared.get(name);
  // The text fields are kept for reading only (not indexed): their keyword sub-field is the
  // one to compare and to test for presence.
  const path = mappingType === 'text' ? `${base}.keyword` : base;
  return {
    name,
    queryable,
    path,
    declared: declaredKind(mappingType),
    foldKey: encoded,
  };
}

/**
 * Resolves a property name as filters do (and as the SQLite filter compiler does): the exact,
 * case-sensitive names and aliases of the queryables registry first, then the record's own
 * property of that name.
 */
export function resolveFilterProperty(name: string): EngineField {
  const candidate = findQueryable(name);
  const queryable =
    candidate && (candidate.name === name || candidate.aliases.includes(name))
      ? candidate
      : undefined;
  return fieldOf(queryable?.name ?? name, queryable);
}

/** The path of a folded copy of a string field. */
export function foldPath(field: EngineField, view: Exclude<FoldView, 'raw'>): string {
  return `${view}.${field.foldKey}`;
}
