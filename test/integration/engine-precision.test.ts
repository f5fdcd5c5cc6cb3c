/**
 * Footprints within the engine's coordinate precision of a literal. Lucene encodes a
 * geo_shape's coordinates to about 4e-8° of latitude and 8e-8° of longitude, so `geo_shape`
 * may decide a relation wrongly for a footprint that passes that close to the literal's
 * boundary (compile-spatial.ts puts such footprints "in doubt" and they are decided in Node).
 *
 * Two families of records, d from -4e-8 to 4e-8 in steps of 5e-9:
 * - triangles on the line x + y = 80 + d beside the corner (20, 60) of the box
 *   (-10, 40, 20, 60), third corner (30, 70): a triangle meets the box, and holds the point
 *   (20 60), exactly when d <= 0. Their bounding boxes reach well inside the box, so a test of
 *   the bounding box cannot tell that they pass near its edge; OpenSearch's geo_shape, asked
 *   directly, finds d = 5e-9 … 2e-8 inside it.
 * - squares from (5 + d, 5 + d) to (6, 6) beside the long side x + y = 10 of the triangle
 *   (0 0, 10 0, 0 10): a square meets the triangle exactly when d <= 0; geo_shape finds
 *   squares up to d = 3.5e-8 inside it.
 * - tiles (no geometry: their box is the footprint) from (20 + d, 45) to (21, 46), beside the
 *   east edge of the box: a tile meets the box exactly when d <= 0 (d = 0 touches it).
 * Each engine and spatial mode must give the answers SQLite gives (jsts, exact), and both must
 * give the truth by construction, whatever the engine's rounding.
 * Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import { expect } from 'chai';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { Geometry } from 'geojson';
import { buildEmptyRecord, type Bbox, type CoreRecord } from '../../shared/records/core-record.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createTestBackend, requireEngineUrl, requireGeoShape } from './engine-backend-cases.js';
import { defined } from '../support/defined.js';

/** Each family has a record at d = step × OFFSET for every step from -8 to 8. */
const STEPS = Array.from({ length: 17 }, (_, i) => i - 8);
const OFFSET = 5e-9;

