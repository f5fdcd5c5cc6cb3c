/**
 * The properties an engine catalogue learned from its records: the `props.*` fields of the live
 * index's mapping, which the engine extends itself (dynamic templates) as records with new
 * properties are indexed, whichever process writes them. Nothing is written to learn them.
 */
import {
  isCoreQueryableName,
  type LearnedProperty,
  type LearnedType,
} from '../../query/queryables.js';
import type { JsonObject } from './engine-adapter.js';
import { decodeFieldName } from './engine-fields.js';

/** Mapping types whose fields keep doc values a sort can read (analysed text has none). */
const SORTABLE_MAPPING_TYPES: ReadonlySet<string> = new Set([
  'keyword',
  'double',
  'float',
  'long',
  'integer',
  'date',
  'boolean',
]);

/** The JSON type a mapping type stands for (booleans are indexed as keywords: strings here). */
function jsonType(mappingType: string): LearnedType {
  switch (mappingType) {
    case 'double':
    case 'float':
    case 'long':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'string';
  }
}

/**
 * The own properties (not core queryables) one index mapping holds under `props`, by name, at
 * most `max` of them. Pure.
 */
export function readLearnedProperties(mappings: JsonObject, max: number): LearnedProperty[] {
  const props = (mappings.properties as Record<string, JsonObject> | undefined)?.props;
  const fields = (props?.properties ?? {}) as Record<string, { type?: unknown }>;
  const learned: LearnedProperty[] = [];
  for (const [field, mapping] of Object.entries(fields)) {
    if (typeof mapping.type !== 'string') continue;
    const name = decodeFieldName(field);
    if (isCoreQueryableName(name)) continue;
    learned.push({
      name,
      types: [jsonType(mapping.type)],
      sortable: SORTABLE_MAPPING_TYPES.has(mapping.type),
    });
  }
  learned.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return learned.slice(0, Math.max(0, max));
}
