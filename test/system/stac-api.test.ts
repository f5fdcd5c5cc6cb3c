import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const SEARCH = '/catalogue/search';
const ITEMS = '/catalogue/collections/metadata:main/items';
const GENERATED = 300;

interface Link {
  rel: string;
  href: string;
  type?: string;
  method?: string;
  body?: Record<string, unknown>;
  merge?: boolean;
}

interface Item {
  type: string;
  stac_version: string;
  stac_extensions?: string[];
  id: string;
  collection?: string;
  geometry: { type: string; coordinates: unknown } | null;
  bbox?: number[];
  properties: Record<string, unknown>;
  links: Link[];
  assets: Record<string, { href: string; roles?: string[] }>;
}

interface ItemCollection {
  type: string;
  numberMatched: number;
  numberReturned: number;
  features: Item[];
  links: Link[];
}

function square(west: number, south: number, east: number, north: number) {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [west, south],
        [east, south],
        [east, north],
        [west, north],
        [west, south],
      ],
    ],
  };
}

function stacItem(
  id: string,
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    stac_extensions: ['https://stac-extensions.github.io/eo/v1.1.0/schema.json'],
    id,
    collection: 'fixture-s2',
    geometry: square(10, 45, 11, 46),
    bbox: [10, 45, 11, 46],
    properties,
    links: [
      { rel: 'self', href: `https://old.example.org/stac/items/${id}.json` },
      { rel: 'collection', href: 'https://old.example.org/stac/collection.json' },
      { rel: 'license', href: 'https://old.example.org/licence.html' },
    ],
    assets: {
      B04: { href: './B04.tif', type: 'image/tiff; application=geotiff', roles: ['data'] },
      thumbnail: { href: 'https://cdn.example.org/thumb.png', roles: ['thumbnail'] },
    },
    ...extra,
  };
}

/** STAC fixtures beside the generated records: one collection and six items. */
const FIXTURES = [
  {
    type: 'Collection',
    stac_version: '1.0.0',
    id: 'fixture-s2',
    description: 'Fixture collection',
    license: 'CC-BY-4.0',
    extent: {
      spatial: { bbox: [[-180, -90, 180, 90]] },
      temporal: { interval: [['2019-01-01T00:00:00Z', null]] },
    },
    links: [],
  },
  stacItem('fx-instant', {
    datetime: '2021-06-01T10:00:00Z',
    'eo:cloud_cover': 5,
    title: 'Fixture instant',
  }),
  stacItem('fx-interval', {
    datetime: null,
    start_datetime: '2021-01-01T00:00:00Z',
    end_datetime: '2021-12-31T23:59:59Z',
    'eo:cloud_cover': 80,
    title: 'Fixture interval',
  }),
  stacItem(
    'fx-null-geometry',
    { datetime: '2022-01-01T00:00:00Z', 'eo:cloud_cover': 50, title: 'Fixture without footprint' },
    { geometry: null, bbox: undefined },
  ),
  stacItem(
    'fx-antimeridian',
    { datetime: '2020-03-03T03:03:03Z', 'eo:cloud_cover': 20, title: 'Fixture across 180' },
    {
      bbox: [170, -20, -170, -10],
      geometry: {
        type: 'MultiPolygon',
        coordinates: [
          square(170, -20, 180, -10).coordinates,
          square(-180, -20, -170, -10).coordinates,
        ],
      },
    },
  ),
  stacItem(
    'fx-other-collection',
    { datetime: '2019-05-05T05:05:05Z', 'eo:cloud_cover': 35, title: 'Fixture elsewhere' },
    { collection: 'fixture-other', geometry: square(-60, -10, -59, -9), bbox: [-60, -10, -59, -9] },
  ),
  stacItem('fx-glacier', {
    datetime: '2018-08-08T08:08:08Z',
    'eo:cloud_cover': 0,
    title: 'Fixture glacier scene',
    description: 'A glacier seen from orbit',
  }),
];
const FIXTURE_ITEMS = FIXTURES.length - 1;
const TOTAL = GENERATED + FIXTURES.length;

/** Whether two CRS84 boxes intersect (each may cross the antimeridian). */
function boxesIntersect(a: number[], b: number[]): boolean {
  type Box = [west: number, south: number, east: number, north: number];
  const corner = (box: number[], index: number): number =>
    defined(box[index], `coordinate ${index} of [${box.join(',')}]`);
  const split = (box: number[]): Box[] => {
    const [w, s, e, n]: Box = [corner(box, 0), corner(box, 1), corner(box, 2), corner(box, 3)];
    return w <= e
      ? [[w, s, e, n]]
      : [
          [w, s, 180, n],
          [-180, s, e, n],
        ];
  };
  return split(a).some(([aw, as, ae, an]) =>
    split(b).some(([bw, bs, be, bn]) => aw <= be && ae >= bw && as <= bn && an >= bs),
  );
}

/** The [start, end] an item stands for in time. */
function itemTime(item: Item): [string, string] {
  const {
    datetime,
    start_datetime: start,
    end_datetime: end,
  } = item.properties as Record<string, string | null>;
  return [(start ?? datetime) as string, (end ?? datetime) as string];
}

