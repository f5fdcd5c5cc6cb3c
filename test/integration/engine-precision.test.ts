/**
 * Footprints within the engine's coordinate precision of a box operand. Lucene encodes a
 * geo_shape's coordinates to about 4e-8° of latitude and 8e-8° of longitude, so `geo_shape`
 * may decide a relation wrongly for a footprint that passes that close to the operand's
 * boundary (compile-spatial.ts puts such footprints "in doubt" and they are decided in Node).
 *
 * The records: triangles on the line x + y = 80 + d beside the corner (20, 60) of the box
 * (-10, 40, 20, 60), for d from -4e-8 to 4e-8 in steps of 5e-9, each with its third corner at
 * (30, 70). A triangle meets the box exactly when d <= 0 (it holds the corner), whatever the
 * engine's rounding. Their bounding boxes reach well into the box, so a test of the bounding
 * box alone cannot tell that they pass near its edge: OpenSearch's geo_shape, asked directly,
 * finds d = 5e-9 … 2e-8 inside the box. Each engine and spatial mode must give the answers
 * SQLite gives (jsts, exact), and both must give the truth above.
 * Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import { expect } from 'chai';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import { buildEmptyRecord, type CoreRecord } from '../../shared/records/core-record.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createTestBackend, requireEngineUrl, requireGeoShape } from './engine-backend-cases.js';

const STEPS = Array.from({ length: 17 }, (_, i) => i - 8);
const OFFSET = 5e-9;

function triangle(step: number): CoreRecord {
  const d = step * OFFSET;
  const record = buildEmptyRecord(`t${String(step + 8).padStart(2, '0')}`, {
    format: 'geojson',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.title = `d = ${d}`;
  record.geometry = {
    type: 'Polygon',
    coordinates: [
      [
        [15, 65 + d],
        [30, 70],
        [25 + d, 55],
        [15, 65 + d],
      ],
    ],
  };
  record.bbox = [15, 55, 30, 70];
  return record;
}

const RECORDS = STEPS.map(triangle);
/** The triangles that meet the box: those holding its corner (d <= 0). */
const MEETING = RECORDS.filter((_, i) => STEPS[i] <= 0)
  .map((record) => record.id)
  .sort();
const ALL = RECORDS.map((record) => record.id).sort();
const APART = ALL.filter((id) => !MEETING.includes(id));

const BOX = 'BBOX(-10, 40, 20, 60)';
const POLYGON = 'POLYGON((-10 40, 20 40, 20 60, -10 60, -10 40))';

/** Each filter with the ids it selects by construction. */
const CASES: [string, string[]][] = [
  [`S_INTERSECTS(geometry, ${BOX})`, MEETING],
  [`S_INTERSECTS(geometry, ${POLYGON})`, MEETING],
  [`S_DISJOINT(geometry, ${BOX})`, APART],
  [`NOT S_INTERSECTS(geometry, ${POLYGON})`, APART],
  [`S_WITHIN(geometry, ${BOX})`, []],
  [`S_CONTAINS(geometry, ${BOX})`, []],
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

function describeEngine(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`${engine} (${spatial}): footprints within the coordinate precision of a box`, function () {
    this.timeout(60_000);
    let backend: EngineBackend;
    let reference: SqliteBackend;

    before(async () => {
      if (spatial === 'shape') await requireGeoShape(engine, url);
      backend = await createTestBackend(engine, url, { spatial });
      reference = new SqliteBackend({ path: ':memory:' });
      expect((await backend.upsert(RECORDS)).failures).to.deep.equal([]);
      expect((await reference.upsert(RECORDS)).failures).to.deep.equal([]);
    });

    after(async () => {
      await backend?.close();
      await reference?.close();
    });

    for (const [text, expected] of CASES) {
      it(`${text}: ${expected.length} of ${ALL.length}, as SQLite and the construction say`, async () => {
        expect(await ids(reference, text), 'SQLite').to.deep.equal(expected);
        expect(await ids(backend, text), engine).to.deep.equal(expected);
      });
    }
  });
}

describeEngine('elasticsearch', 'envelope');
describeEngine('opensearch', 'shape');
describeEngine('opensearch', 'envelope');
