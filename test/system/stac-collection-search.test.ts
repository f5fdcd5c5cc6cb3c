import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const STAC = '/catalogue/stac';
const COLLECTIONS = `${STAC}/collections`;

type Box = [number, number, number, number];
type Interval = [string | null, string | null];

interface Link {
  rel: string;
  href: string;
}

interface Collection {
  id: string;
  title?: string;
  description?: string;
  keywords?: string[];
  extent: { spatial: { bbox: number[][] }; temporal: { interval: Interval[] } };
  links: Link[];
  [member: string]: unknown;
}

interface CollectionsPage {
  collections: Collection[];
  numberMatched: number;
  numberReturned: number;
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

function collection(
  id: string,
  title: string,
  keywords: string[],
  bbox: number[][],
  interval: Interval[],
): Record<string, unknown> {
  return {
    type: 'Collection',
    stac_version: '1.0.0',
    id,
    title,
    description: `${title} (collection search fixture)`,
    keywords,
    license: 'CC-BY-4.0',
    extent: { spatial: { bbox }, temporal: { interval } },
    links: [],
  };
}

function item(
  id: string,
  parent: string,
  bbox: Box,
  time: { datetime?: string | null; start_datetime?: string; end_datetime?: string },
): Record<string, unknown> {
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    collection: parent,
    geometry: bbox[0] <= bbox[2] ? square(...bbox) : null,
    bbox,
    properties: { datetime: null, ...time },
    links: [],
    assets: {},
  };
}

/**
 * Collections with items (whose served extent is their items') and without (served with the
 * extent they declare, one of them with two boxes), and one crossing the antimeridian.
 */
const FIXTURES = [
  collection(
    'cs-alps',
    'Alpine glaciers',
    ['ice', 'mountains'],
    [[0, 40, 20, 50]],
    [['2010-01-01T00:00:00Z', '2011-01-01T00:00:00Z']],
  ),
  item('cs-alps-1', 'cs-alps', [10, 45, 11, 46], { datetime: '2021-01-10T00:00:00Z' }),
  item('cs-alps-2', 'cs-alps', [7.5, 45.5, 9, 47], {
    start_datetime: '2021-03-01T00:00:00Z',
    end_datetime: '2021-06-30T23:59:59Z',
  }),
  collection(
    'cs-pacific',
    'Pacific atolls',
    ['ocean', 'coral'],
    [[-180, -90, 180, 90]],
    [['2000-01-01T00:00:00Z', null]],
  ),
  item('cs-pacific-1', 'cs-pacific', [170, -20, -170, -10], { datetime: '2020-03-03T03:03:03Z' }),
  item('cs-pacific-2', 'cs-pacific', [175, -5, 178, 0], { datetime: '2020-04-04T04:04:04Z' }),
  collection(
    'cs-vineyards',
    'Vineyards of the south',
    ['agriculture', 'wine'],
    [[-10, 35, 5, 44]],
    [['2015-01-01T00:00:00Z', '2016-12-31T23:59:59Z']],
  ),
  collection(
    'cs-islands',
    'Scattered islands',
    ['ocean'],
    [
      [-30, -30, 30, 30],
      [-30, -30, -20, -20],
      [20, 20, 30, 30],
    ],
    [
      ['1990-01-01T00:00:00Z', '1990-12-31T23:59:59Z'],
      ['1995-01-01T00:00:00Z', '1995-12-31T23:59:59Z'],
    ],
  ),
];

/** Whether two boxes share a point; either may cross the antimeridian (west > east). */
function meets(a: number[], b: number[]): boolean {
  const flat = (box: number[]): Box =>
    box.length === 6 ? [box[0]!, box[1]!, box[3]!, box[4]!] : (box as Box);
  const ranges = ([w, , e]: Box): [number, number][] =>
    w <= e
      ? [[w, e]]
      : [
          [w, 180],
          [-180, e],
        ];
  const [fa, fb] = [flat(a), flat(b)];
  if (fa[1] > fb[3] || fb[1] > fa[3]) return false;
  return ranges(fa).some(([aw, ae]) => ranges(fb).some(([bw, be]) => aw <= be && bw <= ae));
}

