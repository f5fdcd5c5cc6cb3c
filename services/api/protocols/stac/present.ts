/**
 * STAC API presentation: records → STAC Items (with this catalogue's links), field selection
 * (Fields extension), and search results → ItemCollection with paging links. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import { writeStacCollection } from '../../../../shared/records/writers/stac-collection.js';
import {
  STAC_VERSION,
  writeStacItem,
  type StacItem,
} from '../../../../shared/records/writers/stac-item.js';
import type {
  CatalogueExtent,
  ChildrenExtent,
  SearchResult,
} from '../../../../shared/search/backend.js';
import { presentCatalogueCollection } from '../../common/catalogue-collection.js';
import type { Link } from '../../common/links.js';
import { GEOJSON, QUERYABLES_REL } from '../../common/media-types.js';
import { COLLECTION_ID, collectionUrl, recordUrl } from '../../common/urls.js';
import {
  queryablesUrl,
  searchUrl,
  stacCollectionsUrl,
  stacCollectionUrl,
  stacFeatureUrl,
  stacItemsUrl,
  stacRootUrl,
} from './capabilities.js';
import { withChildrenExtent } from './collection-extents.js';
import {
  DEFAULT_FIELDS,
  encodePageToken,
  type FieldsSelection,
  type SearchMethod,
} from './parse.js';

/**
 * The STAC Collection an item is listed under: its parent when the parent is a record of this
 * catalogue (`parents` holds those), else the catalogue collection.
 */
function homeCollection(record: CoreRecord, parents: ReadonlySet<string>): string {
  return record.parentId && parents.has(record.parentId) ? record.parentId : COLLECTION_ID;
}

/** The STAC Item URL of a record (STAC API Features, under its home collection). */
export function stacItemUrl(
  baseUrl: string,
  record: CoreRecord,
  parents: ReadonlySet<string>,
): string {
  return stacFeatureUrl(baseUrl, homeCollection(record, parents), record.id);
}

/**
 * One record as a STAC Item. `parents` holds the parent ids that are records of this
 * catalogue: for those, the parent and collection links point at the parent as a STAC
 * Collection; a record whose parent is not in the catalogue has neither (nor a `collection`).
 * An alternate link gives the OGC API – Records encoding.
 */
export function presentStacItem(
  record: CoreRecord,
  baseUrl: string,
  parents: ReadonlySet<string>,
): StacItem {
  return writeStacItem(record, {
    self: stacItemUrl(baseUrl, record, parents),
    root: stacRootUrl(baseUrl),
    collection: (parentId) =>
      parents.has(parentId) ? stacCollectionUrl(baseUrl, parentId) : undefined,
    collectionType: 'application/json',
    extra: [
      {
        rel: 'alternate',
        type: GEOJSON,
        href: `${recordUrl(baseUrl, record.id)}?f=json`,
        title: 'This record as an OGC API – Records record',
      },
    ],
  });
}

/**
 * The catalogue collection (`metadata:main`) as a STAC Collection: the Records collection
 * document with `stac_version` and the STAC API's links (its items are every record, as STAC
 * Items). Served at /catalogue/stac/collections/metadata:main, and at the Records collection
 * URL with `f=stac`.
 */
export function presentStacCatalogueCollection(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): Record<string, unknown> {
  const collection = presentCatalogueCollection(baseUrl, service, extent);
  const root = stacRootUrl(baseUrl);
  return {
    ...collection,
    stac_version: STAC_VERSION,
    stac_extensions: [],
    links: [
      {
        rel: 'self',
        type: 'application/json',
        href: stacCollectionUrl(baseUrl, COLLECTION_ID),
        title: 'This collection (STAC)',
      },
      { rel: 'root', type: 'application/json', href: root, title: 'STAC API' },
      { rel: 'parent', type: 'application/json', href: root, title: 'STAC API' },
      {
        rel: 'items',
        type: GEOJSON,
        href: stacItemsUrl(baseUrl, COLLECTION_ID),
        title: 'Every record as a STAC Item',
      },
      {
        rel: 'alternate',
        type: 'application/json',
        href: `${collectionUrl(baseUrl)}?f=json`,
        title: 'This collection (OGC API – Records)',
      },
    ],
  };
}

