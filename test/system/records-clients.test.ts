/**
 * OGC API – Records items as the clients people use read them: GDAL/QGIS (a geometry
 * for every record with a footprint, Features Part 2 `crs`/`bbox-crs` and `Content-Crs`,
 * `filter-lang=cql-text`), pygeoapi's conventions (`properties`, `skipGeometry`,
 * `application/query-cql-json`), STAC-style POST bodies, `lang`, and a `filter` naming a
 * property that is not a queryable (400, as `sortby` does, with the filter's error code).
 */
import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
const EPSG4326 = 'http://www.opengis.net/def/crs/EPSG/0/4326';

/** An OGC record with a bbox and no geometry. */
function boxOnlyRecord(id: string, bbox: number[], title: string): string {
  return JSON.stringify({
    type: 'Feature',
    id,
    geometry: null,
    bbox,
    properties: { type: 'dataset', title, updated: '2021-01-01T00:00:00Z' },
    links: [],
  });
}

describe('OGC API – Records items for GDAL/QGIS, OWSLib and pygeoapi clients', () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(30);
    const summary = await ingestDocuments(test.backend, [
      { name: 'box', content: boxOnlyRecord('box-only', [10, 40, 20, 50], 'Box only') },
      {
        name: 'dateline',
        content: boxOnlyRecord('box-dateline', [170, -10, -170, 10], 'Across the antimeridian'),
      },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  describe('geometry of records that only have a bounding box', () => {
    it('is the polygon of the box, in items and in the record', async () => {
      const items = await request(test.app).get(ITEMS).query({ ids: 'box-only' }).expect(200);
      const polygon = {
        type: 'Polygon',
        coordinates: [
          [
            [10, 40],
            [20, 40],
            [20, 50],
            [10, 50],
            [10, 40],
          ],
        ],
      };
      expect(items.body.features[0].geometry).to.deep.equal(polygon);
      const record = await request(test.app).get(`${ITEMS}/box-only`).expect(200);
      expect(record.body.geometry).to.deep.equal(polygon);
      expect(record.body.bbox).to.deep.equal([10, 40, 20, 50]);
    });

    it('is two polygons when the box crosses the antimeridian', async () => {
      const record = await request(test.app).get(`${ITEMS}/box-dateline`).expect(200);
      expect(record.body.geometry.type).to.equal('MultiPolygon');
      const xs = (record.body.geometry.coordinates as number[][][][]).map((polygon) =>
        polygon[0]?.map(([x]) => x),
      );
      expect(xs).to.deep.equal([
        [170, 180, 180, 170, 170],
        [-180, -170, -170, -180, -180],
      ]);
    });

    it('leaves no record with a bbox and a null geometry', async () => {
      const items = await request(test.app).get(ITEMS).query({ limit: 100 }).expect(200);
      const lost = (items.body.features as { bbox?: unknown; geometry: unknown }[]).filter(
        (feature) => feature.bbox !== undefined && feature.geometry === null,
      );
      expect(lost).to.deep.equal([]);
    });
  });

  describe('CRS (OGC API – Features Part 2)', () => {
    it('declares CRS84 and EPSG:4326 in the collection and the conformance class', async () => {
      const collection = await request(test.app)
        .get('/catalogue/collections/metadata:main')
        .expect(200);
      expect(collection.body.crs).to.deep.equal([CRS84, EPSG4326]);
      expect(collection.body.storageCrs).to.equal(CRS84);
      const conformance = await request(test.app).get('/catalogue/conformance').expect(200);
      expect(conformance.body.conformsTo).to.include(
        'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
      );
    });

    it('returns CRS84 by default and says so in Content-Crs', async () => {
      const response = await request(test.app).get(ITEMS).query({ ids: 'box-only' }).expect(200);
      expect(response.headers['content-crs']).to.equal(`<${CRS84}>`);
      const record = await request(test.app).get(`${ITEMS}/box-only`).expect(200);
      expect(record.headers['content-crs']).to.equal(`<${CRS84}>`);
    });

    it('returns latitude first with crs=EPSG:4326', async () => {
      const response = await request(test.app)
        .get(ITEMS)
        .query({ ids: 'box-only', crs: EPSG4326 })
        .expect(200);
      expect(response.headers['content-crs']).to.equal(`<${EPSG4326}>`);
      const [feature] = response.body.features;
      expect(feature.bbox).to.deep.equal([40, 10, 50, 20]);
      expect(feature.geometry.coordinates[0][1]).to.deep.equal([40, 20]);
      const record = await request(test.app)
        .get(`${ITEMS}/box-only`)
        .query({ crs: EPSG4326 })
        .expect(200);
      expect(record.headers['content-crs']).to.equal(`<${EPSG4326}>`);
      expect(record.body.bbox).to.deep.equal([40, 10, 50, 20]);
    });

    it('reads bbox in EPSG:4326 (latitude first) and in CRS84', async () => {
      const inCrs84 = await request(test.app)
        .get(ITEMS)
        .query({ bbox: '12,42,13,43', 'bbox-crs': CRS84, ids: 'box-only,box-dateline' })
        .expect(200);
      expect(inCrs84.body.features.map((f: { id: string }) => f.id)).to.deep.equal(['box-only']);
      const latLon = await request(test.app)
        .get(ITEMS)
        .query({ bbox: '42,12,43,13', 'bbox-crs': EPSG4326, ids: 'box-only,box-dateline' })
        .expect(200);
      expect(latLon.body.features.map((f: { id: string }) => f.id)).to.deep.equal(['box-only']);
      // The same numbers read as lon/lat miss the box.
      const swapped = await request(test.app)
        .get(ITEMS)
        .query({ bbox: '42,12,43,13', 'bbox-crs': CRS84, ids: 'box-only' })
        .expect(200);
      expect(swapped.body.numberMatched).to.equal(0);
    });

    it('refuses another CRS with a 400 naming the parameter', async () => {
      for (const name of ['crs', 'bbox-crs']) {
        const response = await request(test.app)
          .get(ITEMS)
          .query({ [name]: 'http://www.opengis.net/def/crs/EPSG/0/3857', bbox: '0,0,1,1' })
          .expect(400);
        expect(response.body.code).to.equal('INVALID_PARAMETER');
        expect(response.body.description).to.include(`${name} "`);
      }
    });
  });

  describe('properties, skipGeometry and lang (as pygeoapi offers them)', () => {
    it('keeps only the listed properties', async () => {
      const response = await request(test.app)
        .get(ITEMS)
        .query({ ids: 'box-only', properties: 'title,updated' })
        .expect(200);
      expect(response.body.features[0].properties).to.deep.equal({
        title: 'Box only',
        updated: '2021-01-01T00:00:00.000Z',
      });
      const next = await request(test.app)
        .get(ITEMS)
        .query({ properties: 'title', limit: 2 })
        .expect(200);
      const link = (next.body.links as { rel: string; href: string }[]).find(
        (l) => l.rel === 'next',
      );
      expect(new URL(link!.href).searchParams.get('properties')).to.equal('title');
    });

    it('drops geometries with skipGeometry=true', async () => {
      const response = await request(test.app)
        .get(ITEMS)
        .query({ ids: 'box-only', skipGeometry: 'true' })
        .expect(200);
      expect(response.body.features[0].geometry).to.equal(null);
      await request(test.app).get(ITEMS).query({ skipGeometry: 'maybe' }).expect(400);
    });

    it('accepts lang and answers in the records’ own language', async () => {
      const plain = await request(test.app).get(ITEMS).query({ limit: 5 }).expect(200);
      const withLang = await request(test.app)
        .get(ITEMS)
        .query({ limit: 5, lang: 'fr' })
        .expect(200);
      const content = (body: { features: { id: string; properties: unknown }[] }) =>
        body.features.map(({ id, properties }) => ({ id, properties }));
      expect(content(withLang.body)).to.deep.equal(content(plain.body));
      await request(test.app).get(ITEMS).query({ lang: 'not a tag' }).expect(400);
    });
  });

  describe('filters', () => {
    it('refuses a filter naming a property that is not a queryable, as sortby does', async () => {
      const filter = await request(test.app)
        .get(ITEMS)
        .query({ filter: "nosuchproperty = 'x'" })
        .expect(400);
      expect(filter.body.description).to.match(/"nosuchproperty" is not a queryable/);
      const json = await request(test.app)
        .post(ITEMS)
        .send({ op: '=', args: [{ property: 'nosuchproperty' }, 'x'] })
        .expect(400);
      expect(json.body.description).to.match(/"nosuchproperty" is not a queryable/);
      // A filter problem (INVALID_FILTER, as on the STAC search), where sortby's is a parameter's.
      expect(filter.body.code).to.equal('INVALID_FILTER');
      expect(json.body.code).to.equal('INVALID_FILTER');
      const sortby = await request(test.app)
        .get(ITEMS)
        .query({ sortby: 'nosuchproperty' })
        .expect(400);
      expect(sortby.body.code).to.equal('INVALID_PARAMETER');
      // Aliases of queryables stay valid.
      await request(test.app).get(ITEMS).query({ filter: "dc:type = 'dataset'" }).expect(200);
    });

    it('reads filter-lang=cql-text (the draft name GDAL 3.6 sends) as cql2-text', async () => {
      const cql2 = await request(test.app)
        .get(ITEMS)
        .query({ filter: "type = 'dataset'", 'filter-lang': 'cql2-text', limit: 100 })
        .expect(200);
      const draft = await request(test.app)
        .get(ITEMS)
        .query({ filter: "type = 'dataset'", 'filter-lang': 'cql-text', limit: 100 })
        .expect(200);
      expect(draft.body.numberMatched).to.equal(cql2.body.numberMatched).and.be.greaterThan(0);
    });

    it('takes a STAC-style {"filter"} body and the application/query-cql-json type', async () => {
      const expected = await request(test.app)
        .get(ITEMS)
        .query({ filter: "type = 'dataset'", limit: 100 })
        .expect(200);
      const cql = { op: '=', args: [{ property: 'type' }, 'dataset'] };
      const stac = await request(test.app)
        .post(`${ITEMS}?limit=100`)
        .send({ filter: cql, 'filter-lang': 'cql2-json' })
        .expect(200);
      expect(stac.body.numberMatched).to.equal(expected.body.numberMatched);
      const text = await request(test.app)
        .post(`${ITEMS}?limit=100`)
        .send({ filter: "type = 'dataset'", 'filter-lang': 'cql2-text' })
        .expect(200);
      expect(text.body.numberMatched).to.equal(expected.body.numberMatched);
      // Paging links carry the body's filter as CQL2 JSON, whatever encoding it came in.
      const paged = await request(test.app)
        .post(`${ITEMS}?limit=2`)
        .send({ filter: "type = 'dataset'", 'filter-lang': 'cql2-text' })
        .expect(200);
      const next = (paged.body.links as { rel: string; href: string }[]).find(
        (link) => link.rel === 'next',
      );
      const url = new URL(next!.href);
      expect(url.searchParams.get('filter-lang')).to.equal('cql2-json');
      expect(JSON.parse(url.searchParams.get('filter')!)).to.deep.equal(cql);
      const second = await request(test.app).get(`${url.pathname}${url.search}`).expect(200);
      expect(second.body.numberMatched).to.equal(expected.body.numberMatched);
      const pygeoapi = await request(test.app)
        .post(`${ITEMS}?limit=100`)
        .set('Content-Type', 'application/query-cql-json')
        .send(JSON.stringify(cql))
        .expect(200);
      expect(pygeoapi.body.numberMatched).to.equal(expected.body.numberMatched);
      const unknown = await request(test.app)
        .post(ITEMS)
        .send({ filter: cql, collections: ['x'] })
        .expect(400);
      expect(unknown.body.description).to.match(/"collections" is not supported/);
    });
  });
});
