/**
 * Units of measure for DWithin / Beyond distances. Every distance is converted to metres here so
 * that backends see one unit only (`s_dwithin(property, geometry, metres, 'm')`).
 */
import { FilterError } from '../../errors/index.js';

/**
 * Metres in one degree of arc on the WGS 84 equator (a × π / 180). Degree distances are an
 * approximation whatever one does; this is the figure PostGIS and GeoServer use for the same
 * conversion.
 */
export const METRES_PER_DEGREE = 111_319.490_793_273_57;

const BY_NAME: Readonly<Record<string, number>> = {
  m: 1,
  metre: 1,
  metres: 1,
  meter: 1,
  meters: 1,
  km: 1000,
  kilometre: 1000,
  kilometres: 1000,
  kilometer: 1000,
  kilometers: 1000,
  ft: 0.3048,
  foot: 0.3048,
  feet: 0.3048,
  mi: 1609.344,
  mile: 1609.344,
  miles: 1609.344,
  'statute mile': 1609.344,
  'statute miles': 1609.344,
  nmi: 1852,
  'nautical mile': 1852,
  'nautical miles': 1852,
  deg: METRES_PER_DEGREE,
  degree: METRES_PER_DEGREE,
  degrees: METRES_PER_DEGREE,
};

/** EPSG unit-of-measure codes Cairn converts. */
const BY_EPSG_CODE: Readonly<Record<string, number>> = {
  '9001': 1, // metre
  '9036': 1000, // kilometre
  '9002': 0.3048, // foot
  '9093': 1609.344, // statute mile
  '9030': 1852, // nautical mile
  '9102': METRES_PER_DEGREE, // degree
  '9122': METRES_PER_DEGREE, // degree (supplier to define representation)
};

const EPSG_UOM =
  /^(?:urn:(?:x-)?ogc:def:uom:epsg:[0-9.]*:|https?:\/\/www\.opengis\.net\/def\/uom\/epsg\/[0-9.]+\/)(\d+)$/;

/** The table's own entry for `key` (never an inherited property), or undefined. */
function ownEntry(
  table: Readonly<Record<string, number>>,
  key: string | undefined,
): number | undefined {
  return key !== undefined && Object.prototype.hasOwnProperty.call(table, key)
    ? table[key]
    : undefined;
}

/**
 * Metres in one of the given unit (a name such as `m`, `km`, `mi`, `deg`, or an EPSG unit URN /
 * URI). Throws a FilterError for a unit it does not know.
 */
export function metresPerUnit(unit: string): number {
  const key = unit.trim().toLowerCase();
  const metres = ownEntry(BY_NAME, key) ?? ownEntry(BY_EPSG_CODE, EPSG_UOM.exec(key)?.[1]);
  if (metres !== undefined) return metres;
  throw new FilterError(
    `Unsupported distance unit "${unit}" (use m, km, ft, mi, nmi, deg or an EPSG unit URI)`,
  );
}