/**
 * A record served as a STAC Collection, with the STAC API's links (and `alternates`, the links
 * to it in other languages) and, when it has items, their extent in place of the declared one
 * (collection-extents.ts).
 */
export function presentStacCollection(
  record: CoreRecord,
  baseUrl: string,
  children?: ChildrenExtent,
  alternates: readonly Link[] = [],
): Record<string, unknown> {
  const root = stacRootUrl(baseUrl);
  const collection = writeStacCollection(record, {
    self: stacCollectionUrl(baseUrl, record.id),
    root,
    parent: root,
    items: stacItemsUrl(baseUrl, record.id),
    extra: [
      {
        rel: 'alternate',
        type: GEOJSON,
        href: `${recordUrl(baseUrl, record.id)}?f=json`,
        title: 'This collection as an OGC API – Records record',
      },
      ...alternates.map(({ href, rel, type, title, hreflang }) => ({
        href,
        rel: rel ?? 'alternate',
        ...(type !== undefined && { type }),
        ...(title !== undefined && { title }),
        ...(hreflang !== undefined && { hreflang }),
      })),
    ],
  });
  return withChildrenExtent(collection, children);
}

/** A link of an item search page: a POST paging link carries the body to send (STAC API). */
export type SearchLink = {
  rel: string;
  type: string;
  href: string;
  method?: 'GET' | 'POST';
  body?: Record<string, unknown>;
  merge?: boolean;
  title: string;
};

/** A page of the item search (or of a collection's items): a STAC ItemCollection. */
export interface StacItemCollection {
  type: 'FeatureCollection';
  numberMatched: number;
  numberReturned: number;
  /** STAC Items, or what the Fields extension kept of them. */
  features: Record<string, unknown>[];
  links: SearchLink[];
}

/** The STAC Collections list (STAC API Collections). */
export interface StacCollectionsDocument {
  collections: Record<string, unknown>[];
  numberMatched: number;
  numberReturned: number;
  links: Link[];
}

export interface CollectionsPage {
  /** The collection documents of this page. */
  collections: Record<string, unknown>[];
  /** How many collections there are in all. */
  total: number;
  offset: number;
  limit: number;
  /** The request's query parameters (repeated in paging links). */
  query: Record<string, string>;
}

function collectionsLink(
  baseUrl: string,
  query: Record<string, string>,
  rel: string,
  offset?: number,
): Link {
  const parameters = new URLSearchParams(
    Object.entries(query).filter(([name]) => name !== 'offset'),
  );
  if (offset !== undefined && offset > 0) parameters.set('offset', String(offset));
  const search = parameters.toString();
  const href = stacCollectionsUrl(baseUrl);
  return { rel, type: 'application/json', href: search === '' ? href : `${href}?${search}` };
}

/** The STAC Collections list, with self/root/parent links and `next`/`prev` when paged. */
export function presentStacCollections(
  baseUrl: string,
  page: CollectionsPage,
): StacCollectionsDocument {
  const root = stacRootUrl(baseUrl);
  const links: Link[] = [
    collectionsLink(baseUrl, page.query, 'self', page.offset),
    { rel: 'root', type: 'application/json', href: root },
    { rel: 'parent', type: 'application/json', href: root },
    // Collection Search with filter: where the queryables of the collections' filter are.
    {
      rel: QUERYABLES_REL,
      type: 'application/schema+json',
      href: queryablesUrl(baseUrl),
      title: 'Queryables of the collections filter',
    },
  ];
  if (page.offset + page.collections.length < page.total) {
    links.push(collectionsLink(baseUrl, page.query, 'next', page.offset + page.limit));
  }
  if (page.offset > 0) {
    links.push(collectionsLink(baseUrl, page.query, 'prev', Math.max(0, page.offset - page.limit)));
  }
  return {
    collections: page.collections,
    numberMatched: page.total,
    numberReturned: page.collections.length,
    links,
  };
}

