/**
 * The CQL2 conformance test dataset (Natural Earth 1:110m countries, populated places and
 * rivers, from the CQL2 standard's `ne110m4cql2.gpkg`, as GeoJSON in the shared data folder)
 * turned into catalogue records, plus a few records of our own with array properties and time
 * intervals, which the dataset lacks.
 *
 * Each layer numbers its features from 1, so feature ids collide across layers: a record's id is
 * `<layer>-<feature id>` (e.g. `countries-1`), its parent collection is the layer, and every
 * feature property is kept under its own name (`NAME`, `pop_other`, `"date"` …).
 */
import { readFileSync } from 'node:fs';
import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import {
  buildEmptyRecord,
  type Bbox,
  type CoreRecord,
} from '../../../shared/records/core-record.js';
import { fixturePath } from '../../support/fixtures.js';
import { defined } from '../../support/defined.js';

export type LayerName = 'countries' | 'places' | 'rivers' | 'extras';

/** The GeoJSON file of each dataset layer. */
export const LAYER_FILES: Readonly<Record<Exclude<LayerName, 'extras'>, string>> = {
  countries: 'ne_110m_admin_0_countries.geojson',
  places: 'ne_110m_populated_places_simple.geojson',
  rivers: 'ne_110m_rivers_lake_centerlines.geojson',
};

/** A feature of one layer, with the record id it was loaded under. */
export interface LoadedFeature {
  layer: LayerName;
  recordId: string;
  properties: Record<string, unknown>;
  geometry: Geometry | null;
  /** The record's time interval (only the extra records have one). */
  time?: { start: string | null; end: string | null };
}

function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case 'Point':
      return [geometry.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
    case 'GeometryCollection':
      return geometry.geometries.flatMap(positionsOf);
  }
}

/** The bbox of a geometry (planar, as the dataset's coordinates are). */
export function bboxOf(geometry: Geometry): Bbox {
  const positions = positionsOf(geometry);
  const xs = positions.map((p) => defined(p[0], 'a longitude'));
  const ys = positions.map((p) => defined(p[1], 'a latitude'));
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Reads one layer's features from the shared data folder. */
export function readLayer(layer: Exclude<LayerName, 'extras'>): LoadedFeature[] {
  const collection = JSON.parse(
    readFileSync(fixturePath('cql2', 'ne110m', LAYER_FILES[layer]), 'utf8'),
  ) as FeatureCollection;
  return collection.features.map((feature: Feature) => ({
    layer,
    recordId: `${layer}-${String(feature.id)}`,
    properties: { ...(feature.properties ?? {}) },
    geometry: feature.geometry,
  }));
}

/**
 * Records of our own for what the dataset lacks: array properties (`tags`, `codes`), time
 * intervals on the record itself (`datetime`), non-ASCII text for CASEI/ACCENTI and LIKE escapes,
 * and missing values.
 */
export const EXTRA_FEATURES: readonly LoadedFeature[] = [
  {
    layer: 'extras',
    recordId: 'extras-1',
    properties: { tags: ['a', 'b', 'c'], codes: [1, 2, 3], label: 'Straße 100%', rank: 1 },
    geometry: { type: 'Point', coordinates: [10, 10] },
    time: { start: '2020-01-01T00:00:00.000Z', end: '2020-12-31T23:59:59.999Z' },
  },
  {
    layer: 'extras',
    recordId: 'extras-2',
    properties: { tags: ['b', 'c'], codes: [2], label: 'STRASSE 100 percent', rank: 2 },
    geometry: { type: 'Point', coordinates: [170, -20] },
    time: { start: '2021-06-01T00:00:00.000Z', end: '2021-06-01T00:00:00.000Z' },
  },
  {
    layer: 'extras',
    recordId: 'extras-3',
    properties: { tags: ['x'], codes: [], label: 'Ærøskøbing_é', rank: 2.5 },
    geometry: null,
    time: { start: '2020-06-01T00:00:00.000Z', end: null },
  },
  {
    layer: 'extras',
    recordId: 'extras-4',
    properties: { tags: [], label: 'café', rank: null },
    geometry: null,
    time: { start: null, end: '2019-12-31T23:59:59.999Z' },
  },
  {
    layer: 'extras',
    recordId: 'extras-5',
    properties: { tags: ['c', 'a', 'b', 'a'], label: 'CAFÉ_\\%' },
    geometry: {
      type: 'LineString',
      coordinates: [
        [-10, -10],
        [10, 10],
      ],
    },
  },
];

/** Builds the catalogue record for a loaded feature. */
export function toRecord(feature: LoadedFeature): CoreRecord {
  const record = buildEmptyRecord(feature.recordId, {
    format: 'geojson',
    mediaType: 'application/geo+json',
    content: JSON.stringify({
      type: 'Feature',
      properties: feature.properties,
      geometry: feature.geometry,
    }),
  });
  record.parentId = feature.layer;
  record.extra = { ...feature.properties };
  if (feature.geometry) {
    record.geometry = feature.geometry;
    record.bbox = bboxOf(feature.geometry);
  }
  if (feature.time) record.time = { ...feature.time };
  return record;
}

/** Every feature of the dataset and the extra records. */
export function readAllFeatures(): LoadedFeature[] {
  return [
    ...readLayer('countries'),
    ...readLayer('places'),
    ...readLayer('rivers'),
    ...EXTRA_FEATURES,
  ];
}