/** A record with a box, a footprint (none: the box is the footprint) and a title. */
function recordOf(id: string, title: string, bbox: Bbox, geometry?: Geometry): CoreRecord {
  const record = buildEmptyRecord(id, {
    format: 'geojson',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.title = title;
  record.bbox = bbox;
  if (geometry) record.geometry = geometry;
  return record;
}

/** The id of the record of one family at a step: `t00` … `t16`. */
const idAt = (family: string, step: number) => `${family}${String(step + 8).padStart(2, '0')}`;

/** A triangle on the line x + y = 80 + d beside the corner (20, 60) of the box. */
function triangle(step: number): CoreRecord {
  const d = step * OFFSET;
  return recordOf(idAt('t', step), `d = ${d}`, [15, 55, 30, 70], {
    type: 'Polygon',
    coordinates: [
      [
        [15, 65 + d],
        [30, 70],
        [25 + d, 55],
        [15, 65 + d],
      ],
    ],
  });
}

/** A square from (5 + d, 5 + d) to (6, 6): it meets the triangle below exactly when d <= 0. */
function square(step: number): CoreRecord {
  const low = 5 + step * OFFSET;
  return recordOf(idAt('s', step), `d = ${step * OFFSET}`, [low, low, 6, 6], {
    type: 'Polygon',
    coordinates: [
      [
        [low, low],
        [6, low],
        [6, 6],
        [low, 6],
        [low, low],
      ],
    ],
  });
}

/** A tile from (20 + d, 45) to (21, 46), beside the east edge of the box: it meets it when d <= 0. */
function tile(step: number): CoreRecord {
  const d = step * OFFSET;
  return recordOf(idAt('e', step), `d = ${d}`, [20 + d, 45, 21, 46]);
}

const TRIANGLES = STEPS.map(triangle);
const SQUARES = STEPS.map(square);
const TILES = STEPS.map(tile);
const RECORDS = [...TRIANGLES, ...SQUARES, ...TILES];
const idsOf = (records: CoreRecord[]) => records.map((record) => record.id).sort();
/** The records on the near side (d <= 0) of each family. */
const near = (records: CoreRecord[]) =>
  idsOf(records.filter((_, i) => defined(STEPS[i], `step ${i}`) <= 0));
const ALL = idsOf(RECORDS);
const without = (ids: string[]) => ALL.filter((id) => !ids.includes(id));

const BOX = 'BBOX(-10, 40, 20, 60)';
const POLYGON = 'POLYGON((-10 40, 20 40, 20 60, -10 60, -10 40))';
/** The triangle (0 0, 10 0, 0 10): its long side runs along x + y = 10. */
const TRIANGLE = 'POLYGON((0 0, 10 0, 0 10, 0 0))';
/** The same triangle with its long side cut into 600 pieces: too many vertices for a band. */
const FINE_TRIANGLE = `POLYGON((0 0, 10 0, ${Array.from({ length: 599 }, (_, i) => {
  const x = 10 - ((i + 1) * 10) / 600;
  return `${x} ${10 - x}`;
}).join(', ')}, 0 10, 0 0))`;

/** Each filter with the ids it selects by construction. */
/** What meets the box: the triangles holding its corner and the tiles touching its east edge. */
const MEETING_BOX = [...near(TRIANGLES), ...near(TILES)].sort();

const CASES: [string, string[]][] = [
  [`S_INTERSECTS(geometry, ${BOX})`, MEETING_BOX],
  [`S_INTERSECTS(geometry, ${POLYGON})`, MEETING_BOX],
  [`S_DISJOINT(geometry, ${BOX})`, without(MEETING_BOX)],
  [`NOT S_INTERSECTS(geometry, ${POLYGON})`, without(MEETING_BOX)],
  [`S_WITHIN(geometry, ${BOX})`, []],
  [`S_CONTAINS(geometry, ${BOX})`, []],
  // The corner itself, as a point: inside exactly the triangles that hold it.
  ['S_INTERSECTS(geometry, POINT(20 60))', near(TRIANGLES)],
  // (d = 0 puts the point on the triangle's edge, which does not contain it.)
  [
    'S_CONTAINS(geometry, POINT(20 60))',
    idsOf(TRIANGLES.filter((_, i) => defined(STEPS[i], `step ${i}`) < 0)),
  ],
  ['S_INTERSECTS(geometry, MULTIPOINT((20 60), (100 0)))', near(TRIANGLES)],
  // Within several points: no band (decided in Node).
  ['S_WITHIN(geometry, MULTIPOINT((20 60), (100 0)))', []],
  // A polygon literal that is not a box, against box footprints beside its slanting side.
  [`S_INTERSECTS(geometry, ${TRIANGLE})`, near(SQUARES)],
  [`S_DISJOINT(geometry, ${TRIANGLE})`, without(near(SQUARES))],
  [`S_WITHIN(geometry, ${TRIANGLE})`, []],
  [`S_INTERSECTS(geometry, ${FINE_TRIANGLE})`, near(SQUARES)],
];

async function ids(backend: SearchBackend, text: string): Promise<string[]> {
  const result = await backend.search({
    sort: [],
    offset: 0,
    limit: 100,
    filter: checkFilter(parseCql2Text(text)),
  });
  expect(result.total, `${text}: total`).to.equal(result.records.length);
  return result.records.map((record) => record.id).sort();
}

/** The engine backend under test and SQLite, both holding the records. */
async function openBoth(
  engine: EngineName,
  url: string,
  options: { spatial: SpatialMode; refineMaxCandidates?: number },
  records: CoreRecord[],
): Promise<{ backend: EngineBackend; reference: SqliteBackend }> {
  if (options.spatial === 'shape') await requireGeoShape(engine, url);
  const backend = await createTestBackend(engine, url, options);
  const reference = new SqliteBackend({ path: ':memory:' });
  expect((await backend.upsert(records)).failures).to.deep.equal([]);
  expect((await reference.upsert(records)).failures).to.deep.equal([]);
  return { backend, reference };
}

function describeEngine(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`${engine} (${spatial}): footprints within the coordinate precision of a literal`, function () {
    this.timeout(60_000);
    let backend: EngineBackend;
    let reference: SqliteBackend;

    before(async () => {
      ({ backend, reference } = await openBoth(engine, url, { spatial }, RECORDS));
    });

    after(async () => {
      await backend?.close();
      await reference?.close();
    });

    for (const [text, expected] of CASES) {
      const name = text.length > 90 ? `${text.slice(0, 60)}… (${text.length} characters)` : text;
      it(`${name}: ${expected.length} of ${ALL.length}, as SQLite and the construction say`, async () => {
        expect(await ids(reference, text), 'SQLite').to.deep.equal(expected);
        expect(await ids(backend, text), engine).to.deep.equal(expected);
      });
    }
  });
}

/** A box well inside (-10, 40, 20, 60): certain on every backend. */
function inside(i: number): CoreRecord {
  const title = `inside ${String.fromCharCode(65 + (i % 26))}${i}`;
  return recordOf(`b${String(i).padStart(2, '0')}`, title, [-9 + i / 2, 45, -8.5 + i / 2, 46]);
}

const INSIDE = Array.from({ length: 30 }, (_, i) => inside(i));

/**
 * More candidates than the refine cap (47 records meet the box's bounding box, the cap is 20),
 * but only the 17 triangles in doubt: those are decided in Node and the engine answers for
 * the rest, so the search is exact instead of refused, at any page and in any order.
 */
function describeSettling(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`${engine} (${spatial}): a few records in doubt among many candidates`, function () {
    this.timeout(60_000);
    let backend: EngineBackend;
    let reference: SqliteBackend;

    before(async () => {
      const options = { spatial, refineMaxCandidates: 20 };
      ({ backend, reference } = await openBoth(engine, url, options, [...TRIANGLES, ...INSIDE]));
    });

    after(async () => {
      await backend?.close();
      await reference?.close();
    });

    it('answers exactly, pages in the requested order included', async () => {
      const filter = checkFilter(parseCql2Text(`S_INTERSECTS(geometry, ${BOX})`));
      const all = await backend.search({ sort: [], offset: 0, limit: 100, filter });
      expect(all.total).to.equal(9 + 30);
      expect(all.records.map((record) => record.id).sort()).to.deep.equal(
        [...near(TRIANGLES), ...idsOf(INSIDE)].sort(),
      );
      for (const query of [
        { sort: [{ field: 'title', direction: 'desc' as const }], offset: 5, limit: 7 },
        { sort: [], offset: 30, limit: 10 },
        { sort: [], offset: 0, limit: 0 },
      ]) {
        const page = await backend.search({ ...query, filter });
        const expected = await reference.search({ ...query, filter });
        expect(page.total, JSON.stringify(query)).to.equal(expected.total);
        expect(page.records.map((record) => record.id)).to.deep.equal(
          expected.records.map((record) => record.id),
        );
      }
    });

    it('still refuses, naming the cap, when the records in doubt are more than the cap', async () => {
      // A cap of 5: the 17 triangles in doubt are more than it, and refining the whole
      // search would check 47 candidates: refused with a 400 that names the cap.
      const small = await createTestBackend(engine, url, { spatial, refineMaxCandidates: 5 });
      try {
        expect((await small.upsert([...TRIANGLES, ...INSIDE])).failures).to.deep.equal([]);
        const filter = checkFilter(parseCql2Text(`S_INTERSECTS(geometry, ${BOX})`));
        const caught = await small
          .search({ sort: [], offset: 0, limit: 10, filter })
          .catch((error: unknown) => error);
        expect(caught).to.be.instanceOf(Error);
        expect((caught as Error).message).to.include('SEARCH_REFINE_MAX_CANDIDATES');
      } finally {
        await small.close();
      }
    });
  });
}

describeEngine('elasticsearch', 'envelope');
describeSettling('elasticsearch', 'envelope');
describeSettling('opensearch', 'shape');
describeEngine('opensearch', 'shape');
describeEngine('opensearch', 'envelope');
