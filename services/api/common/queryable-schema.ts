/** The JSON Schema of a queryable, as the Records and STAC queryables documents list it. Pure. */
import type { LearnedProperty, Queryable } from '../../../shared/query/queryables.js';
import type { PropertySchema } from './documents.js';

/**
 * The schema of one queryable. Spatial properties carry a format and no type (Features Part 3,
 * /req/queryables); `geometryRef` adds the `$ref` STAC clients look for.
 */
export function describeQueryable(queryable: Queryable, geometryRef?: string): PropertySchema {
  const role = queryable.role ? { 'x-ogc-role': queryable.role } : {};
  switch (queryable.type) {
    case 'geometry':
      return {
        title: queryable.title,
        ...(geometryRef !== undefined && { $ref: geometryRef }),
        format: 'geometry-any',
        ...role,
      };
    case 'datetime':
      return { title: queryable.title, type: 'string', format: 'date-time', ...role };
    case 'array':
      return { title: queryable.title, type: 'array', items: { type: 'string' }, ...role };
    default:
      return { title: queryable.title, type: queryable.type, ...role };
  }
}

/**
 * The schema of a property learned from the records: its JSON type (or types, when its values
 * were seen with several), titled by its name since the data gives no title.
 */
export function describeLearnedProperty(property: LearnedProperty): PropertySchema {
  const [only] = property.types;
  return {
    title: property.name,
    type: property.types.length === 1 && only !== undefined ? only : [...property.types],
  };
}
