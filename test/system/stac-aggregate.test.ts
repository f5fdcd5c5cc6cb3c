import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { fixturePath } from '../support/fixtures.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const AGGREGATE = '/catalogue/aggregate';
const SEARCH = '/catalogue/search';

interface Bucket {
  key: string;
  data_type: string;
  frequency: number;
  from?: number;
  to?: number;
}

interface Aggregation {
  name: string;
  data_type: string;
  value?: string | number | null;
  buckets?: Bucket[];
  overflow?: number;
}

const schema = JSON.parse(
  readFileSync(fixturePath('stac-aggregation', 'aggregation-collection.schema.json'), 'utf8'),
) as Record<string, unknown>;
const ajv = new Ajv({ allErrors: true, strict: false });
const validateCollection = ajv.compile(schema);
const validateResult = ajv.compile({
  ...schema,
  $ref: '#/definitions/aggregationResult',
  required: undefined,
  properties: undefined,
  type: undefined,
});

/** Items of two collections, on the edges of the cloud cover bands. */
const ITEMS = [10, 10, 55, 90, 100].map((cloudCover, index) => ({
  type: 'Feature',
  stac_version: '1.0.0',
  id: `agg-${index}`,
  collection: index < 2 ? 'agg-col-a' : 'agg-col-b',
  geometry: null,
  bbox: [index, index, index + 1, index + 1],
  properties: {
    datetime: `2030-0${index + 1}-15T12:00:00Z`,
    platform: index % 2 === 0 ? 'agg-sat-1' : 'agg-sat-2',
    instruments: ['agg-camera'],
    'eo:cloud_cover': cloudCover,
  },
  links: [],
  assets: {},
}));

