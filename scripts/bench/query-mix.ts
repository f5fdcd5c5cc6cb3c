/**
 * The benchmark's query mix: each case is one HTTP request against the API and the
 * SearchQuery the protocol's own parser builds from that request, so the backend's time for
 * the same query can be measured without HTTP (Cairn's overhead = API latency / backend time).
 */
import { COLLECTION_ID } from '../../services/api/common/urls.js';
import { parseItemsQuery } from '../../services/api/protocols/records/parse.js';
import { parseCswKvp, readKvp } from '../../services/api/protocols/csw/parse.js';
import { parseSearchPost } from '../../services/api/protocols/stac/parse.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { cswGetRecords } from './csw-get-records.js';

/** Paging and body limits the parsers need (the API's defaults). */
export interface ParseLimits {
  defaultLimit: number;
  maxLimit: number;
  bodyBytes: number;
}

/** One benchmark case: an HTTP request and the SearchQuery Cairn sends for it. */
export interface QueryCase {
  name: string;
  /** A short human description for the table. */
  description: string;
  method: 'GET' | 'POST';
  /** Path and query string under the API's origin. */
  path: string;
  /** Body of a POST: JSON, or text sent as it is with `contentType`. */
  body?: unknown;
  /** The body's media type when it is text (JSON otherwise). */
  contentType?: string;
  /**
   * Builds the SearchQuery the route gives its backend, with the protocol's own functions
   * (test/system/bench-query-mix.test.ts holds each case to what the API sends).
   */
  buildQuery: (limits: ParseLimits) => SearchQuery;
  /** A remark shown under the table (e.g. a clamped offset). */
  note?: string;
}

/** The parameters that shape the mix. */
export interface QueryMixOptions {
  /** Records in the corpus: bounds the deep offset. */
  corpusSize: number;
  /** The deep offset wanted (beyond 100,000); clamped to the deepest valid page. */
  deepOffset: number;
  pageSize: number;
}

const ITEMS_PATH = `/catalogue/collections/${encodeURIComponent(COLLECTION_ID)}/items`;
const CSW_PATH = '/catalogue/csw';
const BBOX = '-10,40,20,60';
const CQL2_FILTER =
  "S_INTERSECTS(geometry, BBOX(-10,40,20,60)) AND T_INTERSECTS(INTERVAL(start_datetime,end_datetime), INTERVAL('2000-01-01T00:00:00Z','2015-12-31T23:59:59Z'))";
const CQL2_BOX_TYPE = "S_INTERSECTS(geometry, BBOX(-10, 40, 20, 60)) AND type = 'series'";

function toSearch(parameters: Record<string, string>): string {
  return new URLSearchParams(parameters).toString();
}

function itemsCase(
  name: string,
  description: string,
  parameters: Record<string, string>,
  note?: string,
): QueryCase {
  return {
    name,
    description,
    method: 'GET',
    path: `${ITEMS_PATH}?${toSearch(parameters)}`,
    buildQuery: (limits) => parseItemsQuery(parameters, limits),
    ...(note !== undefined && { note }),
  };
}

function cswCase(name: string, description: string, parameters: Record<string, string>): QueryCase {
  return {
    name,
    description,
    method: 'GET',
    path: `${CSW_PATH}?${toSearch(parameters)}`,
    buildQuery: (limits) => {
      const request = parseCswKvp(readKvp(parameters), {
        defaultLimit: limits.defaultLimit,
        maxLimit: limits.maxLimit,
        maxBytes: limits.bodyBytes,
      });
      if (request.operation !== 'GetRecords') {
        throw new Error(`${name}: expected a GetRecords request, got ${request.operation}`);
      }
      return request.query;
    },
  };
}

/** The deepest offset a page of `pageSize` can start at in a corpus of `size` records. */
export function deepestOffset(size: number, pageSize: number): number {
  return Math.max(0, size - pageSize);
}

/** Builds the query mix for a corpus. */
export function buildQueryMix(options: QueryMixOptions): QueryCase[] {
  const limit = String(options.pageSize);
  const deepest = deepestOffset(options.corpusSize, options.pageSize);
  const offset = Math.min(options.deepOffset, deepest);
  const stacBody = {
    bbox: [-10, 40, 20, 60],
    datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
    limit: options.pageSize,
  };
  const [west, south, east, north] = [-10, 40, 20, 60];
  const intersectsBody = {
    intersects: {
      type: 'Polygon',
      coordinates: [
        [
          [west, south],
          [east, south],
          [east, north],
          [west, north],
          [west, south],
        ],
      ],
    },
    limit: options.pageSize,
  };
  return [
    itemsCase('text', 'Records items, free text q', { q: 'flood', limit }),
    itemsCase('bbox', 'Records items, bbox', { bbox: BBOX, limit }),
    itemsCase('text-bbox-datetime', 'Records items, q + bbox + datetime', {
      q: 'temperature',
      bbox: BBOX,
      datetime: '2000-01-01/2015-12-31',
      limit,
    }),
    itemsCase('cql2-spatial-temporal', 'Records items, CQL2 S_INTERSECTS AND T_INTERSECTS', {
      filter: CQL2_FILTER,
      'filter-lang': 'cql2-text',
      limit,
    }),
    // The peers bench's CQL2 filter (scripts/bench/peers/run-peers.ts, `cql2-filter`).
    itemsCase('cql2-box-type', "Records items, CQL2 S_INTERSECTS(BBOX) AND type = 'series'", {
      filter: CQL2_BOX_TYPE,
      'filter-lang': 'cql2-text',
      limit,
    }),
    itemsCase('sorted', 'Records items, sortby=-updated', { sortby: '-updated', limit }),
    // The peers bench's datetime and sort-title (scripts/bench/peers/run-peers.ts).
    itemsCase('datetime', 'Records items, datetime (about half the records)', {
      datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
      limit,
    }),
    itemsCase('sort-title', 'Records items, sortby=title', { sortby: 'title', limit }),
    itemsCase(
      'deep-offset',
      `Records items, offset=${offset}`,
      { offset: String(offset), limit },
      offset < options.deepOffset
        ? `deep-offset: the corpus has ${options.corpusSize} records, so the deepest valid offset ${offset} is used instead of ${options.deepOffset}`
        : undefined,
    ),
    cswCase(
      'csw-getrecords-summary',
      'CSW 2.0.2 GetRecords, summary, CQL AnyText',
      cswGetRecords('summary', limit, {
        constraintLanguage: 'CQL_TEXT',
        constraint: "AnyText LIKE '%ocean%'",
      }),
    ),
    cswCase('opensearch-atom', 'CSW mode=opensearch, Atom, q + bbox', {
      service: 'CSW',
      version: '2.0.2',
      request: 'GetRecords',
      mode: 'opensearch',
      q: 'soil',
      bbox: BBOX,
      maxRecords: limit,
      outputFormat: 'application/atom+xml',
    }),
    {
      name: 'stac-post-search',
      description: 'STAC POST /search, bbox + datetime',
      method: 'POST',
      path: '/catalogue/search',
      body: stacBody,
      buildQuery: (limits) => parseSearchPost(stacBody, limits).query,
    },
    {
      // An intersects polygon that is a box: the engines answer it exactly (compile-spatial.ts),
      // with a count of the records in doubt beside the page.
      name: 'stac-post-intersects',
      description: 'STAC POST /search, intersects (a box polygon)',
      method: 'POST',
      path: '/catalogue/search',
      body: intersectsBody,
      buildQuery: (limits) => parseSearchPost(intersectsBody, limits).query,
    },
  ];
}