/** Whether an extent interval meets [start, end] (null: open), by instants. */
function overlaps([start, end]: Interval, wanted: Interval): boolean {
  const time = (value: string | null, open: number) => (value === null ? open : Date.parse(value));
  return (
    time(start, -Infinity) <= time(wanted[1], Infinity) &&
    time(end, Infinity) >= time(wanted[0], -Infinity)
  );
}

describe(`STAC API Collection Search over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(40, { PUBLIC_BASE_URL: 'http://cairn.test' });
    const summary = await ingestDocuments(test.backend, [
      { name: 'collection search fixtures', content: JSON.stringify(FIXTURES) },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  const get = (path: string) => request(test.app).get(path);
  const pathOf = (href: string): string => {
    const url = new URL(href);
    return url.pathname + url.search;
  };
  const page = async (query: string): Promise<CollectionsPage> => {
    const response = await get(`${COLLECTIONS}?${query}`);
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body as CollectionsPage;
  };
  const ids = (found: CollectionsPage): string[] => found.collections.map((c) => c.id);
  /** Every collection as served (the catalogue collection first), across pages. */
  const everyCollection = async (query = ''): Promise<Collection[]> => {
    const all: Collection[] = [];
    let next: string | undefined = `${COLLECTIONS}?limit=3${query === '' ? '' : `&${query}`}`;
    while (next) {
      const response = await get(next).expect(200);
      const body = response.body as CollectionsPage;
      all.push(...body.collections);
      const link = body.links.find((l) => l.rel === 'next');
      next = link ? pathOf(link.href) : undefined;
    }
    return all;
  };
  function expectBadRequest(response: request.Response, parameter: string): void {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(Object.keys(response.body).sort()).to.deep.equal(['code', 'description']);
    expect(response.body.description).to.contain(parameter);
  }

  describe('extents that follow the items', () => {
    it("serves a collection with its items' union and span, and its own extent without items", async () => {
      const alps = (await get(`${COLLECTIONS}/cs-alps`).expect(200)).body as Collection;
      expect(alps.extent.spatial.bbox).to.deep.equal([[7.5, 45, 11, 47]]);
      expect(alps.extent.temporal.interval).to.deep.equal([
        ['2021-01-10T00:00:00.000Z', '2021-06-30T23:59:59.000Z'],
      ]);
      // An item across the antimeridian widens the longitudes to the whole circle.
      const pacific = (await get(`${COLLECTIONS}/cs-pacific`).expect(200)).body as Collection;
      expect(pacific.extent.spatial.bbox).to.deep.equal([[-180, -20, 180, 0]]);
      expect(pacific.extent.temporal.interval).to.deep.equal([
        ['2020-03-03T03:03:03.000Z', '2020-04-04T04:04:04.000Z'],
      ]);
      const islands = (await get(`${COLLECTIONS}/cs-islands`).expect(200)).body as Collection;
      expect(islands.extent.spatial.bbox).to.have.length(3);
      // The list serves the same documents.
      const listed = await everyCollection();
      expect(listed.find((c) => c.id === 'cs-alps')?.extent).to.deep.equal(alps.extent);
    });

    it('follows items written, replaced and deleted, with their counts', async () => {
      const count = async () =>
        (await get(`${COLLECTIONS}/cs-alps/items?limit=1`).expect(200)).body.numberMatched;
      expect(await count()).to.equal(2);
      await ingestDocuments(test.backend, [
        {
          name: 'new item',
          content: JSON.stringify(
            item('cs-alps-3', 'cs-alps', [12, 44, 13, 45.5], { datetime: '2022-02-02T00:00:00Z' }),
          ),
        },
      ]);
      let alps = (await get(`${COLLECTIONS}/cs-alps`).expect(200)).body as Collection;
      expect(alps.extent.spatial.bbox).to.deep.equal([[7.5, 44, 13, 47]]);
      expect(alps.extent.temporal.interval[0]![1]).to.equal('2022-02-02T00:00:00.000Z');
      expect(await count()).to.equal(3);
      expect(ids(await page('bbox=12.5,44.2,12.6,44.3'))).to.deep.equal(['cs-alps']);
      // Replaced: the same id somewhere else.
      await ingestDocuments(test.backend, [
        {
          name: 'moved item',
          content: JSON.stringify(
            item('cs-alps-3', 'cs-alps', [8, 46, 8.5, 46.5], { datetime: '2021-02-02T00:00:00Z' }),
          ),
        },
      ]);
      alps = (await get(`${COLLECTIONS}/cs-alps`).expect(200)).body as Collection;
      expect(alps.extent.spatial.bbox).to.deep.equal([[7.5, 45, 11, 47]]);
      expect(alps.extent.temporal.interval[0]![1]).to.equal('2021-06-30T23:59:59.000Z');
      expect(await count()).to.equal(3);
      expect(ids(await page('bbox=12.5,44.2,12.6,44.3'))).to.deep.equal([]);
      // Deleted: back to two items.
      expect(await test.backend.delete(['cs-alps-3'])).to.equal(1);
      expect(await count()).to.equal(2);
      alps = (await get(`${COLLECTIONS}/cs-alps`).expect(200)).body as Collection;
      expect(alps.extent.spatial.bbox).to.deep.equal([[7.5, 45, 11, 47]]);
    });
  });

  describe('search by bbox and datetime', () => {
    const BOXES = [
      '10.5,45.5,10.6,45.6',
      '175,-15,-175,-12',
      '-179,-19,-178,-18',
      '0,38,1,39',
      '-25,-25,-24,-24',
      '-5,-5,5,5',
      '100,60,110,70',
      '-180,-90,180,90',
    ];
    const TIMES: [string, Interval][] = [
      ['2021-02-01T00:00:00Z', ['2021-02-01T00:00:00Z', '2021-02-01T00:00:00Z']],
      ['2021-05-01T00:00:00Z/..', ['2021-05-01T00:00:00Z', null]],
      ['../2001-01-01T00:00:00Z', [null, '2001-01-01T00:00:00Z']],
      [
        '1995-06-01T00:00:00Z/2016-01-01T00:00:00Z',
        ['1995-06-01T00:00:00Z', '2016-01-01T00:00:00Z'],
      ],
      ['2020-03-03T03:03:03Z', ['2020-03-03T03:03:03Z', '2020-03-03T03:03:03Z']],
    ];

    it('returns exactly the collections whose served boxes meet the bbox', async () => {
      const served = (await everyCollection()).filter((c) => c.id !== 'metadata:main');
      for (const box of BOXES) {
        const wanted = box.split(',').map(Number);
        const expected = served
          .filter((c) => c.extent.spatial.bbox.some((b) => meets(b, wanted)))
          .map((c) => c.id);
        const found = await everyCollection(`bbox=${box}`);
        expect(
          found.map((c) => c.id),
          box,
        ).to.deep.equal(expected);
      }
      expect(ids(await page('bbox=175,-15,-175,-12'))).to.include('cs-pacific');
      expect(ids(await page('bbox=-25,-25,-24,-24'))).to.include('cs-islands');
      // Inside the islands' overall box but outside both of its smaller boxes still meets it.
      expect(ids(await page('bbox=-5,-5,5,5'))).to.include('cs-islands');
      expect(ids(await page('bbox=0,38,1,39'))).to.include('cs-vineyards');
    });

    it('returns exactly the collections whose served intervals meet the datetime', async () => {
      const served = (await everyCollection()).filter((c) => c.id !== 'metadata:main');
      for (const [datetime, interval] of TIMES) {
        const expected = served
          .filter((c) => c.extent.temporal.interval.some((i) => overlaps(i, interval)))
          .map((c) => c.id);
        const found = await everyCollection(`datetime=${encodeURIComponent(datetime)}`);
        expect(
          found.map((c) => c.id),
          datetime,
        ).to.deep.equal(expected);
      }
      // The alps declare 2010, but are served (and found) with their items' 2021.
      expect(ids(await page('datetime=2010-06-01T00:00:00Z'))).to.not.include('cs-alps');
      expect(ids(await page('datetime=2021-04-01T00:00:00Z'))).to.include('cs-alps');
    });

    it('pages a search by extent with exact counts and next links', async () => {
      const all = await page('bbox=-180,-90,180,90&limit=100');
      expect(all.numberMatched).to.equal(all.numberReturned);
      const first = await page('bbox=-180,-90,180,90&limit=2');
      expect(first.numberMatched).to.equal(all.numberMatched);
      expect(first.numberReturned).to.equal(2);
      const paged = await everyCollection('bbox=-180,-90,180,90');
      expect(paged.map((c) => c.id)).to.deep.equal(ids(all));
      const next = first.links.find((l) => l.rel === 'next');
      expect(pathOf(next!.href)).to.contain('bbox=-180%2C-90%2C180%2C90');
    });
  });

  describe('free text, filter, sort and fields', () => {
    it('matches q over title, description and keywords, any of the comma-separated terms', async () => {
      expect(ids(await page('q=glaciers'))).to.deep.equal(['cs-alps']);
      expect(ids(await page('q=wine,glaciers'))).to.deep.equal(['cs-alps', 'cs-vineyards']);
      expect(ids(await page('q=ocean&bbox=170,-30,180,0'))).to.deep.equal(['cs-pacific']);
      expect((await page('q=nothing-is-called-this')).numberMatched).to.equal(0);
    });

    it('filters the collection records in CQL2 text and JSON', async () => {
      const text = encodeURIComponent("title LIKE 'Scattered%' OR id = 'cs-vineyards'");
      expect(ids(await page(`filter=${text}`))).to.deep.equal(['cs-islands', 'cs-vineyards']);
      const json = encodeURIComponent(
        JSON.stringify({ op: 'in', args: [{ property: 'id' }, ['cs-alps', 'cs-pacific']] }),
      );
      expect(ids(await page(`filter-lang=cql2-json&filter=${json}`))).to.deep.equal([
        'cs-alps',
        'cs-pacific',
      ]);
      const both = encodeURIComponent("A_CONTAINS(keywords, ('ocean'))");
      expect(ids(await page(`filter=${both}&datetime=1990-06-01T00:00:00Z`))).to.deep.equal([
        'cs-islands',
      ]);
    });

    it('sorts with sortby and keeps only the asked members with fields', async () => {
      const sorted = await page(`filter=${encodeURIComponent("id LIKE 'cs-%'")}&sortby=-title`);
      expect(ids(sorted)).to.deep.equal(['cs-vineyards', 'cs-islands', 'cs-pacific', 'cs-alps']);
      const fields = await page('q=glaciers&fields=title,-links');
      expect(Object.keys(fields.collections[0]!).sort()).to.deep.equal(
        ['description', 'extent', 'id', 'license', 'stac_version', 'title', 'type'].sort(),
      );
      const without = await page('q=glaciers&fields=-extent');
      expect(without.collections[0]).to.not.have.property('extent');
      expect(without.collections[0]).to.have.property('keywords');
    });

    it('refuses bad values with a 400 naming the parameter', async () => {
      expectBadRequest(await get(`${COLLECTIONS}?bbox=1,2,3`), 'bbox');
      expectBadRequest(await get(`${COLLECTIONS}?datetime=yesterday`), 'datetime');
      expectBadRequest(
        await get(`${COLLECTIONS}?filter=${encodeURIComponent('title ==')}`),
        'filter',
      );
      expectBadRequest(await get(`${COLLECTIONS}?sortby=nonsense`), 'sortby');
      expectBadRequest(await get(`${COLLECTIONS}?filter-lang=cql3`), 'filter-lang');
      expectBadRequest(await get(`${COLLECTIONS}?intersects=x`), 'intersects');
    });
  });

  it('declares the Collection Search classes at the STAC API root only', async () => {
    const classes = [
      'https://api.stacspec.org/v1.0.0-rc.1/collection-search',
      'http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/simple-query',
      'https://api.stacspec.org/v1.0.0-rc.1/collection-search#free-text',
      'https://api.stacspec.org/v1.0.0-rc.1/collection-search#filter',
      'https://api.stacspec.org/v1.0.0-rc.1/collection-search#sort',
      'https://api.stacspec.org/v1.0.0-rc.1/collection-search#fields',
    ];
    const root = (await get(STAC).expect(200)).body;
    expect(root.conformsTo).to.include.members(classes);
    expect((await get(`${STAC}/conformance`).expect(200)).body.conformsTo).to.include.members(
      classes,
    );
    const records = (await get('/catalogue/conformance').expect(200)).body;
    expect(records.conformsTo).to.not.include(classes[0]);
  });
});