describe(`STAC API Aggregation over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(60, {
      PUBLIC_BASE_URL: 'http://cairn.test',
      QUERY_MAX_AGGREGATION_BUCKETS: '50',
    });
    const summary = await ingestDocuments(test.backend, [
      { name: 'aggregation items', content: JSON.stringify(ITEMS) },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  const get = (path: string) => request(test.app).get(path);
  const aggregate = async (query: string): Promise<Aggregation[]> => {
    const response = await get(`${AGGREGATE}?${query}`);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expectValid(response.body);
    return response.body.aggregations as Aggregation[];
  };
  const numberMatched = async (query: string): Promise<number> =>
    (await get(`${SEARCH}?${query}&limit=1`).expect(200)).body.numberMatched as number;
  const byName = (aggregations: Aggregation[], name: string): Aggregation =>
    aggregations.find((aggregation) => aggregation.name === name)!;
  function expectValid(body: unknown): void {
    expect(validateCollection(body), JSON.stringify(validateCollection.errors)).to.equal(true);
    for (const aggregation of (body as { aggregations: unknown[] }).aggregations) {
      expect(validateResult(aggregation), JSON.stringify(validateResult.errors)).to.equal(true);
    }
  }
  function expectBadRequest(response: request.Response, ...words: string[]): void {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(Object.keys(response.body).sort()).to.deep.equal(['code', 'description']);
    for (const word of words) expect(response.body.description).to.contain(word);
  }

  it('lists what can be aggregated, linked from both landing pages, and declares the class', async () => {
    const list = (await get('/catalogue/aggregations').expect(200)).body;
    expect(validateCollection(list), JSON.stringify(validateCollection.errors)).to.equal(true);
    const names = (list.aggregations as Aggregation[]).map((aggregation) => aggregation.name);
    expect(names).to.include.members([
      'total_count',
      'datetime_min',
      'datetime_max',
      'datetime_frequency',
      'collection_frequency',
      'platform_frequency',
      'instruments_frequency',
      'type_frequency',
      'keywords_frequency',
      'cloud_cover_frequency',
      'centroid_geohash_grid_frequency',
    ]);
    for (const landing of ['/catalogue', '/catalogue/stac']) {
      const body = (await get(landing).expect(200)).body;
      const rels = (body.links as { rel: string; method?: string }[]).filter((link) =>
        link.rel.startsWith('aggregat'),
      );
      expect(rels.map((link) => `${link.rel} ${link.method ?? ''}`).sort(), landing).to.deep.equal([
        'aggregate GET',
        'aggregate POST',
        'aggregations ',
      ]);
      expect(body.conformsTo).to.include('https://api.stacspec.org/v0.3.0/aggregation');
    }
    expectBadRequest(await get('/catalogue/aggregations?x=1'), 'x');
  });

  it('answers every aggregation, valid against the extension schema, counting as the search does', async () => {
    const all = await aggregate('datetime_frequency_interval=year');
    expect(all.map((aggregation) => aggregation.name)).to.include('datetime_frequency');
    const total = await numberMatched('');
    expect(byName(all, 'total_count').value).to.equal(total);
    const collections = byName(all, 'collection_frequency').buckets!;
    expect(collections.map((bucket) => [bucket.key, bucket.frequency])).to.deep.equal([
      ['agg-col-b', 3],
      ['agg-col-a', 2],
    ]);
    const clouds = byName(all, 'cloud_cover_frequency').buckets!;
    expect(clouds.find((bucket) => bucket.key === '10-20')?.frequency).to.equal(2);
    expect(clouds.find((bucket) => bucket.key === '90-*')).to.deep.include({
      from: 90,
      frequency: await numberMatched(`filter=${encodeURIComponent('eo:cloud_cover >= 90')}`),
    });
    for (const bucket of byName(all, 'platform_frequency').buckets!) {
      const filter = encodeURIComponent(`platform = '${bucket.key.replace(/'/g, "''")}'`);
      expect(bucket.frequency, bucket.key).to.equal(await numberMatched(`filter=${filter}`));
    }
    const years = await aggregate(
      'aggregations=datetime_frequency&datetime_frequency_interval=year',
    );
    const frequency = byName(years, 'datetime_frequency').buckets!;
    expect(frequency.at(-1)).to.deep.include({ key: '2030-01-01T00:00:00.000Z', frequency: 5 });
    const grid = byName(
      await aggregate('aggregations=centroid_geohash_grid_frequency'),
      'centroid_geohash_grid_frequency',
    );
    expect(grid.buckets!.every((bucket) => /^[0-9b-hjkmnp-z]$/.test(bucket.key))).to.equal(true);
  });

  it('aggregates the same records as the search with the same parameters, GET and POST', async () => {
    const parameters = `collections=agg-col-b&datetime=${encodeURIComponent('2030-01-01T00:00:00Z/2030-12-31T23:59:59Z')}`;
    const filter = "eo:cloud_cover > 50 AND platform = 'agg-sat-1'";
    const found = await aggregate(
      `${parameters}&filter=${encodeURIComponent(filter)}&aggregations=total_count,datetime_min,datetime_max`,
    );
    expect(found.map((aggregation) => aggregation.value)).to.deep.equal([
      await numberMatched(`${parameters}&filter=${encodeURIComponent(filter)}`),
      '2030-03-15T12:00:00.000Z',
      '2030-05-15T12:00:00.000Z',
    ]);
    const posted = await request(test.app)
      .post(AGGREGATE)
      .send({
        collections: ['agg-col-b'],
        datetime: '2030-01-01T00:00:00Z/2030-12-31T23:59:59Z',
        filter: {
          op: 'and',
          args: [
            { op: '>', args: [{ property: 'eo:cloud_cover' }, 50] },
            { op: '=', args: [{ property: 'platform' }, 'agg-sat-1'] },
          ],
        },
        aggregations: ['total_count', 'datetime_min', 'datetime_max'],
      })
      .expect(200);
    expectValid(posted.body);
    expect(posted.body.aggregations).to.deep.equal(found);
  });

  it('refuses unknown names and intervals, and more buckets than the bound, naming the problem', async () => {
    expectBadRequest(await get(`${AGGREGATE}?aggregations=total_count,nonsense`), 'nonsense');
    expectBadRequest(
      await get(`${AGGREGATE}?datetime_frequency_interval=fortnight`),
      'datetime_frequency_interval',
    );
    expectBadRequest(
      await get(
        `${AGGREGATE}?aggregations=centroid_geohash_grid_frequency&centroid_geohash_grid_frequency_precision=13`,
      ),
      'centroid_geohash_grid_frequency_precision',
    );
    // Sixty generated records over decades: far more than 50 months, or grid cells at 4.
    expectBadRequest(
      await get(`${AGGREGATE}?aggregations=datetime_frequency&datetime_frequency_interval=month`),
      'datetime_frequency_interval',
      'QUERY_MAX_AGGREGATION_BUCKETS',
    );
    expectBadRequest(
      await get(
        `${AGGREGATE}?aggregations=centroid_geohash_grid_frequency&centroid_geohash_grid_frequency_precision=4`,
      ),
      'centroid_geohash_grid_frequency_precision',
      'QUERY_MAX_AGGREGATION_BUCKETS',
    );
    expectBadRequest(await get(`${AGGREGATE}?bbox=1,2,3`), 'bbox');
    expectBadRequest(await get(`${AGGREGATE}?filter=${encodeURIComponent('nope ==')}`), 'filter');
    expectBadRequest(await request(test.app).post(AGGREGATE).send({ aggregations: 'x,y' }), 'x');
  });
});
