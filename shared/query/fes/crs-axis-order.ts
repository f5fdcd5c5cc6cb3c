/**
 * Which axis comes first in GML coordinates, decided from the geometry's `srsName`.
 *
 * Cairn only accepts WGS 84 geographic coordinates in filters (every record is indexed in
 * CRS84), so the only question is the axis order:
 *
 * - EPSG:4326 written as a URN (`urn:ogc:def:crs:EPSG::4326`, with or without a version, also
 *   the `urn:x-ogc:` form) or as an OGC HTTP URI (`http://www.opengis.net/def/crs/EPSG/0/4326`)
 *   follows the EPSG database: latitude first, so coordinates are swapped to lon/lat.
 * - CRS84 (`urn:ogc:def:crs:OGC:1.3:CRS84`, `http://www.opengis.net/def/crs/OGC/1.3/CRS84`,
 *   `CRS:84`, `OGC:CRS84`) is longitude first.
 * - Decision: the legacy bare `EPSG:4326` and the GML 2 form
 *   `http://www.opengis.net/gml/srs/epsg.xml#4326` are read longitude first, as pycsw,
 *   GeoServer and MapServer do, because the clients that still send them (OWSLib BBox default,
 *   older GeoNetwork) write x/y = lon/lat.
 * - A geometry with no `srsName` anywhere up its GML ancestry is read as CRS84 too (the CSW
 *   default CRS, in the order clients actually write).
 * - Anything else is refused with a FilterError naming the CRS.
 */
import { FilterError } from '../../errors/index.js';

/** The order of the first two ordinates of a position. */
export type AxisOrder = 'lon-lat' | 'lat-lon';

const LAT_LON = [
  /^urn:(x-)?ogc:def:crs:epsg:([0-9.]*:)?4326$/,
  /^https?:\/\/www\.opengis\.net\/def\/crs\/epsg\/[0-9.]+\/4326$/,
];

const LON_LAT = [
  /^urn:(x-)?ogc:def:crs:ogc:([0-9.]*:)?crs84$/,
  /^https?:\/\/www\.opengis\.net\/def\/crs\/ogc\/[0-9.]+\/crs84$/,
  /^\[?ogc:crs84\]?$/,
  /^crs:84$/,
  /^epsg:4326$/,
  /^https?:\/\/www\.opengis\.net\/gml\/srs\/epsg\.xml#4326$/,
];

/**
 * The axis order of a GML `srsName` (undefined: none given → CRS84 order). Throws a FilterError
 * for any CRS other than WGS 84 geographic.
 */
export function resolveAxisOrder(srsName: string | undefined): AxisOrder {
  if (srsName === undefined) return 'lon-lat';
  const name = srsName.trim().toLowerCase();
  if (name === '') return 'lon-lat';
  if (LAT_LON.some((pattern) => pattern.test(name))) return 'lat-lon';
  if (LON_LAT.some((pattern) => pattern.test(name))) return 'lon-lat';
  throw new FilterError(
    `Unsupported CRS "${srsName}": filters must use WGS 84 (EPSG:4326 or CRS84) coordinates`,
  );
}
