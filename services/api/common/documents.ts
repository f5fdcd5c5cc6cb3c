/**
 * The shapes of the OGC API – Records documents, as the JSON presenters build them and the
 * HTML pages render them: one type for both encodings.
 */
import type { Geometry } from 'geojson';
import type { CollectionDocument } from './catalogue-collection.js';
import type { Link } from './links.js';

/** A record's `time`: one day, one instant, or an interval (`..` for an open end). */
export type RecordTime = { date: string } | { timestamp: string } | { interval: [string, string] };

/** One record as a GeoJSON feature (OGC API – Records, record-core). */
export interface RecordFeature {
  type: 'Feature';
  id: string;
  conformsTo: string[];
  geometry: Geometry | null;
  bbox?: number[];
  time: RecordTime | null;
  properties: Record<string, unknown>;
  links: Link[];
}

/** The counts of one term facet (Records Part 2): a property's values, most frequent first. */
export interface TermFacetCounts {
  type: 'term';
  property: string;
  buckets: { value: string; count: number }[];
}

/**
 * The counts of one histogram facet (Records Part 2): the records by calendar period of their
 * start (`interval` names it) or by numeric band, in order, empty buckets left out; a bucket
 * holds `min` (inclusive) to `max` (exclusive; absent for a band open above); `more` buckets
 * were left out by the request's bucket count.
 */
export interface HistogramFacetCounts {
  type: 'histogram';
  property: string;
  interval?: string;
  buckets: { value: string; min?: string | number; max?: string | number; count: number }[];
  more: number;
}

/** The counts of one facet (Records Part 2). */
export type FacetCounts = TermFacetCounts | HistogramFacetCounts;

/** One page of the items endpoint: a GeoJSON FeatureCollection with paging links. */
export interface ItemsPage {
  type: 'FeatureCollection';
  numberMatched: number;
  numberReturned: number;
  timeStamp: string;
  features: RecordFeature[];
  facets?: Record<string, FacetCounts>;
  links: Link[];
}

/** The landing page (also a STAC Catalog). */
export interface LandingPage {
  stac_version: string;
  type: 'Catalog';
  id: string;
  title: string;
  description: string;
  conformsTo: readonly string[];
  links: Link[];
}

/** The conformance declaration. */
export interface ConformanceDocument {
  conformsTo: readonly string[];
}

/** The JSON Schema of one queryable or sortable. */
export interface PropertySchema {
  title: string;
  $ref?: string;
  /** A JSON type, or several for a learned property seen with values of more than one. */
  type?: string | string[];
  format?: string;
  items?: { type: string };
  'x-ogc-role'?: string;
}

/** A queryables or sortables document (JSON Schema 2020-12). */
export interface SchemaDocument {
  $schema: string;
  $id: string;
  type: 'object';
  title: string;
  description: string;
  properties: Record<string, PropertySchema>;
  additionalProperties: boolean;
}

/**
 * One facet the catalogue offers (Records Part 2 facets definition): a term facet, or a
 * histogram by calendar interval (`intervals` offered, `interval` the default) or by fixed
 * numeric bands.
 */
export type FacetDefinition =
  | { type: 'term'; property: string; title: string; sortedBy: 'count'; minOccurs: number }
  | {
      type: 'histogram';
      property: string;
      title: string;
      bucketType: 'fixedInterval';
      interval?: string;
      intervals?: readonly string[];
      ranges?: readonly { key: string; min?: number; max?: number }[];
    };

/** The facets definition document. */
export interface FacetsDocument {
  facets: Record<string, FacetDefinition>;
  defaultBucketCount: number;
  links: Link[];
}

/** The collections list (the one catalogue collection). */
export interface CollectionsDocument {
  collections: CollectionDocument[];
  links: Link[];
}
