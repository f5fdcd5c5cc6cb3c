/**
 * GML 3.1/3.2 geometries and time primitives as found in metadata (EX_BoundingPolygon,
 * EX_TemporalExtent) converted to GeoJSON and TimeExtent.
 *
 * Axis order: a geographic EPSG CRS named by URN or HTTP URI (urn:ogc:def:crs:EPSG::4326,
 * http://www.opengis.net/def/crs/EPSG/0/4326, urn:x-ogc:def:crs:EPSG:6.11:4326 …) is
 * latitude/longitude, as the EPSG registry defines it. CRS84, the legacy short form
 * "EPSG:4326" and a missing srsName are read as longitude/latitude. Any other CRS (projected)
 * is not converted.
 */
import type { Geometry, Polygon, Position } from 'geojson';
import type { TimeExtent } from '../../core-record.js';
import {
  attr,
  child,
  children,
  isElement,
  namespace,
  text,
  type XmlElement,
} from '../../../xml/index.js';
import { snapCrs84 } from '../../../query/crs84.js';
import { NS } from '../../../xml/namespaces.js';
import { buildTimeExtent } from '../json/json-values.js';

const gml = namespace(NS.gml, NS.gml32);

/** Geographic EPSG codes whose official axis order is latitude first. */
const LAT_LON_EPSG = new Set(['4326', '4258', '4269', '4283', '4167', '4619', '4617', '4490']);

type AxisOrder = 'lonlat' | 'latlon' | 'unsupported';

/** The axis order a CRS name implies (see the module comment). */
export function axisOrderOfCrs(crs: string | undefined): AxisOrder {
  if (crs === undefined || crs.trim() === '') return 'lonlat';
  const value = crs.trim();
  if (/CRS:?84$/i.test(value)) return 'lonlat';
  const short = /^EPSG:(\d+)$/i.exec(value)?.[1];
  if (short !== undefined) return LAT_LON_EPSG.has(short) ? 'lonlat' : 'unsupported';
  const urn = /^urn:(?:x-)?ogc:def:crs:EPSG:[\d.]*:(\d+)$/i.exec(value);
  const uri = /^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[\d.]+\/(\d+)$/i.exec(value);
  const code = urn?.[1] ?? uri?.[1];
  if (code !== undefined) return LAT_LON_EPSG.has(code) ? 'latlon' : 'unsupported';
  const legacy = /epsg\.xml#(\d+)$/i.exec(value)?.[1];
  if (legacy !== undefined) return LAT_LON_EPSG.has(legacy) ? 'lonlat' : 'unsupported';
  return 'unsupported';
}

function srsNameOf(element: XmlElement, inherited?: string): string | undefined {
  return attr(element, '', 'srsName') ?? inherited;
}

function readNumbers(value: string | undefined): number[] {
  if (value === undefined) return [];
  return value
    .trim()
    .split(/[\s,]+/)
    .filter((part) => part !== '')
    .map(Number);
}

function toPositions(
  numbers: number[],
  dimension: number,
  order: AxisOrder,
): [number, number][] | undefined {
  if (order === 'unsupported' || numbers.length < 2 || numbers.some((n) => !Number.isFinite(n))) {
    return undefined;
  }
  if (numbers.length % dimension !== 0) return undefined;
  const positions: [number, number][] = [];
  for (let i = 0; i < numbers.length; i += dimension) {
    const a = numbers[i];
    const b = numbers[i + 1];
    // Only a fractional srsDimension steps off the numbers: not a usable footprint.
    if (a === undefined || b === undefined) return undefined;
    // Outside CRS84's ranges (as the read side refuses them): not a usable footprint. Within
    // the tolerance beyond a bound, the bound.
    const position = order === 'latlon' ? snapCrs84(b, a) : snapCrs84(a, b);
    if (position === undefined) return undefined;
    positions.push(position);
  }
  return positions;
}

