/**
 * A record as the SQLite backend stores it: the column values, the free text for FTS5 and the
 * boxes for the R*Tree. Building a row is pure (no connection), so bulk loads can build rows
 * on worker threads while the main thread only writes them (shared/ingest/parallel-ingest.ts).
 */
import type { Bbox, CoreRecord, SourceFormat } from '../../records/core-record.js';
import { buildIndexDocument } from '../../records/index-document.js';
import { textSortKey } from '../../query/text-folding.js';
import { ownPropertyTypes, type LearnedType } from '../../query/queryables.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import { utcMidnight } from '../../records/time.js';
import { footprintRectangle } from './sql-functions.js';
import { boxCentre } from '../aggregations.js';
import { ftsText } from './stem-tokens.js';

export interface SqliteRow {
  id: string;
  type: string | null;
  title: string | null;
  /** The title's sort key (textSortKey), for the `records_title_key` index. */
  titleKey: string | null;
  parentId: string | null;
  created: string | null;
  updated: string | null;
  timeStart: string | null;
  timeEnd: string | null;
  hasTime: 0 | 1;
  /** The interval as epoch milliseconds, open ends beyond every instant; null without time. */
  timeLo: number | null;
  timeHi: number | null;
  /** The geohash of the box's centre at 60 bits (geocellOf); null without a box. */
  geocell: bigint | null;
  /** The box's centre (boxCentre); null without a box. */
  centreLon: number | null;
  centreLat: number | null;
  /** The footprint's edges when the footprint is exactly that rectangle, else null (footprintBox). */
  boxWest: number | null;
  boxSouth: number | null;
  boxEast: number | null;
  boxNorth: number | null;
  /** The record's own box (`record.bbox`), for the extents of collections' items. */
  bboxWest: number | null;
  bboxSouth: number | null;
  bboxEast: number | null;
  bboxNorth: number | null;
  /** The index document's properties as JSON: what filters and GetDomain read. */
  props: string;
  geometry: string | null;
  /** The CoreRecord as JSON, without its source content (kept once, in `source`). */
  record: string;
  sourceFormat: SourceFormat;
  sourceMediaType: string;
  source: string;
  anytext: string;
  boxes: Bbox[];
  /** The record's own properties (not core queryables) with their JSON types, to learn. */
  learned: [string, LearnedType][];
}

/** `time_lo` of an open start: below every instant of the years 0000–9999. */
export const OPEN_START_MS = Number.MIN_SAFE_INTEGER;
/** `time_hi` of an open end: above every instant of the years 0000–9999. */
export const OPEN_END_MS = Number.MAX_SAFE_INTEGER;

/** A normalised instant (shared/records/time.ts): `YYYY-MM-DDThh:mm:ss.sssZ`. */
const NORMALISED_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

/**
 * Milliseconds since the epoch of a normalised instant, or undefined for any other text. Over
 * normalised instants (fixed width, years 0000–9999) this keeps their string order, so integer
 * comparisons of the results answer what string comparisons of the texts do.
 */
export function instantMillis(text: string): number | undefined {
  const match = NORMALISED_INSTANT.exec(text);
  if (!match) return undefined;
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0] = match.slice(1).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const midnight = utcMidnight(y, mo, d);
  // setUTCFullYear rolls a day past the month's end into the next month: not normalised.
  if (new Date(midnight).getUTCDate() !== d) return undefined;
  return midnight + ((h * 60 + mi) * 60 + s) * 1000 + ms;
}

/**
 * The stored interval columns of a record's time: NULL without time, else the start's and the
 * end's milliseconds with open ends beyond every instant. Stored instants are normalised (the
 * record model parses every time value with shared/records/time.ts); an instant that is not
 * would be read with Date.parse, and as open if even that fails.
 */
export function intervalMillis(
  start: string | null,
  end: string | null,
): [number, number] | [null, null] {
  if (start === null && end === null) return [null, null];
  const millis = (text: string | null, open: number): number => {
    if (text === null) return open;
    const value = instantMillis(text) ?? Date.parse(text);
    return Number.isFinite(value) ? value : open;
  };
  return [millis(start, OPEN_START_MS), millis(end, OPEN_END_MS)];
}

/** Bits of the stored geohash cell (precision 12, the finest the grid offers). */
export const GEOCELL_BITS = 60;

