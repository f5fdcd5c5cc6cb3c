/**
 * The one function that turns a CoreRecord into the document every backend indexes
 * (docs/architecture.md). Backends may lay it out differently (columns, JSON, mappings) but
 * never derive searchable values from the record themselves.
 */
import type { Geometry } from 'geojson';
import type { Bbox, CoreRecord } from './core-record.js';
import { translatedText } from './languages.js';
import { recordStems } from './stems.js';

/** Queryable values by canonical name (plus every extra property under its own name). */
export type IndexedProperties = Record<
  string,
  string | number | boolean | string[] | number[] | null
>;

export interface IndexDocument {
  id: string;
  type: string | null;
  title: string | null;
  description: string | null;
  keywords: string[];
  /** Every searchable word of the record for free text (`q`, csw:AnyText). */
  anytext: string;
  /**
   * The record's words stemmed in each of its languages Cairn stems (shared/records/stems.ts),
   * by language: free text also matches a query word's stems in the same language.
   */
  stems: Record<string, string>;
  parentId: string | null;
  created: string | null;
  updated: string | null;
  /** Inclusive UTC time bounds; null is open (or absent when both are null). */
  timeStart: string | null;
  timeEnd: string | null;
  /** The record's bounding boxes: two when it crosses the antimeridian. */
  boxes: Bbox[];
  geometry: Geometry | null;
  properties: IndexedProperties;
}

/** Splits a bbox crossing the antimeridian (west > east) into its two halves. */
export function splitAntimeridian(bbox: Bbox): Bbox[] {
  const [west, south, east, north] = bbox;
  if (west <= east) return [bbox];
  return [
    [west, south, 180, north],
    [-180, south, east, north],
  ];
}

function scalar(value: unknown): string | number | boolean | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return null;
}

function flattenExtra(extra: Record<string, unknown>): IndexedProperties {
  const flat: IndexedProperties = {};
  for (const [key, value] of Object.entries(extra)) {
    if (Array.isArray(value)) {
      const items = value.map(scalar).filter((item) => item !== null);
      if (items.every((item) => typeof item === 'number')) flat[key] = items;
      else flat[key] = items.map(String);
    } else {
      const item = scalar(value);
      if (item !== null) flat[key] = item;
    }
  }
  return flat;
}

/** A record's themes, organisations and formats as the index lists them. */
function listedNames(record: CoreRecord): {
  themeIds: string[];
  organisations: string[];
  formats: string[];
} {
  return {
    themeIds: record.themes.flatMap((theme) => theme.concepts.map((concept) => concept.id)),
    organisations: record.contacts.flatMap((contact) =>
      [contact.organization, contact.name].filter((name): name is string => Boolean(name)),
    ),
    formats: record.formats.flatMap((format) =>
      [format.name, format.mediaType].filter((name): name is string => Boolean(name)),
    ),
  };
}

/**
 * The properties a filter reads of a record (the index document's `properties`): without the
 * free text and its stems, which a filter never reads and which cost most of building the whole
 * document (refined candidates are decided on these alone).
 */
export function indexedProperties(
  record: CoreRecord,
  names: ReturnType<typeof listedNames> = listedNames(record),
): IndexedProperties {
  const properties: IndexedProperties = {
    ...flattenExtra(record.extra),
    id: record.id,
    type: record.type ?? null,
    title: record.title ?? null,
    description: record.description ?? null,
    keywords: record.keywords,
    themes: names.themeIds,
    formats: names.formats,
    organisations: names.organisations,
    externalIds: record.externalIds.map((e) => (e.scheme ? `${e.scheme}:${e.value}` : e.value)),
    language: record.language ?? null,
    ...(record.languages === undefined ? {} : { languages: record.languages }),
    license: record.license ?? null,
    rights: record.rights ?? null,
    created: record.created ?? null,
    updated: record.updated ?? null,
    parentId: record.parentId ?? null,
    start_datetime: record.time?.start ?? null,
    end_datetime: record.time?.end ?? null,
  };
  for (const [key, value] of Object.entries(
    record.eo as Record<string, string | number | undefined>,
  )) {
    if (value !== undefined) properties[key] = value;
  }
  return properties;
}

/** Builds the indexed document of a record. */
export function buildIndexDocument(record: CoreRecord): IndexDocument {
  const names = listedNames(record);
  const { themeIds, organisations, formats } = names;
  const eoText = Object.values(record.eo).filter((value) => typeof value === 'string');
  const anytext = [
    record.id,
    record.title,
    record.description,
    ...record.keywords,
    ...themeIds,
    ...organisations,
    ...formats,
    ...eoText,
    ...translatedText(record),
  ]
    .filter((part): part is string => Boolean(part))
    .join(' \n');
  const properties = indexedProperties(record, names);

  return {
    id: record.id,
    type: record.type ?? null,
    title: record.title ?? null,
    description: record.description ?? null,
    keywords: record.keywords,
    anytext,
    stems: recordStems(record),
    parentId: record.parentId ?? null,
    created: record.created ?? null,
    updated: record.updated ?? null,
    timeStart: record.time?.start ?? null,
    timeEnd: record.time?.end ?? null,
    boxes: record.bbox ? splitAntimeridian(record.bbox) : [],
    geometry: record.geometry ?? null,
    properties,
  };
}
