/**
 * Which records the STAC API serves as STAC Collections, read through the search backend: a
 * record whose type is `collection` or `series` (STAC Collections and ISO series ingested as
 * records), or any record that another record names as its parent. The catalogue collection
 * (`metadata:main`) is one too, presented by ./present.ts. The Collection Search extension
 * selects among them (findStacCollections).
 */
import {
  operator,
  orAll,
  literal,
  propertyRef,
  type Expression,
} from '../../../../shared/query/filter-ast.js';
import type { SearchScope } from '../../../../shared/search/search-scope.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import { andChecked, checkFilter } from '../../../../shared/query/check-filter.js';
import type { CheckedFilter } from '../../../../shared/query/checked-filter.js';
import { InvalidParameterError } from '../../../../shared/errors/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type {
  ChildrenExtent,
  SearchBackend,
  SearchOptions,
} from '../../../../shared/search/backend.js';
import { collectionExtentMatches } from './collection-extents.js';
import type { CollectionSearch } from './parse.js';

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

/** How many ids a parent lookup remembers before it starts again. */
const MAX_REMEMBERED_IDS = 10_000;

/**
 * findExistingRecords remembering its answers for the current catalogue generation: the same
 * parent ids asked again (every page of a STAC search, every STAC item of a collection) cost
 * no search until a write moves the generation on. An answer is remembered under the
 * generation read before the search that gave it and used only while that generation is
 * current, so it is never older than an acknowledged write (docs/decisions/result-cache.md).
 * Without a generation (or while it cannot be read) every call searches. A call made for a
 * request passes the request's scope, whose generation is read once for the whole request (the
 * result cache reads the same value), so the lookup costs no read of its own.
 */
export function createParentLookup(
  backend: SearchBackend,
  generation: { current(): Promise<string | undefined> } | undefined,
): (parentIds: readonly string[], scope?: Pick<SearchScope, 'generation'>) => Promise<Set<string>> {
  let rememberedAt: string | undefined;
  const remembered = new Map<string, boolean>();
  return async (parentIds, scope) => {
    const unique = [...new Set(parentIds)];
    if (unique.length === 0) return new Set();
    const current = await (scope ? scope.generation() : generation?.current());
    if (current === undefined) return findExistingRecords(backend, unique);
    if (current !== rememberedAt) {
      remembered.clear();
      rememberedAt = current;
    }
    const known = new Map(
      unique.flatMap((id) => {
        const exists = remembered.get(id);
        return exists === undefined ? [] : [[id, exists] as const];
      }),
    );
    const unknown = unique.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      const found = await findExistingRecords(backend, unknown);
      for (const id of unknown) known.set(id, found.has(id));
      // Kept only if no other request moved the memory to a later generation meanwhile.
      if (rememberedAt === current) {
        if (remembered.size + unknown.length > MAX_REMEMBERED_IDS) remembered.clear();
        for (const id of unknown) remembered.set(id, found.has(id));
      }
    }
    return new Set(unique.filter((id) => known.get(id)));
  };
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

/** The filter that selects the records served as STAC Collections (a type, or children). */
export async function buildStacCollectionsFilter(backend: SearchBackend): Promise<CheckedFilter> {
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
  return checkFilter(filter ?? isIn('type', STAC_COLLECTION_TYPES));
}

/** The query for the records served as STAC Collections, in id order. */
export async function buildStacCollectionsQuery(
  backend: SearchBackend,
  offset: number,
  limit: number,
): Promise<SearchQuery> {
  return {
    filter: await buildStacCollectionsFilter(backend),
    sort: [{ field: 'id', direction: 'asc' }],
    offset,
    limit,
  };
}

/** How many parent ids one childrenExtents request names. */
const EXTENTS_BATCH = 1_000;

/** The children's count and extent of each of these collections that has children. */
export async function findChildrenExtents(
  backend: SearchBackend,
  ids: readonly string[],
  options: SearchOptions = {},
): Promise<Map<string, ChildrenExtent>> {
  const extents = new Map<string, ChildrenExtent>();
  for (let start = 0; start < ids.length; start += EXTENTS_BATCH) {
    const batch = ids.slice(start, start + EXTENTS_BATCH);
    for (const extent of await backend.childrenExtents(batch, options)) {
      extents.set(extent.parentId, extent);
    }
  }
  return extents;
}

/** Presents one record as a STAC Collection with its children's extent. */
export type PresentCollection = (
  record: CoreRecord,
  children: ChildrenExtent | undefined,
) => Record<string, unknown>;

/** A page of collection records, presented, and how many match in all. */
export interface FoundCollections {
  collections: Record<string, unknown>[];
  total: number;
}

/** How many collection records a search by extent reads per request to the backend. */
const SCAN_BATCH = 500;

/**
 * Most collection records a search by `bbox` or `datetime` tests: their extents are the
 * served ones (their items' union, known only once computed), so every collection the other
 * parameters select is tested in Node.
 */
export const MAX_EXTENT_SEARCH_COLLECTIONS = MAX_PARENTS;

/**
 * One page of the records served as STAC Collections that match a collection search, in its
 * sort order (id order by default). Free text, filter and sort run on the backend; `bbox` and
 * `datetime` are tested on the extents the collections are served with (collection-extents.ts),
 * so every selected collection is presented and tested, and the page is cut in Node.
 */
export async function findStacCollections(
  backend: SearchBackend,
  search: CollectionSearch,
  page: { offset: number; limit: number },
  present: PresentCollection,
  options: SearchOptions = {},
): Promise<FoundCollections> {
  const base: SearchQuery = {
    filter: andChecked(await buildStacCollectionsFilter(backend), search.filter),
    ...(search.text && { text: search.text }),
    sort: search.sort.length > 0 ? search.sort : [{ field: 'id', direction: 'asc' }],
    offset: page.offset,
    limit: page.limit,
  };
  const presentAll = async (records: CoreRecord[]) => {
    const extents = await findChildrenExtents(
      backend,
      records.map((record) => record.id),
      options,
    );
    return records.map((record) => present(record, extents.get(record.id)));
  };
  if (!search.bbox && !search.datetime) {
    const result = await backend.search(base, options);
    return { collections: await presentAll(result.records), total: result.total };
  }
  const matched: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += SCAN_BATCH) {
    const result = await backend.search({ ...base, offset, limit: SCAN_BATCH }, options);
    if (result.total > MAX_EXTENT_SEARCH_COLLECTIONS) {
      throw new InvalidParameterError(
        search.bbox ? 'bbox' : 'datetime',
        `${result.total} collections would be tested against the extent; at most ` +
          `${MAX_EXTENT_SEARCH_COLLECTIONS} are: narrow the search with q or filter`,
      );
    }
    for (const collection of await presentAll(result.records)) {
      if (collectionExtentMatches(collection, search.bbox, search.datetime)) {
        matched.push(collection);
      }
    }
    if (result.records.length < SCAN_BATCH || offset + SCAN_BATCH >= result.total) break;
  }
  return {
    collections: matched.slice(page.offset, page.offset + page.limit),
    total: matched.length,
  };
}
