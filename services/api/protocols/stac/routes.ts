/**
 * STAC API routes under /catalogue: item search (GET and POST /search) and the queryables,
 * shared by both landing pages, and the STAC API root /stac with its conformance, STAC
 * Collections and their items (STAC API Collections and Features). The Records router owns
 * /catalogue itself (whose landing page is also a STAC Catalog with item search) and the
 * Records collections; `f=stac` on the Records collection still gives it as a STAC Collection.
 */
import {
  langParameter,
  languageAlternates,
  localiseRecords,
  negotiateRecordLanguage,
  setContentLanguage,
  withLang,
} from '../../common/language.js';
import { Router, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { KnownQueryables } from '../../common/known-queryables.js';
import type { CatalogueGeneration } from '../../../../shared/search/catalogue-generation.js';
import type { SearchScope } from '../../../../shared/search/search-scope.js';
import { GEOJSON, JSON_TYPE, SCHEMA_JSON } from '../../common/media-types.js';
import { acceptableMediaType } from '../../common/negotiation.js';
import { COLLECTION_ID } from '../../common/urls.js';
import {
  presentQueryables,
  presentStacApiLanding,
  STAC_API_CONFORMANCE_CLASSES,
  stacCollectionUrl,
  stacItemsUrl,
} from './capabilities.js';
import {
  aggregateUrl,
  parseAggregateRequest,
  presentAggregationCollection,
  presentAggregationsList,
  runAggregate,
} from './aggregate.js';
import {
  findChildrenExtents,
  createParentLookup,
  findStacCollections,
  isStacCollection,
  type PresentCollection,
} from './collections.js';
import {
  isCollectionSearch,
  parseCollectionItemsGet,
  parseCollectionsQuery,
  parseSearchGet,
  parseSearchPost,
  type SearchMethod,
  type StacSearch,
} from './parse.js';
import {
  applyFields,
  presentItemCollection,
  presentStacCatalogueCollection,
  presentStacCollection,
  presentStacCollections,
  presentStacItem,
  stacItemUrl,
} from './present.js';

export interface StacRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  /** The properties filters may name beyond the core queryables (one per app; else its own). */
  queryables?: KnownQueryables;
  /** The catalogue generation the parent lookups are remembered for (none: always searched). */
  generation?: CatalogueGeneration | undefined;
}

function sendJson(response: Response, body: unknown, type: string): void {
  response.type(type).send(JSON.stringify(body));
}

/** STAC API documents that take no parameter: anything but `f=json` is a 400. */
function rejectParameters(request: Request, accepted: readonly string[] = []): void {
  for (const [name, value] of Object.entries(request.query)) {
    if (name === 'f' && value === 'json') continue;
    if (accepted.includes(name)) continue;
    throw new InvalidParameterError(name, `Unknown parameter "${name}"; this document takes none`);
  }
}

/** What the STAC documents are served as: JSON only, so any Accept header must take JSON. */
const STAC_MEDIA_TYPES = [JSON_TYPE, GEOJSON] as const;

/**
 * Refuses, with a 406 naming `offered`, an Accept header that accepts none of them (STAC API
 * documents have one representation; there is no `f` to choose another).
 */
function requireAcceptable(request: Request, offered: readonly string[] = STAC_MEDIA_TYPES): void {
  acceptableMediaType(request.headers.accept, offered);
}

