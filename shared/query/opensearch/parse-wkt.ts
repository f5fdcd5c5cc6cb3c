/**
 * A small Well-Known Text reader for search geometries (OpenSearch `geo:geometry`): POINT,
 * LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON and GEOMETRYCOLLECTION, in
 * EPSG:4326 longitude/latitude order, to GeoJSON. Z, M and ZM ordinates are accepted and dropped
 * (Cairn compares footprints in 2D); an `SRID=4326;` prefix is accepted. EMPTY geometries, open
 * rings, out-of-range coordinates and oversized geometries are refused with an
 * InvalidParameterError naming the parameter.
 *
 * Written here rather than taken from jsts: it is ~200 lines, has no failure mode other than
 * the project's own typed error, and is fast enough to fuzz with 100 000 inputs.
 */
import type {
  Geometry,
  GeometryCollection,
  LineString,
  MultiLineString,
  MultiPoint,
  MultiPolygon,
  Point,
  Polygon,
  Position,
} from 'geojson';
import { InvalidParameterError } from '../../errors/index.js';
import { isClosedRing, snapCrs84 } from '../crs84.js';

/** Limits on a WKT geometry; callers take them from configuration. */
export interface WktLimits {
  /** Maximum number of positions in the whole geometry. */
  maxVertices: number;
  /** Maximum nesting of GEOMETRYCOLLECTIONs. */
  maxDepth: number;
}

/** Defaults: a detailed country outline fits. */
export const DEFAULT_WKT_LIMITS: Readonly<WktLimits> = Object.freeze({
  maxVertices: 50_000,
  maxDepth: 4,
});

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'number'; value: number; text: string; at: number }
  | { kind: '(' | ')' | ','; at: number }
  | { kind: 'end'; at: number };

const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z]+/y;
const SPACE = /\s+/y;

class WktReader {
  private readonly tokens: Token[] = [];
  private index = 0;
  private vertices = 0;

  constructor(
    private readonly text: string,
    private readonly name: string,
    private readonly limits: WktLimits,
  ) {
    this.tokenize();
  }

  fail(message: string): never {
    throw new InvalidParameterError(this.name, `${this.name}: ${message}`);
  }

  private tokenize(): void {
    const text = this.text;
    let at = 0;
    while (at < text.length) {
      SPACE.lastIndex = at;
      if (SPACE.test(text)) {
        at = SPACE.lastIndex;
        continue;
      }
      const character = text[at];
      if (character === '(' || character === ')' || character === ',') {
        this.tokens.push({ kind: character, at });
        at += 1;
        continue;
      }
      NUMBER.lastIndex = at;
      const number = NUMBER.exec(text);
      if (number !== null) {
        const value = Number(number[0]);
        if (!Number.isFinite(value)) this.fail(`"${number[0]}" is not a finite number`);
        this.tokens.push({ kind: 'number', value, text: number[0], at });
        at = NUMBER.lastIndex;
        continue;
      }
      WORD.lastIndex = at;
      const word = WORD.exec(text);
      if (word !== null) {
        this.tokens.push({ kind: 'word', text: word[0].toUpperCase(), at });
        at = WORD.lastIndex;
        continue;
      }
      this.fail(
        `unexpected character "${String.fromCodePoint(text.codePointAt(at) ?? 0)}" at ${at + 1}`,
      );
    }
    this.tokens.push({ kind: 'end', at: text.length });
  }