/** Positions of a ring or line: posList, a series of pos, coordinates (GML 2) or coord. */
function readPositions(element: XmlElement, srsName: string | undefined): Position[] | undefined {
  const srs = srsNameOf(element, srsName);
  const order = axisOrderOfCrs(srs);
  const posList = child(element, gml('posList'));
  if (posList !== undefined) {
    const dimension = Number(
      attr(posList, '', 'srsDimension') ?? attr(element, '', 'srsDimension') ?? 2,
    );
    return toPositions(readNumbers(posList.text), dimension >= 2 ? dimension : 2, order);
  }
  const pos = children(element, gml('pos'));
  if (pos.length > 0)
    return toPositions(
      pos.flatMap((p) => readNumbers(p.text).slice(0, 2)),
      2,
      order,
    );
  const coordinates = child(element, gml('coordinates'));
  if (coordinates !== undefined) {
    const tuples = (text(coordinates) ?? '')
      .split(/\s+/)
      .map((tuple) => readNumbers(tuple).slice(0, 2));
    return toPositions(tuples.flat(), 2, order);
  }
  const coords = children(element, gml('coord'));
  if (coords.length > 0) {
    const numbers = coords.flatMap((c) => [
      Number(text(child(c, gml('X')))),
      Number(text(child(c, gml('Y')))),
    ]);
    return toPositions(numbers, 2, order);
  }
  return undefined;
}

function closeRing(ring: Position[]): Position[] {
  const first = ring[0];
  const last = ring.at(-1);
  if (first === undefined || last === undefined) return ring; // empty: nothing to close
  return first[0] === last[0] && first[1] === last[1] ? ring : [...ring, first];
}

function readRing(
  boundary: XmlElement | undefined,
  srsName: string | undefined,
): Position[] | undefined {
  const ring = boundary?.children.find(
    (item) => isElement(item, gml('LinearRing')) || isElement(item, gml('Ring')),
  );
  if (ring === undefined) return undefined;
  const positions = isElement(ring, gml('Ring'))
    ? readRingCurves(ring, srsNameOf(ring, srsName))
    : readPositions(ring, srsNameOf(ring, srsName));
  return positions !== undefined && positions.length >= 3 ? closeRing(positions) : undefined;
}

function readRingCurves(ring: XmlElement, srsName: string | undefined): Position[] | undefined {
  const positions: Position[] = [];
  for (const member of children(ring, gml('curveMember'))) {
    for (const curve of member.children) {
      const segments = child(curve, gml('segments'));
      const parts = segments ? segments.children : [curve];
      for (const part of parts) {
        const points = readPositions(part, srsNameOf(curve, srsName));
        if (points === undefined) return undefined;
        positions.push(...points);
      }
    }
  }
  return positions.length > 0 ? positions : undefined;
}

function readPolygon(element: XmlElement, srsName: string | undefined): Polygon | undefined {
  const srs = srsNameOf(element, srsName);
  const exterior = readRing(
    child(element, gml('exterior')) ?? child(element, gml('outerBoundaryIs')),
    srs,
  );
  if (exterior === undefined) return undefined;
  const holes = [
    ...children(element, gml('interior')),
    ...children(element, gml('innerBoundaryIs')),
  ]
    .map((boundary) => readRing(boundary, srs))
    .filter((ring): ring is Position[] => ring !== undefined);
  return { type: 'Polygon', coordinates: [exterior, ...holes] };
}

function readPolygonMembers(element: XmlElement, srsName: string | undefined): Polygon[] {
  const srs = srsNameOf(element, srsName);
  const members = [
    ...children(element, gml('surfaceMember')),
    ...children(element, gml('polygonMember')),
    ...children(element, gml('surfaceMembers')),
  ];
  return members.flatMap((member) => member.children.flatMap((item) => readSurface(item, srs)));
}

