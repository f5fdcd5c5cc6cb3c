/**
 * CQL2 JSON → filter AST. The input is first validated against the official CQL2 JSON schema
 * (cql2.schema.json, JSON Schema 2020-12, a copy of OGC's `cql2.json`); only then is the tree
 * built, with the checks the schema cannot make (real calendar dates, names CQL2 text can
 * write). Every failure is a FilterError naming the JSON pointer at fault.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Geometry, Position } from 'geojson';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { FilterError } from '../../errors/index.js';
import type { Expression } from '../filter-ast.js';
import {
  describeInvalidDate,
  describeInvalidTimestamp,
  isCql2Identifier,
  isCql2ReservedWord,
  isCql2TextString,
  normalizeTimestamp,
} from './cql2-lexical.js';
import { STANDARD_OPS } from './cql2-operators.js';
import { checkFilterJsonSize, type QueryLimits } from '../query-limits.js';

const SCHEMA_FILE = 'shared/query/cql2/cql2.schema.json';

/**
 * Finds the schema from this module's directory upwards, so that it is found both from the
 * sources (tsx) and from a compiled copy under dist/.
 */
function locateSchema(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(directory, SCHEMA_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`Cannot find ${SCHEMA_FILE}`);
    directory = parent;
  }
}

const validateSchema = new Ajv2020({
  strict: false,
  strictNumbers: true,
  allErrors: false,
}).compile(JSON.parse(readFileSync(locateSchema(), 'utf8')) as object);

/** Keywords whose errors only say which branch of a choice failed. */
const BRANCH_KEYWORDS = new Set(['oneOf', 'anyOf', 'not', 'if', 'false schema']);