interface FieldRule {
  path: string;
  include: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function buildRules(selection: FieldsSelection): FieldRule[] {
  // A user's exclude beats the default set; at the same path as a user's include it loses.
  const defaults = selection.base === 'default' ? (selection.defaults ?? DEFAULT_FIELDS) : [];
  const includes = [
    ...defaults.filter((path) => !selection.exclude.includes(path)),
    ...selection.include,
  ];
  return [
    ...includes.map((path) => ({ path, include: true })),
    ...selection.exclude.map((path) => ({ path, include: false })),
  ];
}

function project(
  value: Record<string, unknown>,
  prefix: string,
  rules: FieldRule[],
  inherited: boolean,
): Record<string, unknown> {
  const projected: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const exact = rules.filter((rule) => rule.path === path);
    // A rule on this very path beats its ancestors'; at the same path, include wins.
    const included = exact.length > 0 ? exact.some((rule) => rule.include) : inherited;
    const deeper = rules.some((rule) => rule.path.startsWith(`${path}.`));
    if (deeper && isObject(child)) {
      const inner = project(child, path, rules, included);
      if (included || Object.keys(inner).length > 0) projected[key] = inner;
    } else if (included) {
      projected[key] = child;
    }
  }
  return projected;
}

/** Applies a Fields extension selection to one item (the most specific path wins). */
export function applyFields(
  item: Record<string, unknown>,
  selection: FieldsSelection,
): Record<string, unknown> {
  return project(item, '', buildRules(selection), selection.base === 'full');
}

export interface SearchPageContext {
  baseUrl: string;
  /** The URL paging links repeat (default: the item search). */
  href?: string | undefined;
  /** Parent ids that are records of this catalogue (for the items' collection links). */
  parents: ReadonlySet<string>;
  method: SearchMethod;
  /** GET: the request's query parameters; POST: the request body. */
  request: Record<string, unknown>;
  offset: number;
  limit: number;
  fields?: FieldsSelection | undefined;
}

function pageLink(
  context: SearchPageContext,
  rel: 'self' | 'next' | 'prev',
  offset: number | undefined,
): SearchLink {
  const href = context.href ?? searchUrl(context.baseUrl);
  const title = { self: 'This page', next: 'Next page', prev: 'Previous page' }[rel];
  const paging = offset === undefined ? {} : { token: encodePageToken(offset) };
  if (context.method === 'POST') {
    const body = Object.fromEntries(
      Object.entries(context.request).filter(([name]) => name !== 'token'),
    );
    return rel === 'self'
      ? { rel, type: GEOJSON, href, method: 'POST', title }
      : {
          rel,
          type: GEOJSON,
          href,
          method: 'POST',
          body: { ...body, ...paging },
          merge: false,
          title,
        };
  }
  const parameters = new URLSearchParams(
    Object.entries(context.request).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'token',
    ),
  );
  if (paging.token !== undefined) parameters.set('token', paging.token);
  const query = parameters.toString();
  return {
    rel,
    type: GEOJSON,
    href: query === '' ? href : `${href}?${query}`,
    method: 'GET',
    title,
  };
}

/**
 * A search result as a STAC ItemCollection with `numberMatched`, `numberReturned` and
 * self/root/next/prev links; `next` repeats the request (GET link, or POST link with the body
 * to send) with the paging token.
 */
export function presentItemCollection(
  result: SearchResult,
  context: SearchPageContext,
): StacItemCollection {
  const { offset, limit } = context;
  const links: SearchLink[] = [
    pageLink(context, 'self', offset > 0 ? offset : undefined),
    {
      rel: 'root',
      type: 'application/json',
      href: stacRootUrl(context.baseUrl),
      title: 'STAC API',
    },
  ];
  if (offset + result.records.length < result.total) {
    links.push(pageLink(context, 'next', offset + limit));
  }
  if (offset > 0) links.push(pageLink(context, 'prev', Math.max(0, offset - limit)));
  const features = result.records.map((record) => {
    const item = presentStacItem(record, context.baseUrl, context.parents);
    return context.fields ? applyFields(item, context.fields) : item;
  });
  return {
    type: 'FeatureCollection',
    numberMatched: result.total,
    numberReturned: result.records.length,
    features,
    links,
  };
}