/** Builds the router for the STAC item search and its queryables. */
export function createStacRouter({
  config,
  backend,
  queryables = new KnownQueryables(backend),
  generation,
}: StacRouteDependencies): Router {
  const router = Router();
  /** The search limits with the known properties, for the parsers. */
  const limitsWith = (properties: ReadonlySet<string>, sortable: ReadonlySet<string>) => ({
    ...config.limits,
    query: config.query,
    properties,
    sortable,
  });

  /** The parent ids of these records that are records of the catalogue. */
  const existingParents = createParentLookup(backend, generation);
  const parentsOf = (records: CoreRecord[], scope: SearchScope | undefined): Promise<Set<string>> =>
    existingParents(
      records.flatMap((record) => (record.parentId ? [record.parentId] : [])),
      scope,
    );

  const search = async (
    response: Response,
    baseUrl: string,
    method: SearchMethod,
    request: Record<string, unknown>,
    { query, fields }: StacSearch,
    href?: string,
  ): Promise<void> => {
    const found = await backend.search(query, { scope: response.req.searchScope });
    // Multilingual items in the language Accept-Language asks for, where they have it.
    const acceptLanguage = response.req.headers['accept-language'];
    const result = {
      ...found,
      records: localiseRecords(found.records, undefined, acceptLanguage),
    };
    response.vary('Accept-Language');
    const body = presentItemCollection(result, {
      baseUrl,
      href,
      parents: await parentsOf(result.records, response.req.searchScope),
      method,
      request,
      offset: query.offset,
      limit: query.limit,
      fields,
    });
    sendJson(response, body, GEOJSON);
  };

  /** The record served as the STAC Collection `collectionId` (not the catalogue's); else 404. */
  const findCollectionRecord = async (collectionId: string): Promise<CoreRecord> => {
    const record = await backend.get(collectionId);
    if (!record || !(await isStacCollection(backend, record))) {
      throw new NotFoundError(`No STAC Collection "${collectionId}"`);
    }
    return record;
  };

  /**
   * A STAC Collection by id: the catalogue collection, or a record served as one in the
   * negotiated language (with links to it in its other languages) and that language; else 404.
   */
  const findCollection = async (
    baseUrl: string,
    collectionId: string,
    lang: string | undefined,
    acceptLanguage: string | undefined,
  ): Promise<{ body: Record<string, unknown>; language?: string | undefined }> => {
    if (collectionId === COLLECTION_ID) {
      const extent = await backend.extent();
      return { body: presentStacCatalogueCollection(baseUrl, config.service, extent) };
    }
    const stored = await findCollectionRecord(collectionId);
    const negotiated = negotiateRecordLanguage(stored, lang, acceptLanguage);
    const self = stacCollectionUrl(baseUrl, stored.id);
    const alternates = languageAlternates(negotiated, 'application/json', (tag) =>
      withLang(self, tag),
    );
    const children = await findChildrenExtents(backend, [stored.id]);
    return {
      body: presentStacCollection(negotiated.record, baseUrl, children.get(stored.id), alternates),
      language: negotiated.language,
    };
  };

  router.get('/search', async (request, response) => {
    requireAcceptable(request);
    const parameters = request.query as Record<string, unknown>;
    const parsed = await queryables.parse((known, sortable) =>
      parseSearchGet(parameters, limitsWith(known, sortable)),
    );
    await search(response, request.publicBaseUrl, 'GET', parameters, parsed);
  });

  router.post('/search', async (request, response) => {
    requireAcceptable(request);
    const body: unknown = request.body;
    if (body === undefined && Number(request.headers['content-length'] ?? 0) > 0) {
      throw new InvalidParameterError('body', 'POST /search takes a JSON body (application/json)');
    }
    const parsed = await queryables.parse((known, sortable) =>
      parseSearchPost(body, limitsWith(known, sortable)),
    );
    const members = (body ?? {}) as Record<string, unknown>;
    await search(response, request.publicBaseUrl, 'POST', members, parsed);
  });

  // The catalogue collection as a STAC Collection at its Records URL (`f=stac`); any other
  // request for a Records collection is the Records router's.
  router.get('/collections/:collectionId', async (request, response, next) => {
    if (request.params.collectionId !== COLLECTION_ID || request.query.f !== 'stac') return next();
    requireAcceptable(request);
    const extent = await backend.extent();
    const body = presentStacCatalogueCollection(request.publicBaseUrl, config.service, extent);
    sendJson(response, body, 'application/json');
  });

  // The STAC API root: STAC clients start here (pystac-client, stac-api-validator).
  router.get('/stac', (request, response) => {
    requireAcceptable(request);
    rejectParameters(request);
    sendJson(
      response,
      presentStacApiLanding(request.publicBaseUrl, config.service),
      'application/json',
    );
  });

  router.get('/stac/conformance', (request, response) => {
    requireAcceptable(request);
    rejectParameters(request);
    sendJson(response, { conformsTo: STAC_API_CONFORMANCE_CLASSES }, 'application/json');
  });

  router.get('/stac/collections', async (request, response) => {
    requireAcceptable(request);
    const query = request.query as Record<string, unknown>;
    const search = await queryables.parse((known, sortable) =>
      parseCollectionsQuery(query, limitsWith(known, sortable)),
    );
    const { offset, limit, fields } = search;
    const baseUrl = request.publicBaseUrl;
    // The catalogue collection comes first in the whole list; a collection search (bbox,
    // datetime, q, filter) selects among the records served as collections only.
    const listsCatalogue = !isCollectionSearch(search);
    const recordOffset = listsCatalogue ? Math.max(0, offset - 1) : offset;
    const recordLimit = listsCatalogue && offset === 0 ? limit - 1 : limit;
    // Each collection in the language asked for where it has it (a list has no one language).
    const lang = langParameter(query);
    const acceptLanguage = request.headers['accept-language'];
    const present: PresentCollection = (record, children) =>
      presentStacCollection(
        localiseRecords([record], lang, acceptLanguage)[0] ?? record,
        baseUrl,
        children,
      );
    response.vary('Accept-Language');
    const found = await findStacCollections(
      backend,
      search,
      { offset: recordOffset, limit: Math.max(1, recordLimit) },
      present,
      { scope: request.searchScope },
    );
    const collections = [
      ...(listsCatalogue && offset === 0
        ? [presentStacCatalogueCollection(baseUrl, config.service, await backend.extent())]
        : []),
      ...found.collections.slice(0, recordLimit),
    ];
    const body = presentStacCollections(baseUrl, {
      collections: fields ? collections.map((c) => applyFields(c, fields)) : collections,
      total: found.total + (listsCatalogue ? 1 : 0),
      offset,
      limit,
      query: query as Record<string, string>,
    });
    sendJson(response, body, 'application/json');
  });

  router.get('/stac/collections/:collectionId', async (request, response) => {
    requireAcceptable(request);
    rejectParameters(request, ['lang']);
    const { collectionId } = request.params;
    const { body, language } = await findCollection(
      request.publicBaseUrl,
      collectionId,
      langParameter(request.query),
      request.headers['accept-language'],
    );
    // The catalogue collection names no language; a record's is negotiated.
    if (collectionId !== COLLECTION_ID) setContentLanguage(response, language);
    sendJson(response, body, 'application/json');
  });

  router.get('/stac/collections/:collectionId/items', async (request, response) => {
    requireAcceptable(request);
    const { collectionId } = request.params;
    if (collectionId !== COLLECTION_ID) await findCollectionRecord(collectionId);
    const parameters = request.query as Record<string, unknown>;
    const parsed = await queryables.parse((known, sortable) =>
      parseCollectionItemsGet(parameters, collectionId, COLLECTION_ID, {
        ...config.limits,
        properties: known,
        sortable,
      }),
    );
    const href = stacItemsUrl(request.publicBaseUrl, collectionId);
    await search(response, request.publicBaseUrl, 'GET', parameters, parsed, href);
  });

  router.get('/stac/collections/:collectionId/items/:itemId', async (request, response) => {
    requireAcceptable(request);
    rejectParameters(request, ['lang']);
    const { collectionId, itemId } = request.params;
    const stored = await backend.get(itemId);
    const member = stored && (collectionId === COLLECTION_ID || stored.parentId === collectionId);
    if (!stored || !member) {
      throw new NotFoundError(`No item "${itemId}" in the STAC Collection "${collectionId}"`);
    }
    const parents = await parentsOf([stored], request.searchScope);
    const negotiated = negotiateRecordLanguage(
      stored,
      langParameter(request.query),
      request.headers['accept-language'],
    );
    setContentLanguage(response, negotiated.language);
    const itemUrl = stacItemUrl(request.publicBaseUrl, stored, parents);
    const record: CoreRecord = {
      ...negotiated.record,
      links: [
        ...negotiated.record.links,
        ...languageAlternates(negotiated, GEOJSON, (tag) => withLang(itemUrl, tag)),
      ],
    };
    const item = presentStacItem(record, request.publicBaseUrl, parents);
    sendJson(response, item, GEOJSON);
  });

  // STAC API Aggregation extension: what can be aggregated, and aggregations of a search.
  router.get('/aggregations', (request, response) => {
    requireAcceptable(request);
    rejectParameters(request);
    sendJson(response, presentAggregationsList(request.publicBaseUrl), 'application/json');
  });

  const aggregate = async (
    request: Request,
    response: Response,
    method: SearchMethod,
    members: Record<string, unknown>,
  ): Promise<void> => {
    const parsed = await queryables.parse((known, sortable) =>
      parseAggregateRequest(members, method, limitsWith(known, sortable)),
    );
    const aggregations = await runAggregate(backend, parsed, config.query, {
      scope: request.searchScope,
    });
    const self = `${aggregateUrl(request.publicBaseUrl)}${method === 'GET' ? new URL(request.originalUrl, 'http://x').search : ''}`;
    sendJson(
      response,
      presentAggregationCollection(request.publicBaseUrl, aggregations, self),
      'application/json',
    );
  };

  router.get('/aggregate', async (request, response) => {
    requireAcceptable(request);
    await aggregate(request, response, 'GET', request.query);
  });

  router.post('/aggregate', async (request, response) => {
    requireAcceptable(request);
    const body: unknown = request.body ?? {};
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new InvalidParameterError('body', 'POST /aggregate takes a JSON object');
    }
    await aggregate(request, response, 'POST', body as Record<string, unknown>);
  });

  router.get('/queryables', async (request, response) => {
    requireAcceptable(request, [SCHEMA_JSON, JSON_TYPE]);
    const { properties } = await queryables.fresh();
    sendJson(
      response,
      presentQueryables(request.publicBaseUrl, properties),
      'application/schema+json',
    );
  });

  return router;
}
