import { expect } from 'chai';
import { CairnError } from '../../../shared/errors/index.js';
import {
  checkGeometry,
  decodePageToken,
  encodePageToken,
  extractBbox,
  extractDatetime,
  extractFields,
  extractFilter,
  extractFreeText,
  extractLimit,
  extractSortby,
  isStacItemRequest,
  normaliseFieldPath,
  parseSearchGet,
  parseSearchPost,
  upgradeLegacyCql2Json,
} from '../../../services/api/protocols/stac/parse.js';

const LIMITS = { defaultLimit: 10, maxLimit: 100 };

/** Expects `run` to throw a 400 whose locator is `parameter`. */
function expect400(run: () => unknown, parameter: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a 400 for ${parameter}`).to.be.instanceOf(CairnError);
  const error = thrown as CairnError;
  expect(error.status).to.equal(400);
  expect(error.locator).to.equal(parameter);
  expect(error.message).to.contain(parameter);
}

describe('STAC search parsing', () => {
  it('reads limit: default, clamped, positive integers only', () => {
    expect(extractLimit(undefined, 'GET', LIMITS)).to.equal(10);
    expect(extractLimit('5', 'GET', LIMITS)).to.equal(5);
    expect(extractLimit('100000', 'GET', LIMITS)).to.equal(100);
    expect(extractLimit(1000000, 'POST', LIMITS)).to.equal(100);
    for (const value of ['0', '-1', 'x'])
      expect400(() => extractLimit(value, 'GET', LIMITS), 'limit');
    for (const value of [0, -5, 2.5, '3', null])
      expect400(() => extractLimit(value, 'POST', LIMITS), 'limit');
  });

  it('reads bbox from a string in GET and an array in POST', () => {
    expect(extractBbox('1,2,3,4', 'GET')).to.deep.equal([1, 2, 3, 4]);
    expect(extractBbox([1, 2, 0, 3, 4, 9], 'POST')).to.deep.equal([1, 2, 3, 4]);
    expect(extractBbox([170, -10, -170, 10], 'POST')).to.deep.equal([170, -10, -170, 10]);
    expect(extractBbox([1e-7, 0, 1e-7, 0], 'POST')).to.deep.equal([1e-7, 0, 1e-7, 0]);
    expect400(() => extractBbox('1,2,3,4', 'POST'), 'bbox');
    expect400(() => extractBbox([1, 2, 3, 4], 'GET'), 'bbox');
    expect400(() => extractBbox([1, 2, 3], 'POST'), 'bbox');
    expect400(() => extractBbox([1, 4, 3, 2], 'POST'), 'bbox');
    expect400(() => extractBbox([1, 2, Infinity, 4], 'POST'), 'bbox');
  });

  it('checks GeoJSON geometries of every type', () => {
    const ring = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 0],
    ];
    for (const geometry of [
      { type: 'Point', coordinates: [1, 2, 3] },
      { type: 'MultiPoint', coordinates: [[1, 2]] },
      {
        type: 'LineString',
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [1, 2],
            [3, 4],
          ],
        ],
      },
      { type: 'Polygon', coordinates: [ring] },
      { type: 'MultiPolygon', coordinates: [[ring]] },
      { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [0, 0] }] },
    ]) {
      expect(checkGeometry(geometry)).to.deep.equal(geometry);
    }
    for (const geometry of [
      null,
      { type: 'Point' },
      { type: 'Point', coordinates: [0, 91] },
      { type: 'Point', coordinates: ['0', 0] },
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
      { type: 'Polygon', coordinates: [] },
      { type: 'Feature', geometry: null },
    ]) {
      expect400(() => checkGeometry(geometry), 'intersects');
    }
    let nested: Record<string, unknown> = { type: 'Point', coordinates: [0, 0] };
    for (let depth = 0; depth < 10; depth += 1)
      nested = { type: 'GeometryCollection', geometries: [nested] };
    expect400(() => checkGeometry(nested), 'intersects');
  });

  it('reads datetime with the STAC grammar only (no bare dates)', () => {
    expect(extractDatetime('2020-01-01T00:00:00Z')).to.deep.equal({
      start: '2020-01-01T00:00:00.000Z',
      end: '2020-01-01T00:00:00.000Z',
      relation: 'intersects',
    });
    expect(extractDatetime('2020-01-01t00:00:00z/..')).to.deep.include({ end: null });
    expect(extractDatetime('/2020-01-01T00:00:00+01:00')).to.deep.include({
      start: null,
      end: '2019-12-31T23:00:00.000Z',
    });
    for (const value of ['2020-01-01', '..', '/', '2020-01-01T00:00:00', 42]) {
      expect400(() => extractDatetime(value), 'datetime');
    }
  });

  it('reads q as OR-ed terms of AND-ed words', () => {
    expect(extractFreeText('sea ice, glacier', 'GET')).to.deep.equal([['sea', 'ice'], ['glacier']]);
    expect(extractFreeText(['sea, ice', 'glacier'], 'POST')).to.deep.equal([
      ['sea,', 'ice'],
      ['glacier'],
    ]);
    expect(extractFreeText(' , ', 'GET')).to.equal(undefined);
    expect400(() => extractFreeText(['a', 1], 'POST'), 'q');
    expect400(() => extractFreeText(['a'], 'GET'), 'q');
  });

  it('parses filters, strips properties. prefixes and accepts the legacy JSON between', () => {
    expect(
      extractFilter('properties.eo:cloud_cover < 10', undefined, undefined, 'GET'),
    ).to.deep.equal({
      kind: 'op',
      op: '<',
      args: [
        { kind: 'property', name: 'eo:cloud_cover' },
        { kind: 'literal', value: 10 },
      ],
    });
    const legacy = { op: 'between', args: [{ property: 'x' }, [1, 2]] };
    expect(upgradeLegacyCql2Json({ op: 'not', args: [legacy] })).to.deep.equal({
      op: 'not',
      args: [{ op: 'between', args: [{ property: 'x' }, 1, 2] }],
    });
    expect(extractFilter(legacy, undefined, undefined, 'POST')).to.deep.include({ op: 'between' });
    expect(
      extractFilter('{"op":"=","args":[{"property":"id"},"a"]}', 'cql2-json', undefined, 'GET'),
    ).to.deep.include({ op: '=' });
    expect(extractFilter(undefined, 'cql2-text', '[OGC:CRS84]', 'GET')).to.equal(undefined);
    expect400(() => extractFilter('x =', undefined, undefined, 'GET'), 'filter');
    expect400(() => extractFilter('x = 1', undefined, undefined, 'POST'), 'filter');
    expect400(() => extractFilter('x = 1', 'cql', undefined, 'GET'), 'filter-lang');
    expect400(() => extractFilter('x = 1', undefined, 'EPSG:4326', 'GET'), 'filter-crs');
    let deep: unknown = { op: '=', args: [{ property: 'x' }, 1] };
    for (let depth = 0; depth < 20000; depth += 1) deep = { op: 'not', args: [deep] };
    expect400(() => extractFilter(deep, undefined, undefined, 'POST'), 'filter');
  });

  it('reads sortby in both forms and maps STAC names to canonical queryables', () => {
    expect(extractSortby('-properties.datetime, +eo:cloud_cover,collection', 'GET')).to.deep.equal([
      { field: 'start_datetime', direction: 'desc' },
      { field: 'cloudCover', direction: 'asc' },
      { field: 'parentId', direction: 'asc' },
    ]);
    // An unencoded + arrives as a space.
    expect(extractSortby(' id', 'GET')).to.deep.equal([{ field: 'id', direction: 'asc' }]);
    expect(
      extractSortby(
        [{ field: 'updated', direction: 'desc' }, { field: 'sat:absolute_orbit' }],
        'POST',
      ),
    ).to.deep.equal([
      { field: 'updated', direction: 'desc' },
      { field: 'orbitNumber', direction: 'asc' },
    ]);
    expect400(() => extractSortby('keywords', 'GET'), 'sortby');
    expect400(() => extractSortby([{ field: 'id', direction: 'ASC' }], 'POST'), 'sortby');
    expect400(() => extractSortby([['id']], 'POST'), 'sortby');
  });

  it('reads sortby on a sortable learned property, with or without properties.', () => {
    const sortable = new Set(['pop_est', 'view:off_nadir']);
    expect(extractSortby('-properties.pop_est,view:off_nadir', 'GET', sortable)).to.deep.equal([
      { field: 'pop_est', direction: 'desc' },
      { field: 'view:off_nadir', direction: 'asc' },
    ]);
    expect(
      extractSortby([{ field: 'properties.view:off_nadir', direction: 'desc' }], 'POST', sortable),
    ).to.deep.equal([{ field: 'view:off_nadir', direction: 'desc' }]);
    expect400(() => extractSortby('pop_est', 'GET'), 'sortby');
    expect400(() => extractSortby('gdp_md', 'GET', sortable), 'sortby');
  });

  it('reads fields with the Fields extension rules', () => {
    expect(extractFields('', 'GET')).to.deep.equal({ base: 'default', include: [], exclude: [] });
    expect(extractFields('id,-geometry,+eo:cloud_cover', 'GET')).to.deep.equal({
      base: 'default',
      include: ['id', 'properties.eo:cloud_cover'],
      exclude: ['geometry'],
    });
    expect(extractFields('-geometry', 'GET')).to.deep.include({ base: 'full' });
    expect(extractFields({ exclude: ['geometry'] }, 'POST')).to.deep.include({ base: 'full' });
    expect(extractFields({ exclude: ['geometry'], include: null }, 'POST')).to.deep.include({
      base: 'default',
    });
    expect(normaliseFieldPath('assets.B04')).to.equal('assets.B04');
    expect(normaliseFieldPath('title')).to.equal('properties.title');
    expect400(() => extractFields(['id'], 'POST'), 'fields');
    expect400(() => extractFields({ include: [1] }, 'POST'), 'fields');
  });

  it('round-trips paging tokens and refuses forged ones', () => {
    expect(decodePageToken(encodePageToken(40))).to.equal(40);
    expect(decodePageToken(undefined)).to.equal(0);
    for (const token of [
      '',
      'abc',
      encodePageToken(-1),
      Buffer.from('{"offset":"1"}').toString('base64url'),
      12,
    ]) {
      expect400(() => decodePageToken(token), 'token');
    }
  });

  it('builds one SearchQuery from GET parameters and refuses unknown or repeated ones', () => {
    const search = parseSearchGet(
      {
        bbox: '0,0,1,1',
        datetime: '2020-01-01T00:00:00Z/..',
        ids: 'a,b',
        collections: 'c',
        q: 'x',
        filter: "id = '1'",
        sortby: '-id',
        fields: 'id',
        limit: '5',
        token: encodePageToken(10),
      },
      LIMITS,
    );
    expect(search.query).to.deep.include({
      ids: ['a', 'b'],
      collections: ['c'],
      text: [['x']],
      offset: 10,
      limit: 5,
      sort: [{ field: 'id', direction: 'desc' }],
      spatial: { bbox: [0, 0, 1, 1], relation: 'intersects' },
    });
    expect(search.fields).to.deep.equal({ base: 'default', include: ['id'], exclude: [] });
    expect400(() => parseSearchGet({ format: 'json' }, LIMITS), 'format');
    expect400(() => parseSearchGet({ limit: ['1', '2'] }, LIMITS), 'limit');
    expect400(
      () =>
        parseSearchGet(
          { bbox: '0,0,1,1', intersects: '{"type":"Point","coordinates":[0,0]}' },
          LIMITS,
        ),
      'intersects',
    );
  });

  it('builds one SearchQuery from a POST body and refuses unknown or null members', () => {
    const search = parseSearchPost(
      { intersects: { type: 'Point', coordinates: [1, 2] }, ids: [], collections: ['c'] },
      LIMITS,
    );
    expect(search.query.spatial).to.deep.equal({
      geometry: { type: 'Point', coordinates: [1, 2] },
      relation: 'intersects',
    });
    expect(search.query).to.not.have.property('ids');
    expect(parseSearchPost(undefined, LIMITS).query).to.deep.equal({
      sort: [],
      offset: 0,
      limit: 10,
    });
    expect400(() => parseSearchPost({ conformance: true }, LIMITS), 'conformance');
    expect400(() => parseSearchPost({ limit: null }, LIMITS), 'limit');
    expect400(() => parseSearchPost('limit=1', LIMITS), 'body');
  });

  it('recognises STAC Item requests by f=stac or an Accept profile', () => {
    expect(isStacItemRequest('stac', undefined)).to.equal(true);
    expect(isStacItemRequest('json', 'application/geo+json;profile="stac"')).to.equal(false);
    expect(
      isStacItemRequest(
        undefined,
        'text/html, application/geo+json; profile="https://stacspec.org"',
      ),
    ).to.equal(true);
    expect(isStacItemRequest(undefined, 'application/geo+json')).to.equal(false);
    expect(isStacItemRequest(undefined, 'application/json;profile=stac')).to.equal(false);
  });
});
