/**
 * GML 3.1.1 and 3.2 operands of filter predicates → filter literals: geometries become GeoJSON in
 * CRS84 longitude/latitude order (see crs-axis-order.ts), envelopes become BBOX literals (west >
 * east when they cross the antimeridian), and gml:TimeInstant / gml:TimePeriod become
 * TIMESTAMP/DATE and INTERVAL literals. Heights (a third ordinate) are dropped: Cairn compares
 * footprints in 2D. Every problem is a FilterError naming the element.
 */
import type {
  LineString,
  MultiLineString,
  MultiPoint,
  MultiPolygon,
  Point,
  Polygon,
  Position,
} from 'geojson';
import { FilterError } from '../../errors/index.js';
import type { XmlElement } from '../../xml/index.js';
import { isClosedRing, snapCrs84 } from '../crs84.js';
import type { BboxLiteral, Expression, GeometryLiteral } from '../filter-ast.js';
import { resolveAxisOrder, type AxisOrder } from './crs-axis-order.js';
import { describeElement, GML_NAMESPACES } from './fes-names.js';
import { instantOf, toTimeLiteral } from './time-literal.js';

/** The GML geometry elements Cairn reads (local names). */
export const GML_GEOMETRY_ELEMENTS: ReadonlySet<string> = new Set([
  'Point',
  'LineString',
  'Polygon',
  'Envelope',
  'Box',
  'MultiPoint',
  'MultiLineString',
  'MultiCurve',
  'MultiPolygon',
  'MultiSurface',
]);

/** The GML temporal elements Cairn reads (local names). */
export const GML_TIME_ELEMENTS: ReadonlySet<string> = new Set(['TimeInstant', 'TimePeriod']);

/** Limits on geometry literals; callers take them from configuration. */
export interface GmlLimits {
  /** Maximum number of positions in one geometry. */
  maxVertices: number;
}

/** A generous default: a detailed country outline fits. */
export const DEFAULT_GML_LIMITS: Readonly<GmlLimits> = Object.freeze({ maxVertices: 50_000 });

/** True when the element is in a GML namespace (or in none, for unqualified filters). */
export function isGmlElement(element: XmlElement): boolean {
  return element.ns === '' || GML_NAMESPACES.includes(element.ns);
}

