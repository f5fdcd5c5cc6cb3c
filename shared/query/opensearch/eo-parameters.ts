/**
 * The OpenSearch EO (OGC 13-026r9) parameters Cairn filters on, with the canonical queryable
 * each one compares and how its values are read.
 */

/** How an EO parameter's values are read. */
export type EoValueType = 'number' | 'integer' | 'datetime' | 'text';

/** One EO search parameter. */
export interface EoParameter {
  /** The parameter name as OpenSearch description documents write it. */
  parameter: string;
  /** The canonical queryable name the filter compares (see shared/query/queryables.ts). */
  property: string;
  type: EoValueType;
}

/**
 * The supported EO parameters. `spectralRange` has no registered queryable yet, so it compares
 * the record property of that name.
 */
export const EO_PARAMETERS: readonly EoParameter[] = [
  { parameter: 'eo:cloudCover', property: 'cloudCover', type: 'number' },
  { parameter: 'eo:snowCover', property: 'snowCover', type: 'number' },
  { parameter: 'eo:orbitNumber', property: 'orbitNumber', type: 'integer' },
  { parameter: 'eo:platform', property: 'platform', type: 'text' },
  { parameter: 'eo:instrument', property: 'instrument', type: 'text' },
  { parameter: 'eo:sensorType', property: 'sensorType', type: 'text' },
  { parameter: 'eo:orbitDirection', property: 'orbitDirection', type: 'text' },
  { parameter: 'eo:processingLevel', property: 'processingLevel', type: 'text' },
  { parameter: 'eo:productType', property: 'productType', type: 'text' },
  { parameter: 'eo:spectralRange', property: 'spectralRange', type: 'text' },
  { parameter: 'eo:parentIdentifier', property: 'parentId', type: 'text' },
  { parameter: 'eo:modificationDate', property: 'updated', type: 'datetime' },
];

const BY_PARAMETER = new Map(EO_PARAMETERS.map((entry) => [entry.parameter, entry]));

/** The EO parameter definition for a parameter name, if Cairn supports it. */
export function findEoParameter(parameter: string): EoParameter | undefined {
  return BY_PARAMETER.get(parameter);
}
