/**
 * The columns the SQLite backend stores for cheap grids and time ranges: the 60-bit geohash
 * cell of a box's centre gives, shifted to every precision, the cell the grid's definition gives
 * (floor(centre / cell size), geohashOfCell), and the interval's milliseconds order as the
 * normalised timestamps do.
 */
import { expect } from 'chai';
import type { Bbox } from '../../../shared/records/core-record.js';
import {
  MAX_GRID_PRECISION,
  boxCentre,
  geohashOfCell,
  gridCellSize,
} from '../../../shared/search/aggregations.js';
import { geohashText } from '../../../shared/search/sqlite/compile-aggregate.js';
import {
  GEOCELL_BITS,
  OPEN_END_MS,
  OPEN_START_MS,
  geocellOf,
  instantMillis,
  intervalMillis,
} from '../../../shared/search/sqlite/rows.js';

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Boxes on cell edges, the poles, the antimeridian and at random, some crossing it. */
function boxes(): Bbox[] {
  const random = numbers(7);
  const fixed: Bbox[] = [
    [-180, -90, 180, 90],
    [180, 90, 180, 90],
    [-180, -90, -180, -90],
    [0, 0, 0, 0],
    [170, -10, -170, 10],
    [179, 0, -179, 1],
    [-10, 40, 20, 60],
    [45, 22.5, 45, 22.5],
    [-45, -22.5, -45, -22.5],
    [-0.000001, -0.000001, 0.000001, 0.000001],
    [179.9992, 67.66555, 179.9992, 67.66555],
  ];
  const random_: Bbox[] = [];
  for (let index = 0; index < 3000; index += 1) {
    const west = random() * 360 - 180;
    const south = random() * 180 - 90;
    const width = index % 3 === 0 ? 0 : random() * 40;
    const height = random() * (90 - south);
    let east = west + width;
    if (east > 180) east -= 360;
    random_.push([west, south, east, south + height]);
  }
  // Centres exactly on cell edges at several precisions.
  const edges: Bbox[] = [];
  for (let precision = 1; precision <= MAX_GRID_PRECISION; precision += 1) {
    const { width, height } = gridCellSize(precision);
    for (const k of [-3, -1, 0, 1, 5]) {
      const lon = k * width;
      const lat = k * height;
      if (Math.abs(lon) <= 180 && Math.abs(lat) <= 90) edges.push([lon, lat, lon, lat]);
    }
  }
  return [...fixed, ...random_, ...edges];
}

describe('SQLite stored grid cells', () => {
  it('give at every precision the cell of floor(centre / cell size)', () => {
    for (const box of boxes()) {
      const cell = geocellOf(box);
      const [lon, lat] = boxCentre(box);
      for (let precision = 1; precision <= MAX_GRID_PRECISION; precision += 1) {
        const { width, height } = gridCellSize(precision);
        const expected = geohashOfCell(
          Math.floor(lon / width),
          Math.floor(lat / height),
          precision,
        );
        const key = cell >> BigInt(GEOCELL_BITS - 5 * precision);
        const high = Number(key >> 30n);
        const low = Number(key & 0x3fffffffn);
        expect(
          geohashText(high, low, precision),
          `${JSON.stringify(box)} at ${precision}`,
        ).to.equal(expected);
      }
    }
  });

  it('put the edges 180° and 90° in the last column and row', () => {
    expect(geohashText(0, 0, 1)).to.equal('0');
    const corner = geocellOf([180, 90, 180, 90]);
    expect(corner).to.equal(2n ** 60n - 1n);
    expect(geocellOf([-180, -90, -180, -90])).to.equal(0n);
  });
});

describe('SQLite stored time intervals', () => {
  it('turn normalised instants into milliseconds since the epoch, years 0000 to 9999', () => {
    expect(instantMillis('1970-01-01T00:00:00.000Z')).to.equal(0);
    expect(instantMillis('2015-12-31T23:59:59.999Z')).to.equal(
      Date.parse('2015-12-31T23:59:59.999Z'),
    );
    expect(instantMillis('0000-01-01T00:00:00.000Z')).to.equal(-62167219200000);
    expect(instantMillis('0099-03-01T00:00:00.000Z')).to.equal(Date.parse('0099-03-01T00:00:00Z'));
    expect(instantMillis('9999-12-31T23:59:59.999Z')).to.equal(253402300799999);
    // Anything else is not read (the text comparison is kept for it).
    for (const text of [
      '2015-12-31T23:59:59Z',
      '2015-12-31',
      '2015-02-30T00:00:00.000Z',
      '2015-13-01T00:00:00.000Z',
      '2015-12-31T24:00:00.000Z',
      '2015-12-31t00:00:00.000z',
      '',
    ]) {
      expect(instantMillis(text), text).to.equal(undefined);
    }
  });

  it('order as the normalised timestamps do, open ends beyond every instant', () => {
    const random = numbers(11);
    const instants: string[] = [];
    for (let index = 0; index < 2000; index += 1) {
      const millis = Math.floor(random() * 253402300800000) - 62167219200000;
      const date = new Date(0);
      date.setTime(millis);
      const year = date.getUTCFullYear();
      if (year < 0 || year > 9999) continue;
      // toISOString writes years 0000–9999 with four digits.
      instants.push(date.toISOString());
    }
    instants.push('0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z');
    const sorted = [...instants].sort();
    const millis = sorted.map((instant) => instantMillis(instant)!);
    for (let index = 1; index < millis.length; index += 1) {
      expect(millis[index]! >= millis[index - 1]!).to.equal(true);
      expect(millis[index] === millis[index - 1]).to.equal(sorted[index] === sorted[index - 1]);
    }
    expect(OPEN_START_MS < millis[0]!).to.equal(true);
    expect(OPEN_END_MS > millis[millis.length - 1]!).to.equal(true);
    expect(intervalMillis(null, null)).to.deep.equal([null, null]);
    expect(intervalMillis(null, '2000-01-01T00:00:00.000Z')).to.deep.equal([
      OPEN_START_MS,
      946684800000,
    ]);
    expect(intervalMillis('2000-01-01T00:00:00.000Z', null)).to.deep.equal([
      946684800000,
      OPEN_END_MS,
    ]);
  });
});
