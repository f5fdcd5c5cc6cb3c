/**
 * Records facets over HTTP (Records Part 2): date histograms and numeric ranges, counted by the
 * backend's one aggregation operation. The same records are loaded on the backend the suite
 * runs on and on SQLite, and over a table of queries × facets the two must give the same
 * buckets and counts (or the same 400); each bucket's count must equal `numberMatched` of the
 * search for its records, and the buckets together the search for every record with a value.
 */
import { expect } from 'chai';
import request from 'supertest';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { CALENDAR_INTERVALS } from '../../shared/search/aggregations.js';
import { histogramBucketCondition } from '../../services/api/html/pages.js';
import { systemBackend } from '../support/system-backend.js';
import { startApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

interface Bucket {
  value: string;
  min?: string | number;
  max?: string | number;
  count: number;
}

interface Facet {
  type: string;
  property: string;
  interval?: string;
  buckets: Bucket[];
  more?: number;
}

function item(
  id: string,
  datetime: string,
  cloudCover: number | undefined,
  snowCover?: number,
): Record<string, unknown> {
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    collection: 'facet-col',
    geometry: null,
    bbox: [10, 10, 11, 11],
    properties: {
      datetime,
      ...(cloudCover !== undefined && { 'eo:cloud_cover': cloudCover }),
      ...(snowCover !== undefined && { 'eo:snow_cover': snowCover }),
      platform: 'facet-sat',
    },
    links: [],
    assets: {},
  };
}

/** Items on the edges of periods (year, quarter, week, day, hour) and of the bands of ten. */
const EDGE_ITEMS = [
  item('facet-edge-1', '2024-01-01T00:00:00Z', 0, 0),
  item('facet-edge-2', '2023-12-31T23:59:59.999Z', 10, 100),
  item('facet-edge-3', '2024-04-01T00:00:00Z', 90, 9.99),
  item('facet-edge-4', '2024-03-31T23:59:59Z', 100),
  item('facet-edge-5', '2024-01-08T00:00:00Z', 9.999),
  item('facet-edge-6', '2024-01-07T23:59:59.999Z', 55.5),
  item('facet-edge-7', '2024-01-07T23:00:00Z', undefined),
];

/** The queries of the case table, as items parameters. */
const QUERIES: Record<string, Record<string, string>> = {
  everything: {},
  'a bbox': { bbox: '-20,-10,60,70' },
  'a datetime': { datetime: '2000-01-01T00:00:00Z/2024-03-31T23:59:59Z' },
  'free text': { q: 'land,edge' },
  'a CQL2 filter': { filter: "cloudCover < 60 OR platform = 'facet-sat'" },
};

/** The facets of the case table: each date histogram interval, and both range facets. */
const FACETS = [
  ...CALENDAR_INTERVALS.map((interval) => `start_datetime::${interval}`),
  'cloudCover',
  'snowCover',
];

