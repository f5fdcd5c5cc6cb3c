import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import {
  parseFesFilter,
  parseGmlGeometry,
  resolveAxisOrder,
} from '../../../shared/query/fes/index.js';
import { parseXml } from '../../../shared/xml/index.js';
import { expectError, GML, GML32 } from './fes-helpers.js';
import { defined } from '../../support/defined.js';

/** Parses a GML fragment (with the gml prefix bound to GML 3.2 unless told otherwise). */
function gml(xml: string, ns = GML32): unknown {
  const root = parseXml(`<wrapper xmlns:gml="${ns}">${xml}</wrapper>`).root;
  return parseGmlGeometry(defined(root.children[0], 'the GML element'));
}

const geometry = (value: unknown): unknown => ({ kind: 'geometry', geometry: value });

describe('GML operands and axis order', () => {
  describe('resolveAxisOrder', () => {
    it('reads EPSG:4326 URNs and OGC HTTP URIs as latitude first', () => {
      for (const name of [
        'urn:ogc:def:crs:EPSG::4326',
        'urn:ogc:def:crs:EPSG:6.6:4326',
        'urn:x-ogc:def:crs:EPSG:4326',
        'URN:OGC:DEF:CRS:EPSG::4326',
        'http://www.opengis.net/def/crs/EPSG/0/4326',
        'https://www.opengis.net/def/crs/EPSG/0/4326',
      ]) {
        expect(resolveAxisOrder(name), name).to.equal('lat-lon');
      }
    });

    it('reads CRS84, the legacy EPSG:4326 and no srsName as longitude first', () => {
      for (const name of [
        'urn:ogc:def:crs:OGC:1.3:CRS84',
        'urn:ogc:def:crs:OGC::CRS84',
        'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
        'CRS:84',
        'OGC:CRS84',
        'EPSG:4326',
        'epsg:4326',
        'http://www.opengis.net/gml/srs/epsg.xml#4326',
        undefined,
        '',
      ]) {
        expect(resolveAxisOrder(name), String(name)).to.equal('lon-lat');
      }
    });

    it('refuses any other CRS, naming it', () => {
      for (const name of [
        'EPSG:3857',
        'urn:ogc:def:crs:EPSG::32631',
        'http://www.opengis.net/def/crs/EPSG/0/4258',
        'EPSG:43260',
        'foo',
      ]) {
        expectError(() => resolveAxisOrder(name), FilterError, `"${name}"`);
      }
    });
  });

  describe('points and lines', () => {
    it('gml:Point with gml:pos in each axis order', () => {
      expect(
        gml('<gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>52 4</gml:pos></gml:Point>'),
      ).to.deep.equal(geometry({ type: 'Point', coordinates: [4, 52] }));
      expect(
        gml('<gml:Point srsName="EPSG:4326"><gml:pos>4 52</gml:pos></gml:Point>'),
      ).to.deep.equal(geometry({ type: 'Point', coordinates: [4, 52] }));
    });

    it('gml:Point with GML 2 gml:coordinates and gml:coord', () => {
      expect(
        gml('<gml:Point><gml:coordinates>4.5,52.25</gml:coordinates></gml:Point>', GML),
      ).to.deep.equal(geometry({ type: 'Point', coordinates: [4.5, 52.25] }));
      expect(
        gml('<gml:Point><gml:coord><gml:X>4</gml:X><gml:Y>52</gml:Y></gml:coord></gml:Point>', GML),
      ).to.deep.equal(geometry({ type: 'Point', coordinates: [4, 52] }));
    });

    it('gml:coordinates honours decimal, cs and ts', () => {
      expect(
        gml(
          '<gml:LineString><gml:coordinates decimal="," cs=";" ts="|">4,5;52|5;53,5</gml:coordinates></gml:LineString>',
          GML,
        ),
      ).to.deep.equal(
        geometry({
          type: 'LineString',
          coordinates: [
            [4.5, 52],
            [5, 53.5],
          ],
        }),
      );
    });

    it('gml:LineString with posList, with several gml:pos, and 3D posList heights dropped', () => {
      const expected = geometry({
        type: 'LineString',
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      });
      expect(
        gml(
          '<gml:LineString srsName="urn:ogc:def:crs:EPSG::4326"><gml:posList>2 1 4 3</gml:posList></gml:LineString>',
        ),
      ).to.deep.equal(expected);
      expect(
        gml('<gml:LineString><gml:pos>1 2</gml:pos><gml:pos>3 4</gml:pos></gml:LineString>'),
      ).to.deep.equal(expected);
      expect(
        gml(
          '<gml:LineString srsDimension="3"><gml:posList>1 2 100 3 4 200</gml:posList></gml:LineString>',
        ),
      ).to.deep.equal(expected);
      expect(
        gml(
          '<gml:LineString><gml:posList srsDimension="3">1 2 100 3 4 200</gml:posList></gml:LineString>',
        ),
      ).to.deep.equal(expected);
    });

    it('refuses odd ordinate counts, non-numbers, one-point lines and empty positions', () => {
      expectError(
        () => gml('<gml:LineString><gml:posList>1 2 3</gml:posList></gml:LineString>'),
        FilterError,
        'do not make 2D positions',
      );
      expectError(
        () => gml('<gml:Point><gml:pos>1 north</gml:pos></gml:Point>'),
        FilterError,
        '"north" is not a number',
      );
      expectError(
        () => gml('<gml:LineString><gml:posList>1 2</gml:posList></gml:LineString>'),
        FilterError,
        'at least two positions',
      );
      expectError(() => gml('<gml:Point><gml:pos/></gml:Point>'), FilterError, 'no coordinates');
      expectError(() => gml('<gml:Point/>'), FilterError, 'no posList');
      expectError(
        () => gml('<gml:Point><gml:pos>1 2 3 4</gml:pos></gml:Point>'),
        FilterError,
        'one 2D or 3D position',
      );
      expectError(
        () => gml('<gml:Point srsDimension="4"><gml:pos>1 2</gml:pos></gml:Point>'),
        FilterError,
        'srsDimension',
      );
    });
  });

  describe('polygons', () => {
    it('gml:Polygon with exterior and interior rings (lat/lon → lon/lat)', () => {
      expect(
        gml(`<gml:Polygon srsName="urn:ogc:def:crs:EPSG::4326">
          <gml:exterior><gml:LinearRing><gml:posList>0 0 0 10 10 10 10 0 0 0</gml:posList></gml:LinearRing></gml:exterior>
          <gml:interior><gml:LinearRing><gml:posList>2 2 2 3 3 3 2 2</gml:posList></gml:LinearRing></gml:interior>
        </gml:Polygon>`),
      ).to.deep.equal(
        geometry({
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [10, 0],
              [10, 10],
              [0, 10],
              [0, 0],
            ],
            [
              [2, 2],
              [3, 2],
              [3, 3],
              [2, 2],
            ],
          ],
        }),
      );
    });

    it('GML 2 outerBoundaryIs / innerBoundaryIs with gml:coordinates', () => {
      expect(
        gml(
          `<gml:Polygon srsName="EPSG:4326">
            <gml:outerBoundaryIs><gml:LinearRing><gml:coordinates>0,0 10,0 10,10 0,0</gml:coordinates></gml:LinearRing></gml:outerBoundaryIs>
          </gml:Polygon>`,
          GML,
        ),
      ).to.deep.equal(
        geometry({
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [10, 0],
              [10, 10],
              [0, 0],
            ],
          ],
        }),
      );
    });

    it('refuses open rings, short rings and a polygon without exterior', () => {
      expectError(
        () =>
          gml(
            '<gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>0 0 1 0 1 1 0 1</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>',
          ),
        FilterError,
        'must be closed',
      );
      expectError(
        () =>
          gml(
            '<gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>0 0 1 0 0 0</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>',
          ),
        FilterError,
        'at least 4 positions',
      );
      expectError(() => gml('<gml:Polygon/>'), FilterError, 'no gml:exterior');
      expectError(
        () => gml('<gml:Polygon><gml:exterior/></gml:Polygon>'),
        FilterError,
        'gml:LinearRing',
      );
    });
  });

  describe('multi-geometries', () => {
    it('gml:MultiPoint with pointMember and pointMembers', () => {
      expect(
        gml(`<gml:MultiPoint srsName="urn:ogc:def:crs:EPSG::4326">
          <gml:pointMember><gml:Point><gml:pos>1 2</gml:pos></gml:Point></gml:pointMember>
          <gml:pointMembers><gml:Point><gml:pos>3 4</gml:pos></gml:Point><gml:Point><gml:pos>5 6</gml:pos></gml:Point></gml:pointMembers>
        </gml:MultiPoint>`),
      ).to.deep.equal(
        geometry({
          type: 'MultiPoint',
          coordinates: [
            [2, 1],
            [4, 3],
            [6, 5],
          ],
        }),
      );
    });

    it('gml:MultiCurve and gml:MultiLineString', () => {
      const expected = geometry({
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      });
      expect(
        gml(
          '<gml:MultiCurve><gml:curveMember><gml:LineString><gml:posList>0 0 1 1</gml:posList></gml:LineString></gml:curveMember></gml:MultiCurve>',
        ),
      ).to.deep.equal(expected);
      expect(
        gml(
          '<gml:MultiLineString><gml:lineStringMember><gml:LineString><gml:coordinates>0,0 1,1</gml:coordinates></gml:LineString></gml:lineStringMember></gml:MultiLineString>',
          GML,
        ),
      ).to.deep.equal(expected);
    });

    it('gml:MultiSurface and gml:MultiPolygon, members inheriting srsName', () => {
      const ring =
        '<gml:exterior><gml:LinearRing><gml:posList>0 0 0 1 1 1 0 0</gml:posList></gml:LinearRing></gml:exterior>';
      const expected = geometry({
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
        ],
      });
      expect(
        gml(`<gml:MultiSurface srsName="urn:ogc:def:crs:EPSG::4326">
          <gml:surfaceMember><gml:Polygon>${ring}</gml:Polygon></gml:surfaceMember>
          <gml:surfaceMembers><gml:Polygon>${ring}</gml:Polygon></gml:surfaceMembers>
        </gml:MultiSurface>`),
      ).to.deep.equal(expected);
      expect(
        gml(
          `<gml:MultiPolygon srsName="urn:ogc:def:crs:EPSG::4326">
            <gml:polygonMember><gml:Polygon>${ring}</gml:Polygon></gml:polygonMember>
            <gml:polygonMember><gml:Polygon srsName="urn:ogc:def:crs:EPSG::4326">${ring}</gml:Polygon></gml:polygonMember>
          </gml:MultiPolygon>`,
          GML,
        ),
      ).to.deep.equal(expected);
    });

    it('refuses empty multi-geometries and unsupported members', () => {
      expectError(() => gml('<gml:MultiSurface/>'), FilterError, 'no members');
      expectError(
        () =>
          gml(
            '<gml:MultiSurface><gml:surfaceMember><gml:Surface/></gml:surfaceMember></gml:MultiSurface>',
          ),
        FilterError,
        'gml:Surface',
      );
    });
  });

  describe('envelopes', () => {
    it('lowerCorner / upperCorner in each axis order', () => {
      expect(
        gml(
          '<gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-10 -20</gml:lowerCorner><gml:upperCorner>10 20</gml:upperCorner></gml:Envelope>',
        ),
      ).to.deep.equal({ kind: 'bbox', bbox: [-20, -10, 20, 10] });
      expect(
        gml(
          '<gml:Envelope srsName="urn:ogc:def:crs:OGC:1.3:CRS84"><gml:lowerCorner>-20 -10</gml:lowerCorner><gml:upperCorner>20 10</gml:upperCorner></gml:Envelope>',
        ),
      ).to.deep.equal({ kind: 'bbox', bbox: [-20, -10, 20, 10] });
    });

    it('a GML 3.1.1 envelope with two gml:pos', () => {
      expect(
        gml('<gml:Envelope><gml:pos>-20 -10</gml:pos><gml:pos>20 10</gml:pos></gml:Envelope>', GML),
      ).to.deep.equal({ kind: 'bbox', bbox: [-20, -10, 20, 10] });
    });

    it('lower x > upper x after axis normalisation crosses the antimeridian', () => {
      expect(
        gml(
          '<gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-50 170</gml:lowerCorner><gml:upperCorner>-30 -170</gml:upperCorner></gml:Envelope>',
        ),
      ).to.deep.equal({ kind: 'bbox', bbox: [170, -50, -170, -30] });
      expect(
        gml(
          '<gml:Envelope srsName="EPSG:4326"><gml:lowerCorner>170 -50</gml:lowerCorner><gml:upperCorner>-170 -30</gml:upperCorner></gml:Envelope>',
        ),
      ).to.deep.equal({ kind: 'bbox', bbox: [170, -50, -170, -30] });
    });

    it('refuses a lower latitude above the upper one, and a missing corner', () => {
      expectError(
        () =>
          gml(
            '<gml:Envelope><gml:lowerCorner>0 20</gml:lowerCorner><gml:upperCorner>10 10</gml:upperCorner></gml:Envelope>',
          ),
        FilterError,
        'above',
      );
      expectError(
        () => gml('<gml:Envelope><gml:lowerCorner>0 20</gml:lowerCorner></gml:Envelope>'),
        FilterError,
        'lowerCorner and upperCorner',
      );
      expectError(
        () => gml('<gml:Envelope><gml:pos>0 20</gml:pos></gml:Envelope>'),
        FilterError,
        'two corners',
      );
    });

    it('refuses coordinates outside WGS 84 (e.g. lon/lat sent as URN lat/lon)', () => {
      expectError(
        () =>
          gml(
            '<gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>100 10</gml:lowerCorner><gml:upperCorner>120 20</gml:upperCorner></gml:Envelope>',
          ),
        FilterError,
        'outside the WGS 84 range',
        'lat lon',
      );
      expectError(
        () => gml('<gml:Point><gml:pos>181 0</gml:pos></gml:Point>'),
        FilterError,
        'outside the WGS 84 range',
      );
    });

    it('refuses a projected CRS inside a filter', () => {
      expectError(
        () =>
          parseFesFilter(`<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="${GML}">
            <ogc:BBOX><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
              <gml:Envelope srsName="EPSG:32631"><gml:lowerCorner>500000 5000000</gml:lowerCorner><gml:upperCorner>600000 5100000</gml:upperCorner></gml:Envelope>
            </ogc:BBOX></ogc:Filter>`),
        FilterError,
        'Unsupported CRS "EPSG:32631"',
      );
    });

    it('refuses geometries above the vertex limit', () => {
      const root = parseXml(
        `<gml:LineString xmlns:gml="${GML32}"><gml:posList>0 0 1 1 2 2 3 3</gml:posList></gml:LineString>`,
      ).root;
      expectError(() => parseGmlGeometry(root, { maxVertices: 3 }), FilterError, 'more than 3');
    });
  });
});
