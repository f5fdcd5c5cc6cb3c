/**
 * One aggregation contract, three backends: the same records on SQLite, Elasticsearch and
 * OpenSearch, and over a table of queries × aggregations each engine must give exactly SQLite's
 * buckets and counts (SearchBackend.aggregate, shared/search/aggregations.ts). On SQLite each
 * count is then checked against `total` of the matching search (numberMatched), and the grid
 * against geohashes computed here by bisection from the records' own boxes. Needs
 * CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import {
  boxCentre,
  CALENDAR_INTERVALS,
  type AggregationAnswer,
  type AggregationRequest,
  type CalendarInterval,
} from '../../shared/search/aggregations.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createTestBackend, requireEngineUrl } from './engine-backend-cases.js';

function item(
  id: string,
  parent: string,
  bbox: [number, number, number, number],
  datetime: string,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    collection: parent,
    geometry: null,
    bbox,
    properties: { datetime, ...properties },
    links: [],
    assets: {},
  };
}

/**
 * Items on the edges: cloud cover on band limits (0, 10, 90, 100), times on the first instant
 * of a week, quarter and year and the last millisecond before, centres on cell edges (0°, 45°,
 * 180°), boxes across the antimeridian, repeated keywords.
 */
const EDGE_ITEMS = [
  item('edge-1', 'col-a', [-1, -1, 1, 1], '2024-01-01T00:00:00Z', {
    platform: 'sentinel-2a',
    instruments: ['msi'],
    'eo:cloud_cover': 0,
    keywords: ['edge', 'edge', 'zero'],
  }),
  item('edge-2', 'col-a', [170, 40, -170, 50], '2023-12-31T23:59:59.999Z', {
    platform: 'sentinel-2b',
    instruments: ['msi'],
    'eo:cloud_cover': 10,
    keywords: ['edge'],
  }),
  item('edge-3', 'col-b', [179, 44, 180, 46], '2024-04-01T00:00:00Z', {
    platform: 'landsat-9',
    instruments: ['oli', 'tirs'],
    'eo:cloud_cover': 90,
  }),
  item('edge-4', 'col-b', [-180, -90, 180, 90], '2024-03-31T23:59:59Z', {
    platform: 'landsat-9',
    instruments: ['oli'],
    'eo:cloud_cover': 100,
  }),
  item('edge-5', 'col-b', [44.99, 0, 45.01, 0.5], '2024-01-08T00:00:00Z', {
    platform: 'sentinel-2a',
    'eo:cloud_cover': 9.999,
  }),
  item('edge-6', 'col-c', [-120, 30, -110, 40], '2024-01-07T23:59:59.999Z', {
    platform: 'Ünïcode-sat',
    'eo:cloud_cover': 55.5,
  }),
];

const filter = (text: string) => checkFilter(parseCql2Text(text));

/** The queries of the case table (paging ignored by aggregations). */
const QUERIES: [string, Omit<SearchQuery, 'sort' | 'offset' | 'limit'>][] = [
  ['everything', {}],
  ['a bbox', { spatial: { bbox: [-20, 30, 60, 70], relation: 'intersects' } }],
  [
    'a datetime',
    {
      temporal: {
        start: '2000-01-01T00:00:00.000Z',
        end: '2024-03-31T23:59:59.999Z',
        relation: 'intersects',
      },
    },
  ],
  ['free text', { text: [['land'], ['edge']] }],
  ['a CQL2 filter', { filter: filter("eo:cloud_cover < 60 OR platform = 'landsat-9'") }],
  ['collections', { collections: ['col-a', 'col-b'] }],
];

