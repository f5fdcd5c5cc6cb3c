/**
 * Every year RFC 3339 writes, 0000 to 9999, is a date wherever Cairn takes one: in the records
 * it ingests and in every protocol's time parameters and filters, stored and compared right by
 * every backend (CAIRN_TEST_SYSTEM_BACKEND). JavaScript's Date.UTC reads years 0–99 as
 * 1900–1999; a record dated in year 50 must stay in year 50.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createCatalogueApp } from '../support/catalogue-app.js';
import {
  attribute,
  childrenNamed,
  cswGet,
  getRecords202,
  rootOf,
  searchResultsOf,
} from '../support/csw-client.js';
import { systemBackend } from '../support/system-backend.js';
import type { TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const SEARCH = '/catalogue/search';

const point = { type: 'Point', coordinates: [12.5, 41.9] };

/** An OGC API record with a time interval and a creation date. */
function ogcRecord(id: string, interval: [string, string], created: string): string {
  return JSON.stringify({
    type: 'Feature',
    id,
    conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
    geometry: point,
    time: { interval },
    properties: { type: 'dataset', title: `Record ${id}`, created },
    links: [],
  });
}

/** A STAC Item at one instant. */
function stacItem(id: string, datetime: string): string {
  return JSON.stringify({
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    geometry: point,
    bbox: [12.5, 41.9, 12.5, 41.9],
    properties: { title: `Item ${id}`, datetime },
    links: [],
    assets: {},
  });
}

const DOCUMENTS = [
  { name: 'year-one', content: stacItem('year-one', '0001-01-01T00:00:00Z') },
  // Written with an offset: the instant is computed (Date.UTC would land in 1950).
  { name: 'year-fifty', content: stacItem('year-fifty', '0050-03-01T00:30:00+01:00') },
  {
    name: 'year-500',
    content: ogcRecord('year-500', ['0500-01-01', '0500-12-31'], '0500-06-01'),
  },
  { name: 'modern', content: stacItem('modern', '2020-05-05T00:00:00Z') },
  { name: 'year-9999', content: stacItem('year-9999', '9999-12-31T00:00:00Z') },
];

const ids = (body: { features: { id: string }[] }): string[] =>
  body.features.map((feature) => feature.id).sort();

const target = systemBackend();

