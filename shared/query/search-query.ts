/**
 * SearchQuery: the only contract between protocols and backends (docs/architecture.md, seam 1).
 * Every protocol parser produces one; every SearchBackend consumes one.
 */
import type { Geometry } from 'geojson';
import type { Bbox } from '../records/core-record.js';
import type { CheckedFilter } from './checked-filter.js';

/** How a record's footprint must relate to the requested area. */
export type SpatialRelation = 'intersects' | 'within' | 'contains' | 'disjoint' | 'equals';

/** How a record's time extent must relate to the requested interval. */
export type TemporalRelation = 'intersects' | 'during' | 'disjoint' | 'equals';

export interface SpatialConstraint {
  /** A CRS84 box; west > east crosses the antimeridian. Exactly one of bbox or geometry. */
  bbox?: Bbox;
  geometry?: Geometry;
  relation: SpatialRelation;
}

export interface TemporalConstraint {
  /** Inclusive bounds as ISO 8601 UTC timestamps; null is an open end. */
  start: string | null;
  end: string | null;
  relation: TemporalRelation;
}

export interface PropertyEquality {
  /** Queryable name (canonical or protocol alias). */
  name: string;
  /** The property matches when it equals any of these values. */
  values: string[];
}

export interface SortKey {
  /** Queryable name; the backend maps it to a sortable field. */
  field: string;
  direction: 'asc' | 'desc';
}

export interface SearchQuery {
  /**
   * Free text: OR over terms; each term is a list of words that must all occur
   * (case-insensitive), as OGC API – Records defines `q`.
   */
  text?: string[][];
  spatial?: SpatialConstraint;
  temporal?: TemporalConstraint;
  ids?: string[];
  types?: string[];
  /** Parent collection identifiers (STAC `collections`). */
  collections?: string[];
  externalIds?: string[];
  properties?: PropertyEquality[];
  /** A filter checked once by shared/query/check-filter.ts; backends only translate it. */
  filter?: CheckedFilter;
  /** Sort keys in priority order; backends always end with the record id for stability. */
  sort: SortKey[];
  offset: number;
  limit: number;
}

/** Builds a SearchQuery that matches everything, for callers to refine. */
export function buildMatchAllQuery(limit = 10): SearchQuery {
  return { sort: [], offset: 0, limit };
}