const REQUESTS: Record<string, AggregationRequest> = {
  stats: { kind: 'stats' },
  ...Object.fromEntries(
    CALENDAR_INTERVALS.map((interval) => [
      `histogram_${interval}`,
      { kind: 'histogram', interval },
    ]),
  ),
  collections: { kind: 'terms', field: 'parentId', size: 100 },
  platforms: { kind: 'terms', field: 'platform', size: 100 },
  platformsTop2: { kind: 'terms', field: 'platform', size: 2 },
  instruments: { kind: 'terms', field: 'instrument', size: 100 },
  types: { kind: 'terms', field: 'type', size: 100 },
  keywords: { kind: 'terms', field: 'keywords', size: 1000 },
  keywordsTop5: { kind: 'terms', field: 'keywords', size: 5 },
  cloudCover: {
    kind: 'ranges',
    field: 'cloudCover',
    ranges: [
      { key: '*-10', to: 10 },
      { key: '10-90', from: 10, to: 90 },
      { key: '90-*', from: 90 },
    ],
  },
  ...Object.fromEntries(
    [1, 2, 3, 5].map((precision) => [`grid${precision}`, { kind: 'grid', precision }]),
  ),
};

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** A geohash by bisection, independent of the cell arithmetic under test. */
function geohash(lon: number, lat: number, precision: number): string {
  let [lonLow, lonHigh, latLow, latHigh] = [-180, 180, -90, 90];
  let hash = '';
  let value = 0;
  for (let bit = 0; bit < precision * 5; bit += 1) {
    if (bit % 2 === 0) {
      const middle = (lonLow + lonHigh) / 2;
      value = value * 2 + (lon >= middle ? 1 : 0);
      if (lon >= middle) lonLow = middle;
      else lonHigh = middle;
    } else {
      const middle = (latLow + latHigh) / 2;
      value = value * 2 + (lat >= middle ? 1 : 0);
      if (lat >= middle) latLow = middle;
      else latHigh = middle;
    }
    if (bit % 5 === 4) {
      hash += BASE32[value];
      value = 0;
    }
  }
  return hash;
}