/**
 * The geohash of the centre of a box (boxCentre) at 60 bits, as an integer: the bits of
 * geohashOfCell's column and row at 30 bits each, interleaved longitude first. The column is
 * floor(lon / (360 / 2^30)), the same double operations as the grid's `floor(lon / width)`:
 * dividing by a power-of-two fraction of 360 scales one correctly rounded quotient, so the
 * column at a coarser precision is this one shifted right, and likewise for the row.
 */
export function geocellOf(box: Bbox): bigint {
  const [lon, lat] = boxCentre(box);
  const half = GEOCELL_BITS / 2;
  const column = Math.floor(lon / (360 / 2 ** half));
  const row = Math.floor(lat / (180 / 2 ** half));
  // Counted from -180° and -90°; the edges 180° and 90° belong to the last column and row.
  const x = Math.min(column + 2 ** (half - 1), 2 ** half - 1);
  const y = Math.min(row + 2 ** (half - 1), 2 ** half - 1);
  // Two halves of 30 bits each (15 bits of the column and of the row), in plain numbers.
  const high = interleave(x >> 15, y >> 15);
  const low = interleave(x & 0x7fff, y & 0x7fff);
  return (BigInt(high) << 30n) | BigInt(low);
}

/** The bits of a 15-bit number spread to the even positions of 30 bits. */
function spread(value: number): number {
  let bits = value;
  bits = (bits | (bits << 8)) & 0x00ff00ff;
  bits = (bits | (bits << 4)) & 0x0f0f0f0f;
  bits = (bits | (bits << 2)) & 0x33333333;
  return (bits | (bits << 1)) & 0x55555555;
}

/** 30 bits alternating those of `x` and `y` (15 bits each), a bit of `x` first. */
function interleave(x: number, y: number): number {
  return (spread(x) << 1) | spread(y);
}

/**
 * The rectangle a record's footprint (its geometry, else the geometry of its bbox, as the
 * filter's exact spatial predicates read it) is exactly, or undefined: for such a record the
 * predicates against a query rectangle are decided by comparing edges.
 */
export function footprintBox(geometry: unknown, bbox: Bbox | null | undefined): Bbox | undefined {
  return footprintRectangle(geometry ?? (bbox ? bboxToGeometry(bbox) : null));
}

function intervalColumns(
  start: string | null,
  end: string | null,
): { timeLo: number | null; timeHi: number | null } {
  const [timeLo, timeHi] = intervalMillis(start, end);
  return { timeLo, timeHi };
}

/** Builds the stored row of a record; throws when the record cannot be indexed. */
export function toSqliteRow(record: CoreRecord): SqliteRow {
  const document = buildIndexDocument(record);
  const { content, ...sourceInfo } = record.source;
  const box = footprintBox(document.geometry, record.bbox);
  return {
    id: document.id,
    type: document.type,
    title: document.title,
    titleKey: document.title === null ? null : textSortKey(document.title),
    parentId: document.parentId,
    created: document.created,
    updated: document.updated,
    timeStart: document.timeStart,
    timeEnd: document.timeEnd,
    hasTime: document.timeStart !== null || document.timeEnd !== null ? 1 : 0,
    ...intervalColumns(document.timeStart, document.timeEnd),
    geocell: record.bbox ? geocellOf(record.bbox) : null,
    centreLon: record.bbox ? boxCentre(record.bbox)[0] : null,
    centreLat: record.bbox ? boxCentre(record.bbox)[1] : null,
    boxWest: box?.[0] ?? null,
    boxSouth: box?.[1] ?? null,
    boxEast: box?.[2] ?? null,
    boxNorth: box?.[3] ?? null,
    bboxWest: record.bbox?.[0] ?? null,
    bboxSouth: record.bbox?.[1] ?? null,
    bboxEast: record.bbox?.[2] ?? null,
    bboxNorth: record.bbox?.[3] ?? null,
    props: JSON.stringify(document.properties),
    geometry: document.geometry ? JSON.stringify(document.geometry) : null,
    record: JSON.stringify({ ...record, source: { ...sourceInfo, content: '' } }),
    sourceFormat: record.source.format,
    sourceMediaType: record.source.mediaType,
    source: content,
    anytext: ftsText(document),
    boxes: document.boxes,
    learned: ownPropertyTypes(document.properties),
  };
}
