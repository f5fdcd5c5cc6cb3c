/**
 * Lays an IndexDocument out as an Elasticsearch / OpenSearch document (the mapping is in
 * `es-mappings/records.base.json`). Every searchable value comes from the IndexDocument; this
 * module only places it and adds the folded copies the minimal distributions cannot compute.
 */
import type { Geometry } from 'geojson';
import type { Bbox, CoreRecord } from '../../records/core-record.js';
import type { IndexDocument } from '../../records/index-document.js';
import { parseTimeValue } from '../../records/time.js';
import { isTextSortable } from '../../query/queryables.js';
import { isRectangle } from '../../query/bbox-geometry.js';
import { textSortKey } from '../../query/text-folding.js';
import {
  encodeFieldName,
  FOLDS,
  hasFoldedCopies,
  hasTimeSpans,
  presenceShowsOnField,
  TIME_FIELDS,
  TIME_SPAN_VIEWS,
} from './engine-fields.js';
import type { SpatialMode } from './index-templates.js';
import { boxCentre } from '../aggregations.js';

/** The stored (not indexed) part of a document, enough to give the record back verbatim. */
export interface StoredParts {
  record: Omit<CoreRecord, 'source'> & { source: { format: string; mediaType: string } };
  source: CoreRecord['source'];
}

export type EngineDocument = Record<string, unknown> & StoredParts & { id: string };

/** An envelope in the engine's GeoJSON extension: [[west, north], [east, south]]. */
export function envelopeShape([west, south, east, north]: Bbox): Record<string, unknown> {
  return {
    type: 'envelope',
    coordinates: [
      [west, north],
      [east, south],
    ],
  };
}

/**
 * Whether a geometry is exactly its bounding box: a point (or one point), or an axis-aligned
 * rectangle (bbox-geometry.ts).
 */
export function isBoxGeometry(geometry: Geometry): boolean {
  if (geometry.type === 'Point') return true;
  if (geometry.type === 'MultiPoint') return geometry.coordinates.length === 1;
  return isRectangle(geometry);
}

/** The record's box as written (west > east crosses the antimeridian), from its halves. */
export function unsplitBbox(boxes: Bbox[]): Bbox | undefined {
  const first = boxes[0];
  const last = boxes.at(-1);
  if (first === undefined || last === undefined) return undefined;
  return [first[0], first[1], last[2], first[3]];
}

/**
 * The folded copy of a string or string array, or undefined when it equals `base` (by default
 * the value itself: folding changed nothing; `null`: always the copy).
 */
function foldedCopy(
  value: unknown,
  fold: (text: string) => string,
  base: unknown = value,
): unknown {
  if (typeof value === 'string') {
    const folded = fold(value);
    return folded === base ? undefined : folded;
  }
  if (Array.isArray(value) && value.some((item) => typeof item === 'string')) {
    const folded = (value as unknown[]).map((item) =>
      typeof item === 'string' ? fold(item) : item,
    );
    if (base === null) return folded;
    const against = base as unknown[];
    return folded.some((item, index) => item !== against[index]) ? folded : undefined;
  }
  return undefined;
}

/** Text made only of ASCII characters, whose CASEI fold is plain ASCII lower case. */
// eslint-disable-next-line no-control-regex -- every ASCII character, controls included
const ASCII = /^[\x00-\x7f]*$/;

/** Whether any string in the value has a character beyond ASCII. */
function hasNonAsciiText(value: unknown): boolean {
  if (typeof value === 'string') return !ASCII.test(value);
  return (
    Array.isArray(value) && value.some((item) => typeof item === 'string' && !ASCII.test(item))
  );
}

const FOLDED_COPIES = ['ci', 'ai', 'cai'] as const;
type FoldedCopy = (typeof FOLDED_COPIES)[number];

/**
 * The folded copies of one value. `ci` is written only for text with a character beyond ASCII
 * (always, even where folding leaves it unchanged): CASEI on plain-ASCII text is ASCII lower
 * case, which the engines match on the field itself (case-insensitive.ts), so the common text
 * needs no copy. `ai` is written where folding changes the value; `cai` only where it also
 * differs from the CASEI view (the `ci` copy), that is only for text with accents. The filter
 * compiler falls back along the same chain (compile-filter.ts, `onView`).
 */
function foldedCopies(value: unknown): Partial<Record<FoldedCopy, unknown>> {
  if (!hasNonAsciiText(value)) return {};
  const ci = foldedCopy(value, FOLDS.ci, null);
  const ai = foldedCopy(value, FOLDS.ai);
  if (ai === undefined) return { ci };
  return { ci, ai, cai: foldedCopy(value, FOLDS.cai, ci) };
}

/** The sort key copy of a text value (a string, or the strings of an array). */
function sortKeyCopy(value: unknown): unknown {
  if (typeof value === 'string') return textSortKey(value);
  if (Array.isArray(value)) {
    const keys = value.filter((item): item is string => typeof item === 'string').map(textSortKey);
    return keys.length > 0 ? keys : undefined;
  }
  return undefined;
}

