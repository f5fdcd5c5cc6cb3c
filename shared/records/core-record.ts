/**
 * CoreRecord: the one contract between metadata formats and the rest of Cairn
 * (docs/architecture.md, seam 2). Parsers produce it; presenters and the index-document
 * builder consume it. Field names follow the OGC API – Records core properties.
 */
import type { Geometry } from 'geojson';

/** Formats Cairn can read; the stored source document keeps its format. */
export type SourceFormat =
  | 'ogc-record'
  | 'geojson'
  | 'stac-item'
  | 'stac-collection'
  | 'iso19139'
  | 'iso19115-3'
  | 'dublin-core';

/** A bounding box in CRS84: [west, south, east, north]; west > east crosses the antimeridian. */
export type Bbox = [number, number, number, number];

/** A time instant or a closed/half-open interval, as ISO 8601 strings; null ends are open. */
export interface TimeExtent {
  /** Inclusive start; null for an open start. */
  start: string | null;
  /** Inclusive end; null for an open end. Equal to start for an instant. */
  end: string | null;
  /** True when the source gave a calendar date without a time of day. */
  dateOnly?: boolean;
}

export interface ThemeConcept {
  id: string;
  title?: string;
  description?: string;
  url?: string;
}

/** A set of concepts from one scheme (thesaurus); keywords without a thesaurus stay in `keywords`. */
export interface Theme {
  concepts: ThemeConcept[];
  scheme: string;
}

export interface Contact {
  name?: string;
  organization?: string;
  position?: string;
  roles?: string[];
  emails?: { value: string }[];
  phones?: { value: string }[];
  addresses?: {
    deliveryPoint?: string[];
    city?: string;
    administrativeArea?: string;
    postalCode?: string;
    country?: string;
  }[];
  links?: Link[];
  /**
   * What the party is a contact for, where the source says so (ISO separates them): the
   * metadata record itself, the described resource, or its distribution. Absent = resource.
   */
  scope?: 'metadata' | 'resource' | 'distribution' | undefined;
}

export interface Link {
  href: string;
  rel?: string;
  type?: string;
  title?: string;
  hreflang?: string;
  /** STAC asset roles when the link came from (or becomes) an asset. */
  roles?: string[];
  /** A longer description of the target (ISO CI_OnlineResource description). */
  description?: string;
  /** The access protocol the source named (ISO CI_OnlineResource protocol, dct:references scheme). */
  protocol?: string;
}

export interface ExternalId {
  scheme?: string;
  value: string;
}

export interface Format {
  name?: string;
  mediaType?: string;
  /** Format version (ISO MD_Format version / edition). */
  version?: string;
}

/** Earth-observation acquisition properties (OpenSearch EO / STAC eo, sat, view, processing). */
export interface EoProperties {
  platform?: string | undefined;
  instrument?: string | undefined;
  sensorType?: string | undefined;
  cloudCover?: number | undefined;
  snowCover?: number | undefined;
  orbitNumber?: number | undefined;
  orbitDirection?: string | undefined;
  processingLevel?: string | undefined;
  productType?: string | undefined;
  illuminationAzimuthAngle?: number | undefined;
  illuminationElevationAngle?: number | undefined;
  spectralRange?: string | undefined;
}

/** A record's text in one of its other languages (the fields the record carries translated). */
export interface Translation {
  title?: string | undefined;
  description?: string | undefined;
  /** Translated keywords, by the keyword in the record's own language (those that have one). */
  keywords?: Record<string, string> | undefined;
}

/** Optional fields may be present and undefined: parsers assign whatever the source gave. */
export interface CoreRecord {
  id: string;
  /** Resource type: dataset, series, service, collection, feature … */
  type?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  keywords: string[];
  themes: Theme[];
  formats: Format[];
  contacts: Contact[];
  externalIds: ExternalId[];
  /** ISO 639 language code of the metadata. */
  language?: string | undefined;
  /**
   * Every language the record's text is given in, as BCP 47 tags (shared/records/languages.ts),
   * the record's own language first; absent for a record in one language.
   */
  languages?: string[] | undefined;
  /** The record's text in its other languages, by BCP 47 tag; its own text stays in the fields. */
  translations?: Record<string, Translation> | undefined;
  license?: string | undefined;
  rights?: string | undefined;
  /** When the metadata record was created / last updated (ISO 8601). */
  created?: string | undefined;
  updated?: string | undefined;
  /** Dates of the described resource (ISO 8601). */
  resourceCreated?: string | undefined;
  resourceUpdated?: string | undefined;
  resourcePublished?: string | undefined;
  time?: TimeExtent | undefined;
  geometry?: Geometry | undefined;
  bbox?: Bbox | undefined;
  /** Identifier of the parent record or STAC collection. */
  parentId?: string | undefined;
  links: Link[];
  eo: EoProperties;
  /** Any other properties the source carried, queryable by name. */
  extra: Record<string, unknown>;
  source: { format: SourceFormat; mediaType: string; content: string };
}

/** Builds an empty CoreRecord with the list fields initialised, for parsers to fill. */
export function buildEmptyRecord(id: string, source: CoreRecord['source']): CoreRecord {
  return {
    id,
    keywords: [],
    themes: [],
    formats: [],
    contacts: [],
    externalIds: [],
    links: [],
    eo: {},
    extra: {},
    source,
  };
}
