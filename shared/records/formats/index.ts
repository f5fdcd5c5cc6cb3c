/**
 * Format detection and dispatch: one raw document (a single record or a collection of
 * records, JSON, NDJSON or XML) in, CoreRecords and per-record failures out. One bad record
 * never stops the rest.
 */
import { CairnError, InvalidRecordError } from '../../errors/index.js';
import type { CoreRecord, SourceFormat } from '../core-record.js';
import { DEFAULT_JSON_DEPTH, exceedsJsonDepth, jsonDepthMessage } from './json/json-depth.js';
import { asObject, asString, type JsonObject } from './json/json-values.js';
import { parseOgcRecord } from './json/ogc-record.js';
import { parseStacCollection, parseStacItem } from './json/stac.js';
import { parseXmlDocuments } from './xml/index.js';

export interface RecordFailure {
  /** Where the failed record came from: file name, index in the collection, or its id. */
  name: string;
  reason: string;
}

export interface ParsedDocuments {
  records: CoreRecord[];
  failures: RecordFailure[];
}

export interface ParseOptions {
  /** Force a format instead of detecting it from content. */
  format?: SourceFormat | undefined;
  /** Names the document in failure reasons (a file path, a request). */
  name?: string | undefined;
  /** Largest accepted document in bytes. */
  maxBytes?: number | undefined;
  /** Deepest nesting of JSON arrays and objects (JSON_DEPTH_LIMIT); default 64. */
  maxDepth?: number | undefined;
}

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

/** Decides which JSON format a parsed object is, or undefined when it is none we read. */
export function detectJsonFormat(object: JsonObject): SourceFormat | undefined {
  const isStac = typeof object.stac_version === 'string';
  if (object.type === 'Feature') {
    if (isStac) return 'stac-item';
    return object.time !== undefined || Array.isArray(object.conformsTo) ? 'ogc-record' : 'geojson';
  }
  if (object.type === 'Collection' && isStac) return 'stac-collection';
  return undefined;
}

/**
 * Parses one JSON record. `text` is the record's own text when it has one (a whole document or
 * an NDJSON line holding just this record), kept as its source verbatim; a member of an array
 * or FeatureCollection has none and keeps its compact JSON.
 */
function parseJsonRecord(
  object: JsonObject,
  format: SourceFormat | undefined,
  text?: string,
): CoreRecord {
  const detected = format ?? detectJsonFormat(object);
  const content = text ?? JSON.stringify(object);
  switch (detected) {
    case 'stac-item':
      return parseStacItem(object, content);
    case 'stac-collection':
      return parseStacCollection(object, content);
    case 'ogc-record':
    case 'geojson':
      return parseOgcRecord(object, content);
    case undefined:
      throw new InvalidRecordError(
        `not a known JSON metadata format (type "${asString(object.type) ?? 'missing'}")`,
      );
    default:
      throw new InvalidRecordError(`format "${detected}" is not a JSON format`);
  }
}

function describe(error: unknown): string {
  if (error instanceof CairnError && error.expose) return error.message;
  return error instanceof SyntaxError ? `malformed JSON: ${error.message}` : 'unreadable record';
}

/** Splits parsed JSON into the record objects it holds (FeatureCollection, array or one object). */
function listJsonMembers(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  const object = asObject(value);
  if (object?.type === 'FeatureCollection' && Array.isArray(object.features))
    return object.features;
  return [value];
}

/**
 * A JSON value read from a document with the text it was read from, or the NDJSON line that
 * could not be read.
 */
type JsonItem = { value: unknown; text?: string } | { line: number; error: unknown };

/** One JSON document, or NDJSON (one value a line; a bad line fails alone). */
function readJsonValues(text: string): JsonItem[] {
  try {
    return [{ value: JSON.parse(text), text: text.trim() }];
  } catch (error) {
    const lines = text.split('\n');
    let filled = 0;
    for (const line of lines) if (line.trim() !== '' && ++filled >= 2) break;
    if (filled < 2) throw error;
    const items: JsonItem[] = [];
    lines.forEach((line, index) => {
      const trimmed = line.trim();
      if (trimmed === '') return;
      try {
        items.push({ value: JSON.parse(trimmed), text: trimmed });
      } catch (lineError) {
        items.push({ line: index + 1, error: lineError });
      }
    });
    return items;
  }
}

function parseJsonDocuments(text: string, options: ParseOptions): ParsedDocuments {
  const result: ParsedDocuments = { records: [], failures: [] };
  const name = options.name ?? 'document';
  const members = readJsonValues(text).flatMap((item): JsonItem[] => {
    if (!('value' in item)) return [item];
    const values = listJsonMembers(item.value);
    // A record that is the whole text it was read from keeps that text as its source.
    if (values.length === 1 && values[0] === item.value) return [item];
    return values.map((value) => ({ value }));
  });
  members.forEach((member, index) => {
    const label = members.length > 1 ? `${name}[${index}]` : name;
    if (!('value' in member)) {
      result.failures.push({ name: `${name} line ${member.line}`, reason: describe(member.error) });
      return;
    }
    const object = asObject(member.value);
    try {
      if (!object) throw new InvalidRecordError('expected a JSON object');
      result.records.push(parseJsonRecord(object, options.format, member.text));
    } catch (error) {
      const id = asString(object?.id);
      result.failures.push({ name: id ? `${label} (id ${id})` : label, reason: describe(error) });
    }
  });
  return result;
}

/** Parses one raw document holding one or many metadata records of any supported format. */
export function parseDocuments(content: string, options: ParseOptions = {}): ParsedDocuments {
  const name = options.name ?? 'document';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (Buffer.byteLength(content, 'utf8') > maxBytes) {
    return { records: [], failures: [{ name, reason: `larger than the ${maxBytes}-byte limit` }] };
  }
  const text = content.replace(/^\uFEFF/, '');
  const first = text.trimStart()[0];
  try {
    // `maxDepth` is the JSON nesting limit (JSON_DEPTH_LIMIT): XML keeps its own element depth.
    if (first === '<') return parseXmlDocuments(text, { ...options, maxDepth: undefined });
    if (first === '{' || first === '[') {
      const maxDepth = options.maxDepth ?? DEFAULT_JSON_DEPTH;
      if (exceedsJsonDepth(text, maxDepth))
        throw new InvalidRecordError(jsonDepthMessage(maxDepth));
      return parseJsonDocuments(text, options);
    }
    throw new InvalidRecordError('neither JSON nor XML');
  } catch (error) {
    return { records: [], failures: [{ name, reason: describe(error) }] };
  }
}
