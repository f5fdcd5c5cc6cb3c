/**
 * The backend contract: the same cases, run against every SearchBackend, expecting the same
 * answers (docs/architecture.md, seam 3). Each implementation's test file calls
 * `describeBackendContract` with a factory for a fresh, empty backend.
 */
import { expect } from 'chai';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { defined } from '../support/defined.js';

type Refinement = Partial<SearchQuery>;

/** Registers the contract suite for one backend. */
export function describeBackendContract(
  name: string,
  createBackend: () => Promise<SearchBackend>,
): void {
  describe(`SearchBackend contract: ${name}`, () => {
    let backend: SearchBackend;

    const ids = async (refinement: Refinement): Promise<string[]> => {
      const result = await backend.search({ sort: [], offset: 0, limit: 100, ...refinement });
      return result.records.map((record) => record.id).sort();
    };

    before(async () => {
      backend = await createBackend();
      const parsed = parseDocuments(JSON.stringify(CONTRACT_RECORDS));
      expect(parsed.failures).to.deep.equal([]);
      const result = await backend.upsert(parsed.records);
      expect(result).to.deep.equal({ written: 6, failures: [] });
    });

    after(async () => {
      await backend.close();
    });

    it('counts everything exactly and reports health', async () => {
      const result = await backend.search({ sort: [], offset: 0, limit: 2 });
      expect(result.total).to.equal(6);
      expect(result.records).to.have.length(2);
      const health = await backend.health();
      expect(health).to.include({ ok: true, records: 6 });
    });

    it('free text: terms are OR-ed, the words of a term must all match, case-insensitively', async () => {
      expect(await ids({ text: [['glacier']] })).to.deep.equal(['r1', 'r6']);
      expect(await ids({ text: [['GLACIER']] })).to.deep.equal(['r1', 'r6']);
      expect(await ids({ text: [['climate', 'change']] })).to.deep.equal(['r2']);
      expect(await ids({ text: [['flood'], ['stations']] })).to.deep.equal(['r3', 'r5']);
      expect(await ids({ text: [['"unbalanced'], ['OR']] })).to.deep.equal([]);
    });

    it('bbox intersects, including antimeridian records, antimeridian queries and degenerate boxes', async () => {
      expect(
        await ids({ spatial: { bbox: [160, -30, 180, 0], relation: 'intersects' } }),
      ).to.deep.equal(['r2', 'r5']);
      expect(
        await ids({ spatial: { bbox: [175, -25, -175, -5], relation: 'intersects' } }),
      ).to.deep.equal(['r2', 'r5']);
      expect(
        await ids({ spatial: { bbox: [-175, -25, -160, -15], relation: 'intersects' } }),
      ).to.deep.equal(['r2', 'r5']);
      expect(
        await ids({ spatial: { bbox: [7, 49, 8, 51], relation: 'intersects' } }),
      ).to.deep.equal(['r4', 'r5']);
      expect(
        await ids({ spatial: { bbox: [7.5, 50, 7.5, 50], relation: 'intersects' } }),
      ).to.deep.equal(['r4', 'r5']);
    });

    it('bbox intersects a polygon of one repeated point (a box the engine drops as a shape)', async () => {
      const point = [158.224, 6.955];
      const parsed = parseDocuments(
        JSON.stringify({
          type: 'Feature',
          id: 'r-one-point',
          conformsTo: [],
          geometry: { type: 'Polygon', coordinates: [[point, point, point, point, point]] },
          properties: { type: 'dataset', title: 'A box of one point' },
        }),
      );
      expect(parsed.failures).to.deep.equal([]);
      await backend.upsert(parsed.records);
      try {
        for (const bbox of [
          [-180, -90, 180, 90],
          [158, 6, 159, 7],
          [158.224, 6.955, 158.224, 6.955],
        ] as const) {
          expect(
            await ids({ spatial: { bbox: [...bbox], relation: 'intersects' } }),
            `bbox ${bbox.join(',')}`,
          ).to.include('r-one-point');
        }
        expect(
          await ids({ spatial: { bbox: [150, 0, 158, 6], relation: 'intersects' } }),
        ).to.not.include('r-one-point');
      } finally {
        expect(await backend.delete(['r-one-point'])).to.equal(1);
      }
    });

    it('datetime: instants, closed and half-open intervals intersect record time', async () => {
      const during = (start: string | null, end: string | null): Refinement => ({
        temporal: { start, end, relation: 'intersects' },
      });
      expect(
        await ids(during('2011-06-01T00:00:00.000Z', '2011-06-01T00:00:00.000Z')),
      ).to.deep.equal(['r1']);
      expect(
        await ids(during('2016-01-01T00:00:00.000Z', '2019-01-01T00:00:00.000Z')),
      ).to.deep.equal(['r4', 'r6']);
      expect(await ids(during(null, '1960-01-01T00:00:00.000Z'))).to.deep.equal(['r5']);
      expect(await ids(during('2020-06-01T12:00:00.000Z', null))).to.deep.equal(['r2', 'r4']);
      expect(
        await ids(during('2018-05-05T23:00:00.000Z', '2018-05-05T23:00:00.000Z')),
      ).to.deep.equal(['r4', 'r6']);
    });

    it('ids, types, parent collections, externalIds and property equality', async () => {
      expect(await ids({ ids: ['r1', 'r3', 'nope'] })).to.deep.equal(['r1', 'r3']);
      expect(await ids({ types: ['series', 'service'] })).to.deep.equal(['r3', 'r5']);
      expect(await ids({ collections: ['hydro'] })).to.deep.equal(['r4', 'r6']);
      expect(await ids({ externalIds: ['doi:10.1/abc'] })).to.deep.equal(['r6']);
      expect(await ids({ externalIds: ['10.1/abc'] })).to.deep.equal(['r6']);
      expect(await ids({ externalIds: ['doi:'] })).to.deep.equal(['r6']);
      expect(
        await ids({ properties: [{ name: 'platform', values: ['Sentinel-2A'] }] }),
      ).to.deep.equal(['r5']);
      expect(
        await ids({ properties: [{ name: 'eo:cloudCover', values: ['12.5'] }] }),
      ).to.deep.equal(['r5']);
    });

    it('combines constraints with AND', async () => {
      expect(
        await ids({
          text: [['glacier']],
          spatial: { bbox: [0, 40, 20, 50], relation: 'intersects' },
        }),
      ).to.deep.equal(['r1']);
    });

    it('sorts with missing values last and ties broken by id', async () => {
      const order = async (sort: SearchQuery['sort']): Promise<string[]> =>
        (await backend.search({ sort, offset: 0, limit: 10 })).records.map((r) => r.id);
      expect(await order([{ field: 'title', direction: 'asc' }])).to.deep.equal([
        'r1',
        'r5',
        'r3',
        'r6',
        'r2',
        'r4',
      ]);
      expect(await order([{ field: 'updated', direction: 'desc' }])).to.deep.equal([
        'r1',
        'r4',
        'r2',
        'r6',
        'r3',
        'r5',
      ]);
      expect(await order([])).to.deep.equal(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    });

    it('pages consistently with the unpaged order', async () => {
      const sort: SearchQuery['sort'] = [{ field: 'title', direction: 'desc' }];
      const all = (await backend.search({ sort, offset: 0, limit: 10 })).records.map((r) => r.id);
      const pages: string[] = [];
      for (let offset = 0; offset < 6; offset += 4) {
        const page = await backend.search({ sort, offset, limit: 4 });
        expect(page.total).to.equal(6);
        pages.push(...page.records.map((r) => r.id));
      }
      expect(pages).to.deep.equal(all);
      expect((await backend.search({ sort, offset: 100, limit: 4 })).records).to.deep.equal([]);
    });

    it('sorts text case- and accent-insensitively, ties in code-point order', async () => {
      const titles: Record<string, string> = {
        s1: 'Vestibulum ante',
        s2: 'test Title',
        s3: 'Ñunç dimittis',
        s4: 'nunc est',
        s5: 'Éclair',
        s6: 'eclair',
        s7: 'apple',
      };
      const features = Object.entries(titles).map(([id, title]) => ({
        type: 'Feature',
        id,
        geometry: null,
        properties: { type: 'sorttest', title },
        links: [],
      }));
      const parsed = parseDocuments(JSON.stringify({ type: 'FeatureCollection', features }));
      await backend.upsert(parsed.records);
      try {
        const order = async (direction: 'asc' | 'desc'): Promise<string[]> =>
          (
            await backend.search({
              types: ['sorttest'],
              sort: [{ field: 'title', direction }],
              offset: 0,
              limit: 10,
            })
          ).records.map((r) => r.id);
        const ascending = ['s7', 's6', 's5', 's3', 's4', 's2', 's1'];
        expect(await order('asc')).to.deep.equal(ascending);
        expect(await order('desc')).to.deep.equal([...ascending].reverse());
      } finally {
        expect(await backend.delete(Object.keys(titles))).to.equal(7);
      }
    });

    it('counts distinct values, most frequent first, optionally within a query', async () => {
      expect(await backend.domain('type')).to.deep.equal([
        { value: 'dataset', count: 4 },
        { value: 'series', count: 1 },
        { value: 'service', count: 1 },
      ]);
      const query: SearchQuery = { text: [['glacier']], sort: [], offset: 0, limit: 10 };
      expect(await backend.domain('keywords', { query })).to.deep.equal([
        { value: 'glacier', count: 1 },
        { value: 'ice', count: 1 },
      ]);
    });

    it('reports the extent of all records', async () => {
      const extent = await backend.extent();
      expect(extent.bbox).to.deep.equal([-180, -90, 180, 90]);
      expect(extent.start).to.equal('1950-01-01T00:00:00.000Z');
    });

    it('returns a record with its source verbatim, or null', async () => {
      const record = await backend.get('r4');
      expect(record?.title).to.equal('River network of the Rhine');
      expect(JSON.parse(record!.source.content)).to.deep.equal(CONTRACT_RECORDS[3]);
      expect(await backend.get('missing')).to.equal(null);
    });

    it('upserts idempotently by id and replaces what was indexed', async () => {
      const changed = defined(
        parseDocuments(
          JSON.stringify({
            ...CONTRACT_RECORDS[2],
            properties: { type: 'series', title: 'Coastal erosion map' },
          }),
        ).records[0],
        'the changed record',
      );
      await backend.upsert([changed]);
      await backend.upsert([changed]);
      expect((await backend.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(6);
      expect(await ids({ text: [['flood']] })).to.deep.equal([]);
      expect(await ids({ text: [['erosion']] })).to.deep.equal(['r3']);
    });

    it('deletes records from every index', async () => {
      expect(await backend.delete(['r6', 'missing'])).to.equal(1);
      expect(await ids({ text: [['glacier']] })).to.deep.equal(['r1']);
      expect(
        await ids({ spatial: { bbox: [-150, 60, -140, 65], relation: 'intersects' } }),
      ).to.deep.equal(['r5']);
      expect(await backend.get('r6')).to.equal(null);
    });

    it('applies upserts and deletes as one unit (applyAtomically)', async () => {
      const changed = defined(
        parseDocuments(
          JSON.stringify({
            ...CONTRACT_RECORDS[3],
            properties: { type: 'dataset', title: 'Danube network' },
          }),
        ).records[0],
        'the changed record',
      );
      const added = defined(
        parseDocuments(
          JSON.stringify({ ...CONTRACT_RECORDS[2], id: 'r7', properties: { title: 'Added' } }),
        ).records[0],
        'the added record',
      );
      const result = await backend.applyAtomically({
        upsert: [changed, added],
        delete: ['r5', 'missing'],
      });
      expect(result).to.deep.equal({ written: 2, deleted: 1 });
      expect(await ids({ text: [['danube'], ['added']] })).to.deep.equal(['r4', 'r7']);
      expect(await backend.get('r5')).to.equal(null);
      expect((await backend.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(5);
    });

    it('learns the records’ own properties as they are written, through upsert and applyAtomically', async () => {
      const record = (id: string, properties: Record<string, unknown>) =>
        defined(
          parseDocuments(JSON.stringify({ ...CONTRACT_RECORDS[0], id, properties })).records[0],
          id,
        );
      await backend.upsert([
        record('r-own-1', { title: 'Own 1', station_depth: 3.5, station_name: 'Alpha' }),
      ]);
      await backend.applyAtomically({
        upsert: [record('r-own-2', { title: 'Own 2', station_tags: ['a', 'b'] })],
        delete: [],
      });
      const learned = new Map(
        (await backend.learnedProperties()).map((property) => [property.name, property]),
      );
      expect(learned.get('station_depth')).to.deep.equal({
        name: 'station_depth',
        types: ['number'],
        sortable: true,
      });
      expect(learned.get('station_name')).to.deep.equal({
        name: 'station_name',
        types: ['string'],
        sortable: true,
      });
      // An array is a JSON array in SQLite; the engines index its items (keywords).
      expect(learned.get('station_tags')?.types).to.deep.equal(
        backend.kind === 'sqlite' ? ['array'] : ['string'],
      );
      // Core queryables (title, type …) are never learned, and nothing unwritten is.
      for (const name of ['title', 'type', 'id', 'updated', 'station_missing']) {
        expect(learned.has(name), name).to.equal(false);
      }
      const names = [...learned.keys()];
      expect(names).to.deep.equal([...names].sort());
    });
  });
}
