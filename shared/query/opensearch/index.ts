/**
 * OpenSearch (Geo, Time and EO extensions) search parameters → SearchQuery fragments, for the
 * OpenSearch protocol and the OpenSearch mode of CSW 3.0.
 */
export {
  DEFAULT_OPENSEARCH_LIMITS,
  OPENSEARCH_PARAMETERS,
  parseOpenSearchParameters,
  SPATIAL_RELATIONS,
  TEMPORAL_RELATIONS,
  type OpenSearchLimits,
  type OpenSearchQueryFragment,
} from './parse-opensearch-parameters.js';
export { DEFAULT_EO_VALUE_LIMITS, parseEoValue, type EoValueLimits } from './parse-eo-value.js';
export {
  EO_PARAMETERS,
  findEoParameter,
  type EoParameter,
  type EoValueType,
} from './eo-parameters.js';
export { DEFAULT_WKT_LIMITS, parseWkt, type WktLimits } from './parse-wkt.js';
export {
  buildCircleArea,
  EARTH_RADIUS_METRES,
  MAX_CIRCLE_RADIUS_METRES,
  type CircleArea,
} from './circle.js';
