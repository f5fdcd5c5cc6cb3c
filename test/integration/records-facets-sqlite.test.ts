/**
 * Records facets counted on a real SQLite backend (countFacets over SearchBackend.aggregate and
 * domain): date histograms by calendar period of the records' start, numeric range facets by
 * band, term facets beside them, a bucket count and the bound on a histogram's periods.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { QueryLimitError } from '../../shared/errors/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { countFacets } from '../../services/api/protocols/records/facets.js';
import { parseFacetsParameter } from '../../services/api/protocols/records/parse.js';

const item = (id: string, datetime: string | null, cloudCover?: number) => ({
  type: 'Feature',
  stac_version: '1.0.0',
  id,
  collection: 'facets-it',
  geometry: null,
  bbox: [0, 0, 1, 1],
  properties: {
    datetime,
    ...(datetime === null && {
      start_datetime: null,
      end_datetime: null,
    }),
    ...(cloudCover !== undefined && { 'eo:cloud_cover': cloudCover }),
    platform: cloudCover !== undefined && cloudCover < 50 ? 'clear-sat' : 'cloudy-sat',
  },
  links: [],
  assets: {},
});

const ITEMS = [
  item('f-1', '2020-01-15T10:00:00Z', 5),
  item('f-2', '2020-01-31T23:59:59.999Z', 10),
  item('f-3', '2020-02-01T00:00:00Z', 99.5),
  item('f-4', '2021-07-04T12:00:00Z', 100),
  item('f-5', '2024-12-31T23:00:00Z', 45),
  item('f-6', '2024-12-31T23:30:00Z'),
];

const LIMITS = { maxFacets: 8, maxAggregationBuckets: 100 };
const QUERY: SearchQuery = { sort: [{ field: 'title', direction: 'asc' }], offset: 3, limit: 2 };

describe('Records facets on SQLite: histograms and ranges by the aggregate operation', () => {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-facets-'));
  let sqlite: SqliteBackend;

  before(async () => {
    sqlite = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
    await sqlite.init();
    const { records } = parseDocuments(JSON.stringify(ITEMS));
    expect(records).to.have.length(ITEMS.length);
    expect((await sqlite.upsert(records)).failures).to.deep.equal([]);
  });
  after(async () => {
    await sqlite?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const count = (facets: string, query: SearchQuery = QUERY, limits = LIMITS) =>
    countFacets(sqlite, query, parseFacetsParameter(facets, limits), limits);

  it('counts the records by the month their time starts in, in time order, paging ignored', async () => {
    const [months] = await count('datetime');
    expect(months).to.deep.equal({
      kind: 'histogram',
      name: 'datetime',
      property: 'start_datetime',
      interval: 'month',
      buckets: [
        {
          value: '2020-01-01T00:00:00.000Z',
          min: '2020-01-01T00:00:00.000Z',
          max: '2020-02-01T00:00:00.000Z',
          count: 2,
        },
        {
          value: '2020-02-01T00:00:00.000Z',
          min: '2020-02-01T00:00:00.000Z',
          max: '2020-03-01T00:00:00.000Z',
          count: 1,
        },
        {
          value: '2021-07-01T00:00:00.000Z',
          min: '2021-07-01T00:00:00.000Z',
          max: '2021-08-01T00:00:00.000Z',
          count: 1,
        },
        {
          value: '2024-12-01T00:00:00.000Z',
          min: '2024-12-01T00:00:00.000Z',
          max: '2025-01-01T00:00:00.000Z',
          count: 2,
        },
      ],
      more: 0,
    });
  });

  it('counts by band of cloud cover, empty bands left out, the last open above', async () => {
    const [bands] = await count('cloudCover');
    expect(bands!.kind).to.equal('histogram');
    expect(bands!.buckets).to.deep.equal([
      { value: '0-10', min: 0, max: 10, count: 1 },
      { value: '10-20', min: 10, max: 20, count: 1 },
      { value: '40-50', min: 40, max: 50, count: 1 },
      { value: '90-*', min: 90, count: 2 },
    ]);
  });

  it('answers every facet kind of one request in the order asked, within the query', async () => {
    const clear: SearchQuery = {
      ...QUERY,
      properties: [{ name: 'platform', values: ['clear-sat'] }],
    };
    const facets = await count('datetime::year,platform,cloudCover:2', clear);
    expect(facets.map((facet) => facet.name)).to.deep.equal(['datetime', 'platform', 'cloudCover']);
    expect(facets[0]!.buckets.map((bucket) => [bucket.value, bucket.count])).to.deep.equal([
      ['2020-01-01T00:00:00.000Z', 2],
      ['2024-01-01T00:00:00.000Z', 1],
    ]);
    expect(facets[1]).to.deep.equal({
      kind: 'term',
      name: 'platform',
      property: 'platform',
      buckets: [{ value: 'clear-sat', count: 3 }],
    });
    expect(facets[2]).to.deep.include({ more: 1 });
    expect(facets[2]!.buckets).to.have.length(2);
  });

  it('refuses a histogram whose periods exceed QUERY_MAX_AGGREGATION_BUCKETS before counting', async () => {
    const tight = { maxFacets: 8, maxAggregationBuckets: 4 };
    let error: unknown;
    try {
      await count('datetime::year,cloudCover', QUERY, tight);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(QueryLimitError);
    expect((error as QueryLimitError).message).to.contain('facets=datetime::year');
    expect((error as QueryLimitError).message).to.contain('5 buckets');
    // The years of the records after 2021 fit.
    const recent: SearchQuery = {
      ...QUERY,
      temporal: { start: '2021-01-01T00:00:00.000Z', end: null, relation: 'intersects' },
    };
    const [years] = await count('datetime::year', recent, tight);
    expect(years!.buckets.map((bucket) => bucket.count)).to.deep.equal([1, 2]);
  });
});
