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
import { footprintRectangle } from './sql-functions.js';

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

/**
 * The rectangle a record's footprint (its geometry, else the geometry of its bbox, as the
 * filter's exact spatial predicates read it) is exactly, or undefined: for such a record the
 * predicates against a query rectangle are decided by comparing edges.
 */
export function footprintBox(geometry: unknown, bbox: Bbox | null | undefined): Bbox | undefined {
  return footprintRectangle(geometry ?? (bbox ? bboxToGeometry(bbox) : null));
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
    anytext: document.anytext,
    boxes: document.boxes,
    learned: ownPropertyTypes(document.properties),
  };
}
