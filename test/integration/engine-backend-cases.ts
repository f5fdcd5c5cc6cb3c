/**
 * What the Elasticsearch and OpenSearch test files share: the engine URL (required: the suite
 * fails loudly without it), a factory for backends over a fresh, uniquely named alias that is
 * deleted afterwards, and the engine-specific cases (CQL2 filters against the SQLite answers,
 * deep paging, reindex with an alias swap, engine errors).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { generateRecords } from '../../scripts/corpus/generator.js';
import {
  InvalidParameterError,
  InvalidRecordError,
  ServiceUnavailableError,
} from '../../shared/errors/index.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type {
  EngineAdapter,
  EngineName,
  SortValue,
} from '../../shared/search/engine/engine-adapter.js';
import { ElasticsearchAdapter } from '../../shared/search/engine/elasticsearch-adapter.js';
import { OpenSearchAdapter } from '../../shared/search/engine/opensearch-adapter.js';
import {
  createEngineBackend,
  type EngineBackendSettings,
} from '../../shared/search/create-backend.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import {
  buildRecordsTemplates,
  MAPPING_VERSION,
  readMappingFile,
  type SpatialMode,
} from '../../shared/search/engine/index-templates.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { defined } from '../support/defined.js';

const URL_VARIABLES: Record<EngineName, string> = {
  elasticsearch: 'CAIRN_TEST_ELASTICSEARCH_URL',
  opensearch: 'CAIRN_TEST_OPENSEARCH_URL',
};

/**
 * The engine URL from the environment. When it is missing, registers one failing test that
 * says how to provide it, and returns undefined: the suite never passes by skipping.
 */
export function requireEngineUrl(engine: EngineName): string | undefined {
  const variable = URL_VARIABLES[engine];
  const url = process.env[variable];
  if (!url) {
    describe(`${engine} backend`, () => {
      it(`needs ${variable}`, () => {
        throw new Error(
          `${variable} is not set. Start the engine with \`bash scripts/services.sh start ${engine}\` and export the URL (the script writes it to $CAIRN_CACHE/run/env.sh).`,
        );
      });
    });
  }
  return url;
}

/**
 * Fails (once, for the whole enclosing suite) when the engine has no geo_shape field type,
 * which spatial mode `shape` needs: the minimal OpenSearch distribution lacks the geo module.
 */
export async function requireGeoShape(engine: EngineName, url: string): Promise<void> {
  const adapter = createAdapter(engine, url);
  const probe = `cairn-test-geo-probe-${randomBytes(4).toString('hex')}`;
  try {
    await adapter.createIndex(probe, { mappings: { properties: { g: { type: 'geo_shape' } } } });
    await adapter.deleteIndex(probe);
  } catch (error) {
    throw new Error(
      `The ${engine} at ${url} has no geo_shape field type, which spatial mode "shape" (the OpenSearch default) needs. ` +
        'The integ-test-zip distribution ships without the geo module: install it as modules/geo ' +
        '(org.opensearch.plugin:geo jar from Maven Central plus a plugin-descriptor.properties with ' +
        'classname=org.opensearch.geo.GeoModulePlugin) before starting the engine.',
      { cause: error },
    );
  } finally {
    await adapter.close();
  }
}

/** A unique alias for one test run, so parallel runs never share an index. */
export function uniqueAlias(label: string): string {
  return `cairn-test-${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}-records`;
}

/** Builds and initialises a backend over a fresh alias; closing it deletes its indices. */
/** A dataset record with no geometry and no time, its properties as given. */
function bareRecord(id: string, properties: Record<string, unknown>): CoreRecord {
  return defined(
    parseAll(
      JSON.stringify({
        type: 'Feature',
        id,
        conformsTo: [],
        geometry: null,
        time: null,
        properties: { type: 'dataset', ...properties },
      }),
    )[0],
    `record ${id}`,
  );
}

export async function createTestBackend(
  engine: EngineName,
  url: string,
  options: Partial<EngineBackendSettings> & { spatial: SpatialMode },
): Promise<EngineBackend> {
  const backend = createEngineBackend({
    engine,
    url,
    alias: uniqueAlias(options.spatial),
    refresh: 'wait_for',
    ...options,
  });
  const close = backend.close.bind(backend);
  backend.close = async () => {
    try {
      await backend.destroy();
    } finally {
      await close();
    }
  };
  try {
    await backend.init();
  } catch (error) {
    await backend.close().catch(() => undefined);
    throw error;
  }
  return backend;
}

/** A second backend over an existing alias that waits for each write to become searchable. */
async function openWaitForWriter(
  engine: EngineName,
  url: string,
  alias: string,
  spatial: SpatialMode,
): Promise<EngineBackend> {
  const writer = createEngineBackend({ engine, url, alias, spatial, refresh: 'wait_for' });
  await writer.init();
  return writer;
}

/** A client adapter of its own, to look at the engine independently of the backend. */
export function createAdapter(engine: EngineName, url: string): EngineAdapter {
  return engine === 'elasticsearch'
    ? new ElasticsearchAdapter({ url })
    : new OpenSearchAdapter({ url });
}

/** Every id behind an alias in id order, by a plain search_after walk. */
async function walkIds(adapter: EngineAdapter, alias: string): Promise<string[]> {
  const ids: string[] = [];
  let after: SortValue[] | undefined;
  for (;;) {
    const response = await adapter.search({
      index: alias,
      body: {
        sort: [{ id: 'asc' }],
        size: 5000,
        _source: false,
        ...(after ? { search_after: after } : {}),
      },
    });
    const hits = response.hits.hits;
    if (hits.length === 0) return ids;
    ids.push(...hits.map((hit) => hit._id));
    after = defined(hits[hits.length - 1], 'the last hit').sort;
  }
}

/** Parses record documents; every one must parse. */
export function parseAll(content: string): CoreRecord[] {
  const parsed = parseDocuments(content);
  expect(parsed.failures).to.deep.equal([]);
  return parsed.records;
}

