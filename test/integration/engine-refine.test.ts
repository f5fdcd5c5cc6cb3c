/**
 * Refining on the engines (shared/search/engine/refine-search.ts), on Elasticsearch (envelope)
 * and OpenSearch (shape): a filter the engine cannot decide alone is narrowed on the engine and
 * decided in Node, with an exact count, exact pages in the requested order, and a 400 naming
 * the number of candidates and the cap when they are more than SEARCH_REFINE_MAX_CANDIDATES
 * (lowered to 12 here). Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import { expect } from 'chai';
import { UnsupportedFilterError } from '../../shared/errors/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { buildEmptyRecord, type CoreRecord } from '../../shared/records/core-record.js';
import { LocalGeneration } from '../../shared/search/catalogue-generation.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { createTestBackend, requireEngineUrl, requireGeoShape } from './engine-backend-cases.js';

const CAP = 12;

/** Record i: a = i, b = 10 - i (so a < b for i < 5), in collection `c<i % 2>`, a square footprint. */
function recordOf(i: number): CoreRecord {
  const record = buildEmptyRecord(`r${String(i).padStart(2, '0')}`, {
    format: 'geojson',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.title = `Record ${String.fromCharCode(90 - i)}`;
  record.parentId = `c${i % 2}`;
  record.extra = { a: i, b: 10 - i };
  const [x, y] = [i * 2, 0];
  // A triangle: its box is not its footprint, so envelope mode cannot prove relations.
  record.geometry = {
    type: 'Polygon',
    coordinates: [
      [
        [x, y],
        [x + 1, y],
        [x, y + 1],
        [x, y],
      ],
    ],
  };
  record.bbox = [x, y, x + 1, y + 1];
  return record;
}

const RECORDS = Array.from({ length: 20 }, (_, i) => recordOf(i));

function describeEngine(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`refining on ${engine} (${spatial}), at most ${CAP} candidates`, function () {
    this.timeout(60_000);
    let backend: EngineBackend;

    before(async () => {
      if (spatial === 'shape') await requireGeoShape(engine, url);
      backend = await createTestBackend(engine, url, { spatial, refineMaxCandidates: CAP });
      const written = await backend.upsert(RECORDS);
      expect(written.failures).to.deep.equal([]);
    });

    after(async () => {
      await backend?.close();
    });

    const search = (text: string, refinement: Partial<SearchQuery> = {}) =>
      backend.search({
        sort: [],
        offset: 0,
        limit: 100,
        filter: checkFilter(parseCql2Text(text)),
        ...refinement,
      });

    it('answers a property-property comparison exactly, with exact pages in the requested order', async () => {
      // c0 holds 10 records (under the cap); a < b holds for r00, r02, r04 there.
      const all = await search('a < b', { collections: ['c0'] });
      expect(all.total).to.equal(3);
      expect(all.records.map((record) => record.id)).to.deep.equal(['r00', 'r02', 'r04']);
      const byTitle = await search('a < b OR a * 2 > 30', {
        collections: ['c0'],
        sort: [{ field: 'title', direction: 'asc' }],
        offset: 1,
        limit: 2,
      });
      // Selected: r00, r02, r04, r16, r18; by title (Z, X, V, J, H) ascending: r18, r16, r04 …
      expect(byTitle.total).to.equal(5);
      expect(byTitle.records.map((record) => record.id)).to.deep.equal(['r16', 'r04']);
      const counted = await search('a < b', { collections: ['c0'], limit: 0 });
      expect(counted).to.deep.equal({ total: 3, records: [] });
    });

    it('keeps three-valued logic under NOT: a record without the property is never selected', async () => {
      const result = await search('NOT (a < missing)', { collections: ['c0'] });
      expect(result.total).to.equal(0);
      const negated = await search('NOT (a < b)', { collections: ['c0'] });
      expect(negated.records.map((record) => record.id)).to.deep.equal([
        'r06',
        'r08',
        'r10',
        'r12',
        'r14',
        'r16',
        'r18',
      ]);
    });

    it('narrows a spatial relation the engine lacks to the candidates whose box meets the operand', async () => {
      // Only r02's box meets this box, and its triangle touches it (at the corner (4 0)).
      const result = await search('S_TOUCHES(geometry, BBOX(3.5,-1,4,0))');
      expect(result.records.map((record) => record.id)).to.deep.equal(['r02']);
    });

    it(`refuses with a 400 naming the candidates and the cap when they are more than ${CAP}`, async () => {
      const caught = await search('a < b').catch((error: unknown) => error);
      expect(caught).to.be.instanceOf(UnsupportedFilterError);
      expect((caught as UnsupportedFilterError).status).to.equal(400);
      const message = (caught as Error).message;
      expect(message).to.include('20 candidate records');
      expect(message).to.include(`the ${CAP} this server checks`);
      expect(message).to.include('SEARCH_REFINE_MAX_CANDIDATES');
    });

    it("keeps a refined query's survivors for its later pages until a write moves the generation on", async () => {
      const generation = new LocalGeneration();
      // One scope per request, as the API makes them, reading the catalogue generation.
      const page = (offset: number) =>
        backend.search(
          {
            sort: [{ field: 'title', direction: 'asc' }],
            offset,
            limit: 2,
            collections: ['c0'],
            filter: checkFilter(parseCql2Text('a < b OR a * 2 > 30')),
          },
          { scope: new SearchScope({ readGeneration: () => generation.current() }) },
        );
      const ids = (result: { records: CoreRecord[] }) => result.records.map((record) => record.id);
      const before = backend.survivorStats;
      const first = await page(0);
      const second = await page(2);
      const third = await page(4);
      // Decided once, then sliced for the later pages (r18 r16 | r04 r02 | r00 by title).
      expect(backend.survivorStats.decided - before.decided).to.equal(1);
      expect(backend.survivorStats.reused - before.reused).to.equal(2);
      expect([first.total, second.total, third.total]).to.deep.equal([5, 5, 5]);
      expect([...ids(first), ...ids(second), ...ids(third)]).to.deep.equal([
        'r18',
        'r16',
        'r04',
        'r02',
        'r00',
      ]);
      // A record written and the generation moved on, as every acknowledged write does: the
      // next page is decided again and holds it.
      const added = { ...recordOf(0), id: 'r20', title: 'Record ZZ' };
      expect((await backend.upsert([added])).failures).to.deep.equal([]);
      try {
        await generation.advance();
        const after = await page(4);
        expect(backend.survivorStats.decided - before.decided).to.equal(2);
        expect(after.total).to.equal(6);
        expect(ids(after)).to.deep.equal(['r00', 'r20']);
        // Without a generation nothing is kept: the same page is decided each time.
        const unscoped = await backend.search({
          sort: [{ field: 'title', direction: 'asc' }],
          offset: 4,
          limit: 2,
          collections: ['c0'],
          filter: checkFilter(parseCql2Text('a < b OR a * 2 > 30')),
        });
        expect(ids(unscoped)).to.deep.equal(['r00', 'r20']);
        expect(backend.survivorStats.decided - before.decided).to.equal(2);
        expect(backend.survivorStats.reused - before.reused).to.equal(2);
      } finally {
        await backend.delete(['r20']);
      }
    });
  });
}

describeEngine('elasticsearch', 'envelope');
describeEngine('opensearch', 'shape');