describe(`STAC API item search over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(GENERATED, { PUBLIC_BASE_URL: 'http://cairn.test' });
    const summary = await ingestDocuments(test.backend, [
      { name: 'stac fixtures', content: JSON.stringify(FIXTURES) },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  const get = (path: string) => request(test.app).get(path);
  const post = (body: unknown) =>
    request(test.app)
      .post(SEARCH)
      .send(body as object);
  const search = async (query: string): Promise<ItemCollection> =>
    (
      await get(`${SEARCH}?${query}`)
        .expect(200)
        .expect('Content-Type', /application\/geo\+json/)
    ).body as ItemCollection;
  const searchPost = async (body: unknown): Promise<ItemCollection> =>
    (
      await post(body)
        .expect(200)
        .expect('Content-Type', /application\/geo\+json/)
    ).body as ItemCollection;
  const ids = (collection: ItemCollection): string[] => collection.features.map((f) => f.id);
  const pathOf = (href: string): string => {
    const url = new URL(href);
    return url.pathname + url.search;
  };
  const linkOf = (links: Link[], rel: string): Link | undefined =>
    links.find((link) => link.rel === rel);

  /** Expects a 400 `{code, description}` whose description names the parameter. */
  function expectBadRequest(response: request.Response, parameter: string): void {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(response.headers['content-type']).to.match(/json/);
    expect(Object.keys(response.body).sort()).to.deep.equal(['code', 'description']);
    expect(response.body.description).to.contain(parameter);
  }

  describe('landing page, conformance, queryables', () => {
    it('is a STAC Catalog that keeps its OGC API – Records content', async () => {
      const landing = await get('/catalogue').expect(200).expect('Content-Type', /json/);
      expect(landing.body).to.include({ stac_version: '1.0.0', type: 'Catalog', id: 'cairn' });
      expect(landing.body.description).to.be.a('string');
      const links = landing.body.links as Link[];
      for (const rel of ['root', 'self', 'conformance', 'data', 'child']) {
        const link = linkOf(links, rel);
        expect(link, rel).to.not.equal(undefined);
        expect(link?.type).to.equal('application/json');
      }
      expect(linkOf(links, 'http://www.opengis.net/def/rel/ogc/1.0/ogc-catalog')).to.not.equal(
        undefined,
      );
      const searches = links.filter((link) => link.rel === 'search');
      expect(searches.map((link) => link.method).sort()).to.deep.equal(['GET', 'POST']);
      for (const link of searches) {
        expect(link.type).to.equal('application/geo+json');
        expect(pathOf(link.href)).to.equal(SEARCH);
      }
      const queryables = linkOf(links, 'http://www.opengis.net/def/rel/ogc/1.0/queryables');
      expect(pathOf(queryables?.href ?? '')).to.equal('/catalogue/queryables');
      // service-desc only once an OpenAPI document exists (another issue adds it).
      const serviceDesc = linkOf(links, 'service-desc');
      if (serviceDesc) await get(pathOf(serviceDesc.href)).expect(200);
      for (const link of links) await get(pathOf(link.href)).expect(200);
    });

    it('declares the STAC classes on the landing page and at /conformance alike', async () => {
      const landing = await get('/catalogue').expect(200);
      const conformance = await get('/catalogue/conformance').expect(200);
      expect(landing.body.conformsTo).to.deep.equal(conformance.body.conformsTo);
      expect(conformance.body.conformsTo).to.include.members([
        'https://api.stacspec.org/v1.0.0/core',
        'https://api.stacspec.org/v1.0.0/item-search',
        'https://api.stacspec.org/v1.0.0/item-search#filter',
        'https://api.stacspec.org/v1.0.0/item-search#sort',
        'https://api.stacspec.org/v1.0.0/item-search#fields',
        'https://api.stacspec.org/v1.0.0-rc.1/item-search#free-text',
        'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
        'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
        'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
        'http://www.opengis.net/spec/cql2/1.0/conf/cql2-json',
        'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/searchable-catalog',
      ]);
    });

    it('links the STAC API root as its child, and gives its collection as STAC on f=stac', async () => {
      const landing = await get('/catalogue').expect(200);
      const child = linkOf(landing.body.links, 'child') as Link;
      expect(pathOf(child.href)).to.equal('/catalogue/stac');
      const root = await get('/catalogue/stac').expect(200).expect('Content-Type', /json/);
      expect(root.body).to.include({ type: 'Catalog', stac_version: '1.0.0' });
      const collection = await get('/catalogue/collections/metadata:main?f=stac')
        .expect(200)
        .expect('Content-Type', /json/);
      expect(collection.body).to.include({
        stac_version: '1.0.0',
        type: 'Collection',
        id: 'metadata:main',
        itemType: 'record',
      });
      expect(collection.body.license).to.be.a('string');
      expect(collection.body.extent.spatial.bbox[0]).to.have.length(4);
      expect(pathOf(linkOf(collection.body.links, 'self')?.href ?? '')).to.equal(
        '/catalogue/stac/collections/metadata:main',
      );
      const records = await get('/catalogue/collections/metadata:main').expect(200);
      expect(records.body.stac_version).to.equal(undefined);
    });

    it('serves STAC queryables as JSON Schema 2019-09 whose $id is its URL', async () => {
      const response = await get('/catalogue/queryables')
        .expect(200)
        .expect('Content-Type', /application\/schema\+json/);
      const body = response.body;
      expect(body.$schema).to.equal('https://json-schema.org/draft/2019-09/schema');
      expect(pathOf(body.$id)).to.equal('/catalogue/queryables');
      expect(body.type).to.equal('object');
      expect(body.properties).to.include.keys(
        'id',
        'collection',
        'geometry',
        'datetime',
        'eo:cloud_cover',
        'platform',
        'instruments',
      );
      expect(body.properties.datetime).to.include({ type: 'string', format: 'date-time' });
    });
  });

  describe('GET and POST /search', () => {
    it('answers an empty search with an ItemCollection of STAC Items, 10 by default', async () => {
      const page = await search('');
      expect(page.type).to.equal('FeatureCollection');
      expect(page.numberMatched).to.equal(TOTAL);
      expect(page.numberReturned).to.equal(10);
      expect(page.features).to.have.length(10);
      for (const item of page.features) {
        expect(item).to.include({ type: 'Feature', stac_version: '1.0.0' });
        expect(item.properties).to.have.property('datetime');
        expect(item.links.map((link) => link.rel)).to.include.members(['self', 'root']);
        expect(item.assets).to.be.an('object');
      }
      expect(pathOf(linkOf(page.links, 'root')?.href ?? '')).to.equal('/catalogue/stac');
      const empty = await searchPost({});
      expect(ids(empty)).to.deep.equal(ids(page));
    });

    it('takes limit, clamps large values to the maximum and refuses 0 and negatives', async () => {
      expect((await search('limit=3')).features).to.have.length(3);
      expect((await search('limit=100000')).features).to.have.length(100);
      expect((await searchPost({ limit: 1000000 })).features).to.have.length(100);
      expect((await searchPost({ limit: 2 })).features).to.have.length(2);
      for (const value of ['0', '-1', 'abc', '1.5', '']) {
        expectBadRequest(await get(`${SEARCH}?limit=${value}`), 'limit');
      }
      for (const value of [0, -1, 1.5, '10', true]) {
        expectBadRequest(await post({ limit: value }), 'limit');
      }
    });

    it('filters by bbox: 4 or 6 numbers, across the antimeridian, degenerate boxes', async () => {
      const box = [5, 40, 20, 50];
      const four = await search(`bbox=${box.join(',')}&limit=100`);
      expect(four.numberMatched).to.be.greaterThan(0);
      for (const item of four.features) {
        // Records without a footprint match every box (OGC API – Features).
        if (item.bbox) expect(boxesIntersect(item.bbox, box), item.id).to.equal(true);
      }
      const six = await search('bbox=5,40,-100,20,50,100&limit=100');
      expect(ids(six)).to.deep.equal(ids(four));
      const posted = await searchPost({ bbox: box, limit: 100 });
      expect(ids(posted)).to.deep.equal(ids(four));

      const across = await search('bbox=175,-15,-175,-12&limit=100');
      expect(ids(across)).to.include('fx-antimeridian');
      for (const item of across.features) {
        if (item.bbox) expect(boxesIntersect(item.bbox, [175, -15, -175, -12])).to.equal(true);
      }
      const point = await search('bbox=10.5,45.5,10.5,45.5&limit=100');
      expect(ids(point)).to.include('fx-instant');
      const line = await searchPost({ bbox: [10.2, 45.5, 10.8, 45.5], limit: 100 });
      expect(ids(line)).to.include('fx-instant');
    });

    it('refuses malformed bbox values with 400', async () => {
      for (const value of [
        '1,2,3',
        '1,2,3,4,5',
        '0',
        '[100.0,0.0,105.0,1.0]',
        'a,b,c,d',
        '100.0,1.0,105.0,0.0',
        '0,0,200,1',
        '0,-91,1,1',
      ]) {
        expectBadRequest(await get(`${SEARCH}?bbox=${encodeURIComponent(value)}`), 'bbox');
      }
      for (const value of ['100.0, 0.0, 105.0, 1.0', [0], [0, 0, 0, 1, 1], [1, 2, 'a', 4], {}]) {
        expectBadRequest(await post({ bbox: value }), 'bbox');
      }
    });

    it('filters by intersects with any GeoJSON geometry (POST, and JSON in GET)', async () => {
      const polygon = square(-20, 30, 40, 70);
      const posted = await searchPost({ intersects: polygon, limit: 100 });
      expect(posted.numberMatched).to.be.greaterThan(0);
      for (const item of posted.features) {
        expect(item.geometry, item.id).to.not.equal(null);
        expect(boxesIntersect(item.bbox as number[], [-20, 30, 40, 70]), item.id).to.equal(true);
      }
      const byGet = await search(
        `intersects=${encodeURIComponent(JSON.stringify(polygon))}&limit=100`,
      );
      expect(ids(byGet)).to.deep.equal(ids(posted));
      const point = await searchPost({ intersects: { type: 'Point', coordinates: [10.5, 45.5] } });
      expect(ids(point)).to.include('fx-instant');
      expect(ids(point)).to.not.include('fx-null-geometry');
      for (const geometry of [
        {
          type: 'LineString',
          coordinates: [
            [10.1, 45.1],
            [10.9, 45.9],
          ],
        },
        {
          type: 'MultiPoint',
          coordinates: [
            [10.5, 45.5],
            [0, 0],
          ],
        },
        {
          type: 'MultiLineString',
          coordinates: [
            [
              [10.1, 45.1],
              [10.9, 45.9],
            ],
          ],
        },
        { type: 'MultiPolygon', coordinates: [square(10.2, 45.2, 10.4, 45.4).coordinates] },
        { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [10.5, 45.5] }] },
      ]) {
        // Every backend answers exactly: in envelope mode the engine narrows on boxes and the
        // candidates are decided in Node (refine-search.ts).
        expect(ids(await searchPost({ intersects: geometry })), geometry.type).to.include(
          'fx-instant',
        );
      }
    });

    it('refuses invalid intersects values, and intersects together with bbox', async () => {
      const polygon = square(0, 0, 1, 1);
      expectBadRequest(await post({ bbox: [0, 0, 1, 1], intersects: polygon }), 'intersects');
      expectBadRequest(
        await get(
          `${SEARCH}?bbox=0,0,1,1&intersects=${encodeURIComponent(JSON.stringify(polygon))}`,
        ),
        'intersects',
      );
      for (const value of [
        { type: 'Circle', coordinates: [0, 0] },
        { type: 'Point', coordinates: [0] },
        { type: 'Point', coordinates: [200, 0] },
        {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
            ],
          ],
        },
        { type: 'LineString', coordinates: [[0, 0]] },
        { type: 'GeometryCollection', geometries: [] },
        'POINT(0 0)',
        [0, 0],
      ]) {
        expectBadRequest(await post({ intersects: value }), 'intersects');
      }
      expectBadRequest(await get(`${SEARCH}?intersects=POINT(0%200)`), 'intersects');
    });

    it('filters by datetime: instants and intervals with one open end', async () => {
      const instant = await search('datetime=2021-06-01T10:00:00Z&limit=100');
      expect(ids(instant)).to.include.members(['fx-instant', 'fx-interval']);
      const start = '2021-01-01T00:00:00Z';
      const end = '2021-12-31T23:59:59Z';
      for (const value of [`${start}/${end}`, `${start}/..`, `../${end}`, `${start}/`, `/${end}`]) {
        const page = await search(`datetime=${encodeURIComponent(value)}&limit=100`);
        expect(page.numberMatched, value).to.be.greaterThan(0);
        // The same temporal constraint as the Records endpoint (which also allows dates).
        const records = await get(`${ITEMS}?datetime=${encodeURIComponent(value)}&limit=100`);
        expect(ids(page).sort(), value).to.deep.equal(
          (records.body.features as Item[]).map((f) => f.id).sort(),
        );
        // Items with a closed extent lie in the interval (a half-open record extent is written
        // as its one closed end, so only closed extents can be checked from the item).
        const [from, to] = value.split('/');
        for (const item of page.features.filter((f) => f.id.startsWith('fx-'))) {
          const [itemStart, itemEnd] = itemTime(item).map((t) => Date.parse(t));
          if (from && from !== '..')
            expect(itemEnd, `${value} ${item.id}`).to.be.at.least(Date.parse(from));
          if (to && to !== '..')
            expect(itemStart, `${value} ${item.id}`).to.be.at.most(Date.parse(to));
        }
      }
      const withOffset = await search('datetime=2021-06-01T12:00:00%2B02:00&limit=100');
      expect(ids(withOffset)).to.include('fx-instant');
      const posted = await searchPost({ datetime: `${start}/${end}`, limit: 100 });
      expect(posted.numberMatched).to.equal(
        (await search(`datetime=${encodeURIComponent(`${start}/${end}`)}`)).numberMatched,
      );
      const lower = await search('datetime=2021-06-01t10:00:00z&limit=100');
      expect(ids(lower)).to.include('fx-instant');
    });

    it('refuses bare dates and every other invalid datetime with 400', async () => {
      for (const value of [
        '2021-06-01',
        '/',
        '../..',
        '/..',
        '../',
        '2021-06-01T10:00:00',
        '2021-06-01T10:00:00+0100',
        '2021-13-01T00:00:00Z',
        '2021-06-01T25:00:00Z',
        '2022-01-01T00:00:00Z/2021-01-01T00:00:00Z',
        '2021-01-01T00:00:00Z/2021-02-01T00:00:00Z/2021-03-01T00:00:00Z',
        '1985-04-12T23:20:50,52Z',
      ]) {
        expectBadRequest(await get(`${SEARCH}?datetime=${encodeURIComponent(value)}`), 'datetime');
      }
      expectBadRequest(await post({ datetime: '2021-06-01' }), 'datetime');
      expectBadRequest(await post({ datetime: 20210601 }), 'datetime');
    });

    it('filters by ids (ANDed with the other parameters)', async () => {
      const wanted = ['fx-instant', 'fx-interval', 'cairn-7-0000003'];
      expect(ids(await search(`ids=${wanted.join(',')}`)).sort()).to.deep.equal([...wanted].sort());
      expect(ids(await searchPost({ ids: wanted })).sort()).to.deep.equal([...wanted].sort());
      expect((await search('ids=fx-instant&bbox=100,0,101,1')).numberMatched).to.equal(0);
      expect(
        (await searchPost({ ids: ['fx-instant'], collections: ['fixture-other'] })).numberMatched,
      ).to.equal(0);
      expect(ids(await searchPost({ ids: 'fx-instant,fx-interval' })).sort()).to.deep.equal([
        'fx-instant',
        'fx-interval',
      ]);
      expectBadRequest(await post({ ids: [1, 2] }), 'ids');
    });

    it('filters by collections (the parent collection of each item)', async () => {
      const page = await search('collections=fixture-s2&limit=100');
      expect(page.numberMatched).to.equal(FIXTURE_ITEMS - 1);
      for (const item of page.features) expect(item.collection).to.equal('fixture-s2');
      const both = await searchPost({ collections: ['fixture-s2', 'fixture-other'], limit: 100 });
      expect(both.numberMatched).to.equal(FIXTURE_ITEMS);
      expect((await search('collections=no-such-collection')).numberMatched).to.equal(0);
      // A single string in POST is accepted (stac-api-validator's sort checks send one).
      expect((await searchPost({ collections: 'fixture-s2' })).numberMatched).to.equal(
        FIXTURE_ITEMS - 1,
      );
      expectBadRequest(await post({ collections: [['fixture-s2']] }), 'collections');
    });

    it('searches free text with q: comma-separated in GET, a string or an array in POST', async () => {
      const records = await get(`${ITEMS}?q=glacier,flood`).expect(200);
      const page = await search('q=glacier,flood&limit=100');
      expect(page.numberMatched).to.equal(records.body.numberMatched);
      expect(ids(page)).to.include('fx-glacier');
      expect((await searchPost({ q: ['glacier', 'flood'], limit: 100 })).numberMatched).to.equal(
        page.numberMatched,
      );
      expect((await searchPost({ q: 'glacier,flood' })).numberMatched).to.equal(page.numberMatched);
      expectBadRequest(await post({ q: 42 }), 'q');
    });

    it('filters with CQL2 text (GET default) and CQL2 JSON (POST default)', async () => {
      const text = await search(
        `filter=${encodeURIComponent("collection = 'fixture-s2' AND eo:cloud_cover < 30")}&limit=100`,
      );
      expect(ids(text).sort()).to.deep.equal(
        ['fx-glacier', 'fx-instant', 'fx-antimeridian'].sort(),
      );
      const prefixed = await search(
        `filter=${encodeURIComponent("collection = 'fixture-s2' AND properties.eo:cloud_cover < 30")}`,
      );
      expect(ids(prefixed).sort()).to.deep.equal(ids(text).sort());
      const json = {
        op: 'and',
        args: [
          { op: '=', args: [{ property: 'collection' }, 'fixture-s2'] },
          { op: '<', args: [{ property: 'eo:cloud_cover' }, 30] },
        ],
      };
      expect(ids(await searchPost({ filter: json, limit: 100 })).sort()).to.deep.equal(
        ids(text).sort(),
      );
      const jsonInGet = await search(
        `filter-lang=cql2-json&filter=${encodeURIComponent(JSON.stringify(json))}`,
      );
      expect(ids(jsonInGet).sort()).to.deep.equal(ids(text).sort());
      const textInPost = await searchPost({
        'filter-lang': 'cql2-text',
        filter: "collection = 'fixture-s2' AND eo:cloud_cover < 30",
        'filter-crs': 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
      });
      expect(ids(textInPost).sort()).to.deep.equal(ids(text).sort());
      // The pre-1.0 JSON between (args [value, [low, high]]) that some clients still send.
      const legacy = await searchPost({
        filter: { op: 'between', args: [{ property: 'eo:cloud_cover' }, [0, 10]] },
        collections: ['fixture-s2'],
      });
      expect(ids(legacy).sort()).to.deep.equal(['fx-glacier', 'fx-instant']);
      const temporal = await search(
        `filter=${encodeURIComponent("datetime >= TIMESTAMP('2021-01-01T00:00:00Z')")}&collections=fixture-s2`,
      );
      expect(ids(temporal)).to.include('fx-instant');
    });

    it('refuses invalid filter, filter-lang and filter-crs values with 400', async () => {
      const invalid = await get(`${SEARCH}?filter=${encodeURIComponent('eo:cloud_cover >')}`);
      expectBadRequest(invalid, 'filter');
      expect(invalid.body.code).to.equal('INVALID_FILTER');
      expectBadRequest(await get(`${SEARCH}?filter=x%3D1&filter-lang=cql`), 'filter-lang');
      expectBadRequest(
        await get(
          `${SEARCH}?filter=x%3D1&filter-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/4326')}`,
        ),
        'filter-crs',
      );
      expectBadRequest(await get(`${SEARCH}?filter-lang=cql2-json&filter=%7Bnot-json`), 'filter');
      expectBadRequest(await post({ filter: { op: 'nonsense' } }), 'filter');
      expectBadRequest(await post({ filter: 'a = 1', 'filter-lang': 'cql2-json' }), 'filter');
      expectBadRequest(
        await post({ filter: { op: '=', args: [] }, 'filter-lang': 'cql2-text' }),
        'filter',
      );
    });

    it('sorts by sortby: +/- fields in GET, {field, direction} in POST, STAC names', async () => {
      const descending = await search('sortby=-properties.datetime&collections=fixture-s2');
      const starts = descending.features.map((item) => itemTime(item)[0]);
      expect(starts).to.deep.equal([...starts].sort().reverse());
      const byId = await search('sortby=%2Bid&limit=20');
      expect(ids(byId)).to.deep.equal([...ids(byId)].sort());
      const byIdDown = await searchPost({
        sortby: [{ field: 'id', direction: 'desc' }],
        limit: 20,
      });
      expect(ids(byIdDown)).to.deep.equal([...ids(byIdDown)].sort().reverse());
      const byCloud = await searchPost({
        sortby: [{ field: 'properties.eo:cloud_cover' }, { field: 'id', direction: 'asc' }],
        collections: ['fixture-s2'],
      });
      const clouds = byCloud.features.map((item) => item.properties['eo:cloud_cover'] as number);
      expect(clouds).to.deep.equal([...clouds].sort((a, b) => a - b));
      const byCollection = await search('sortby=-collection,id&ids=fx-instant,fx-other-collection');
      expect(ids(byCollection)).to.deep.equal(['fx-instant', 'fx-other-collection']);
      const byCollectionUp = await search('sortby=collection&ids=fx-instant,fx-other-collection');
      expect(ids(byCollectionUp)).to.deep.equal(['fx-other-collection', 'fx-instant']);
    });

    it('refuses unknown and unsortable sortby fields and bad directions', async () => {
      expectBadRequest(await get(`${SEARCH}?sortby=nosuchfield`), 'sortby');
      expectBadRequest(await get(`${SEARCH}?sortby=description`), 'sortby');
      expectBadRequest(await post({ sortby: [{ field: 'id', direction: 'up' }] }), 'sortby');
      expectBadRequest(await post({ sortby: [{ direction: 'asc' }] }), 'sortby');
      expectBadRequest(await post({ sortby: [{ field: 'id', order: 'asc' }] }), 'sortby');
      expectBadRequest(await post({ sortby: 42 }), 'sortby');
    });

    it('selects fields: default set, includes, excludes, the most specific path wins', async () => {
      const defaults = [
        'type',
        'stac_version',
        'id',
        'geometry',
        'bbox',
        'links',
        'assets',
        'collection',
      ];
      const one = async (query: string): Promise<Item> =>
        defined((await search(`ids=fx-instant&${query}`)).features[0], `fx-instant (${query})`);
      const onePost = async (fields: unknown): Promise<Item> =>
        defined(
          (await searchPost({ ids: ['fx-instant'], fields })).features[0],
          `fx-instant (fields ${JSON.stringify(fields)})`,
        );

      const baseline = await one('fields=');
      expect(Object.keys(baseline).sort()).to.deep.equal([...defaults, 'properties'].sort());
      expect(Object.keys(baseline.properties)).to.deep.equal(['datetime']);
      expect(await onePost({})).to.deep.equal(baseline);
      expect(await onePost({ include: null, exclude: [] })).to.deep.equal(baseline);

      const withCloud = await one('fields=properties.eo:cloud_cover');
      expect(withCloud.properties).to.deep.equal({
        datetime: '2021-06-01T10:00:00Z',
        'eo:cloud_cover': 5,
      });
      expect(await one('fields=eo:cloud_cover')).to.deep.equal(withCloud);
      expect(await onePost({ include: ['properties.eo:cloud_cover'] })).to.deep.equal(withCloud);

      const noGeometry = await one('fields=-geometry');
      expect(noGeometry).to.not.have.property('geometry');
      expect(noGeometry.properties).to.include({ title: 'Fixture instant', 'eo:cloud_cover': 5 });
      expect(await onePost({ exclude: ['geometry'] })).to.deep.equal(noGeometry);
      const defaultWithoutGeometry = await onePost({ exclude: ['geometry'], include: [] });
      expect(defaultWithoutGeometry).to.not.have.property('geometry');
      expect(defaultWithoutGeometry.properties).to.deep.equal({ datetime: '2021-06-01T10:00:00Z' });

      expect(await one('fields=%2Bgeometry,-geometry')).to.have.property('geometry');
      // properties.datetime (default set) is more specific than the excluded `properties`.
      const nested = await one('fields=-properties,%2Bproperties.title');
      expect(nested.properties).to.deep.equal({
        datetime: '2021-06-01T10:00:00Z',
        title: 'Fixture instant',
      });
      const allButTitle = await onePost({ include: ['properties'], exclude: ['properties.title'] });
      expect(allButTitle.properties).to.not.have.property('title');
      expect(allButTitle.properties).to.include({ 'eo:cloud_cover': 5 });
      const interval = defined(
        (await search('ids=fx-interval&fields=')).features[0],
        'fx-interval',
      );
      expect(interval.properties).to.deep.equal({
        datetime: null,
        start_datetime: '2021-01-01T00:00:00Z',
        end_datetime: '2021-12-31T23:59:59Z',
      });
    });

    it('refuses malformed fields values', async () => {
      expectBadRequest(await post({ fields: 'id,-geometry' }), 'fields');
      expectBadRequest(await post({ fields: null }), 'fields');
      expectBadRequest(await post({ fields: { include: 'id' } }), 'fields');
      expectBadRequest(await post({ fields: { exclude: [1] } }), 'fields');
      expectBadRequest(await post({ fields: { only: ['id'] } }), 'fields');
      expectBadRequest(await get(`${SEARCH}?fields=id&fields=bbox`), 'fields');
    });

    it('refuses unknown and repeated parameters, unknown members and bad bodies', async () => {
      const unknown = await get(`${SEARCH}?nosuchparameter=1`);
      expectBadRequest(unknown, 'nosuchparameter');
      expect(unknown.body.code).to.equal('UNKNOWN_PARAMETER');
      expectBadRequest(await get(`${SEARCH}?query=%7B%7D`), 'query');
      expectBadRequest(await get(`${SEARCH}?limit=1&limit=2`), 'limit');
      expectBadRequest(await post({ nosuchmember: 1 }), 'nosuchmember');
      expectBadRequest(await post({ collections: null }), 'collections');
      expectBadRequest(await post([1, 2]), 'body');
      expectBadRequest(
        await request(test.app)
          .post(SEARCH)
          .set('Content-Type', 'application/json')
          .send('{"limit":'),
        'body',
      );
      expectBadRequest(
        await request(test.app).post(SEARCH).set('Content-Type', 'text/plain').send('limit=1'),
        'body',
      );
      expectBadRequest(await get(`${SEARCH}?token=not-a-token!`), 'token');
      expectBadRequest(await post({ token: 'eyJvZmZzZXQiOi0xfQ' }), 'token');
    });
  });

  describe('paging', () => {
    /** Follows `next` links from a first page, the way a STAC client does. */
    async function pageThrough(first: ItemCollection): Promise<{ seen: string[]; pages: number }> {
      const seen = [...ids(first)];
      let pages = 1;
      let next = linkOf(first.links, 'next');
      while (next) {
        expect(pages, 'too many pages').to.be.below(200);
        let page: ItemCollection;
        if (next.method === 'POST') {
          expect(next.merge ?? false).to.equal(false);
          page = (await request(test.app).post(pathOf(next.href)).send(next.body).expect(200)).body;
        } else {
          expect(next.method ?? 'GET').to.equal('GET');
          page = (await get(pathOf(next.href)).expect(200)).body;
        }
        expect(page.numberMatched).to.equal(first.numberMatched);
        seen.push(...ids(page));
        pages += 1;
        next = linkOf(page.links, 'next');
      }
      return { seen, pages };
    }

    function expectEveryIdOnce(seen: string[], matched: number): void {
      expect(seen).to.have.length(matched);
      expect(new Set(seen).size).to.equal(matched);
    }

    it('pages through every item by GET next links', async () => {
      const first = await search('limit=7');
      const { seen, pages } = await pageThrough(first);
      expectEveryIdOnce(seen, TOTAL);
      expect(pages).to.equal(Math.ceil(TOTAL / 7));
      const next = new URL(linkOf(first.links, 'next')?.href ?? '');
      expect(next.pathname).to.equal(SEARCH);
      expect(next.searchParams.get('limit')).to.equal('7');
      expect(next.searchParams.get('token')).to.be.a('string');
    });

    it('pages through every item by POST next links carrying the body to send', async () => {
      const first = await searchPost({ limit: 9 });
      const next = linkOf(first.links, 'next') as Link;
      expect(next).to.include({ method: 'POST', merge: false });
      expect(next.body).to.include({ limit: 9 });
      expect(next.body?.token).to.be.a('string');
      const { seen } = await pageThrough(first);
      expectEveryIdOnce(seen, TOTAL);
    });

    it('keeps every search parameter in the paging links (GET and POST)', async () => {
      const query =
        'bbox=-180,-90,0,90&datetime=2000-01-01T00:00:00Z/..&sortby=-datetime&fields=id&limit=6';
      const first = await search(query);
      expect(first.numberMatched).to.be.greaterThan(12);
      const byGet = await pageThrough(first);
      expectEveryIdOnce(byGet.seen, first.numberMatched);
      const all = await search(query.replace('limit=6', 'limit=100'));
      expect(byGet.seen.slice(0, 100)).to.deep.equal(ids(all));

      const body = {
        intersects: square(-30, 30, 60, 75),
        q: ['land', 'water', 'sea', 'river'],
        filter: {
          op: '>=',
          args: [{ property: 'updated' }, { timestamp: '2024-01-01T00:00:00Z' }],
        },
        sortby: [{ field: 'title', direction: 'asc' }],
        limit: 4,
      };
      const firstPost = await searchPost(body);
      expect(firstPost.numberMatched).to.be.greaterThan(8);
      const byPost = await pageThrough(firstPost);
      expectEveryIdOnce(byPost.seen, firstPost.numberMatched);
      expect(byPost.seen).to.deep.equal(ids(await searchPost({ ...body, limit: 100 })));
    });

    it('links back with prev, and ends without next', async () => {
      const first = await search('limit=50');
      const second = (await get(pathOf(linkOf(first.links, 'next')?.href ?? '')).expect(200))
        .body as ItemCollection;
      const back = (await get(pathOf(linkOf(second.links, 'prev')?.href ?? '')).expect(200))
        .body as ItemCollection;
      expect(ids(back)).to.deep.equal(ids(first));
      expect(linkOf(first.links, 'prev')).to.equal(undefined);
      const last = await search(`limit=10&ids=fx-instant,fx-interval`);
      expect(linkOf(last.links, 'next')).to.equal(undefined);
    });
  });

  describe('single records as STAC Items', () => {
    it('returns a STAC Item for f=stac and for a STAC profile in Accept', async () => {
      const item = await get(`${ITEMS}/fx-instant?f=stac`)
        .expect(200)
        .expect('Content-Type', /application\/geo\+json/);
      expect(item.body).to.include({ type: 'Feature', stac_version: '1.0.0', id: 'fx-instant' });
      expect(pathOf(linkOf(item.body.links, 'self')?.href ?? '')).to.equal(
        '/catalogue/stac/collections/fixture-s2/items/fx-instant',
      );
      const negotiated = await get(`${ITEMS}/fx-instant`)
        .set('Accept', 'application/geo+json;profile="https://stacspec.org"')
        .expect(200);
      expect(negotiated.body).to.deep.equal(item.body);
      const record = await get(`${ITEMS}/fx-instant`).expect(200);
      expect(record.body).to.not.have.property('stac_version');
      expectBadRequest(await get(`${ITEMS}/fx-instant?f=pdf`), 'f=pdf');
      await get(`${ITEMS}/no-such-record?f=stac`).expect(404);
    });

    it('writes a STAC-sourced record from its source with this catalogue\u2019s links', async () => {
      const item = (await get(`${ITEMS}/fx-instant?f=stac`).expect(200)).body as Item;
      expect(item.collection).to.equal('fixture-s2');
      expect(Object.keys(item.assets)).to.deep.equal(['B04', 'thumbnail']);
      expect(item.assets.B04?.href).to.equal('https://old.example.org/stac/items/B04.tif');
      expect(item.stac_extensions).to.deep.equal([
        'https://stac-extensions.github.io/eo/v1.1.0/schema.json',
      ]);
      const rels = item.links.map((link) => link.rel);
      expect(rels.filter((rel) => rel === 'self')).to.have.length(1);
      expect(rels).to.include.members(['root', 'parent', 'collection', 'license', 'alternate']);
      const collection = linkOf(item.links, 'collection') as Link;
      expect(pathOf(collection.href)).to.equal('/catalogue/stac/collections/fixture-s2');
      expect(linkOf(item.links, 'parent')?.href).to.equal(collection.href);
      const parent = await get(pathOf(collection.href)).expect(200);
      expect(parent.body).to.include({ type: 'Collection', id: 'fixture-s2' });
      expect(
        item.links.some((link) => link.href.includes('old.example.org/stac/collection')),
      ).to.equal(false);
    });

    it('writes other records from their fields, with assets from their data links', async () => {
      const page = await search(
        'ids=cairn-7-0000000,cairn-7-0000001,cairn-7-0000002,cairn-7-0000003',
      );
      for (const item of page.features) {
        expect(item.stac_version).to.equal('1.0.0');
        expect(item.assets).to.have.property('download');
        expect(item.assets.download?.roles).to.deep.equal(['data']);
        expect(item.links.map((link) => link.rel)).to.include('describedby');
        const { datetime, start_datetime: start, end_datetime: end } = item.properties;
        expect(
          datetime !== null || (typeof start === 'string' && typeof end === 'string'),
        ).to.equal(true);
      }
      const eo = await searchPost({
        filter: { op: 'isNull', args: [{ property: 'eo:cloud_cover' }] },
        limit: 1,
      });
      expect(eo.numberMatched).to.be.lessThan(TOTAL);
      const cloudy = await search(`filter=${encodeURIComponent('eo:cloud_cover >= 0')}&limit=100`);
      const generated = cloudy.features.filter((item) => item.id.startsWith('cairn-'));
      expect(generated.length).to.be.greaterThan(0);
      for (const item of generated) {
        expect(item.properties['eo:cloud_cover']).to.be.a('number');
        expect(item.stac_extensions).to.include(
          'https://stac-extensions.github.io/eo/v1.1.0/schema.json',
        );
      }
    });
  });

  describe('STAC API root: Collections and Features', () => {
    const STAC = '/catalogue/stac';

    it('is a STAC Catalog declaring Collections and Features, with its own conformance', async () => {
      const root = (await get(STAC).expect(200).expect('Content-Type', /json/)).body;
      expect(root).to.include({ type: 'Catalog', stac_version: '1.0.0', id: 'cairn' });
      expect(root.conformsTo).to.include.members([
        'https://api.stacspec.org/v1.0.0/core',
        'https://api.stacspec.org/v1.0.0/item-search',
        'https://api.stacspec.org/v1.0.0/collections',
        'https://api.stacspec.org/v1.0.0/ogcapi-features',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
      ]);
      const conformance = (await get(`${STAC}/conformance`).expect(200)).body;
      expect(conformance.conformsTo).to.deep.equal(root.conformsTo);
      expect(pathOf(linkOf(root.links, 'data')?.href ?? '')).to.equal(`${STAC}/collections`);
      expect(pathOf(linkOf(root.links, 'search')?.href ?? '')).to.equal(SEARCH);
      expect(pathOf(linkOf(root.links, 'root')?.href ?? '')).to.equal(STAC);
      expectBadRequest(await get(`${STAC}?limit=3`), 'limit');
      // The Records landing page keeps Records collections behind its data link.
      const records = (await get('/catalogue').expect(200)).body;
      expect(pathOf(linkOf(records.links, 'data')?.href ?? '')).to.equal(
        '/catalogue/collections?f=json',
      );
      expect(records.conformsTo).to.not.include('https://api.stacspec.org/v1.0.0/collections');
    });

    it('lists the catalogue collection first, then records that are collections, paged', async () => {
      const all = (await get(`${STAC}/collections?limit=100`).expect(200)).body;
      const listed = all.collections.map((collection: { id: string }) => collection.id);
      expect(listed[0]).to.equal('metadata:main');
      expect(listed).to.include('fixture-s2');
      expect(listed).to.not.include('fixture-other'); // named as parent, but no such record
      expect(all.numberMatched).to.equal(listed.length);
      for (const collection of all.collections) {
        expect(collection).to.include({ type: 'Collection', stac_version: '1.0.0' });
        expect(collection.description).to.be.a('string').and.not.equal('');
        expect(collection.extent.spatial.bbox[0]).to.have.length(4);
        expect(collection.extent.temporal.interval[0]).to.have.length(2);
      }
      const paged: string[] = [];
      let next: string | undefined = `${STAC}/collections?limit=2`;
      while (next) {
        const page = (await get(next).expect(200)).body;
        expect(page.collections.length).to.be.at.most(2);
        paged.push(...page.collections.map((collection: { id: string }) => collection.id));
        const link = linkOf(page.links, 'next');
        next = link ? pathOf(link.href) : undefined;
      }
      expect(paged).to.deep.equal(listed);
      expectBadRequest(await get(`${STAC}/collections?bbox=1,2,3`), 'bbox');
      expectBadRequest(await get(`${STAC}/collections?limit=0`), 'limit');
    });

    it('serves each collection with self, root, parent and items links, and 404 otherwise', async () => {
      const collection = (await get(`${STAC}/collections/fixture-s2`).expect(200)).body;
      expect(collection).to.include({ type: 'Collection', id: 'fixture-s2', license: 'CC-BY-4.0' });
      expect(pathOf(linkOf(collection.links, 'self')?.href ?? '')).to.equal(
        `${STAC}/collections/fixture-s2`,
      );
      expect(pathOf(linkOf(collection.links, 'items')?.href ?? '')).to.equal(
        `${STAC}/collections/fixture-s2/items`,
      );
      expect(pathOf(linkOf(collection.links, 'root')?.href ?? '')).to.equal(STAC);
      expect(pathOf(linkOf(collection.links, 'parent')?.href ?? '')).to.equal(STAC);
      const main = (await get(`${STAC}/collections/metadata:main`).expect(200)).body;
      expect(main).to.include({ type: 'Collection', id: 'metadata:main' });
      expect(pathOf(linkOf(main.links, 'items')?.href ?? '')).to.equal(
        `${STAC}/collections/metadata:main/items`,
      );
      const missing = await get(`${STAC}/collections/fixture-other`).expect(404);
      expect(missing.body.description).to.contain('fixture-other');
      // A record that is neither a collection nor anyone's parent is not a STAC Collection.
      await get(`${STAC}/collections/fx-instant`).expect(404);
    });

    it('serves a collection\u2019s items (STAC API Features) and each item under it', async () => {
      const page = (
        await get(`${STAC}/collections/fixture-s2/items?limit=100`)
          .expect(200)
          .expect('Content-Type', /application\/geo\+json/)
      ).body as ItemCollection;
      expect(page.numberMatched).to.equal(FIXTURE_ITEMS - 1);
      for (const item of page.features) expect(item.collection).to.equal('fixture-s2');
      // pystac-client repeats the collection in `collections`; another one is a 400.
      const repeated = (
        await get(`${STAC}/collections/fixture-s2/items?collections=fixture-s2&limit=1`).expect(200)
      ).body as ItemCollection;
      expect(repeated.numberMatched).to.equal(FIXTURE_ITEMS - 1);
      expect(pathOf(linkOf(repeated.links, 'next')?.href ?? '')).to.match(
        /^\/catalogue\/stac\/collections\/fixture-s2\/items\?.*token=/,
      );
      expectBadRequest(
        await get(`${STAC}/collections/fixture-s2/items?collections=fixture-other`),
        'collections',
      );
      const filtered = (
        await get(`${STAC}/collections/fixture-s2/items?bbox=169,-21,180,-9`).expect(200)
      ).body as ItemCollection;
      expect(ids(filtered)).to.deep.equal(['fx-antimeridian']);
      const everything = (await get(`${STAC}/collections/metadata:main/items`).expect(200))
        .body as ItemCollection;
      expect(everything.numberMatched).to.equal(TOTAL);
      await get(`${STAC}/collections/fixture-other/items`).expect(404);

      const item = (
        await get(`${STAC}/collections/fixture-s2/items/fx-instant`)
          .expect(200)
          .expect('Content-Type', /application\/geo\+json/)
      ).body as Item;
      expect(item).to.include({ id: 'fx-instant', collection: 'fixture-s2' });
      await get(`${STAC}/collections/metadata:main/items/fx-instant`).expect(200);
      await get(`${STAC}/collections/fixture-s2/items/cairn-7-0000000`).expect(404);
      await get(`${STAC}/collections/fixture-s2/items/non-existent-item`).expect(404);
    });

    it('writes a record whose parent is not in the catalogue without collection links', async () => {
      const page = await search('ids=fx-other-collection');
      const item = defined(page.features[0], 'fx-other-collection');
      expect(item).to.not.have.property('collection');
      const rels = item.links.map((link) => link.rel);
      expect(rels).to.not.include('collection');
      expect(rels).to.not.include('parent');
      expect(pathOf(linkOf(item.links, 'self')?.href ?? '')).to.equal(
        `${STAC}/collections/metadata:main/items/fx-other-collection`,
      );
      // Its parent id still selects it in a search.
      expect(ids(await search('collections=fixture-other'))).to.deep.equal(['fx-other-collection']);
    });
  });
});