interface Context {
  srsName: string | undefined;
  srsDimension: number | undefined;
  limits: GmlLimits;
  vertices: number;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function attribute(element: XmlElement, local: string): string | undefined {
  for (const item of element.attributes) {
    if (item.local === local && (item.ns === '' || GML_NAMESPACES.includes(item.ns))) {
      return item.value;
    }
  }
  return undefined;
}

function gmlChild(element: XmlElement, local: string): XmlElement | undefined {
  return element.children.find((item) => item.local === local && isGmlElement(item));
}

/** Inherits srsName / srsDimension from an element into a nested context. */
function enter(element: XmlElement, context: Context): Context {
  const srsName = attribute(element, 'srsName');
  const dimension = attribute(element, 'srsDimension');
  if (srsName === undefined && dimension === undefined) return context;
  return {
    ...context,
    srsName: srsName ?? context.srsName,
    srsDimension: dimension === undefined ? context.srsDimension : parseDimension(dimension),
  };
}

function parseDimension(text: string): number {
  const value = text.trim();
  if (value !== '2' && value !== '3') {
    throw new FilterError(`GML srsDimension must be 2 or 3, got "${text}"`);
  }
  return Number(value);
}

function parseNumber(text: string, where: XmlElement): number {
  const value = Number(text);
  if (!NUMBER.test(text) || !Number.isFinite(value)) {
    throw new FilterError(`GML ${describeElement(where)}: "${text}" is not a number`);
  }
  return value;
}

function numbersOf(element: XmlElement): number[] {
  const content = element.text.trim();
  if (content === '') throw new FilterError(`GML ${describeElement(element)} has no coordinates`);
  return content.split(/\s+/).map((part) => parseNumber(part, element));
}

/** A longitude/latitude (or, before normalising, x/y) pair. */
type Pair = [number, number];

/**
 * The two ordinates at `index` and `index + 1` of a coordinate list (a height after them is
 * dropped); a FilterError when either is missing.
 */
function pairAt(ordinates: readonly number[], where: XmlElement, index = 0): Pair {
  const x = ordinates[index];
  const y = ordinates[index + 1];
  if (x === undefined || y === undefined) {
    throw new FilterError(`GML ${describeElement(where)}: a position needs two ordinates`);
  }
  return [x, y];
}

/** Groups a flat list of ordinates into 2D positions (dropping heights). */
function group(numbers: number[], dimension: number, where: XmlElement): Position[] {
  if (numbers.length % dimension !== 0) {
    throw new FilterError(
      `GML ${describeElement(where)}: ${numbers.length} ordinates do not make ${dimension}D positions`,
    );
  }
  const positions: Position[] = [];
  for (let i = 0; i < numbers.length; i += dimension) positions.push(pairAt(numbers, where, i));
  return positions;
}

/** A `gml:pos`: 2 or 3 numbers (its own srsDimension, or the inherited one, when given). */
function readPos(element: XmlElement, context: Context): Position {
  const numbers = numbersOf(element);
  const declared = attribute(element, 'srsDimension');
  const dimension =
    declared !== undefined ? parseDimension(declared) : (context.srsDimension ?? numbers.length);
  if (numbers.length !== dimension || (dimension !== 2 && dimension !== 3)) {
    throw new FilterError(
      `GML ${describeElement(element)} must hold one 2D or 3D position, got ${numbers.length} numbers`,
    );
  }
  return pairAt(numbers, element);
}

/** A GML 2 `gml:coordinates`, honouring its decimal / cs / ts attributes. */
function readCoordinates(element: XmlElement): Position[] {
  const decimal = attribute(element, 'decimal') ?? '.';
  const cs = attribute(element, 'cs') ?? ',';
  const ts = attribute(element, 'ts') ?? ' ';
  if (decimal === '' || cs === '' || ts === '' || new Set([decimal, cs, ts]).size !== 3) {
    throw new FilterError(
      `GML ${describeElement(element)}: decimal, cs and ts must be distinct, non-empty`,
    );
  }
  const content = element.text.trim();
  if (content === '') throw new FilterError(`GML ${describeElement(element)} has no coordinates`);
  const tuples = (ts.trim() === '' ? content.split(/\s+/) : content.split(ts))
    .map((tuple) => tuple.trim())
    .filter((tuple) => tuple !== '');
  return tuples.map((tuple) => {
    const ordinates = tuple.split(cs).map((part) => {
      const normalised = decimal === '.' ? part.trim() : part.trim().split(decimal).join('.');
      return parseNumber(normalised, element);
    });
    if (ordinates.length !== 2 && ordinates.length !== 3) {
      throw new FilterError(
        `GML ${describeElement(element)}: "${tuple}" is not a 2D or 3D coordinate tuple`,
      );
    }
    return pairAt(ordinates, element);
  });
}

/** A GML 2 `gml:coord` with X and Y children. */
function readCoord(element: XmlElement): Position {
  const x = gmlChild(element, 'X');
  const y = gmlChild(element, 'Y');
  if (x === undefined || y === undefined) {
    throw new FilterError(`GML ${describeElement(element)} needs X and Y`);
  }
  return [parseNumber(x.text.trim(), x), parseNumber(y.text.trim(), y)];
}

/** The raw (not yet axis-normalised) positions of a point, line or ring element. */
function readPositions(element: XmlElement, context: Context): Position[] {
  const posList = gmlChild(element, 'posList');
  if (posList !== undefined) {
    const declared = attribute(posList, 'srsDimension');
    const dimension =
      declared !== undefined ? parseDimension(declared) : (context.srsDimension ?? 2);
    return group(numbersOf(posList), dimension, posList);
  }
  const coordinates = gmlChild(element, 'coordinates');
  if (coordinates !== undefined) return readCoordinates(coordinates);
  const positions: Position[] = [];
  for (const item of element.children) {
    if (!isGmlElement(item)) continue;
    if (item.local === 'pos') positions.push(readPos(item, context));
    else if (item.local === 'coord') positions.push(readCoord(item));
    else if (item.local === 'pointProperty' || item.local === 'pointRep') {
      const point = gmlChild(item, 'Point');
      if (point === undefined) {
        throw new FilterError(`GML ${describeElement(item)} must contain a gml:Point`);
      }
      positions.push(...readPositions(point, enter(point, context)));
    }
  }
  if (positions.length === 0) {
    throw new FilterError(
      `GML ${describeElement(element)} has no posList, pos or coordinates element`,
    );
  }
  return positions;
}

/** Puts positions in lon/lat order, checks their range and counts them against the limit. */
function normalise(
  positions: [Position, Position],
  context: Context,
  where: XmlElement,
): [Pair, Pair];
function normalise(positions: Position[], context: Context, where: XmlElement): Pair[];
function normalise(positions: Position[], context: Context, where: XmlElement): Pair[] {
  const order: AxisOrder = resolveAxisOrder(context.srsName);
  context.vertices += positions.length;
  if (context.vertices > context.limits.maxVertices) {
    throw new FilterError(
      `GML geometry has more than ${context.limits.maxVertices} positions; simplify it`,
    );
  }
  return positions.map((position): Pair => {
    const [a, b] = pairAt(position, where);
    const [lon, lat] = order === 'lat-lon' ? [b, a] : [a, b];
    const snapped = snapCrs84(lon, lat);
    if (snapped === undefined) {
      const axes = order === 'lat-lon' ? 'lat lon' : 'lon lat';
      throw new FilterError(
        `GML ${describeElement(where)}: position (${a} ${b}) is outside the WGS 84 range ` +
          `(read as ${axes} for srsName ${context.srsName ?? '(none)'})`,
      );
    }
    return snapped;
  });
}

function readPoint(element: XmlElement, context: Context): Point {
  const [position, ...more] = normalise(readPositions(element, context), context, element);
  if (position === undefined || more.length > 0) {
    throw new FilterError(`GML ${describeElement(element)} must have exactly one position`);
  }
  return { type: 'Point', coordinates: position };
}

function readLineString(element: XmlElement, context: Context): LineString {
  const positions = normalise(readPositions(element, context), context, element);
  if (positions.length < 2) {
    throw new FilterError(`GML ${describeElement(element)} needs at least two positions`);
  }
  return { type: 'LineString', coordinates: positions };
}

function readRing(boundary: XmlElement, context: Context): Position[] {
  const ring = gmlChild(boundary, 'LinearRing');
  if (ring === undefined) {
    throw new FilterError(`GML ${describeElement(boundary)} must contain a gml:LinearRing`);
  }
  const inner = enter(ring, context);
  const positions = normalise(readPositions(ring, inner), inner, ring);
  if (!isClosedRing(positions)) {
    throw new FilterError(
      `GML ${describeElement(ring)} must be closed (first position = last) with at least 4 positions`,
    );
  }
  return positions;
}

function readPolygon(element: XmlElement, context: Context): Polygon {
  const exterior = gmlChild(element, 'exterior') ?? gmlChild(element, 'outerBoundaryIs');
  if (exterior === undefined) {
    throw new FilterError(`GML ${describeElement(element)} has no gml:exterior`);
  }
  const rings = [readRing(exterior, context)];
  for (const item of element.children) {
    if (isGmlElement(item) && (item.local === 'interior' || item.local === 'innerBoundaryIs')) {
      rings.push(readRing(item, context));
    }
  }
  return { type: 'Polygon', coordinates: rings };
}

/** The member geometries of a GML multi-geometry (xMember elements and the xMembers array). */
function members(element: XmlElement, memberName: string, geometryNames: string[]): XmlElement[] {
  const result: XmlElement[] = [];
  for (const item of element.children) {
    if (!isGmlElement(item)) continue;
    if (item.local === memberName || item.local === `${memberName}s`) {
      for (const geometry of item.children) {
        if (isGmlElement(geometry) && geometryNames.includes(geometry.local)) {
          result.push(geometry);
        } else {
          throw new FilterError(
            `GML ${describeElement(geometry)} is not supported inside ${describeElement(item)}`,
          );
        }
      }
    }
  }
  if (result.length === 0) throw new FilterError(`GML ${describeElement(element)} has no members`);
  return result;
}

/** The coordinates of each member geometry, read with `read` inside its own context. */
function memberCoordinates<C>(
  element: XmlElement,
  memberName: string,
  geometryName: string,
  read: (member: XmlElement, context: Context) => { coordinates: C },
  context: Context,
): C[] {
  return members(element, memberName, [geometryName]).map(
    (member) => read(member, enter(member, context)).coordinates,
  );
}

function readMultiPoint(element: XmlElement, context: Context): MultiPoint {
  return {
    type: 'MultiPoint',
    coordinates: memberCoordinates(element, 'pointMember', 'Point', readPoint, context),
  };
}

function readMultiLineString(element: XmlElement, context: Context): MultiLineString {
  const memberName = element.local === 'MultiCurve' ? 'curveMember' : 'lineStringMember';
  return {
    type: 'MultiLineString',
    coordinates: memberCoordinates(element, memberName, 'LineString', readLineString, context),
  };
}

function readMultiPolygon(element: XmlElement, context: Context): MultiPolygon {
  const memberName = element.local === 'MultiSurface' ? 'surfaceMember' : 'polygonMember';
  return {
    type: 'MultiPolygon',
    coordinates: memberCoordinates(element, memberName, 'Polygon', readPolygon, context),
  };
}

/** An envelope's corners → a BBOX literal; lower x > upper x crosses the antimeridian. */
function readEnvelope(element: XmlElement, context: Context): BboxLiteral {
  let corners: Position[];
  const lower = gmlChild(element, 'lowerCorner');
  const upper = gmlChild(element, 'upperCorner');
  if (lower !== undefined || upper !== undefined) {
    if (lower === undefined || upper === undefined) {
      throw new FilterError(`GML ${describeElement(element)} needs lowerCorner and upperCorner`);
    }
    corners = [readPos(lower, context), readPos(upper, context)];
  } else {
    corners = readPositions(element, context);
  }
  const [lowerCorner, upperCorner, ...more] = corners;
  if (lowerCorner === undefined || upperCorner === undefined || more.length > 0) {
    throw new FilterError(`GML ${describeElement(element)} must have exactly two corners`);
  }
  const [[west, south], [east, north]] = normalise([lowerCorner, upperCorner], context, element);
  if (south > north) {
    throw new FilterError(
      `GML ${describeElement(element)}: the lower corner's latitude (${south}) is above the upper corner's (${north})`,
    );
  }
  return { kind: 'bbox', bbox: [west, south, east, north] };
}

/**
 * Reads a GML geometry element (Point, LineString, Polygon, Envelope, Box, MultiPoint,
 * MultiLineString, MultiCurve, MultiPolygon, MultiSurface) into a geometry or BBOX literal in
 * CRS84 order. `srsName` is the one inherited from an enclosing element, if any.
 */
export function parseGmlGeometry(
  element: XmlElement,
  limits: GmlLimits = DEFAULT_GML_LIMITS,
  srsName?: string,
): GeometryLiteral | BboxLiteral {
  if (!isGmlElement(element) || !GML_GEOMETRY_ELEMENTS.has(element.local)) {
    throw new FilterError(`Unsupported geometry element ${describeElement(element)}`);
  }
  const context = enter(element, { srsName, srsDimension: undefined, limits, vertices: 0 });
  switch (element.local) {
    case 'Envelope':
    case 'Box':
      return readEnvelope(element, context);
    case 'Point':
      return { kind: 'geometry', geometry: readPoint(element, context) };
    case 'LineString':
      return { kind: 'geometry', geometry: readLineString(element, context) };
    case 'Polygon':
      return { kind: 'geometry', geometry: readPolygon(element, context) };
    case 'MultiPoint':
      return { kind: 'geometry', geometry: readMultiPoint(element, context) };
    case 'MultiLineString':
    case 'MultiCurve':
      return { kind: 'geometry', geometry: readMultiLineString(element, context) };
    default:
      return { kind: 'geometry', geometry: readMultiPolygon(element, context) };
  }
}

/** A gml:timePosition / beginPosition / endPosition; `open` allows an unknown (open) end. */
function readTimePosition(element: XmlElement, open: boolean): Expression {
  const indeterminate = attribute(element, 'indeterminatePosition');
  const content = element.text.trim();
  if (open && indeterminate === 'unknown') return { kind: 'literal', value: '..' };
  if (indeterminate !== undefined && indeterminate !== 'unknown') {
    throw new FilterError(
      `GML ${describeElement(element)}: indeterminatePosition "${indeterminate}" is not supported`,
    );
  }
  const literal = toTimeLiteral(content);
  if (literal === undefined) {
    throw new FilterError(
      `GML ${describeElement(element)}: "${content}" is not an ISO 8601 date or date-time`,
    );
  }
  return literal;
}

/** The position of a TimePeriod end: beginPosition/endPosition, or begin/end with a TimeInstant. */
function readPeriodEnd(period: XmlElement, side: 'begin' | 'end'): Expression {
  const position = gmlChild(period, `${side}Position`);
  if (position !== undefined) return readTimePosition(position, true);
  const wrapper = gmlChild(period, side);
  const instant = wrapper === undefined ? undefined : gmlChild(wrapper, 'TimeInstant');
  const timePosition = instant === undefined ? undefined : gmlChild(instant, 'timePosition');
  if (timePosition === undefined) {
    throw new FilterError(
      `GML ${describeElement(period)} needs a ${side}Position (or ${side}/TimeInstant/timePosition)`,
    );
  }
  return readTimePosition(timePosition, true);
}

/**
 * Reads gml:TimeInstant (→ DATE or TIMESTAMP literal) or gml:TimePeriod (→ INTERVAL literal,
 * `indeterminatePosition="unknown"` giving an open '..' end).
 */
export function parseGmlTime(element: XmlElement): Expression {
  if (!isGmlElement(element) || !GML_TIME_ELEMENTS.has(element.local)) {
    throw new FilterError(`Unsupported temporal element ${describeElement(element)}`);
  }
  if (element.local === 'TimeInstant') {
    const position = gmlChild(element, 'timePosition');
    if (position === undefined) {
      throw new FilterError(`GML ${describeElement(element)} needs a gml:timePosition`);
    }
    return readTimePosition(position, false);
  }
  const start = readPeriodEnd(element, 'begin');
  const end = readPeriodEnd(element, 'end');
  if (start.kind === 'literal' && end.kind === 'literal') {
    throw new FilterError(`GML ${describeElement(element)} must have at least one known end`);
  }
  if (
    (start.kind === 'date' || start.kind === 'timestamp') &&
    (end.kind === 'date' || end.kind === 'timestamp') &&
    instantOf(start, 'start') > instantOf(end, 'end')
  ) {
    throw new FilterError(`GML ${describeElement(element)} begins after it ends`);
  }
  return { kind: 'interval', start, end };
}