/** Extra records for the filter cases: accents, case, arrays, numbers, open intervals. */
const FILTER_RECORDS = [
  {
    type: 'Feature',
    id: 'f1',
    conformsTo: [],
    geometry: { type: 'Point', coordinates: [2.35, 48.85] },
    time: { interval: ['2019-01-01', '2019-12-31'] },
    properties: {
      type: 'dataset',
      title: 'Qualité de l’eau à Paris',
      keywords: ['Eau', 'qualité', 'rivière'],
      orbitNumber: 42,
      instrument: 'MSI',
      acquired: 'yes',
      score: 7,
      level: 3,
      updated: '2022-04-16T10:00:00Z',
    },
  },
  {
    type: 'Feature',
    id: 'f2',
    conformsTo: [],
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [0, 40],
          [10, 40],
          [10, 50],
          [0, 50],
          [0, 40],
        ],
      ],
    },
    time: { interval: ['..', '2000-01-01'] },
    properties: {
      type: 'series',
      title: 'QUALITE DE L’EAU',
      keywords: ['eau'],
      score: 3,
      tags: ['a', 'b'],
      updated: '2022-04-16T00:00:00Z',
    },
  },
  {
    // Present properties the engine cannot see on their own field (they must be in `has`):
    // an empty array, a string where the field was mapped as a number (dropped as malformed),
    // a string beyond the keyword limit.
    type: 'Feature',
    id: 'f3',
    conformsTo: [],
    geometry: null,
    properties: {
      type: 'dataset',
      title: 'Presence without a value',
      tags: [],
      level: 'high',
      note: 'n'.repeat(9000),
    },
  },
  // CASEI on plain ASCII is matched on the field itself (no `ci` copy): capitals, and the
  // signs between Z and a that sort differently once capitals are lowered.
  ...[
    ['f4', '[Bracket] survey'],
    ['f5', '_underscore notes'],
    ['f6', 'ZEBRA crossings'],
    ['f7', 'zebra Crossings 2'],
    ['f8', '`backtick Title'],
    ['f9', 'Émile Zola archive'],
  ].map(([id, title]) => ({
    type: 'Feature',
    id,
    conformsTo: [],
    geometry: null,
    properties: { type: 'dataset', title },
  })),
];

/** CQL2 text filters whose answers must equal the SQLite backend's on the same records. */
export const DIFFERENTIAL_FILTERS = [
  "type = 'dataset'",
  "type <> 'dataset'",
  "NOT (platform = 'Sentinel-2A')",
  'NOT (cloudCover > 10)',
  'cloudCover >= 12.5 AND cloudCover < 13',
  'cloudCover BETWEEN 10 AND 20',
  'NOT (cloudCover BETWEEN 20 AND 30)',
  "type IN ('series', 'service')",
  "NOT (type IN ('series', 'service'))",
  'platform IS NULL',
  'platform IS NOT NULL',
  'tags IS NULL',
  'tags IS NOT NULL',
  'level IS NULL',
  'NOT (level IS NULL)',
  'note IS NULL',
  'keywords IS NULL',
  'start_datetime IS NULL',
  "A_CONTAINEDBY(tags, ('a', 'b'))",
  "title LIKE 'Glacier%'",
  "title LIKE '%glacier%'",
  "title LIKE 'C_astal%'",
  "NOT (title LIKE '%a%')",
  "CASEI(title) LIKE casei('%GLACIER%')",
  "CASEI(title) = casei('qualite de l’eau')",
  "ACCENTI(title) = accenti('Qualite de l’eau à Paris')",
  "CASEI(ACCENTI(title)) = casei(accenti('QUALITÉ DE L’EAU'))",
  "ACCENTI(CASEI(title)) LIKE accenti(casei('%qualite%'))",
  "CASEI(title) LIKE casei('%CROSSINGS%')",
  "CASEI(title) IN (casei('ZEBRA CROSSINGS'), casei('[bracket] SURVEY'))",
  "NOT (CASEI(title) = casei('zebra crossings'))",
  "CASEI(title) < casei('Glacier')",
  "CASEI(title) > casei('ZEBRA')",
  "CASEI(title) >= casei('zebra crossings')",
  "CASEI(title) <= casei('[')",
  "CASEI(title) >= casei('_') AND CASEI(title) <= casei('B')",
  "NOT (CASEI(title) > casei('`'))",
  "CASEI(ACCENTI(title)) < casei(accenti('EMILE'))",
  "CASEI(ACCENTI(title)) > casei(accenti('émile'))",
  "updated = DATE('2022-04-16')",
  "updated > TIMESTAMP('2023-06-01T00:00:00Z')",
  "updated <= DATE('2022-04-16')",
  "T_INTERSECTS(datetime, INTERVAL('2011-01-01', '2011-12-31'))",
  "T_INTERSECTS(datetime, INTERVAL('2020-01-01', '..'))",
  "T_BEFORE(datetime, DATE('1995-01-01'))",
  "T_AFTER(datetime, TIMESTAMP('2019-06-01T00:00:00Z'))",
  "T_DURING(datetime, INTERVAL('2009-01-01', '2013-01-01'))",
  "T_CONTAINS(datetime, INTERVAL('2016-01-01', '2017-01-01'))",
  "T_DISJOINT(datetime, INTERVAL('2000-01-01', '2020-01-01'))",
  "NOT T_DISJOINT(datetime, INTERVAL('2000-01-01', '2020-01-01'))",
  "T_EQUALS(updated, TIMESTAMP('2024-01-01T00:00:00Z'))",
  "T_STARTS(datetime, INTERVAL('2015-01-01T00:00:00Z', '..'))",
  "T_FINISHEDBY(datetime, INTERVAL('2019-12-31', '2019-12-31'))",
  "T_OVERLAPS(datetime, INTERVAL('2012-06-01', '2014-01-01'))",
  "T_METBY(datetime, INTERVAL('1900-01-01', '1949-12-31T23:59:59.999Z'))",
  "A_CONTAINS(keywords, ('glacier'))",
  "A_OVERLAPS(keywords, ('ice', 'climate'))",
  "A_CONTAINEDBY(keywords, ('glacier', 'ice', 'snow'))",
  "A_EQUALS(keywords, ('climate', 'stations'))",
  "NOT A_OVERLAPS(keywords, ('eau'))",
  "A_CONTAINS(tags, ('a'))",
  'S_INTERSECTS(geometry, BBOX(5, 44, 12, 49))',
  'S_INTERSECTS(geometry, BBOX(175, -25, -175, -5))',
  'S_WITHIN(geometry, BBOX(0, 30, 20, 60))',
  'S_CONTAINS(geometry, POINT(7.5 46))',
  'S_DISJOINT(geometry, BBOX(0, 30, 20, 60))',
  'NOT S_INTERSECTS(geometry, BBOX(0, 30, 20, 60))',
  'S_INTERSECTS(geometry, POLYGON((0 44, 12 44, 12 52, 0 52, 0 44)))',
  'orbitNumber = 42',
  "acquired = 'yes'",
  'score > 5',
  'NOT (score > 5)',
  "NOT (undefinedProperty = 'x')",
  "undefinedProperty = 'x' OR type = 'service'",
  'true',
  'NOT (1 = 2)',
];

