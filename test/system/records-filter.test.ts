/**
 * OGC API – Records filtering over HTTP: `filter` with `filter-lang` (cql2-text, cql2-json) and
 * `filter-crs` by GET, a CQL2 JSON body by POST, combined with the other parameters, and every
 * 400 a client can provoke. Expected results are derived from the source documents the
 * catalogue was loaded with (the generated records, as JSON), by a few lines of plain
 * JavaScript per case and jsts for geometry: nothing Cairn computed is used as a reference.
 */
import { expect } from 'chai';
import type { Geometry } from 'geojson';
import request from 'supertest';
import type { TestApp } from '../support/test-app.js';
import { createCatalogueApp, generatedDocuments } from '../support/catalogue-app.js';
import { boxPolygon, jts } from '../integration/cql2/oracle.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

interface Feature {
  id: string;
  geometry: Geometry | null;
  properties: Record<string, unknown>;
}

/** A source document as loaded: the generated OGC record JSON. */
interface Source {
  id: string;
  geometry: Geometry | null;
  properties: { type: string; updated: string };
}

interface Link {
  rel: string;
  href: string;
}

describe('OGC API – Records filtering over HTTP (CQL2)', () => {
  let test: TestApp;
  const documents = generatedDocuments(80);
  const sources = documents.map((document) => JSON.parse(document.content) as Source);

  before(async () => {
    test = await createCatalogueApp(documents, { LIMIT_MAX: '100' });
    const response = await request(test.app).get(ITEMS).query({ limit: 100 }).expect(200);
    expect(ids(response.body.features)).to.deep.equal(sources.map((source) => source.id).sort());
  });
  after(async () => {
    await test?.close();
  });

  const ids = (features: { id: string }[]) => features.map((feature) => feature.id).sort();
  const expected = (predicate: (source: Source) => boolean) => ids(sources.filter(predicate));
  const updatedSince = (since: string) => (source: Source) =>
    Date.parse(source.properties.updated) >= Date.parse(since);
  const isDataset = (source: Source) => source.properties.type === 'dataset';

  // Every generated record was updated in 2024: a mid-year instant splits them.
  const SINCE = '2024-07-01T00:00:00Z';
  const TEXT = `type = 'dataset' AND updated >= TIMESTAMP('${SINCE}')`;
  const JSON_FILTER = {
    op: 'and',
    args: [
      { op: '=', args: [{ property: 'type' }, 'dataset'] },
      { op: '>=', args: [{ property: 'updated' }, { timestamp: SINCE }] },
    ],
  };
  const wanted = () => expected((f) => isDataset(f) && updatedSince(SINCE)(f));

  it('derives its expectations from sources that each part of the filter splits', () => {
    const datasets = expected(isDataset).length;
    expect(datasets).to.be.within(1, 79);
    expect(expected(updatedSince(SINCE)).length).to.be.within(1, 79);
    expect(wanted().length).to.be.within(1, datasets - 1);
  });

  it('filters by GET with CQL2 text (the default filter-lang)', async () => {
    const response = await request(test.app)
      .get(ITEMS)
      .query({ filter: TEXT, limit: 100 })
      .expect(200)
      .expect('Content-Type', /geo\+json/);
    expect(wanted().length).to.be.within(1, 79);
    expect(ids(response.body.features)).to.deep.equal(wanted());
    expect(response.body.numberMatched).to.equal(wanted().length);
    const explicit = await request(test.app)
      .get(ITEMS)
      .query({ filter: TEXT, 'filter-lang': 'cql2-text', limit: 100 })
      .expect(200);
    expect(ids(explicit.body.features)).to.deep.equal(wanted());
  });

  it('filters by GET with CQL2 JSON and filter-crs CRS84', async () => {
    const response = await request(test.app)
      .get(ITEMS)
      .query({
        filter: JSON.stringify(JSON_FILTER),
        'filter-lang': 'cql2-json',
        'filter-crs': 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
        limit: 100,
      })
      .expect(200);
    expect(ids(response.body.features)).to.deep.equal(wanted());
  });

  it('filters by POST with a CQL2 JSON body, other parameters from the query string', async () => {
    const response = await request(test.app)
      .post(ITEMS)
      .query({ limit: 100 })
      .send(JSON_FILTER)
      .expect(200)
      .expect('Content-Type', /geo\+json/);
    expect(ids(response.body.features)).to.deep.equal(wanted());
  });

  it('ANDs the filter with the other parameters', async () => {
    const some = sources.slice(0, 30).map((source) => source.id);
    const response = await request(test.app)
      .post(ITEMS)
      .query({ ids: some.join(','), limit: 100 })
      .send({ op: '>=', args: [{ property: 'updated' }, { timestamp: SINCE }] })
      .expect(200);
    const since = updatedSince(SINCE);
    const want = expected((source) => some.includes(source.id) && since(source));
    expect(want.length).to.be.within(1, 29);
    expect(ids(response.body.features)).to.deep.equal(want);

    const bbox = [-20, 30, 40, 70] as const;
    const box = jts(boxPolygon(...bbox));
    const spatial = await request(test.app)
      .get(ITEMS)
      .query({ filter: "NOT (type = 'dataset')", bbox: bbox.join(','), limit: 100 })
      .expect(200);
    const outside = expected(
      (source) =>
        !isDataset(source) && source.geometry !== null && jts(source.geometry).intersects(box),
    );
    expect(outside.length).to.be.greaterThan(0);
    expect(ids(spatial.body.features)).to.deep.equal(outside);
  });

  it('evaluates spatial filters exactly, including boxes across the antimeridian', async () => {
    const boxes: [west: number, south: number, east: number, north: number][] = [
      [-20, 30, 40, 70],
      [150, -60, -150, 60],
    ];
    for (const box of boxes) {
      const [west, south, east, north] = box;
      const parts =
        west <= east
          ? [boxPolygon(west, south, east, north)]
          : [boxPolygon(west, south, 180, north), boxPolygon(-180, south, east, north)];
      const response = await request(test.app)
        .get(ITEMS)
        .query({ filter: `S_INTERSECTS(geometry, BBOX(${box.join(',')}))`, limit: 100 })
        .expect(200);
      const want = expected(
        (source) =>
          source.geometry !== null &&
          parts.some((part) => jts(source.geometry!).intersects(jts(part))),
      );
      expect(want.length, `records in ${box.join(',')}`).to.be.greaterThan(0);
      expect(ids(response.body.features)).to.deep.equal(want);
    }
  });

  it('pages a POSTed filter through next links that carry it as cql2-json', async () => {
    const first = await request(test.app)
      .post(ITEMS)
      .query({ limit: 3 })
      .send(JSON_FILTER)
      .expect(200);
    expect(first.body.numberReturned).to.equal(3);
    const next = (first.body.links as Link[]).find((link) => link.rel === 'next');
    expect(next, 'a next link').to.not.equal(undefined);
    const url = new URL(next!.href);
    expect(url.searchParams.get('filter-lang')).to.equal('cql2-json');
    const second = await request(test.app)
      .get(url.pathname + url.search)
      .expect(200);
    const paged = [...first.body.features, ...second.body.features].map((f: Feature) => f.id);
    const unpaged = await request(test.app).post(ITEMS).query({ limit: 6 }).send(JSON_FILTER);
    expect(paged).to.deep.equal(unpaged.body.features.map((f: Feature) => f.id));
  });

  describe('answers bad filters with 400 {code, description}', () => {
    const cases: {
      name: string;
      send: () => request.Test;
      description: RegExp;
    }[] = [
      {
        name: 'a CQL2 text syntax error, with its position',
        send: () => request(test.app).get(ITEMS).query({ filter: "title = 'x' AND" }),
        description: /Invalid CQL2 text at line 1, column 16/,
      },
      {
        name: 'a filter that is not JSON with filter-lang=cql2-json',
        send: () =>
          request(test.app).get(ITEMS).query({ filter: '{"op":', 'filter-lang': 'cql2-json' }),
        description: /filter is not valid JSON/,
      },
      {
        name: 'CQL2 JSON that breaks the schema, with its JSON pointer',
        send: () =>
          request(test.app)
            .get(ITEMS)
            .query({ filter: '{"op":"=","args":[1]}', 'filter-lang': 'cql2-json' }),
        description: /Invalid CQL2 JSON at \/args/,
      },
      {
        name: 'an unsupported filter-lang',
        send: () => request(test.app).get(ITEMS).query({ filter: 'true', 'filter-lang': 'ecql' }),
        description: /filter-lang=ecql: .*allowed values: cql2-text, cql2-json, cql-text/,
      },
      {
        name: 'a filter-crs other than CRS84',
        send: () =>
          request(test.app)
            .get(ITEMS)
            .query({ filter: 'true', 'filter-crs': 'http://www.opengis.net/def/crs/EPSG/0/4326' }),
        description: /filter-crs ".*EPSG\/0\/4326" is not supported/,
      },
      {
        name: 'an unknown function',
        send: () => request(test.app).get(ITEMS).query({ filter: 'Foo(title) = 1' }),
        description: /Unknown function "Foo"/,
      },
      {
        name: 'a type error against the queryables',
        send: () => request(test.app).get(ITEMS).query({ filter: "cloudCover > 'low'" }),
        description: /Cannot compare 'low' \(string\) with cloudCover \(number\)/,
      },
      {
        name: 'a spatial operator on a non-spatial property',
        send: () =>
          request(test.app).get(ITEMS).query({ filter: 'S_INTERSECTS(title, BBOX(0,0,1,1))' }),
        description: /"title" is not a spatial property/,
      },
      {
        name: 'a coordinate outside CRS84',
        send: () =>
          request(test.app).get(ITEMS).query({ filter: 'S_INTERSECTS(geometry, POINT(90 180))' }),
        description: /outside CRS84/,
      },
      {
        name: 'an instant in an interval-only temporal operator',
        send: () =>
          request(test.app)
            .get(ITEMS)
            .query({ filter: "T_DURING(updated, INTERVAL('2020-01-01','2021-01-01'))" }),
        description: /T_DURING compares intervals, but updated is an instant/,
      },
      {
        name: 'a repeated filter parameter',
        send: () => request(test.app).get(`${ITEMS}?filter=true&filter=false`),
        description: /"filter" must be given once/,
      },
      {
        name: 'a POST body that is not JSON',
        send: () =>
          request(test.app).post(ITEMS).set('Content-Type', 'application/json').send('{"op":'),
        description: /not valid JSON/,
      },
      {
        name: 'a POST body that is not CQL2 JSON',
        send: () => request(test.app).post(ITEMS).send({ where: 'true' }),
        description: /Invalid CQL2 JSON/,
      },
      {
        name: 'a POST without a JSON body',
        send: () => request(test.app).post(ITEMS).set('Content-Type', 'text/plain').send('true'),
        description: /needs a CQL2 JSON filter as the request body/,
      },
      {
        name: 'a POST with a filter in both the body and the query string',
        send: () => request(test.app).post(ITEMS).query({ filter: 'true' }).send(JSON_FILTER),
        description: /either as the request body or as the filter parameter/,
      },
      {
        name: 'a POST that declares its body cql2-text',
        send: () =>
          request(test.app).post(ITEMS).query({ 'filter-lang': 'cql2-text' }).send(JSON_FILTER),
        description: /must be CQL2 JSON/,
      },
    ];
    for (const item of cases) {
      it(item.name, async () => {
        const response = await item.send().expect(400).expect('Content-Type', /json/);
        expect(response.body).to.have.all.keys('code', 'description');
        expect(response.body.code).to.match(/^INVALID_(FILTER|PARAMETER)$/);
        expect(response.body.description).to.match(item.description);
      });
    }
  });
});