describe(`Records facets: histograms and ranges on ${systemBackend().label} as on SQLite`, function () {
  this.timeout(300_000);
  let test: TestApp;
  let sqlite: TestApp;
  const environment = {
    PUBLIC_BASE_URL: 'http://cairn.test',
    QUERY_MAX_AGGREGATION_BUCKETS: '600',
    QUERY_MAX_FACETS: '8',
    QUERY_EXPENSIVE_FACETS: '8',
    // A histogram refused for too many periods answers 400 while a read of its request that a
    // SQLite statement cannot stop may still hold the request's place in the expensive lane. On
    // a loaded 2-core machine the next request found both places (one per core by default)
    // held and got a 503. The lane has its own tests; here it has room for such reads.
    QUERY_EXPENSIVE_CONCURRENCY: '16',
    LIMIT_MAX: '100',
  };

  before(async () => {
    const documents = [
      ...[...generateRecords(120, 7)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      })),
      { name: 'edge items', content: JSON.stringify(EDGE_ITEMS) },
    ];
    test = await startApp(systemBackend(), documents, environment);
    sqlite =
      systemBackend().kind === 'sqlite'
        ? test
        : await startApp({ kind: 'sqlite', label: 'SQLite' }, documents, environment);
  });
  after(async () => {
    await test?.close();
    if (sqlite !== test) await sqlite?.close();
  });

  const items = (app: TestApp, parameters: Record<string, string>) =>
    request(app.app).get(`${ITEMS}?${new URLSearchParams(parameters).toString()}`);
  const numberMatched = async (parameters: Record<string, string>): Promise<number> => {
    const response = await items(test, { ...parameters, limit: '1' });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body.numberMatched as number;
  };
  /** The query's parameters with a CQL2 condition ANDed to its filter. */
  const narrowed = (parameters: Record<string, string>, condition: string) => ({
    ...parameters,
    filter: parameters.filter ? `(${parameters.filter}) AND ${condition}` : condition,
  });

  for (const [queryName, parameters] of Object.entries(QUERIES)) {
    it(`gives SQLite's buckets for ${queryName}, each counting as the search does`, async () => {
      let answered = 0;
      for (const facets of FACETS) {
        const asked = { ...parameters, facets, limit: '1' };
        // On SQLite the system backend is SQLite itself: one answer serves both sides. (Asked
        // twice, a histogram of every period is an expensive search, one at a time per
        // client, and the second can come while the first's page search still holds the
        // client's place after its 400.)
        const here = await items(test, asked);
        const there = sqlite === test ? here : await items(sqlite, asked);
        expect(here.status, `${facets}: ${JSON.stringify(here.body)}`).to.equal(there.status);
        if (there.status === 400) {
          // Too many periods: the same refusal, in the Records error format, naming the bound.
          expect(here.body, facets).to.deep.equal(there.body);
          expect(here.body.description).to.contain('QUERY_MAX_AGGREGATION_BUCKETS');
          continue;
        }
        expect(there.status, JSON.stringify(there.body)).to.equal(200);
        answered += 1;
        const name = facets.split(':')[0]!;
        const facet = here.body.facets[name] as Facet;
        expect(facet, facets).to.deep.equal(there.body.facets[name]);
        expect(facet).to.include({ type: 'histogram', more: 0 });
        const property = facet.property;
        // Every bucket is the search for its records; together, every record with a value.
        const withValue = await numberMatched(narrowed(parameters, `${property} IS NOT NULL`));
        expect(
          facet.buckets.reduce((sum, bucket) => sum + bucket.count, 0),
          facets,
        ).to.equal(withValue);
        for (const bucket of facet.buckets) {
          expect(bucket.count, `${facets} ${bucket.value}`).to.be.greaterThan(0);
          const condition = histogramBucketCondition(property, bucket);
          expect(await numberMatched(narrowed(parameters, condition)), condition).to.equal(
            bucket.count,
          );
        }
      }
      expect(answered, 'histograms answered rather than refused').to.be.greaterThan(3);
    });
  }

  it('places the edge items in their periods and bands', async () => {
    const response = await items(test, {
      ids: EDGE_ITEMS.map((edge) => edge.id as string).join(','),
      facets: 'datetime::week,cloudCover,snowCover',
      limit: '1',
    }).expect(200);
    const counts = (name: string) =>
      Object.fromEntries(
        (response.body.facets[name] as Facet).buckets.map((bucket) => [bucket.value, bucket.count]),
      );
    expect(counts('datetime')).to.deep.equal({
      '2023-12-25T00:00:00.000Z': 1,
      '2024-01-01T00:00:00.000Z': 3,
      '2024-01-08T00:00:00.000Z': 1,
      '2024-03-25T00:00:00.000Z': 1,
      '2024-04-01T00:00:00.000Z': 1,
    });
    expect(counts('cloudCover')).to.deep.equal({ '0-10': 2, '10-20': 1, '50-60': 1, '90-*': 2 });
    expect(counts('snowCover')).to.deep.equal({ '0-10': 2, '90-*': 1 });
    const week = (response.body.facets.datetime as Facet).buckets[0]!;
    expect(week).to.deep.equal({
      value: '2023-12-25T00:00:00.000Z',
      min: '2023-12-25T00:00:00.000Z',
      max: '2024-01-01T00:00:00.000Z',
      count: 1,
    });
    const open = (response.body.facets.cloudCover as Facet).buckets.at(-1);
    expect(open).to.deep.equal({ value: '90-*', min: 90, count: 2 });
  });

  it('keeps the first buckets of a bucket count and says how many more there are', async () => {
    const all = (await items(test, { facets: 'datetime::year', limit: '1' }).expect(200)).body
      .facets.datetime as Facet;
    const first = (await items(test, { facets: 'datetime:3:year', limit: '1' }).expect(200)).body
      .facets.datetime as Facet;
    expect(all.buckets.length).to.be.greaterThan(3);
    expect(first.buckets).to.deep.equal(all.buckets.slice(0, 3));
    expect(first.more).to.equal(all.buckets.length - 3);
  });

  it('refuses bad facets with a 400 in the Records error format naming the problem', async () => {
    const refused = async (facets: string, ...words: string[]) => {
      const response = await items(test, { facets });
      expect(response.status, `${facets}: ${JSON.stringify(response.body)}`).to.equal(400);
      expect(Object.keys(response.body).sort()).to.deep.equal(['code', 'description']);
      for (const word of words) expect(response.body.description, facets).to.contain(word);
    };
    await refused('datetime::fortnight', '"fortnight"', 'year, quarter, month, week, day, hour');
    await refused('updated::year', '"updated::year" is not a facet');
    await refused('cloudCover::month', 'range facet');
    await refused('datetime:601:year', 'QUERY_MAX_AGGREGATION_BUCKETS');
    await refused('datetime::hour', 'QUERY_MAX_AGGREGATION_BUCKETS', 'facets=datetime::hour');
  });

  it('lists the histogram facets, and shows them on the HTML page with links to their records', async () => {
    const definitions = (
      await request(test.app).get('/catalogue/collections/metadata:main/facets').expect(200)
    ).body;
    expect(definitions.facets.start_datetime).to.include({ type: 'histogram', interval: 'month' });
    expect(definitions.facets.cloudCover.ranges).to.have.length(10);
    const page = await items(test, {
      f: 'html',
      facets: 'datetime::year,cloudCover',
      ids: 'facet-edge-1,facet-edge-2,facet-edge-3',
    }).expect(200);
    expect(page.text).to.contain('>2024</a>');
    expect(page.text).to.contain('>90 and above</a>');
    const hrefs = [...page.text.matchAll(/href="([^"]*filter=[^"]*)"/g)].map((match) =>
      match[1]!.replace(/&amp;/g, '&'),
    );
    const year = hrefs.find((href) =>
      decodeURIComponent(href.replace(/\+/g, ' ')).includes(">= TIMESTAMP('2024-01-01"),
    );
    expect(year, hrefs.join('\n')).to.not.equal(undefined);
    const linked = await request(test.app)
      .get(year!.replace('http://cairn.test', '').replace('f=html', 'f=json'))
      .expect(200);
    expect(linked.body.numberMatched, year).to.equal(2);
  });
});