describe(`years 0000–9999 wherever a date is (${target.label})`, function () {
  this.timeout(120_000);
  let test: TestApp;

  before(async function () {
    this.timeout(300_000);
    test = await createCatalogueApp(DOCUMENTS, { PUBLIC_BASE_URL: 'http://catalogue.test' });
  });
  after(async () => test?.close());

  it('ingests the records with their years as written', async () => {
    const fifty = await request(test.app).get(`${ITEMS}/year-fifty`).expect(200);
    expect(fifty.body.time).to.deep.equal({ timestamp: '0050-02-28T23:30:00.000Z' });
    // The OGC record is served as published (dates); its STAC Item is built from what was stored.
    const five = await request(test.app).get(`${SEARCH}?ids=year-500`).expect(200);
    expect(five.body.features[0].properties).to.deep.include({
      start_datetime: '0500-01-01T00:00:00.000Z',
      end_datetime: '0500-12-31T23:59:59.999Z',
    });
    expect(five.body.features[0].properties.created).to.match(/^0500-06-01T00:00:00/);
  });

  it('Records: datetime intervals and dates, open and closed, and sorting by time', async () => {
    const cases: [string, string[]][] = [
      ['0001-01-01T00:00:00Z/..', ['modern', 'year-500', 'year-9999', 'year-fifty', 'year-one']],
      ['0001-01-01T00:00:00Z/0600-01-01T00:00:00Z', ['year-500', 'year-fifty', 'year-one']],
      ['../0001-12-31T23:59:59Z', ['year-one']],
      ['0000-01-01/0049-12-31', ['year-one']],
      ['0050-02-28', ['year-fifty']],
      ['0500-06-15T00:00:00Z', ['year-500']],
      ['9999-01-01T00:00:00Z/9999-12-31T23:59:59Z', ['year-9999']],
    ];
    for (const [datetime, expected] of cases) {
      const response = await request(test.app)
        .get(ITEMS)
        .query({ datetime, limit: '20' })
        .expect(200);
      expect(ids(response.body), datetime).to.deep.equal(expected);
    }
    const sorted = await request(test.app)
      .get(ITEMS)
      .query({ sortby: 'datetime', limit: '20' })
      .expect(200);
    expect(sorted.body.features.map((feature: { id: string }) => feature.id)).to.deep.equal([
      'year-one',
      'year-fifty',
      'year-500',
      'modern',
      'year-9999',
    ]);
  });

  it('STAC: datetime by GET and POST', async () => {
    const interval = '0001-01-01T00:00:00Z/0600-01-01T00:00:00Z';
    const get = await request(test.app).get(SEARCH).query({ datetime: interval }).expect(200);
    expect(ids(get.body)).to.deep.equal(['year-500', 'year-fifty', 'year-one']);
    const post = await request(test.app)
      .post(SEARCH)
      .send({ datetime: '0000-01-01T00:00:00Z/0001-01-01T00:00:00Z' })
      .expect(200);
    expect(ids(post.body)).to.deep.equal(['year-one']);
  });

  it('CQL2 DATE and TIMESTAMP literals, through Records and STAC', async () => {
    const cases: [string, string[]][] = [
      [
        "start_datetime < TIMESTAMP('0600-01-01T00:00:00Z')",
        ['year-500', 'year-fifty', 'year-one'],
      ],
      ["T_BEFORE(start_datetime, TIMESTAMP('0050-01-01T00:00:00Z'))", ['year-one']],
      ["created = DATE('0500-06-01')", ['year-500']],
      [
        "T_INTERSECTS(INTERVAL(start_datetime, end_datetime), INTERVAL('0049-01-01', '0499-12-31'))",
        ['year-fifty'],
      ],
    ];
    for (const [filter, expected] of cases) {
      const records = await request(test.app)
        .get(ITEMS)
        .query({ filter, 'filter-lang': 'cql2-text', limit: '20' })
        .expect(200);
      expect(ids(records.body), `Records: ${filter}`).to.deep.equal(expected);
      const stac = await request(test.app)
        .get(SEARCH)
        .query({ filter, 'filter-lang': 'cql2-text', limit: '20' })
        .expect(200);
      expect(ids(stac.body), `STAC: ${filter}`).to.deep.equal(expected);
    }
  });

  it('CSW constraints (CQL_TEXT and FES) and OpenSearch time parameters', async () => {
    const csw = await cswGet(
      test.app,
      getRecords202({
        constraintLanguage: 'CQL_TEXT',
        constraint: "apiso:TempExtent_begin < '0100-01-01'",
        maxRecords: '20',
      }),
    ).expect(200);
    expect([...searchResultsOf(csw.text).ids].sort()).to.deep.equal(['year-fifty', 'year-one']);
    const fes = await cswGet(
      test.app,
      getRecords202({
        constraintLanguage: 'FILTER',
        constraint:
          '<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsLessThan>' +
          '<ogc:PropertyName>apiso:TempExtent_begin</ogc:PropertyName>' +
          '<ogc:Literal>0001-06-01T00:00:00Z</ogc:Literal></ogc:PropertyIsLessThan></ogc:Filter>',
        maxRecords: '20',
      }),
    ).expect(200);
    expect([...searchResultsOf(fes.text).ids]).to.deep.equal(['year-one']);

    const description = rootOf((await request(test.app).get('/catalogue/opensearch')).text);
    const template = attribute(
      childrenNamed(description, 'Url').find(
        (url) => attribute(url, 'type') === 'application/atom+xml',
      ),
      'template',
    );
    expect(template).to.be.a('string');
    const url = new URL(
      (template ?? '').replace(/\{([^}?]+)\??\}/g, (_match, name: string) =>
        encodeURIComponent(
          ({ 'time:start': '0001-01-01', 'time:end': '0499-12-31', count: '20' } as const)[
            name as 'time:start'
          ] ?? '',
        ),
      ),
    );
    const feed = rootOf(
      (
        await request(test.app)
          .get(url.pathname + url.search)
          .expect(200)
      ).text,
    );
    const entries = childrenNamed(feed, 'entry').map(
      (entry) => childrenNamed(entry, 'identifier')[0]?.text,
    );
    expect(entries.sort()).to.deep.equal(['year-fifty', 'year-one']);
  });

  it('still refuses what is not a year 0000–9999', async () => {
    for (const datetime of ['-0001-01-01T00:00:00Z/..', '10000-01-01T00:00:00Z/..']) {
      const response = await request(test.app).get(ITEMS).query({ datetime }).expect(400);
      expect(response.body.description, datetime).to.match(/datetime/);
    }
  });
});