/** Builds the engine document of a record from its IndexDocument. */
export function buildEngineDocument(
  document: IndexDocument,
  record: CoreRecord,
  spatial: SpatialMode,
  indexedAt: string = new Date().toISOString(),
  changed: string = indexedAt,
): EngineDocument {
  const props: Record<string, unknown> = {};
  const has: string[] = [];
  const folded: Record<FoldedCopy, Record<string, unknown>> = { ci: {}, ai: {}, cai: {} };
  const spans: Record<'tlo' | 'thi', Record<string, string>> = { tlo: {}, thi: {} };
  const sortKeys: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(document.properties)) {
    if (value === null) continue;
    // Only where the property's own field cannot show it (an empty array, say): every listed
    // name is one more term for the engine to index (es-mappings/README.md).
    if (!presenceShowsOnField(name, value)) has.push(name);
    if (TIME_FIELDS[name] !== undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const key = encodeFieldName(name);
    props[key] = value;
    if (typeof value === 'string' && hasTimeSpans(name)) {
      // The time span a date-like string stands for, compared with time literals.
      const span = parseTimeValue(value);
      if (span) {
        spans[TIME_SPAN_VIEWS.start][key] = span.start;
        spans[TIME_SPAN_VIEWS.end][key] = span.end;
      }
    }
    if (isTextSortable(name)) {
      const sortKey = sortKeyCopy(value);
      if (sortKey !== undefined) sortKeys[key] = sortKey;
    }
    if (!hasFoldedCopies(name)) continue;
    const copies = foldedCopies(value);
    for (const view of FOLDED_COPIES) {
      const copy = copies[view];
      if (copy !== undefined) folded[view][key] = copy;
    }
  }
  const { content, ...sourceInfo } = record.source;
  const result: EngineDocument = {
    id: document.id,
    indexedAt,
    changed,
    ...(has.length > 0 && { has }),
    anytext: FOLDS.ai(document.anytext),
    ...(Object.keys(document.stems).length > 0 && { stems: document.stems }),
    props,
    record: { ...record, source: sourceInfo },
    source: { ...sourceInfo, content },
  };
  for (const [view, copies] of Object.entries({ ...folded, ...spans })) {
    if (Object.keys(copies).length > 0) result[view] = copies;
  }
  if (Object.keys(sortKeys).length > 0) result.sort = sortKeys;

  const time: Record<string, unknown> = {};
  if (document.timeStart !== null) time.start = document.timeStart;
  if (document.timeEnd !== null) time.end = document.timeEnd;
  if (document.timeStart !== null || document.timeEnd !== null) {
    const range: Record<string, string> = {};
    if (document.timeStart !== null) range.gte = document.timeStart;
    if (document.timeEnd !== null) range.lte = document.timeEnd;
    time.range = range;
    result.time = time;
  }

  const bbox = unsplitBbox(document.boxes);
  if (bbox) {
    const [west, south, east, north] = bbox;
    result.bbox = { west, south, east, north };
    // The box's centre, which the grid aggregation counts (../aggregations.ts, boxCentre).
    const [lon, lat] = boxCentre(bbox);
    result.centre = { lon, lat };
    // The footprint is the box itself: spatial predicates on the box are exact.
    if (document.geometry === null || isBoxGeometry(document.geometry)) result.boxFootprint = true;
    document.boxes.forEach(([minx, miny, maxx, maxy], part) => {
      result[`box${part}`] = { minx, miny, maxx, maxy };
    });
  }
  if (spatial === 'shape') {
    const footprint: Geometry | Record<string, unknown> | undefined =
      document.geometry ?? (bbox ? envelopeShape(bbox) : undefined);
    if (footprint) result.geometry = footprint;
  }
  return result;
}

/** Rebuilds the CoreRecord from a document's stored parts. */
/**
 * The source part of a record read without it (its `record` part alone): the format and media
 * type the record part keeps, and empty content.
 */
export function sourceWithoutContent(
  record: Pick<StoredParts['record'], 'source'> | undefined,
): StoredParts['source'] {
  // Object.assign, not a literal opening with a spread: see buildStacItem
  // (shared/records/writers/stac-item.ts).
  return Object.assign({}, record?.source, { content: '' }) as StoredParts['source'];
}

export function readStoredRecord(stored: StoredParts): CoreRecord {
  return { ...stored.record, source: stored.source };
}

/**
 * `changed` is when the record was last written here (the OAI-PMH datestamp): the write time,
 * carried over unchanged by a reindex. `indexedAt` is when this copy was indexed (a reindex
 * sets it anew; its catch-up passes select on it).
 */

/** The parts of a stored `_source` a single record is read from. */
export const STORED_FIELDS = ['record', 'source'];

/**
 * What every page reads: the whole stored `_source`, not `STORED_FIELDS`, nor the record alone
 * for pages that present no source document. Naming fields makes the engine parse each hit's
 * source and write the named parts anew, where the whole of it is copied as stored: on 10-hit
 * pages, naming `record` alone cost the engine 1.8–2.1 ms more a page than the whole source,
 * and 3.2–3.4 ms more with 30 KB source documents, about twice what the API then spends parsing
 * the larger answer (docs/decisions/the-benchs-engine-side-asks-what-the-api-asks.md).
 */
export const WHOLE_SOURCE = true;