/** Registers the engine-specific cases for one engine and spatial mode. */
export function describeEngineCases(engine: EngineName, url: string, spatial: SpatialMode): void {
  describe(`${engine} backend (${spatial}): engine-specific cases`, function () {
    this.timeout(180_000);

    describe('filters give the SQLite answers', () => {
      let backend: EngineBackend;
      let reference: SqliteBackend;

      before(async () => {
        const records = parseAll(JSON.stringify([...CONTRACT_RECORDS, ...FILTER_RECORDS]));
        backend = await createTestBackend(engine, url, { spatial });
        reference = new SqliteBackend({ path: ':memory:' });
        expect((await backend.upsert(records)).failures).to.deep.equal([]);
        expect((await reference.upsert(records)).failures).to.deep.equal([]);
      });

      after(async () => {
        await backend?.close();
        await reference?.close();
      });

      const ids = async (target: SearchBackend, query: Partial<SearchQuery>): Promise<string[]> =>
        (await target.search({ sort: [], offset: 0, limit: 100, ...query })).records
          .map((record) => record.id)
          .sort();

      // Including what the engine cannot prove alone (a footprint that is not its box in
      // envelope mode, one on a box edge in shape mode): refined in Node, never refused.
      for (const text of DIFFERENTIAL_FILTERS) {
        it(text, async () => {
          const filter = checkFilter(parseCql2Text(text));
          expect(await ids(backend, { filter })).to.deep.equal(await ids(reference, { filter }));
        });
      }

      it('answers, as SQLite does, what the engine cannot decide alone (decided in Node)', async () => {
        for (const text of [
          'cloudCover > snowCover',
          'cloudCover + 1 > 2',
          'NOT (cloudCover + 1 > 2)',
          'S_TOUCHES(geometry, BBOX(0, 30, 20, 60)) OR S_OVERLAPS(geometry, BBOX(0, 30, 20, 60))',
        ]) {
          const filter = checkFilter(parseCql2Text(text));
          expect(await ids(backend, { filter }), text).to.deep.equal(
            await ids(reference, { filter }),
          );
        }
      });

      it('turns an engine refusal into a generic 400 without the engine message', async () => {
        const manyIds = Array.from({ length: 70_000 }, (_, i) => `id-${i}`);
        const error = await backend
          .search({ sort: [], offset: 0, limit: 1, ids: manyIds })
          .catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(InvalidParameterError);
        expect((error as InvalidParameterError).message).to.equal(
          'The search engine could not evaluate this query',
        );
      });

      it('records ingest job outcomes in the ingest log index', async () => {
        await backend.createIngestLog().record({
          jobId: 'job-1',
          queue: 'harvest',
          status: 'completed',
          attempts: 1,
          startedAt: '2026-01-01T00:00:00.000Z',
          finishedAt: '2026-01-01T00:00:05.000Z',
          durationMs: 5000,
          read: 3,
          written: 2,
          deleted: 0,
          rejected: 1,
          failures: [{ name: 'x', reason: 'not a known JSON metadata format' }],
        });
        const adapter = createAdapter(engine, url);
        const response = await adapter.search({
          index: backend.ingestLog,
          body: { query: { term: { 'failures.name': 'x' } } },
        });
        await adapter.close();
        expect(response.hits.hits.map((hit) => hit._source?.failureCount)).to.deep.equal([1]);
      });

      it("gives a page's records as stored, source documents included (as get does)", async () => {
        const page = await backend.search({ sort: [], offset: 0, limit: 100 });
        expect(page.records.length).to.be.greaterThan(0);
        expect(page.records.every((record) => record.source.content.length > 0)).to.equal(true);
        for (const record of page.records) {
          expect(record).to.deep.equal(await backend.get(record.id));
        }
      });

      it('counts distinct values of dynamic and numeric properties', async () => {
        expect(await backend.domain('score')).to.deep.equal(await reference.domain('score'));
        expect(await backend.domain('instrument')).to.deep.equal(
          await reference.domain('instrument'),
        );
      });
    });

    describe('atomic writes (CSW-T Transactions)', () => {
      let backend: EngineBackend;
      const record = bareRecord;
      const titles = async (ids: string[]): Promise<(string | null)[]> =>
        Promise.all(ids.map(async (id) => (await backend.get(id))?.title ?? null));

      before(async () => {
        backend = await createTestBackend(engine, url, { spatial });
        const seeded = await backend.upsert([
          record('a1', { title: 'kept' }),
          record('a2', { title: 'doomed' }),
        ]);
        expect(seeded.failures).to.deep.equal([]);
      });
      after(async () => backend?.close());

      it('applies upserts and deletes together', async () => {
        const result = await backend.applyAtomically({
          upsert: [record('a3', { title: 'new' })],
          delete: ['a2', 'never-there'],
        });
        expect(result).to.deep.equal({ written: 1, deleted: 1 });
        expect(await titles(['a1', 'a2', 'a3'])).to.deep.equal(['kept', null, 'new']);
        await backend.upsert([record('a2', { title: 'doomed' })]);
        await backend.delete(['a3']);
      });

      it('leaves the catalogue as it was when the engine refuses one record', async () => {
        // 5,100 new properties: beyond the index's total-fields limit (5,000), so the engine
        // refuses that one record.
        const wide = Object.fromEntries(Array.from({ length: 5100 }, (_, i) => [`wide${i}`, i]));
        const error = await backend
          .applyAtomically({
            upsert: [
              record('a1', { title: 'replaced' }),
              record('a4', { title: 'new' }),
              record('a5', { title: 'too wide', ...wide }),
            ],
            delete: ['a2'],
          })
          .catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(InvalidRecordError);
        expect((error as Error).message).to.match(/a5/);
        expect(await titles(['a1', 'a2', 'a4', 'a5'])).to.deep.equal([
          'kept',
          'doomed',
          null,
          null,
        ]);
        const all = await backend.search({ sort: [], offset: 0, limit: 10 });
        expect(all.records.map((item) => item.id).sort()).to.deep.equal(['a1', 'a2']);
      });
    });

    describe('a property another process added to the index', () => {
      let reader: EngineBackend;
      let writer: EngineBackend;
      let mappingReads = 0;
      const record = (id: string, properties: Record<string, unknown>): CoreRecord =>
        bareRecord(id, { title: id, ...properties });
      const matching = async (text: string): Promise<string[]> =>
        (
          await reader.search({
            sort: [],
            offset: 0,
            limit: 10,
            filter: checkFilter(parseCql2Text(text)),
          })
        ).records
          .map((found) => found.id)
          .sort();

      before(async () => {
        writer = await createTestBackend(engine, url, { spatial });
        // The reader: a second backend over the same alias, on an engine client of its own
        // whose mapping reads are counted.
        const adapter = createAdapter(engine, url);
        const getMappings = adapter.getMappings.bind(adapter);
        adapter.getMappings = (index) => {
          mappingReads += 1;
          return getMappings(index);
        };
        reader = createEngineBackend({ engine, adapter, alias: writer.alias, spatial });
        await reader.init();
      });
      after(async () => {
        await reader?.close();
        await writer?.close();
      });

      it('is filterable through the other backend as soon as the write returns', async () => {
        // Each round names a property new to the index. The reader has just compiled a filter
        // on it (absent then, so it matched nothing) when the other backend writes it: the
        // filter right after the write must find the record, not answer from the mapping the
        // reader read before the write.
        for (let round = 0; round < 4; round += 1) {
          const name = `fresh_depth_${round}`;
          expect(await matching(`${name} > 10`), `round ${round}, before`).to.deep.equal([]);
          const written = await writer.upsert([record(`fresh-${round}`, { [name]: 42 })]);
          expect(written.failures).to.deep.equal([]);
          expect(await matching(`${name} > 10`), `round ${round}, after`).to.deep.equal([
            `fresh-${round}`,
          ]);
        }
      });

      it('is filterable through the other backend after that backend moved the alias to a new index', async () => {
        // The writer reindexes (a new index version; the one the reader opened is deleted),
        // then writes a record with a property new to the new version.
        await writer.reindex();
        const written = await writer.upsert([record('after-reindex', { later_depth: 42 })]);
        expect(written.failures).to.deep.equal([]);
        expect(await matching('later_depth > 10')).to.deep.equal(['after-reindex']);
        expect(await matching('fresh_depth_0 > 10')).to.deep.equal(['fresh-0']);
      });

      it('reads the mapping again at most twice for a burst of searches naming an absent property', async () => {
        const before = mappingReads;
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => matching('never_written_depth > 10')),
        );
        expect(answers.every((ids) => ids.length === 0)).to.equal(true);
        const reads = mappingReads - before;
        expect(reads, 'mapping reads').to.be.within(1, 2);
      });
    });

    describe('paging at any depth', () => {
      const COUNT = 12_000;
      let backend: EngineBackend;
      let generated: CoreRecord[];

      before(async () => {
        backend = await createTestBackend(engine, url, { spatial, refresh: false });
        generated = parseAll(JSON.stringify([...generateRecords(COUNT, 7)]));
        const result = await backend.upsert(generated);
        expect(result.failures).to.deep.equal([]);
        expect(result.written).to.equal(COUNT);
        await backend.refresh();
      });

      after(async () => {
        await backend?.close();
      });

      const page = async (
        query: Partial<SearchQuery>,
      ): Promise<{ total: number; ids: string[] }> => {
        const result = await backend.search({ sort: [], offset: 0, limit: 10, ...query });
        return { total: result.total, ids: result.records.map((record) => record.id) };
      };

      const byBytes = (a: string, b: string): number =>
        Buffer.compare(Buffer.from(a), Buffer.from(b));

      it('pages at offsets 0, 10,000 and 11,990 equal a full search_after walk', async () => {
        const adapter = createAdapter(engine, url);
        const walk = await walkIds(adapter, backend.alias);
        await adapter.close();
        expect(walk).to.have.length(COUNT);
        expect(walk).to.deep.equal(generated.map((record) => record.id).sort(byBytes));
        for (const offset of [0, 10_000, 11_990]) {
          const result = await page({ offset });
          expect(result.total).to.equal(COUNT);
          expect(result.ids, `offset ${offset}`).to.deep.equal(walk.slice(offset, offset + 10));
        }
        expect((await page({ offset: 12_000 })).ids).to.deep.equal([]);
        expect((await page({ offset: 50_000 })).total).to.equal(COUNT);
      });

      it('continues sequential deep pages from the cached sort values, without walking', async () => {
        const sort: SearchQuery['sort'] = [{ field: 'updated', direction: 'desc' }];
        const expected = [...generated]
          .sort((a, b) => (b.updated ?? '').localeCompare(a.updated ?? '') || byBytes(a.id, b.id))
          .map((record) => record.id);
        const first = await page({ sort, offset: 10_500, limit: 50 });
        expect(first.ids).to.deep.equal(expected.slice(10_500, 10_550));
        const walks = backend.pagingStats.walks;
        const hits = backend.pagingStats.hits;
        for (let offset = 10_550; offset < 11_050; offset += 50) {
          const next = await page({ sort, offset, limit: 50 });
          expect(next.ids, `offset ${offset}`).to.deep.equal(expected.slice(offset, offset + 50));
        }
        expect(backend.pagingStats.walks).to.equal(walks);
        expect(backend.pagingStats.hits).to.equal(hits + 10);
      });

      it('crosses the result window sequentially from from/size pages', async () => {
        const sort: SearchQuery['sort'] = [{ field: 'title', direction: 'asc' }];
        const expected = [...generated]
          .sort((a, b) => byBytes(a.title ?? '', b.title ?? '') || byBytes(a.id, b.id))
          .map((record) => record.id);
        const walks = backend.pagingStats.walks;
        for (let offset = 9_980; offset < 10_040; offset += 20) {
          const next = await page({ sort, offset, limit: 20 });
          expect(next.ids, `offset ${offset}`).to.deep.equal(expected.slice(offset, offset + 20));
        }
        expect(backend.pagingStats.walks).to.equal(walks);
      });

      it('creates the index sorted by id, the default sort, at the current mapping version', async () => {
        const response = await fetch(`${url}/${backend.liveIndex}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: { sort?: unknown } } }
        >;
        expect(
          defined(settings[backend.liveIndex!], 'the live index settings').settings.index.sort,
        ).to.deep.equal({
          field: ['id'],
          order: ['asc'],
        });
        const adapter = createAdapter(engine, url);
        const mappings = defined(
          (await adapter.getMappings(backend.liveIndex!))[backend.liveIndex!],
          'the live index mappings',
        );
        await adapter.close();
        expect(mappings._meta).to.deep.include({
          cairn: { mappingVersion: MAPPING_VERSION, spatial, analysis: 'standard' },
        });
        expect(MAPPING_VERSION).to.equal(8);
      });

      it('finds by a cold jump in strides the page sequential paging reaches, with the exact count', async () => {
        // Backends of their own over the same index: no checkpoints; a window of 1,000 makes
        // every page from offset 1,000 on deep and a walk go in strides of 1,000.
        const open = async (): Promise<EngineBackend> => {
          const fresh = createEngineBackend({
            engine,
            url,
            alias: backend.alias,
            spatial,
            maxResultWindow: 1000,
          });
          await fresh.init();
          return fresh;
        };
        const cases: { query: Partial<SearchQuery>; expected: string[] }[] = [
          { query: {}, expected: generated.map((record) => record.id).sort(byBytes) },
          {
            query: { types: ['dataset'] },
            expected: generated
              .filter((record) => record.type === 'dataset')
              .map((record) => record.id)
              .sort(byBytes),
          },
          {
            query: { sort: [{ field: 'updated', direction: 'desc' }] },
            expected: [...generated]
              .sort(
                (a, b) => (b.updated ?? '').localeCompare(a.updated ?? '') || byBytes(a.id, b.id),
              )
              .map((record) => record.id),
          },
        ];
        for (const { query, expected } of cases) {
          const label = JSON.stringify(query);
          expect(expected.length, label).to.be.greaterThan(3300);
          const sequential = await open();
          const jumper = await open();
          try {
            const seen: string[] = [];
            for (let offset = 0; offset < 3300; offset += 300) {
              const result = await sequential.search({
                sort: [],
                ...query,
                offset,
                limit: 300,
              });
              expect(result.total, `${label} at ${offset}`).to.equal(expected.length);
              seen.push(...result.records.map((record) => record.id));
            }
            expect(seen, label).to.deep.equal(expected.slice(0, 3300));
            for (const offset of [3001, 1000, 2999, expected.length - 3]) {
              const result = await jumper.search({ sort: [], ...query, offset, limit: 7 });
              expect(result.total, `${label} at ${offset}`).to.equal(expected.length);
              expect(
                result.records.map((record) => record.id),
                `${label} at ${offset}`,
              ).to.deep.equal(expected.slice(offset, offset + 7));
            }
            if (query.sort) {
              // The first jump walked 3,001 hits from the start in strides of 1,000; offset
              // 1,000 is a checkpoint it left, and the other two walk on from the nearest below.
              expect(jumper.pagingStats, label).to.deep.equal({
                walks: 3,
                hits: 1,
                walkedHits: 3001 + 999 + (expected.length - 3 - 3008),
                jumps: 0,
              });
            } else {
              // In the index order, offsets 3,001 and the last, more than two strides beyond
              // any checkpoint, are found by sampled jumps; 1,000 is inside the window, and
              // 2,999 walks the 1,992 hits from the checkpoint the page at 1,000 left.
              expect(jumper.pagingStats, label).to.deep.include({ walks: 2, hits: 0, jumps: 2 });
            }
          } finally {
            await sequential.close();
            await jumper.close();
          }
        }
      });

      it('pages deep in the index order by ranges on blocks of ids: the sequential pages, the exact count', async () => {
        // Backends of their own with a window of 1,000 (every page from offset 1,000 on is
        // deep), whose engine requests are recorded on the way to the engine.
        const bodies: Record<string, unknown>[] = [];
        const open = async (): Promise<EngineBackend> => {
          const adapter = createAdapter(engine, url);
          const search = adapter.search.bind(adapter);
          adapter.search = (request) => {
            bodies.push(request.body);
            return search(request);
          };
          const fresh = createEngineBackend({
            engine,
            url,
            alias: backend.alias,
            spatial,
            maxResultWindow: 1000,
            adapter,
          });
          await fresh.init();
          return fresh;
        };
        const ofType = (type?: string): string[] =>
          generated
            .filter((record) => type === undefined || record.type === type)
            .map((record) => record.id)
            .sort(byBytes);
        const cases: { query: Partial<SearchQuery>; expected: string[] }[] = [
          { query: {}, expected: ofType() },
          { query: { types: ['dataset'] }, expected: ofType('dataset') },
          // One record in seven: blocks of 100 ids hold too few, the page needs wider ones.
          { query: { types: ['service'] }, expected: ofType('service') },
        ];
        for (const { query, expected } of cases) {
          const label = JSON.stringify(query);
          expect(expected.length, label).to.be.greaterThan(1500);
          const sequential = await open();
          const jumper = await open();
          try {
            bodies.length = 0;
            const seen: string[] = [];
            for (let offset = 0; offset < 1500; offset += 50) {
              const result = await sequential.search({ sort: [], ...query, offset, limit: 50 });
              expect(result.total, `${label} at ${offset}`).to.equal(expected.length);
              seen.push(...result.records.map((record) => record.id));
            }
            expect(seen, label).to.deep.equal(expected.slice(0, 1500));
            // Beyond the window: ranges on id, bounded by a block, and no search_after.
            const requests = JSON.stringify(bodies);
            expect(requests, label).to.include('"range":{"id":{"gt":');
            expect(requests, label).to.include('"lt":');
            expect(requests, label).not.to.include('search_after');
            expect(sequential.pagingStats.walks, label).to.equal(0);
            if (expected.length === COUNT) {
              // The last page holds 5 hits: no block holds 10 (the blocks of …00119, …0012 and
              // …01 hold those 5 only), so search_after fetches it.
              const earlier = bodies.length;
              for (const offset of [11_985, 11_995]) {
                const result = await sequential.search({ sort: [], offset, limit: 10 });
                expect(result.total, `at ${offset}`).to.equal(COUNT);
                expect(
                  result.records.map((record) => record.id),
                  `at ${offset}`,
                ).to.deep.equal(expected.slice(offset, offset + 10));
              }
              expect(expected[11_994]).to.equal('cairn-7-0011994');
              expect(JSON.stringify(bodies.slice(earlier))).to.include('search_after');
            }
            for (const offset of [1234, 1001, expected.length - 3, expected.length]) {
              const result = await jumper.search({ sort: [], ...query, offset, limit: 7 });
              expect(result.total, `${label} at ${offset}`).to.equal(expected.length);
              expect(
                result.records.map((record) => record.id),
                `${label} at ${offset}`,
              ).to.deep.equal(expected.slice(offset, offset + 7));
            }
          } finally {
            await sequential.close();
            await jumper.close();
          }
        }
        // Another sort, here id descending, still pages by search_after, at the same depth.
        const other = await open();
        try {
          bodies.length = 0;
          const descending = ofType().reverse();
          for (const offset of [1234, 1241, 11_995]) {
            const result = await other.search({
              sort: [{ field: 'id', direction: 'desc' }],
              offset,
              limit: 7,
            });
            expect(result.total).to.equal(COUNT);
            expect(result.records.map((record) => record.id)).to.deep.equal(
              descending.slice(offset, offset + 7),
            );
          }
          expect(JSON.stringify(bodies)).to.include('search_after');
        } finally {
          await other.close();
        }
      });

      it('sorts missing values last in both directions at depth', async () => {
        for (const direction of ['asc', 'desc'] as const) {
          const sort: SearchQuery['sort'] = [{ field: 'cloudCover', direction }];
          const withValue = generated.filter((record) => record.eo.cloudCover !== undefined);
          const expected = [
            ...withValue.sort(
              (a, b) =>
                (direction === 'asc' ? 1 : -1) * (a.eo.cloudCover! - b.eo.cloudCover!) ||
                byBytes(a.id, b.id),
            ),
            ...generated
              .filter((record) => record.eo.cloudCover === undefined)
              .sort((a, b) => byBytes(a.id, b.id)),
          ].map((record) => record.id);
          const offset = withValue.length - 5;
          const result = await page({ sort, offset, limit: 10 });
          expect(result.ids).to.deep.equal(expected.slice(offset, offset + 10));
          const deep = await page({ sort, offset: 11_000, limit: 10 });
          expect(deep.ids).to.deep.equal(expected.slice(11_000, 11_010));
        }
      });
    });

    describe('index layout (SEARCH_SHARDS, SEARCH_REPLICAS)', () => {
      let backend: EngineBackend;
      let records: CoreRecord[];

      /** The live index's shard and replica settings. */
      const layoutOf = async (index: string) => {
        const response = await fetch(`${url}/${index}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: Record<string, unknown> } }
        >;
        const { number_of_shards, number_of_replicas, auto_expand_replicas } = defined(
          settings[index],
          `settings of ${index}`,
        ).settings.index;
        return { number_of_shards, number_of_replicas, auto_expand_replicas };
      };

      before(async () => {
        backend = await createTestBackend(engine, url, {
          spatial,
          layout: { shards: 3, replicas: 0 },
        });
        records = parseAll(JSON.stringify([...generateRecords(240, 5)]));
        expect((await backend.upsert(records)).failures).to.deep.equal([]);
      });

      after(async () => {
        await backend?.close();
      });

      it('creates the records index with the configured shards and replicas', async () => {
        expect(await layoutOf(backend.liveIndex!)).to.deep.equal({
          number_of_shards: '3',
          number_of_replicas: '0',
          auto_expand_replicas: 'false',
        });
      });

      it('counts and pages over every shard: each record once, in sort order', async () => {
        const sort = [{ field: 'title', direction: 'asc' as const }];
        const seen: string[] = [];
        for (let offset = 0; offset < records.length; offset += 50) {
          const page = await backend.search({ sort, offset, limit: 50 });
          expect(page.total).to.equal(records.length);
          seen.push(...page.records.map((record) => record.id));
        }
        expect(new Set(seen).size).to.equal(records.length);
        const single = await createTestBackend(engine, url, { spatial });
        try {
          expect((await single.upsert(records)).failures).to.deep.equal([]);
          const ids: string[] = [];
          for (let offset = 0; offset < records.length; offset += 50)
            ids.push(
              ...(await single.search({ sort, offset, limit: 50 })).records.map((r) => r.id),
            );
          expect(seen).to.deep.equal(ids);
        } finally {
          await single.close();
        }
      });

      it('applies a new shard count through a reindex, keeping every record', async () => {
        const resized = createEngineBackend({
          engine,
          url,
          alias: backend.alias,
          spatial,
          refresh: 'wait_for',
          layout: { shards: 2 },
        });
        try {
          await resized.init();
          const result = await resized.reindex();
          expect(await layoutOf(result.to)).to.deep.include({
            number_of_shards: '2',
            auto_expand_replicas: '0-1',
          });
          expect((await resized.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(
            records.length,
          );
        } finally {
          await resized.close();
        }
      });
    });

    describe('refresh left to the engine (no SEARCH_REFRESH_INTERVAL)', () => {
      let backend: EngineBackend;
      let adapter: EngineAdapter;

      /** Scheduled and requested refreshes of the live index so far (`external_total`). */
      const externalRefreshes = async (): Promise<number> => {
        const response = await fetch(`${url}/${backend.liveIndex}/_stats/refresh`);
        const stats = (await response.json()) as {
          _all: { primaries: { refresh: { external_total: number } } };
        };
        return stats._all.primaries.refresh.external_total;
      };
      const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

      before(async () => {
        backend = await createTestBackend(engine, url, { spatial, refresh: false });
        adapter = createAdapter(engine, url);
      });

      after(async () => {
        await adapter?.close();
        await backend?.close();
      });

      it('sets no refresh interval and lets shards go search-idle after 5 s', async () => {
        const response = await fetch(`${url}/${backend.liveIndex}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: { refresh_interval?: string; search?: unknown } } }
        >;
        const index = defined(settings[backend.liveIndex!], 'the live index settings').settings
          .index;
        expect(index.refresh_interval).to.equal(undefined);
        expect(index.search).to.deep.equal({ idle: { after: '5s' } });
      });

      it('does not refresh an index nobody searches; the next search waits and sees every write', async () => {
        // Shortened so the test need not wait 5 s; the setting is dynamic.
        await adapter.putSettings(backend.liveIndex!, {
          index: { search: { idle: { after: '1s' } } },
        });
        await pause(1500);
        const records = parseAll(JSON.stringify([...generateRecords(300, 21)]));
        expect((await backend.upsert(records)).failures).to.deep.equal([]);
        const afterWrites = await externalRefreshes();
        await pause(2500);
        // Writes are pending, yet more than two refresh periods passed without a refresh.
        expect(await externalRefreshes()).to.equal(afterWrites);
        const found = await backend.search({ sort: [], offset: 0, limit: 1 });
        expect(found.total).to.equal(records.length);
        expect(await externalRefreshes()).to.be.greaterThan(afterWrites);
      });

      it('still answers a wait_for write on an idle index, which the write makes visible', async () => {
        await pause(1500);
        const writer = await openWaitForWriter(engine, url, backend.alias, spatial);
        try {
          const before = await externalRefreshes();
          const extra = defined(
            parseAll(JSON.stringify([...generateRecords(1, 22)]))[0],
            'the extra record',
          );
          expect((await writer.upsert([extra])).failures).to.deep.equal([]);
          // The write waited for a refresh that it asked for itself: no search has run since.
          expect(await externalRefreshes()).to.be.greaterThan(before);
        } finally {
          await writer.close();
        }
      });

      it('gives a reindexed version the engine default again (built with refresh off)', async () => {
        const result = await backend.reindex();
        const response = await fetch(`${url}/${result.to}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: { refresh_interval?: string } } }
        >;
        expect(
          defined(settings[result.to], `settings of ${result.to}`).settings.index.refresh_interval,
        ).to.equal(undefined);
        expect((await backend.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(301);
      });

      it('merges an index written in several refreshes into one segment (a reindex merges its build)', async () => {
        const adapter = createAdapter(engine, url);
        const index = `cairn-test-merge-${randomBytes(4).toString('hex')}`;
        const segments = async (): Promise<number> => {
          const response = await fetch(`${url}/${index}/_segments`);
          const body = (await response.json()) as {
            indices: Record<string, { shards: Record<string, { segments: object }[]> }>;
          };
          return Object.values(defined(body.indices[index], `segments of ${index}`).shards)
            .flat()
            .reduce((sum, shard) => sum + Object.keys(shard.segments).length, 0);
        };
        try {
          await adapter.createIndex(index, {
            settings: { index: { number_of_shards: 1, number_of_replicas: 0 } },
          });
          for (let batch = 0; batch < 3; batch += 1) {
            const lines = [0, 1, 2].flatMap((item) => [
              JSON.stringify({ index: { _index: index, _id: `${batch}-${item}` } }),
              JSON.stringify({ n: batch * 3 + item }),
            ]);
            await adapter.bulk(Buffer.from(`${lines.join('\n')}\n`), true);
          }
          expect(await segments()).to.equal(3);
          await adapter.mergeSegments(index);
          expect(await segments()).to.equal(1);
        } finally {
          await adapter.deleteIndex(index);
          await adapter.close();
        }
      });
    });

    describe('reindex', () => {
      let backend: EngineBackend;
      let records: CoreRecord[];

      before(async () => {
        backend = await createTestBackend(engine, url, { spatial, refreshInterval: '2s' });
        records = parseAll(JSON.stringify([...generateRecords(1500, 11)]));
        expect((await backend.upsert(records)).failures).to.deep.equal([]);
      });

      after(async () => {
        await backend?.close();
      });

      it('builds the next version and moves the alias while reads keep seeing every record', async () => {
        const before = backend.liveIndex;
        expect(before).to.match(/-v1$/);
        const totals: number[] = [];
        let done = false;
        const reads = (async () => {
          while (!done) {
            totals.push((await backend.search({ sort: [], offset: 0, limit: 1 })).total);
          }
        })();
        const writer = await openWaitForWriter(engine, url, backend.alias, spatial);
        const extra = defined(
          parseAll(JSON.stringify([...generateRecords(1, 99)]))[0],
          'the extra record',
        );
        const [result] = await Promise.all([
          backend.reindex().finally(() => {
            done = true;
          }),
          (async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            await writer.upsert([extra]);
          })(),
        ]);
        await reads;
        await writer.close();
        expect(result.from).to.equal(before);
        expect(result.to).to.match(/-v2$/);
        expect(backend.liveIndex).to.equal(result.to);
        expect(result.failures).to.deep.equal([]);
        expect(result.reparsed).to.be.at.least(records.length);
        expect(totals.length).to.be.greaterThan(0);
        expect(
          totals.every((total) => total === records.length || total === records.length + 1),
        ).to.equal(true);
        expect((await backend.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(
          records.length + 1,
        );
        expect((await backend.get(extra.id))?.title).to.equal(extra.title);
        const adapter = createAdapter(engine, url);
        expect(await adapter.indexExists(result.from)).to.equal(false);
        expect(await adapter.aliasTargets(backend.alias)).to.deep.equal([result.to]);
        await adapter.close();
      });

      it('reindexes again to v3 and keeps every record searchable', async () => {
        const result = await backend.reindex();
        expect(result.to).to.match(/-v3$/);
        const glacier = await backend.search({
          sort: [],
          offset: 0,
          limit: 5,
          text: [['elevation']],
        });
        expect(glacier.total).to.be.greaterThan(0);
      });

      it('gives every version the configured refresh interval (built with refresh off)', async () => {
        const response = await fetch(`${url}/${backend.alias}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: { refresh_interval?: string } } }
        >;
        expect(Object.keys(settings)).to.deep.equal([backend.liveIndex]);
        expect(
          defined(settings[backend.liveIndex!], 'the live index settings').settings.index
            .refresh_interval,
        ).to.equal('2s');
      });
    });

    describe('an index written before index sorting (mapping version 5)', () => {
      let backend: EngineBackend;
      let expected: string[];

      before(async () => {
        // The first version made as an older Cairn made it: the same mapping, no index sort.
        const alias = uniqueAlias(spatial);
        const templates = buildRecordsTemplates(alias, { spatial, analysis: 'standard' });
        const base = readMappingFile('records.base.json').template as {
          settings: { index: Record<string, unknown> };
          mappings: { properties: Record<string, unknown> };
        };
        delete base.settings.index.sort;
        for (const component of templates.components.slice(1)) {
          const extra = (component.body.template as { mappings?: { properties: object } }).mappings;
          Object.assign(base.mappings.properties, extra?.properties ?? {});
        }
        const adapter = createAdapter(engine, url);
        await adapter.createIndex(`${alias}-v1`, {
          settings: base.settings,
          mappings: {
            ...base.mappings,
            _meta: { cairn: { mappingVersion: 5, spatial, analysis: 'standard' } },
          },
          aliases: { [alias]: { is_write_index: true } },
        });
        await adapter.close();
        backend = await createTestBackend(engine, url, { spatial, alias, maxResultWindow: 500 });
        const records = parseAll(JSON.stringify([...generateRecords(1200, 13)]));
        expect((await backend.upsert(records)).failures).to.deep.equal([]);
        expected = records.map((record) => record.id).sort();
      });

      after(async () => {
        await backend?.close();
      });

      const sortOf = async (index: string): Promise<unknown> => {
        const response = await fetch(`${url}/${index}/_settings`);
        const settings = (await response.json()) as Record<
          string,
          { settings: { index: { sort?: unknown } } }
        >;
        return defined(settings[index], `settings of ${index}`).settings.index.sort;
      };

      const deepPages = async (): Promise<void> => {
        for (const offset of [1100, 700, 501]) {
          const page = await backend.search({ sort: [], offset, limit: 10 });
          expect(page.total).to.equal(expected.length);
          expect(page.records.map((record) => record.id)).to.deep.equal(
            expected.slice(offset, offset + 10),
          );
        }
      };

      it('pages at depth on the unsorted index', async () => {
        expect(backend.liveIndex).to.match(/-v1$/);
        expect(await sortOf(backend.liveIndex!)).to.equal(undefined);
        await deepPages();
      });

      it('moves to a sorted index by a reindex, with the same pages', async () => {
        const result = await backend.reindex();
        expect(result.failures).to.deep.equal([]);
        expect(await sortOf(result.to)).to.deep.equal({ field: ['id'], order: ['asc'] });
        await deepPages();
      });
    });

    describe('an unreachable engine', () => {
      it('is a 503 with Retry-After, and unhealthy', async () => {
        const backend = createEngineBackend({
          engine,
          url: 'http://127.0.0.1:9',
          spatial,
          maxRetries: 0,
          requestTimeout: 2000,
        });
        const error = await backend.init().catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(ServiceUnavailableError);
        expect((error as ServiceUnavailableError).retryAfter).to.equal(5);
        expect((error as Error).message).not.to.match(/127\.0\.0\.1|ECONNREFUSED/);
        expect(await backend.health()).to.deep.include({ ok: false });
        await backend.close();
      });
    });
  });
}
