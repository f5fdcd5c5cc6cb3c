/**
 * The whole CQL2 suite (cql2/suite.ts) on Elasticsearch (spatial mode envelope: its test
 * distribution has no geo_shape) and OpenSearch (modes shape and envelope). Every case must give
 * the same features as on SQLite (the independent predicate SQLite is held to), or be refused
 * with a 400 naming the backend where the engine cannot answer exactly; the refusals are listed
 * here with their reason. Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { describeCql2Suite } from './cql2/suite.js';
import { createTestBackend, requireEngineUrl, requireGeoShape } from './engine-backend-cases.js';

const NAMES: Record<EngineName, string> = {
  elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch',
};

const SCRIPTS =
  'needs engine scripts (painless), which the test distributions lack: refused rather than approximated';

/** Cases every engine refuses, whatever the spatial mode, and why. */
const REFUSED_EVERYWHERE: readonly [RegExp, string][] = [
  [
    /^(name|pop_min|start)(=|<>|<|<=|>|>=)(nameascii|pop_max|"end")$/,
    `comparing two properties ${SCRIPTS}`,
  ],
  [/^pop_other between pop_min and pop_max$/, `comparing two properties ${SCRIPTS}`],
  [/^A_OVERLAPS\(tags, tags\)/, `an array relation between two properties ${SCRIPTS}`],
  [/^S_INTERSECTS\(geom,geom\)$/, `a relation between two record geometries ${SCRIPTS}`],
  [
    /^(NOT \(pop_other \/ 0 = 1\)|pop_min \* 2 > pop_max|pop_max - pop_min >= 1000000|pop_other % 2 = 0 AND .*|POP_EST \/ 1000000 > .*)$/,
    `arithmetic on properties ${SCRIPTS}`,
  ],
  [/^S_(TOUCHES|CROSSES|OVERLAPS)\(/, 'no geo_shape relation answers it exactly'],
  [
    /^selects places within and beyond /,
    'DWithin / Beyond on a footprint need a distance between shapes, which the engines lack',
  ],
];

/**
 * Spatial mode `shape`: where a record's footprint was dropped by the engine as malformed
 * (Antarctica, spanning the antimeridian down to the pole) or lies within the engine's
 * coordinate precision of a box operand's edges, the engine cannot prove its answer.
 */
const SHAPE_UNPROVEN = new Set([
  'countries: S_INTERSECTS(geom,BBOX(150,-90,-150,90))',
  'countries: S_INTERSECTS(BBOX(150,-90,-150,90),geom)',
  'countries: S_INTERSECTS(geom,MULTILINESTRING((0 40,10 50),(-60 -90,-60 90)))',
  'answers SearchQuery.spatial.geometry (STAC intersects) with the same predicates',
  'extras: S_WITHIN(geom,BBOX(0,0,10,10))',
  'extras: S_INTERSECTS(geom,BBOX(10,10,20,20))',
  'extras: S_WITHIN(geom,BBOX(-10,-10,10.00001,10.00001))',
  'extras: S_WITHIN(geom,BBOX(-10,-10,10,10))',
  'countries: S_WITHIN(geom,BBOX(150,-90,-150,90))',
]);

/**
 * Spatial mode `envelope`: only bounding boxes are indexed, so a relation is proven only where
 * the boxes rule it out or footprint and operand are both boxes (points, rectangles).
 */
const ENVELOPE_UNPROVEN = new Set([
  ...SHAPE_UNPROVEN,
  'extras: NOT S_INTERSECTS(geom, BBOX(0,0,20,20))',
  'countries: S_INTERSECTS(geom,BBOX(0,40,10,50))',
  'countries: S_INTERSECTS(geom,POINT(7.02 49.92))',
  'countries: S_INTERSECTS(geom,BBOX(0,40,10,50)) and S_INTERSECTS(geom,BBOX(5,50,10,60))',
  'countries: S_INTERSECTS(geom,BBOX(0,40,10,50)) and not S_INTERSECTS(geom,BBOX(5,50,10,60))',
  'countries: S_INTERSECTS(geom,BBOX(0,40,10,50)) or S_INTERSECTS(geom,BBOX(-90,40,-60,50))',
  'countries: S_INTERSECTS(geom,POLYGON((0 40,10 40,10 50,0 50,0 40)))',
  'countries: S_INTERSECTS(geom,LINESTRING(0 40,10 50))',
  'rivers: S_INTERSECTS(geom,LINESTRING(-60 -90,-60 90))',
  'countries: S_INTERSECTS(geom,MULTIPOINT((7.02 49.92),(-100 40)))',
  'countries: S_INTERSECTS(geom,MULTIPOLYGON(((0 40,10 40,10 50,0 50,0 40)),((100 20,110 20,110 30,100 30,100 20))))',
  'countries: S_DISJOINT(geom,BBOX(0,40,10,50))',
  'countries: S_DISJOINT(geom,POLYGON((0 40,10 40,10 50,0 50,0 40)))',
  'countries: S_DISJOINT(geom,LINESTRING(0 40,10 50))',
  'countries: S_DISJOINT(geom,POINT(7.02 49.92))',
  'rivers: S_DISJOINT(geom,LINESTRING(-60 -90,-60 90))',
  'countries: S_CONTAINS(geom,BBOX(7,50,8,51))',
  'countries: S_CONTAINS(geom,LINESTRING(7 50,8 51))',
  'countries: S_CONTAINS(geom,POINT(7.02 49.92))',
  'countries: S_WITHIN(POINT(7.02 49.92),geom)',
]);

/** Why the engine refuses a case (by `<layer>: <CQL2 text>` or test title), or undefined. */
export function engineRefusal(text: string, spatial: SpatialMode): string | undefined {
  const cql2 = text.replace(/^(countries|places|rivers|extras): /, '');
  for (const [pattern, reason] of REFUSED_EVERYWHERE) {
    if (pattern.test(cql2)) return reason;
  }
  if (spatial === 'shape') {
    if (SHAPE_UNPROVEN.has(text)) {
      return 'a footprint in scope was dropped by the engine or lies on the operand edge, within its precision';
    }
  }
  if (spatial === 'envelope' && ENVELOPE_UNPROVEN.has(text)) {
    return 'only bounding boxes are indexed, and footprints in scope are not boxes';
  }
  return undefined;
}

function describeEngine(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`${engine} (${spatial})`, () => {
    if (spatial === 'shape') {
      before(async function () {
        this.timeout(30_000);
        await requireGeoShape(engine, url);
      });
    }
    describeCql2Suite(`${NAMES[engine]} (${spatial})`, {
      open: () => createTestBackend(engine, url, { spatial }),
      refuses: (text) => engineRefusal(text, spatial),
      backendName: NAMES[engine],
    });
  });
}

describeEngine('elasticsearch', 'envelope');
describeEngine('opensearch', 'shape');
describeEngine('opensearch', 'envelope');
