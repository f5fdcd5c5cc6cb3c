/**
 * STAC API presentation: records → STAC Items (with this catalogue's links), field selection
 * (Fields extension), and search results → ItemCollection with paging links. Pure.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import {
  STAC_VERSION,
  writeStacItem,
  type StacItem,
} from '../../../../shared/records/writers/stac-item.js';
import type { CatalogueExtent, SearchResult } from '../../../../shared/search/backend.js';
import { presentCollection } from '../records/capabilities.js';
import { collectionUrl, GEOJSON, recordUrl } from '../records/present.js';
import { searchUrl } from './capabilities.js';
import {
  DEFAULT_FIELDS,
  encodePageToken,
  type FieldsSelection,
  type SearchMethod,
} from './parse.js';

/** The STAC Item URL of a record (its record URL with `f=stac`). */
export function stacItemUrl(baseUrl: string, id: string): string {
  return `${recordUrl(baseUrl, id)}?f=stac`;
}

/**
 * One record as a STAC Item. Its parent and collection links point at the parent's record in
 * this catalogue; an alternate link gives the OGC API – Records encoding.
 */
export function presentStacItem(record: CoreRecord, baseUrl: string): StacItem {
  return writeStacItem(record, {
    self: stacItemUrl(baseUrl, record.id),
    root: `${baseUrl}/catalogue`,
    collection: (parentId) => recordUrl(baseUrl, parentId),
    collectionType: GEOJSON,
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
 * document with `stac_version` and STAC links, so that STAC clients walking the landing page's
 * `child` link find a STAC object. It is the same resource (`f=stac`).
 */
export function presentStacCatalogueCollection(
  baseUrl: string,
  service: ServiceMetadata,
  extent: CatalogueExtent,
): Record<string, unknown> {
  const collection = presentCollection(baseUrl, service, extent);
  const records = Array.isArray(collection.links) ? (collection.links as { rel?: string }[]) : [];
  const self = `${collectionUrl(baseUrl)}?f=stac`;
  return {
    ...collection,
    stac_version: STAC_VERSION,
    stac_extensions: [],
    links: [
      { rel: 'self', type: 'application/json', href: self, title: 'This collection (STAC)' },
      { rel: 'parent', type: 'application/json', href: `${baseUrl}/catalogue`, title: 'Catalogue' },
      {
        rel: 'alternate',
        type: 'application/json',
        href: `${collectionUrl(baseUrl)}?f=json`,
        title: 'This collection (OGC API – Records)',
      },
      ...records.filter((link) => link.rel !== 'self'),
    ],
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
  const defaults = selection.base === 'default' ? DEFAULT_FIELDS : [];
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
  method: SearchMethod;
  /** GET: the request's query parameters; POST: the request body. */
  request: Record<string, unknown>;
  offset: number;
  limit: number;
  fields?: FieldsSelection;
}

function pageLink(
  context: SearchPageContext,
  rel: 'self' | 'next' | 'prev',
  offset: number | undefined,
): Record<string, unknown> {
  const href = searchUrl(context.baseUrl);
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
): Record<string, unknown> {
  const { offset, limit } = context;
  const links: Record<string, unknown>[] = [
    pageLink(context, 'self', offset > 0 ? offset : undefined),
    {
      rel: 'root',
      type: 'application/json',
      href: `${context.baseUrl}/catalogue`,
      title: 'Catalogue',
    },
  ];
  if (offset + result.records.length < result.total) {
    links.push(pageLink(context, 'next', offset + limit));
  }
  if (offset > 0) links.push(pageLink(context, 'prev', Math.max(0, offset - limit)));
  const features = result.records.map((record) => {
    const item = presentStacItem(record, context.baseUrl);
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
