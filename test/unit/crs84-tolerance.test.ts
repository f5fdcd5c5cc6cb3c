/**
 * Coordinates a hair past a CRS84 bound (floating-point artefacts such as Natural Earth's
 * longitude 180.00000000000006) are read as the bound, at ingest and in every query geometry;
 * values truly out of range are refused, and a refused record says where and what.
 */
import { expect } from 'chai';
import type { Geometry, MultiPolygon, Point, Polygon } from 'geojson';
import {
  CRS84_TOLERANCE,
  findGeometryFault,
  findPositionFault,
  isCrs84Coordinate,
  snapCrs84,
  snapGeometry,
} from '../../shared/query/crs84.js';
import { parseBbox } from '../../shared/query/params.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Json } from '../../shared/query/cql2/index.js';
import { parseWkt } from '../../shared/query/opensearch/index.js';
import { parseGmlGeometry } from '../../shared/query/fes/index.js';
import { parseXml } from '../../shared/xml/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { checkGeometry } from '../../services/api/protocols/stac/parse.js';
import { defined } from '../support/defined.js';

/** Natural Earth 1:110m's Russia reaches this longitude. */
const PAST_EAST = 180.00000000000006;
const JUST_INSIDE_TOLERANCE = 180 + CRS84_TOLERANCE / 2;
const JUST_OUTSIDE_TOLERANCE = 180 + CRS84_TOLERANCE * 2;

const ring = (west: number, south: number, east: number, north: number): number[][] => [
  [west, south],
  [east, south],
  [east, north],
  [west, north],
  [west, south],
];

function feature(id: string, geometry: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'Feature', id, geometry, properties: { title: id }, ...extra });
}