function readSurface(element: XmlElement, srsName: string | undefined): Polygon[] {
  if (isElement(element, gml('Polygon'))) {
    const polygon = readPolygon(element, srsName);
    return polygon ? [polygon] : [];
  }
  if (
    isElement(element, gml('MultiSurface')) ||
    isElement(element, gml('MultiPolygon')) ||
    isElement(element, gml('CompositeSurface'))
  ) {
    return readPolygonMembers(element, srsName);
  }
  if (isElement(element, gml('Envelope'))) {
    const srs = srsNameOf(element, srsName);
    const order = axisOrderOfCrs(srs);
    const lower = toPositions(readNumbers(child(element, gml('lowerCorner'))?.text), 2, order)?.[0];
    const upper = toPositions(readNumbers(child(element, gml('upperCorner'))?.text), 2, order)?.[0];
    if (lower === undefined || upper === undefined) return [];
    const [w, s] = lower;
    const [e, n] = upper;
    return [
      {
        type: 'Polygon',
        coordinates: [
          [
            [w, s],
            [e, s],
            [e, n],
            [w, n],
            [w, s],
          ],
        ],
      },
    ];
  }
  return [];
}

/**
 * Converts a GML geometry element (Polygon, MultiSurface, MultiPolygon, Envelope, Point,
 * LineString) to GeoJSON, or undefined when it cannot be read in CRS84.
 */
export function parseGmlGeometry(element: XmlElement): Geometry | undefined {
  if (isElement(element, gml('Point'))) {
    const position = readPositions(element, undefined)?.[0];
    return position ? { type: 'Point', coordinates: position } : undefined;
  }
  if (isElement(element, gml('LineString'))) {
    const positions = readPositions(element, undefined);
    return positions && positions.length >= 2
      ? { type: 'LineString', coordinates: positions }
      : undefined;
  }
  const polygons = readSurface(element, undefined);
  if (polygons.length === 0) return undefined;
  if (polygons.length === 1) return polygons[0];
  return { type: 'MultiPolygon', coordinates: polygons.map((polygon) => polygon.coordinates) };
}

/** Combines polygonal geometries into one Polygon or MultiPolygon (others are dropped). */
export function combinePolygons(geometries: Geometry[]): Geometry | undefined {
  const polygons: Position[][][] = [];
  for (const geometry of geometries) {
    if (geometry.type === 'Polygon') polygons.push(geometry.coordinates);
    else if (geometry.type === 'MultiPolygon') polygons.push(...geometry.coordinates);
  }
  const [first, ...others] = polygons;
  if (first === undefined) return geometries[0];
  if (others.length === 0) return { type: 'Polygon', coordinates: first };
  return { type: 'MultiPolygon', coordinates: polygons };
}

/** Reads a time position: its value, or null when indeterminate ("now", "unknown") or empty. */
function readTimePosition(element: XmlElement | undefined): string | null | undefined {
  if (element === undefined) return undefined;
  const indeterminate = attr(element, '', 'indeterminatePosition');
  const value = text(element);
  if (indeterminate === 'now' || indeterminate === 'unknown') return null;
  return value ?? null;
}

function readInstantPosition(holder: XmlElement | undefined): string | null | undefined {
  const instant = child(holder, gml('TimeInstant'));
  return readTimePosition(child(instant, gml('timePosition')));
}

/**
 * Converts a GML TimePeriod or TimeInstant to a TimeExtent; an indeterminate ("now",
 * "unknown") or missing end is open. Undefined when nothing usable is there.
 */
export function parseGmlTime(element: XmlElement): TimeExtent | undefined {
  if (isElement(element, gml('TimeInstant'))) {
    const position = readTimePosition(child(element, gml('timePosition')));
    return position ? buildTimeExtent(position, position) : undefined;
  }
  if (!isElement(element, gml('TimePeriod'))) return undefined;
  const begin =
    readTimePosition(child(element, gml('beginPosition'))) ??
    readInstantPosition(child(element, gml('begin')));
  const end =
    readTimePosition(child(element, gml('endPosition'))) ??
    readInstantPosition(child(element, gml('end')));
  if (!begin && !end) return undefined;
  return buildTimeExtent(begin, end);
}
