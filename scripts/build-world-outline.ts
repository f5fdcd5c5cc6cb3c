/**
 * Builds the HTML maps' offline basemap, services/api/static/world-110m.json, from the Natural
 * Earth 1:110m countries kept in test/fixtures/cql2/ne110m (public domain): every country's
 * polygons simplified (topology-preserving, 0.2° tolerance), coordinates rounded to 0.1° and
 * properties dropped, written as one GeoJSON MultiPolygon. Run again only if the source changes:
 * `npx tsx scripts/build-world-outline.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeatureCollection, MultiPolygon, Polygon, Position } from 'geojson';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import GeoJSONWriter from 'jsts/org/locationtech/jts/io/GeoJSONWriter.js';
import TopologyPreservingSimplifier from 'jsts/org/locationtech/jts/simplify/TopologyPreservingSimplifier.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(
  ROOT,
  'test',
  'fixtures',
  'cql2',
  'ne110m',
  'ne_110m_admin_0_countries.geojson',
);
const TARGET = join(ROOT, 'services', 'api', 'static', 'world-110m.json');
const TOLERANCE = 0.2;

const reader = new GeoJSONReader(new GeometryFactory());
const writer = new GeoJSONWriter();

/** One ring rounded to 0.1°, without repeated points; null when fewer than four remain. */
function roundRing(ring: Position[]): Position[] | null {
  const rounded: Position[] = [];
  for (const [x, y] of ring) {
    if (x === undefined || y === undefined) continue; // not a position
    const point = [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
    const last = rounded[rounded.length - 1];
    if (!last || last[0] !== point[0] || last[1] !== point[1]) rounded.push(point);
  }
  return rounded.length >= 4 ? rounded : null;
}

const countries = JSON.parse(readFileSync(SOURCE, 'utf8')) as FeatureCollection<
  Polygon | MultiPolygon
>;
const polygons: Position[][][] = [];
for (const feature of countries.features) {
  const simplified = writer.write(
    TopologyPreservingSimplifier.simplify(reader.read(feature.geometry), TOLERANCE),
  ) as Polygon | MultiPolygon;
  const parts = simplified.type === 'Polygon' ? [simplified.coordinates] : simplified.coordinates;
  for (const part of parts) {
    const [shell, ...holes] = part.map(roundRing);
    if (shell) polygons.push([shell, ...holes.filter((hole): hole is Position[] => hole !== null)]);
  }
}
const outline: MultiPolygon = { type: 'MultiPolygon', coordinates: polygons };
writeFileSync(TARGET, `${JSON.stringify(outline)}\n`);
const points = polygons.flat(2).length;
console.log(`${TARGET}: ${polygons.length} polygons, ${points} points`);
