/**
 * OGC Filter Encoding (FES 1.1 and 2.0) for the CSW protocol: `parseFesFilter` turns a Filter
 * into the shared filter AST, `parseFesSortBy` turns a SortBy into sort keys.
 */
export { parseFesFilter, type FesParseOptions } from './parse-fes-filter.js';
export { parseFesSortBy } from './parse-fes-sort-by.js';
export { FES_NAMESPACE, parseFesVersion, type FesVersion } from './fes-names.js';
export { resolveAxisOrder, type AxisOrder } from './crs-axis-order.js';
export { DEFAULT_GML_LIMITS, parseGmlGeometry, parseGmlTime, type GmlLimits } from './parse-gml.js';
export { instantOf, toTimeLiteral } from './time-literal.js';
export { translateLikePattern, type LikeCharacters } from './like-pattern.js';
export { metresPerUnit, METRES_PER_DEGREE } from './distance-units.js';