/** The first instant of the period after the one starting at `key`. */
function nextPeriod(key: string, interval: CalendarInterval): string {
  const date = new Date(key);
  const step: Record<CalendarInterval, () => void> = {
    year: () => date.setUTCFullYear(date.getUTCFullYear() + 1),
    quarter: () => date.setUTCMonth(date.getUTCMonth() + 3),
    month: () => date.setUTCMonth(date.getUTCMonth() + 1),
    week: () => date.setUTCDate(date.getUTCDate() + 7),
    day: () => date.setUTCDate(date.getUTCDate() + 1),
    hour: () => date.setUTCHours(date.getUTCHours() + 1),
  };
  step[interval]();
  return date.toISOString();
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

describe('aggregations: one contract on SQLite, Elasticsearch and OpenSearch', function () {
  this.timeout(120_000);
  const urls = {
    elasticsearch: requireEngineUrl('elasticsearch'),
    opensearch: requireEngineUrl('opensearch'),
  };
  const directory = mkdtempSync(join(tmpdir(), 'cairn-aggregate-'));
  let records: CoreRecord[];
  let sqlite: SqliteBackend;
  const engines: [EngineName, SearchBackend][] = [];
  const answers = new Map<string, Record<string, AggregationAnswer>>();

  before(async () => {
    const documents = [
      ...[...generateRecords(400, 11)].map((record) => JSON.stringify(record)),
      JSON.stringify(EDGE_ITEMS),
    ];
    records = documents.flatMap((content) => parseDocuments(content).records);
    sqlite = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
    await sqlite.init();
    expect((await sqlite.upsert(records)).failures).to.deep.equal([]);
    for (const engine of ['elasticsearch', 'opensearch'] as const) {
      const url = urls[engine];
      if (!url) continue;
      const backend = await createTestBackend(engine, url, { spatial: 'envelope' });
      engines.push([engine, backend]);
      expect((await backend.upsert(records)).failures).to.deep.equal([]);
    }
    for (const [label, query] of QUERIES) {
      answers.set(
        label,
        await sqlite.aggregate({ ...query, sort: [], offset: 0, limit: 10 }, REQUESTS),
      );
    }
  });
  after(async () => {
    await sqlite?.close();
    for (const [, backend] of engines) await backend.close();
    rmSync(directory, { recursive: true, force: true });
  });

  for (const [label, query] of QUERIES) {
    const full: SearchQuery = { ...query, sort: [], offset: 0, limit: 10 };
    const total = async (extra?: string): Promise<number> => {
      const base = full.filter;
      const added = extra ? filter(extra) : undefined;
      const combined =
        base && added
          ? checkFilter(parseCql2Text(`(${extra}) AND (${QUERY_FILTERS[label] ?? 'TRUE'})`))
          : (added ?? base);
      return (await sqlite.search({ ...full, ...(combined && { filter: combined }), limit: 1 }))
        .total;
    };

    describe(`over ${label}`, () => {
      it('gives the same buckets and counts on every backend', async () => {
        expect(engines.length, 'both engines').to.equal(2);
        const expected = answers.get(label)!;
        for (const [engine, backend] of engines) {
          const found = await backend.aggregate(full, REQUESTS);
          expect(found, engine).to.deep.equal(expected);
        }
      });

      it('counts what the matching searches count', async () => {
        const answer = answers.get(label)!;
        const stats = answer.stats!;
        if (stats.kind !== 'stats') throw new Error('stats');
        expect(stats.stats.count).to.equal(await total());
        for (const [name, result] of Object.entries(answer)) {
          if (result.kind !== 'buckets') continue;
          const request = REQUESTS[name]!;
          for (const bucket of result.buckets) {
            let condition: string | undefined;
            if (request.kind === 'terms') {
              const property =
                { parentId: 'collection', instrument: 'instruments' }[request.field] ??
                request.field;
              condition =
                property === 'keywords' || property === 'instruments'
                  ? `A_CONTAINS(${property}, (${quote(bucket.key)}))`
                  : `${property} = ${quote(bucket.key)}`;
            } else if (request.kind === 'histogram') {
              const next = nextPeriod(bucket.key, request.interval);
              condition = `start_datetime >= TIMESTAMP('${bucket.key}') AND start_datetime < TIMESTAMP('${next}')`;
            } else if (request.kind === 'ranges') {
              const parts = [
                ...(bucket.from !== undefined ? [`eo:cloud_cover >= ${bucket.from}`] : []),
                ...(bucket.to !== undefined ? [`eo:cloud_cover < ${bucket.to}`] : []),
              ];
              condition = parts.join(' AND ');
            }
            if (condition === undefined) continue;
            expect(bucket.count, `${name} ${bucket.key}`).to.equal(await total(condition));
          }
          if (request.kind === 'terms' && result.overflow === 0 && request.field !== 'keywords') {
            const counted = result.buckets.reduce((sum, bucket) => sum + bucket.count, 0);
            expect(counted, name).to.be.at.most(stats.stats.count);
          }
        }
      });

      it('puts each record in the geohash cell of its box centre', async () => {
        const matched = (await sqlite.search({ ...full, limit: 10_000 })).records;
        for (const precision of [1, 2, 3, 5]) {
          const counts = new Map<string, number>();
          for (const record of matched) {
            if (!record.bbox) continue;
            const [lon, lat] = boxCentre(record.bbox);
            const hash = geohash(lon, lat, precision);
            counts.set(hash, (counts.get(hash) ?? 0) + 1);
          }
          const answer = answers.get(label)![`grid${precision}`]!;
          if (answer.kind !== 'buckets') throw new Error('buckets');
          expect(
            Object.fromEntries(answer.buckets.map((bucket) => [bucket.key, bucket.count])),
            `precision ${precision}`,
          ).to.deep.equal(Object.fromEntries(counts));
        }
      });
    });
  }
});

/** The filters of QUERIES as text, to combine with a bucket's condition. */
const QUERY_FILTERS: Record<string, string> = {
  'a CQL2 filter': "eo:cloud_cover < 60 OR platform = 'landsat-9'",
};