describe('CRS84 tolerance', () => {
  describe('snapping', () => {
    it('reads a coordinate within 1e-9 degrees past a bound as the bound, on all four sides', () => {
      expect(snapCrs84(PAST_EAST, 0)).to.deep.equal([180, 0]);
      expect(snapCrs84(-PAST_EAST, 0)).to.deep.equal([-180, 0]);
      expect(snapCrs84(10, 90 + 5e-10)).to.deep.equal([10, 90]);
      expect(snapCrs84(10, -90 - 5e-10)).to.deep.equal([10, -90]);
      expect(snapCrs84(JUST_INSIDE_TOLERANCE, 0)).to.deep.equal([180, 0]);
      expect(snapCrs84(179.5, -45)).to.deep.equal([179.5, -45]);
    });

    it('refuses anything further out, and what is not a number', () => {
      expect(snapCrs84(JUST_OUTSIDE_TOLERANCE, 0)).to.equal(undefined);
      expect(snapCrs84(0, 90.000001)).to.equal(undefined);
      expect(snapCrs84(Number.NaN, 0)).to.equal(undefined);
      expect(isCrs84Coordinate(PAST_EAST, 0)).to.equal(true);
      expect(isCrs84Coordinate(180.5, 0)).to.equal(false);
      expect(findPositionFault([PAST_EAST, 10])).to.equal(undefined);
      expect(findPositionFault([JUST_OUTSIDE_TOLERANCE, 10])).to.equal('range');
    });

    it('moves only the positions past a bound, keeping heights and untouched branches', () => {
      const untouched = [
        [0, 0],
        [1, 1],
      ];
      const polygon: MultiPolygon = {
        type: 'MultiPolygon',
        coordinates: [[ring(170, 60, PAST_EAST, 70)], [untouched.concat([[0, 0, 5]])]],
      };
      const snapped = snapGeometry(polygon);
      expect(snapped.coordinates[0]?.[0]).to.deep.equal(ring(170, 60, 180, 70));
      expect(snapped.coordinates[1]).to.equal(polygon.coordinates[1]);
      expect(polygon.coordinates[0]?.[0]?.[1]?.[0], 'the input is not changed').to.equal(PAST_EAST);
      const inside: Point = { type: 'Point', coordinates: [1, 2, 3] };
      expect(snapGeometry(inside)).to.equal(inside);
      expect(snapGeometry({ type: 'Point', coordinates: [PAST_EAST, 2, 3] })).to.deep.equal({
        type: 'Point',
        coordinates: [180, 2, 3],
      });
    });
  });

  describe('geometry faults name the position and the value', () => {
    it('a longitude, a latitude, a bad shape, an unknown type', () => {
      const polygon = { type: 'Polygon', coordinates: [ring(170, 60, 180.5, 70)] };
      expect(findGeometryFault(polygon)).to.equal(
        'coordinates[0][1] has longitude 180.5, outside −180..180',
      );
      expect(findGeometryFault({ type: 'Point', coordinates: [0, -91] }, 'geometry')).to.equal(
        'geometry.coordinates has latitude -91, outside −90..90',
      );
      expect(
        findGeometryFault({ type: 'LineString', coordinates: [[0, 0], [1]] }, 'geometry'),
      ).to.equal('geometry.coordinates[1] is not a position of at least two numbers');
      expect(findGeometryFault({ type: 'Polygon', coordinates: [] })).to.match(
        /^coordinates is not a non-empty array/,
      );
      expect(findGeometryFault({ type: 'Circle', coordinates: [0, 0] })).to.equal(
        'type "Circle" is not a GeoJSON geometry type',
      );
      expect(
        findGeometryFault({
          type: 'GeometryCollection',
          geometries: [
            { type: 'Point', coordinates: [0, 0] },
            { type: 'Point', coordinates: [200, 0] },
          ],
        }),
      ).to.equal('geometries[1].coordinates has longitude 200, outside −180..180');
      expect(findGeometryFault(polygon.coordinates[0])).to.equal(
        'the geometry is not a GeoJSON geometry object',
      );
    });
  });

  describe('at ingest', () => {
    it('loads a GeoJSON feature a hair past the antimeridian, snapped, its source untouched', () => {
      const content = feature(
        'russia',
        { type: 'MultiPolygon', coordinates: [[ring(170, 60, PAST_EAST, 70)]] },
        { bbox: [170, 60, PAST_EAST, 70] },
      );
      const parsed = parseDocuments(content, { name: 'ne.geojson' });
      expect(parsed.failures).to.deep.equal([]);
      const record = defined(parsed.records[0], 'the record');
      expect((record.geometry as MultiPolygon).coordinates[0]?.[0]).to.deep.equal(
        ring(170, 60, 180, 70),
      );
      expect(record.bbox).to.deep.equal([170, 60, 180, 70]);
      expect(record.source.content).to.equal(content);
    });

    it('refuses a position truly out of range, naming the record, the position and the value', () => {
      const geometry = {
        type: 'MultiPolygon',
        coordinates: [[ring(0, 0, 1, 1)], [ring(170, 60, 181, 70)]],
      };
      const parsed = parseDocuments(
        JSON.stringify({
          type: 'FeatureCollection',
          features: [JSON.parse(feature('far', geometry))],
        }),
        { name: 'layer.geojson' },
      );
      expect(parsed.records).to.deep.equal([]);
      expect(parsed.failures).to.deep.equal([
        {
          name: 'layer.geojson (id far)',
          reason:
            'Record "far" has an invalid GeoJSON geometry: geometry.coordinates[1][0][1] has longitude 181, outside −180..180',
        },
      ]);
    });

    it('the same for a STAC Item', () => {
      const item = (coordinates: number[]) =>
        JSON.stringify({
          type: 'Feature',
          stac_version: '1.0.0',
          id: 'scene',
          geometry: { type: 'Point', coordinates },
          properties: { datetime: '2020-01-01T00:00:00Z' },
          links: [],
          assets: {},
        });
      const snapped = parseDocuments(item([-PAST_EAST, 90 + 1e-12]));
      expect(snapped.failures).to.deep.equal([]);
      expect(snapped.records[0]?.geometry).to.deep.equal({
        type: 'Point',
        coordinates: [-180, 90],
      });
      expect(snapped.records[0]?.bbox).to.deep.equal([-180, 90, -180, 90]);
      expect(parseDocuments(item([10, 95])).failures[0]?.reason).to.equal(
        'STAC Item "scene" has an invalid geometry: geometry.coordinates has latitude 95, outside −90..90',
      );
    });

    it('snaps an ISO 19139 bounding box and keeps one a hair past a bound', () => {
      const iso = (east: string) =>
        '<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco">' +
        '<gmd:fileIdentifier><gco:CharacterString>iso-1</gco:CharacterString></gmd:fileIdentifier>' +
        '<gmd:identificationInfo><gmd:MD_DataIdentification><gmd:extent><gmd:EX_Extent><gmd:geographicElement>' +
        '<gmd:EX_GeographicBoundingBox>' +
        '<gmd:westBoundLongitude><gco:Decimal>170</gco:Decimal></gmd:westBoundLongitude>' +
        `<gmd:eastBoundLongitude><gco:Decimal>${east}</gco:Decimal></gmd:eastBoundLongitude>` +
        '<gmd:southBoundLatitude><gco:Decimal>60</gco:Decimal></gmd:southBoundLatitude>' +
        '<gmd:northBoundLatitude><gco:Decimal>70</gco:Decimal></gmd:northBoundLatitude>' +
        '</gmd:EX_GeographicBoundingBox></gmd:geographicElement></gmd:EX_Extent></gmd:extent>' +
        '</gmd:MD_DataIdentification></gmd:identificationInfo></gmd:MD_Metadata>';
      expect(parseDocuments(iso(String(PAST_EAST))).records[0]?.bbox).to.deep.equal([
        170, 60, 180, 70,
      ]);
      expect(parseDocuments(iso('181')).records[0]?.bbox).to.equal(undefined);
    });
  });

  describe('in queries, with the same tolerance', () => {
    it('the bbox parameter', () => {
      expect(parseBbox(`170,60,${PAST_EAST},${90 + 1e-10}`)).to.deep.equal([170, 60, 180, 90]);
      expect(() => parseBbox(`170,60,${JUST_OUTSIDE_TOLERANCE},70`)).to.throw(/outside the CRS84/);
    });

    it('CQL2 geometry and BBOX literals', () => {
      const polygon: Polygon = { type: 'Polygon', coordinates: [ring(170, 60, PAST_EAST, 70)] };
      const checked = checkFilter(
        parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, polygon] }),
      );
      const literal = (
        checked as unknown as { args: { geometry?: Geometry; envelope?: number[] }[] }
      ).args[1];
      expect(literal?.geometry).to.deep.equal({
        type: 'Polygon',
        coordinates: [ring(170, 60, 180, 70)],
      });
      expect(literal?.envelope).to.deep.equal([170, 60, 180, 70]);
      const box = checkFilter(
        parseCql2Json({
          op: 's_intersects',
          args: [{ property: 'geometry' }, { bbox: [170, 60, PAST_EAST, 70] }],
        }),
      );
      expect((box as unknown as { args: { box?: number[] }[] }).args[1]?.box).to.deep.equal([
        170, 60, 180, 70,
      ]);
      expect(() =>
        checkFilter(
          parseCql2Json({
            op: 's_intersects',
            args: [{ property: 'geometry' }, { type: 'Point', coordinates: [180.001, 0] }],
          }),
        ),
      ).to.throw(/outside CRS84/);
    });

    it('STAC intersects, OpenSearch WKT and FES GML', () => {
      expect(
        checkGeometry({ type: 'Polygon', coordinates: [ring(170, 60, PAST_EAST, 70)] }),
      ).to.deep.equal({
        type: 'Polygon',
        coordinates: [ring(170, 60, 180, 70)],
      });
      expect(() => checkGeometry({ type: 'Point', coordinates: [180.001, 0] })).to.throw(
        /outside CRS84/,
      );
      expect(parseWkt(`POINT(${PAST_EAST} 10)`)).to.deep.equal({
        type: 'Point',
        coordinates: [180, 10],
      });
      expect(() => parseWkt('POINT(180.001 10)')).to.throw(/outside the EPSG:4326 range/);
      const root = parseXml(
        `<wrapper xmlns:gml="http://www.opengis.net/gml/3.2"><gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>10 ${PAST_EAST}</gml:pos></gml:Point></wrapper>`,
      ).root;
      expect(parseGmlGeometry(defined(root.children[0], 'the point'))).to.deep.equal({
        kind: 'geometry',
        geometry: { type: 'Point', coordinates: [180, 10] },
      });
    });
  });
});