/** One schema error in words, with the allowed values of an enum. */
function describeSchemaError(error: ErrorObject): string {
  const message = error.message ?? 'is invalid';
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return `${message}: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return message;
}

/** The value a JSON pointer designates. */
function valueAt(root: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((value, key) => {
      const member = key.replace(/~1/g, '/').replace(/~0/g, '~');
      return isObject(value) || Array.isArray(value)
        ? (value as Record<string, unknown>)[member]
        : undefined;
    }, root);
}

/**
 * Picks the schema errors that explain the failure: the deepest location that failed for a
 * reason other than "not this branch", with every reason given there. A `oneOf` schema reports
 * each rejected alternative; the deepest one is where the input went wrong.
 */
function summarizeSchemaErrors(errors: ErrorObject[], root: unknown): string {
  const substantive = errors.filter((error) => !BRANCH_KEYWORDS.has(error.keyword));
  const nonEnum = substantive.filter((error) => error.keyword !== 'enum');
  const candidates = nonEnum.length > 0 ? nonEnum : substantive.length > 0 ? substantive : errors;
  const depth = (error: ErrorObject): number => error.instancePath.split('/').length;
  const deepest = Math.max(...candidates.map(depth));
  const pointer = candidates.find((error) => depth(error) === deepest)?.instancePath ?? '';
  const here = candidates.filter((error) => error.instancePath === pointer);
  const where = `Invalid CQL2 JSON at ${pointer === '' ? '/' : pointer}`;
  // A standard operator in the wrong place fails every branch on its type or its name only.
  const node = valueAt(root, pointer);
  if (
    isObject(node) &&
    typeof node.op === 'string' &&
    STANDARD_OPS.has(node.op) &&
    here.every((error) => error.keyword === 'type')
  ) {
    return `${where}: the operator "${node.op}" cannot be used at this position`;
  }
  return `${where}: ${[...new Set(here.map(describeSchemaError))].join('; ')}`;
}

/** A FilterError for a value at a JSON pointer. */
function invalidAt(pointer: string, reason: string): FilterError {
  return new FilterError(`Invalid CQL2 JSON at ${pointer === '' ? '/' : pointer}: ${reason}`);
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The members that decide what kind of node an object is. */
const KIND_MEMBERS = ['op', 'property', 'date', 'timestamp', 'interval', 'bbox', 'type'] as const;

/** Checks a string can be written in CQL2 text, which cannot hold some control characters. */
function checkString(value: string, pointer: string): string {
  if (!isCql2TextString(value)) {
    throw invalidAt(pointer, 'the string holds a character CQL2 text cannot encode');
  }
  return value;
}

/** Builds an operator or function node; custom function names must be CQL2 identifiers. */
function buildOperator(node: JsonObject, pointer: string): Expression {
  const op = node.op as string;
  if (!STANDARD_OPS.has(op)) {
    const standard = [...STANDARD_OPS].find((name) => name.toLowerCase() === op.toLowerCase());
    if (standard !== undefined) {
      throw invalidAt(`${pointer}/op`, `unknown operator "${op}"; did you mean "${standard}"?`);
    }
    if (!isCql2Identifier(op) || isCql2ReservedWord(op)) {
      throw invalidAt(`${pointer}/op`, `"${op}" is not a valid function name`);
    }
  }
  const args = (node.args as unknown[]).map((arg, i) => build(arg, `${pointer}/args/${i}`));
  if (op === 'in' && args[1]?.kind === 'array' && args[1].items.length === 0) {
    throw invalidAt(`${pointer}/args/1`, 'an IN list needs at least one value');
  }
  return { kind: 'op', op, args };
}

/** Builds a DATE literal after checking the calendar. */
function buildDate(value: string, pointer: string): Expression {
  const problem = describeInvalidDate(value);
  if (problem) throw invalidAt(pointer, problem);
  return { kind: 'date', value };
}

/** Builds a TIMESTAMP literal after checking the calendar and the clock. */
function buildTimestamp(value: string, pointer: string): Expression {
  const problem = describeInvalidTimestamp(value);
  if (problem) throw invalidAt(pointer, problem);
  return { kind: 'timestamp', value: normalizeTimestamp(value) };
}

/** One end of an interval: an instant string, '..', a property or a function. */
function buildIntervalEnd(value: unknown, pointer: string): Expression {
  if (typeof value !== 'string') return build(value, pointer);
  if (value === '..') return { kind: 'literal', value: '..' };
  return value.includes('T') ? buildTimestamp(value, pointer) : buildDate(value, pointer);
}

/** Checks a position has 2 or 3 coordinates (CQL2 text cannot write more). */
function checkPosition(position: Position, pointer: string): Position {
  if (position.length > 3) throw invalidAt(pointer, 'a position has 2 or 3 coordinates');
  return [...position];
}

/** Checks a list the text encoding needs at least one element of. */
function checkNonEmpty<T>(items: T[], pointer: string): T[] {
  if (items.length === 0) throw invalidAt(pointer, 'must NOT be empty');
  return items;
}

const positions = (items: Position[], pointer: string): Position[] =>
  items.map((position, i) => checkPosition(position, `${pointer}/${i}`));

const polygon = (rings: Position[][], pointer: string): Position[][] =>
  checkNonEmpty(rings, pointer).map((ring, i) => positions(ring, `${pointer}/${i}`));

/**
 * Rebuilds a GeoJSON geometry with only its type and coordinates: foreign members are dropped,
 * as CQL2 text has no place for them (the schema already refuses a `bbox` member, which makes
 * a geometry match the BBOX literal too).
 */
function buildGeometry(node: JsonObject, pointer: string): Geometry {
  const at = `${pointer}/coordinates`;
  switch (node.type) {
    case 'Point':
      return { type: 'Point', coordinates: checkPosition(node.coordinates as Position, at) };
    case 'LineString':
      return { type: 'LineString', coordinates: positions(node.coordinates as Position[], at) };
    case 'Polygon':
      return { type: 'Polygon', coordinates: polygon(node.coordinates as Position[][], at) };
    case 'MultiPoint':
      return {
        type: 'MultiPoint',
        coordinates: positions(checkNonEmpty(node.coordinates as Position[], at), at),
      };
    case 'MultiLineString':
      return {
        type: 'MultiLineString',
        coordinates: checkNonEmpty(node.coordinates as Position[][], at).map((line, i) =>
          positions(line, `${at}/${i}`),
        ),
      };
    case 'MultiPolygon':
      return {
        type: 'MultiPolygon',
        coordinates: checkNonEmpty(node.coordinates as Position[][][], at).map((rings, i) =>
          polygon(rings, `${at}/${i}`),
        ),
      };
    default:
      return {
        type: 'GeometryCollection',
        geometries: (node.geometries as JsonObject[]).map((member, i) =>
          buildGeometry(member, `${pointer}/geometries/${i}`),
        ),
      };
  }
}

/** Builds the AST of a schema-valid CQL2 JSON value. */
function build(value: unknown, pointer: string): Expression {
  if (typeof value === 'string') return { kind: 'literal', value: checkString(value, pointer) };
  if (typeof value === 'number' || typeof value === 'boolean') return { kind: 'literal', value };
  if (Array.isArray(value)) {
    return { kind: 'array', items: value.map((item, i) => build(item, `${pointer}/${i}`)) };
  }
  const node = value as JsonObject;
  const kinds = KIND_MEMBERS.filter((member) => Object.hasOwn(node, member));
  if (kinds.length > 1) {
    throw invalidAt(pointer, `ambiguous object with members ${kinds.join(' and ')}`);
  }
  switch (kinds[0]) {
    case 'op':
      return buildOperator(node, pointer);
    case 'property': {
      const name = node.property as string;
      if (!isCql2Identifier(name)) {
        throw invalidAt(`${pointer}/property`, `"${name}" is not a valid property name`);
      }
      return { kind: 'property', name };
    }
    case 'date':
      return buildDate(node.date as string, `${pointer}/date`);
    case 'timestamp':
      return buildTimestamp(node.timestamp as string, `${pointer}/timestamp`);
    case 'interval': {
      const [start, end] = node.interval as unknown[];
      return {
        kind: 'interval',
        start: buildIntervalEnd(start, `${pointer}/interval/0`),
        end: buildIntervalEnd(end, `${pointer}/interval/1`),
      };
    }
    case 'bbox':
      return { kind: 'bbox', bbox: [...(node.bbox as number[])] };
    default:
      return { kind: 'geometry', geometry: buildGeometry(node, pointer) };
  }
}

/** Reads JSON text, reporting a syntax error as a FilterError. */
function readJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FilterError(`Invalid CQL2 JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Parses a CQL2 JSON filter (a parsed JSON value, or JSON text) into the shared filter AST.
 * A JSON string is never a valid filter, so a string argument is read as JSON text. With
 * limits, a filter far over them is refused before the (costly) schema validation.
 */
export function parseCql2Json(input: unknown, limits?: QueryLimits): Expression {
  const value = typeof input === 'string' ? readJson(input) : input;
  if (limits) checkFilterJsonSize(value, limits);
  try {
    if (!validateSchema(value))
      throw new FilterError(summarizeSchemaErrors(validateSchema.errors ?? [], value));
    return build(value, '');
  } catch (error) {
    if (error instanceof RangeError) {
      throw new FilterError('Invalid CQL2 JSON: the expression is nested too deeply', {
        cause: error,
      });
    }
    throw error;
  }
}
