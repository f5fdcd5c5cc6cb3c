import { expect } from 'chai';
import request from 'supertest';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

interface Feature {
  id: string;
  geometry: unknown;
  time: unknown;
  properties: Record<string, unknown>;
}

describe(`OGC API – Records over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(400);
  });
  after(async () => {
    await test?.close();
  });

  const get = (path: string) => request(test.app).get(path);

  it('serves a landing page whose links resolve', async () => {
    const response = await get('/catalogue').expect(200).expect('Content-Type', /json/);
    const rels = response.body.links.map((link: { rel: string }) => link.rel);
    expect(rels).to.include.members([
      'self',
      'conformance',
      'data',
      'child',
      'http://www.opengis.net/def/rel/ogc/1.0/ogc-catalog',
    ]);
    for (const link of response.body.links as { href: string }[]) {
      const url = new URL(link.href);
      await get(url.pathname + url.search).expect(200);
    }
  });

  it('declares conformance to the Records searchable catalogue and Features core', async () => {
    const response = await get('/catalogue/conformance').expect(200);
    expect(response.body.conformsTo).to.include.members([
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/searchable-catalog',
    ]);
  });

  it('describes the one catalogue collection with an extent computed from the records', async () => {
    const list = await get('/catalogue/collections').expect(200);
    expect(list.body.collections.map((c: { id: string }) => c.id)).to.deep.equal(['metadata:main']);
    const collection = await get('/catalogue/collections/metadata:main').expect(200);
    expect(collection.body).to.include({
      id: 'metadata:main',
      type: 'Collection',
      itemType: 'record',
    });
    const [bbox] = collection.body.extent.spatial.bbox;
    expect(bbox[0]).to.be.at.least(-180);
    expect(bbox[2]).to.be.at.most(180);
    expect(collection.body.extent.temporal.interval[0][0]).to.match(/^\d{4}-/);
  });

  it('answers q + bbox + datetime with an exact numberMatched, a page of five and paging links', async () => {
    const query =
      'q=climate,ocean,glacier,flood,river&bbox=-180,-90,180,90&datetime=1990-01-01T00:00:00Z/..';
    const all = await get(`${ITEMS}?${query}&limit=100`)
      .expect(200)
      .expect('Content-Type', /application\/geo\+json/);
    const matched = all.body.numberMatched as number;
    expect(matched).to.be.greaterThan(10);
    let counted = all.body.features.length;
    let next = all.body.links.find((link: { rel: string }) => link.rel === 'next');
    while (next) {
      const url = new URL(next.href);
      const page = await get(url.pathname + url.search).expect(200);
      counted += page.body.features.length;
      next = page.body.links.find((link: { rel: string }) => link.rel === 'next');
    }
    expect(counted).to.equal(matched);

    const page = await get(`${ITEMS}?${query}&limit=5&offset=5`).expect(200);
    expect(page.body).to.include({
      type: 'FeatureCollection',
      numberMatched: matched,
      numberReturned: 5,
    });
    expect(page.body.features).to.have.length(5);
    const nextLink = new URL(
      page.body.links.find((link: { rel: string }) => link.rel === 'next').href,
    );
    expect(nextLink.searchParams.get('limit')).to.equal('5');
    expect(nextLink.searchParams.get('offset')).to.equal('10');
    const prevLink = new URL(
      page.body.links.find((link: { rel: string }) => link.rel === 'prev').href,
    );
    expect(prevLink.searchParams.get('offset')).to.equal('0');
    expect(page.body.timeStamp).to.match(/Z$/);
  });

  it('filters by q, bbox and datetime as their definitions say', async () => {
    const text = await get(`${ITEMS}?q=glacier&limit=100`).expect(200);
    for (const feature of text.body.features as Feature[]) {
      expect(JSON.stringify(feature.properties).toLowerCase()).to.contain('glacier');
    }
    const box = await get(`${ITEMS}?bbox=5,44,17,49&limit=100`).expect(200);
    expect(box.body.numberMatched).to.be.greaterThan(0);
    for (const feature of box.body.features as Feature[])
      expect(feature.geometry).to.not.equal(null);
    const none = await get(`${ITEMS}?datetime=1800-01-01T00:00:00Z/1801-01-01T00:00:00Z`).expect(
      200,
    );
    expect(none.body.numberMatched).to.equal(0);
  });

  it('filters by ids, type and a queryable given as a parameter', async () => {
    const first = await get(`${ITEMS}?limit=3`).expect(200);
    const ids = (first.body.features as Feature[]).map((f) => f.id);
    const byIds = await get(`${ITEMS}?ids=${ids.join(',')}`).expect(200);
    expect((byIds.body.features as Feature[]).map((f) => f.id).sort()).to.deep.equal(
      [...ids].sort(),
    );
    const services = await get(`${ITEMS}?type=service&limit=100`).expect(200);
    for (const feature of services.body.features as Feature[])
      expect(feature.properties.type).to.equal('service');
    const platform = await get(`${ITEMS}?platform=Landsat-8&limit=100`).expect(200);
    expect(platform.body.numberMatched).to.be.greaterThan(0);
    for (const feature of platform.body.features as Feature[])
      expect(feature.properties.platform).to.equal('Landsat-8');
  });

  it('sorts by sortby and treats startindex as offset', async () => {
    const sorted = await get(`${ITEMS}?sortby=-updated&limit=20`).expect(200);
    const updated = (sorted.body.features as Feature[]).map((f) => f.properties.updated as string);
    expect(updated).to.deep.equal([...updated].sort().reverse());
    const byOffset = await get(`${ITEMS}?sortby=title&offset=7&limit=3`).expect(200);
    const byStartindex = await get(`${ITEMS}?sortby=title&startindex=7&limit=3`).expect(200);
    const idsOf = (body: { features: Feature[] }): string[] => body.features.map((f) => f.id);
    expect(idsOf(byStartindex.body)).to.deep.equal(idsOf(byOffset.body));
  });

  it('clamps a limit above the configured maximum', async () => {
    const response = await get(`${ITEMS}?limit=100000`).expect(200);
    expect(response.body.numberReturned).to.equal(100);
  });

  it('serves single records with links, and 404 for unknown ids', async () => {
    const first = await get(`${ITEMS}?limit=1`).expect(200);
    const id = first.body.features[0].id as string;
    const record = await get(`${ITEMS}/${encodeURIComponent(id)}`)
      .expect(200)
      .expect('Content-Type', /geo\+json/);
    expect(record.body).to.include({ type: 'Feature', id });
    const rels = record.body.links.map((l: { rel: string }) => l.rel);
    expect(rels).to.include.members(['self', 'collection', 'profile']);
    const missing = await get(`${ITEMS}/no-such-record`).expect(404);
    expect(missing.body).to.deep.equal({
      code: 'NOT_FOUND',
      description: 'No record with id "no-such-record"',
    });
  });

  const badRequests: [string, string][] = [
    ['bbox=1,2,3', 'bbox'],
    ['bbox=a,b,c,d', 'bbox'],
    ['datetime=2020-13-01', 'datetime'],
    ['datetime=2021-01-01/2020-01-01', 'datetime'],
    ['limit=abc', 'limit'],
    ['limit=0', 'limit'],
    ['startindex=-1', 'startindex'],
    ['sortby=nosuchfield', 'sortby'],
    ['nosuchparameter=1', 'nosuchparameter'],
    ['f=pdf', 'f=pdf'],
    ['limit=5&limit=6', 'limit'],
  ];
  for (const [query, named] of badRequests) {
    it(`answers ${query} with 400 naming the parameter`, async () => {
      const response = await get(`${ITEMS}?${query}`).expect(400).expect('Content-Type', /json/);
      expect(Object.keys(response.body).sort()).to.deep.equal(['code', 'description']);
      expect(response.body.description).to.contain(named);
    });
  }

  it('answers unknown paths with a 404 in the same error shape', async () => {
    const response = await get('/catalogue/collections/other').expect(404);
    expect(response.body.code).to.equal('NOT_FOUND');
  });

  it('ignores X-Forwarded-Proto/Host by default (TRUST_PROXY=false) and echoes a given request id', async () => {
    const response = await get('/catalogue')
      .set('Host', '127.0.0.1:8000')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'evil.example')
      .set('X-Request-Id', 'abc-123')
      .expect(200)
      .expect('X-Request-Id', 'abc-123');
    expect(response.body.links[0].href).to.equal('http://127.0.0.1:8000/catalogue?f=json');
    expect(response.text).to.not.include('evil.example');
  });

  it('derives links from X-Forwarded-Proto/Host with TRUST_PROXY=true', async () => {
    const proxied = await createTestApp(0, { TRUST_PROXY: 'true' });
    try {
      const response = await request(proxied.app)
        .get('/catalogue')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'catalogue.example.org')
        .expect(200);
      expect(response.body.links[0].href).to.equal(
        'https://catalogue.example.org/catalogue?f=json',
      );
    } finally {
      await proxied.close();
    }
  });

  it('reports health and readiness', async () => {
    await get('/healthz').expect(200);
    const ready = await get('/readyz').expect(200);
    expect(ready.body.backend).to.include({
      ok: true,
      kind: systemBackend().kind,
      records: 400,
    });
  });
});
