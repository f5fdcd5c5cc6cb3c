/**
 * Which records the STAC API serves as STAC Collections, read through the search backend: a
 * record whose type is `collection` or `series` (STAC Collections and ISO series ingested as
 * records), or any record that another record names as its parent. The catalogue collection
 * (`metadata:main`) is one too, presented by ./present.ts.
 */
import {
  operator,
  orAll,
  literal,
  propertyRef,
  type Expression,
} from '../../../../shared/query/filter-ast.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import { checkFilter } from '../../../../shared/query/check-filter.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';

/** Record types that are STAC Collections whether or not any record names them as parent. */
export const STAC_COLLECTION_TYPES: readonly string[] = ['collection', 'series'];

/** How many distinct parent ids the collections list considers. */
const MAX_PARENTS = 10_000;

function isIn(property: string, values: readonly string[]): Expression {
  return operator('in', propertyRef(property), {
    kind: 'array',
    items: values.map((value) => literal(value)),
  });
}

/** The ids among `parentIds` that are records of this catalogue (one search). */
export async function findExistingRecords(
  backend: SearchBackend,
  parentIds: readonly string[],
): Promise<Set<string>> {
  const unique = [...new Set(parentIds)];
  if (unique.length === 0) return new Set();
  const result = await backend.search({
    ids: unique,
    sort: [],
    offset: 0,
    limit: unique.length,
  });
  return new Set(result.records.map((record) => record.id));
}

/** True when the record is served as a STAC Collection (its type, or it has children). */
export async function isStacCollection(
  backend: SearchBackend,
  record: CoreRecord,
): Promise<boolean> {
  if (record.type && STAC_COLLECTION_TYPES.includes(record.type)) return true;
  const children = await backend.search({
    collections: [record.id],
    sort: [],
    offset: 0,
    limit: 1,
  });
  return children.total > 0;
}

/** The query for the records served as STAC Collections, in id order. */
export async function buildStacCollectionsQuery(
  backend: SearchBackend,
  offset: number,
  limit: number,
): Promise<SearchQuery> {
  const parents = await backend.domain('parentId', { limit: MAX_PARENTS });
  const filter = orAll([
    isIn('type', STAC_COLLECTION_TYPES),
    ...(parents.length > 0
      ? [
          isIn(
            'id',
            parents.map((parent) => parent.value),
          ),
        ]
      : []),
  ]);
  return {
    ...(filter && { filter: checkFilter(filter) }),
    sort: [{ field: 'id', direction: 'asc' }],
    offset,
    limit,
  };
}