  private peek(): Token {
    // The tokens end with an 'end' token, which next() never moves past.
    const token = this.tokens[this.index];
    if (token === undefined) this.fail('unexpected end of the text');
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private describe(token: Token): string {
    if (token.kind === 'end') return 'the end of the text';
    if (token.kind === 'word' || token.kind === 'number')
      return `"${token.text}" at ${token.at + 1}`;
    return `"${token.kind}" at ${token.at + 1}`;
  }

  private expect(kind: '(' | ')' | ','): void {
    const token = this.next();
    if (token.kind !== kind) this.fail(`expected "${kind}" but found ${this.describe(token)}`);
  }

  /** Reads `(` item {`,` item} `)`. */
  private list<T>(item: () => T): T[] {
    this.expect('(');
    const items = [item()];
    while (this.peek().kind === ',') {
      this.next();
      items.push(item());
    }
    this.expect(')');
    return items;
  }

  /** One position: 2 to 4 numbers (x y [z] [m]), checked against the CRS84 range. */
  private position(dimension: number | undefined): Position {
    const numbers: number[] = [];
    while (this.peek().kind === 'number') {
      const token = this.next();
      if (token.kind === 'number') numbers.push(token.value);
    }
    const expected = dimension ?? (numbers.length === 3 ? 3 : 2);
    const [lon, lat] = numbers;
    if (numbers.length !== expected || lon === undefined || lat === undefined) {
      this.fail(
        `a position needs ${expected} numbers, found ${numbers.length} before ${this.describe(this.peek())}`,
      );
    }
    const snapped = snapCrs84(lon, lat);
    if (snapped === undefined) {
      this.fail(`position (${lon} ${lat}) is outside the EPSG:4326 range (lon ±180, lat ±90)`);
    }
    this.vertices += 1;
    if (this.vertices > this.limits.maxVertices) {
      this.fail(`the geometry has more than ${this.limits.maxVertices} positions; simplify it`);
    }
    return snapped;
  }

  private line(dimension: number | undefined): Position[] {
    const positions = this.list(() => this.position(dimension));
    if (positions.length < 2) this.fail('a line needs at least two positions');
    return positions;
  }

  private ring(dimension: number | undefined): Position[] {
    const positions = this.list(() => this.position(dimension));
    if (!isClosedRing(positions)) {
      this.fail('a polygon ring must be closed (first position = last) with at least 4 positions');
    }
    return positions;
  }

  private polygon(dimension: number | undefined): Position[][] {
    return this.list(() => this.ring(dimension));
  }

  /** MULTIPOINT members may be written `(1 2, 3 4)` or `((1 2), (3 4))`. */
  private multiPointMember(dimension: number | undefined): Position {
    if (this.peek().kind !== '(') return this.position(dimension);
    this.next();
    const position = this.position(dimension);
    this.expect(')');
    return position;
  }

  /** A dimension tag after the type: Z → 3 numbers, M → 3, ZM → 4, none → 2 (or 3). */
  private dimension(): number | undefined {
    const token = this.peek();
    if (token.kind !== 'word') return undefined;
    if (token.text === 'Z' || token.text === 'M') {
      this.next();
      return 3;
    }
    if (token.text === 'ZM') {
      this.next();
      return 4;
    }
    return undefined;
  }

  geometry(depth: number): Geometry {
    const token = this.next();
    if (token.kind !== 'word') this.fail(`expected a geometry type, found ${this.describe(token)}`);
    const type = token.text;
    const dimension = this.dimension();
    if (this.peek().kind === 'word') {
      const word = this.next();
      if (word.kind === 'word' && word.text === 'EMPTY')
        this.fail(`${type} EMPTY cannot be searched`);
      this.fail(`unexpected ${this.describe(word)}`);
    }
    switch (type) {
      case 'POINT': {
        this.expect('(');
        const point: Point = { type: 'Point', coordinates: this.position(dimension) };
        this.expect(')');
        return point;
      }
      case 'LINESTRING':
        return { type: 'LineString', coordinates: this.line(dimension) } satisfies LineString;
      case 'POLYGON':
        return { type: 'Polygon', coordinates: this.polygon(dimension) } satisfies Polygon;
      case 'MULTIPOINT':
        return {
          type: 'MultiPoint',
          coordinates: this.list(() => this.multiPointMember(dimension)),
        } satisfies MultiPoint;
      case 'MULTILINESTRING':
        return {
          type: 'MultiLineString',
          coordinates: this.list(() => this.line(dimension)),
        } satisfies MultiLineString;
      case 'MULTIPOLYGON':
        return {
          type: 'MultiPolygon',
          coordinates: this.list(() => this.polygon(dimension)),
        } satisfies MultiPolygon;
      case 'GEOMETRYCOLLECTION': {
        if (depth >= this.limits.maxDepth) {
          this.fail(`GEOMETRYCOLLECTIONs are nested deeper than ${this.limits.maxDepth}`);
        }
        return {
          type: 'GeometryCollection',
          geometries: this.list(() => this.geometry(depth + 1)),
        } satisfies GeometryCollection;
      }
      default:
        return this.fail(`unsupported geometry type "${type}"`);
    }
  }

  finish(): void {
    const token = this.peek();
    if (token.kind !== 'end') this.fail(`unexpected ${this.describe(token)} after the geometry`);
  }
}

/**
 * Reads a WKT geometry in EPSG:4326 lon/lat order into GeoJSON. `name` is the request parameter
 * the text came from (used as the error locator).
 */
export function parseWkt(
  text: string,
  name = 'geo:geometry',
  limits: WktLimits = DEFAULT_WKT_LIMITS,
): Geometry {
  let body = text.trim();
  const srid = /^SRID=(\d+);/i.exec(body);
  if (srid !== null) {
    if (srid[1] !== '4326') {
      throw new InvalidParameterError(name, `${name}: only SRID=4326 is supported, got ${srid[1]}`);
    }
    body = body.slice(srid[0].length);
  }
  if (body === '') throw new InvalidParameterError(name, `${name} is empty`);
  const reader = new WktReader(body, name, limits);
  const geometry = reader.geometry(0);
  reader.finish();
  return geometry;
}
