/**
 * OGC API – Records routes under /catalogue: thin handlers that negotiate the encoding
 * (`f`, else Accept), parse, search and present as JSON, HTML or (for one record) XML.
 */
import { Router, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import { printCql2Json } from '../../../../shared/query/cql2/index.js';
import { QUERYABLES } from '../../../../shared/query/queryables.js';
import { KnownQueryables } from '../../common/known-queryables.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import { writeCswRecord } from '../../../../shared/records/writers/xml/index.js';
import type { SearchBackend, SearchOptions } from '../../../../shared/search/backend.js';
import type { CatalogueGeneration } from '../../../../shared/search/catalogue-generation.js';
import { presentCatalogueCollection } from '../../common/catalogue-collection.js';
import {
  FACETS_JSON,
  GEOJSON,
  JSON_LD,
  OPENAPI_JSON,
  SCHEMA_JSON,
} from '../../common/media-types.js';
import { COLLECTION_ID, recordUrl } from '../../common/urls.js';
import {
  renderOpenApiPage,
  renderCollectionPage,
  renderCollectionsPage,
  renderConformancePage,
  renderFacetsPage,
  renderItemsPage,
  renderLandingPage,
  renderRecordPage,
  renderSchemaPage,
  type PageRequest,
} from '../../html/pages.js';
import {
  presentCollections,
  presentConformance,
  presentFacetDefinitions,
  presentLandingPage,
  presentQueryables,
  presentSortables,
} from './capabilities.js';
import {
  facetBucketsAsked,
  parseFacetsParameter,
  parseFacetsQuery,
  parseFormatOnlyQuery,
  parseItemsPresentation,
  parseItemsQuery,
  parseOutputFormat,
  type FilterBody,
  type OutputFormat,
} from './parse.js';
import { countFacets } from './facets.js';
import { hasXmlSource, presentItems, presentRecord } from './present.js';
import {
  isDcatFormat,
  presentDcatItems,
  presentDcatRecord,
  type DcatDocument,
} from './present-dcat.js';
import { ITEMS_FORMATS, RECORD_FORMATS } from './openapi.js';
import {
  languageAlternates,
  localiseRecords,
  negotiateRecordLanguage,
  setContentLanguage,
  withLang,
} from '../../common/language.js';
import {
  presentSchemaOrgCatalogue,
  presentSchemaOrgPage,
  presentSchemaOrgRecord,
} from './schema-org.js';
import { isStacItemRequest } from '../stac/parse.js';
import { createParentLookup } from '../stac/collections.js';
import { presentStacItem } from '../stac/present.js';

export interface RecordsRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  /** The catalogue generation the parent lookups are remembered for (none: always searched). */
  generation?: CatalogueGeneration | undefined;
  /**
   * The OpenAPI document served at /catalogue/openapi, for a public base URL. Passed in by the
   * app: the document reads the parsers' tables, so this folder does not import it.
   */
  openApiDocument: (publicBaseUrl: string) => unknown;
  /**
   * The conformance classes of the whole API (every protocol's), declared at /conformance and
   * on the landing page. Passed in by the app, which assembles them from the protocol modules.
   */
  conformance: readonly string[];
  /** The properties filters may name beyond the core queryables (one per app; else its own). */
  queryables?: KnownQueryables;
}

const JSON_OR_HTML = ['json', 'html'] as const;
/** What the items and one record are offered in; `stac` (one record) is the STAC router's. */
const ITEMS_OFFERED = ITEMS_FORMATS;
const RECORD_OFFERED = RECORD_FORMATS.filter(
  (format): format is Exclude<typeof format, 'stac'> => format !== 'stac',
);
/**
 * The most records of one DCAT (Turtle, RDF/XML, JSON-LD) or schema.org page: 100 records
 * took 120-230 ms to build at load average 17 on two cores (docs/decisions/dcat-ap.md), so a
 * page of LIMIT_MAX (1,000) would hold the event loop for over a second.
 */
export const RDF_PAGE_LIMIT = 100;
const SORTABLES = QUERYABLES.filter((queryable) => queryable.sortable).map((q) => q.name);

/** Chooses JSON or HTML for a request (`f`, else Accept) and marks the response as negotiated. */
function negotiate<T extends OutputFormat>(
  request: Request,
  response: Response,
  offered: readonly T[],
): T {
  response.vary('Accept');
  return parseOutputFormat(request.query, request.headers.accept, offered);
}

/** As negotiate, for resources that take no parameter but `f`. */
function negotiateFormatOnly(request: Request, response: Response): 'json' | 'html' {
  const format = negotiate(request, response, JSON_OR_HTML);
  parseFormatOnlyQuery(request.query);
  return format;
}

function sendJson(response: Response, body: unknown, type = 'application/json'): void {
  response.type(type).send(JSON.stringify(body));
}

function sendDcat(response: Response, document: DcatDocument): void {
  response.type(document.mediaType).send(document.body);
}

function sendHtml(response: Response, html: string): void {
  response.type('text/html; charset=utf-8').send(html);
}

function stringParameters(query: Request['query']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/** Builds the router for the landing page, conformance, collections and items. */
export function createRecordsRouter({
  config,
  backend,
  openApiDocument,
  conformance,
  queryables = new KnownQueryables(backend),
  generation,
}: RecordsRouteDependencies): Router {
  const router = Router();
  const existingParents = createParentLookup(backend, generation);
  const collectionPath = `/collections/${COLLECTION_ID}`;
  const pageRequest = (request: Request): PageRequest => ({
    baseUrl: request.publicBaseUrl,
    service: config.service,
    map: config.map,
  });

  /** Serves a document as JSON (of `type`) or, when negotiated, as its HTML page. */
  function serveDocument<D>(
    path: string,
    present: (request: Request) => D | Promise<D>,
    renderPage: (document: D, page: PageRequest) => string,
    type = 'application/json',
  ): void {
    router.get(path, async (request, response) => {
      const format = negotiateFormatOnly(request, response);
      const document = await present(request);
      if (format === 'html') return sendHtml(response, renderPage(document, pageRequest(request)));
      sendJson(response, document, type);
    });
  }

  serveDocument(
    '/',
    (request) => presentLandingPage(request.publicBaseUrl, config.service, conformance),
    (document, page) =>
      renderLandingPage(
        document,
        page,
        presentSchemaOrgCatalogue({ baseUrl: page.baseUrl, service: config.service }),
      ),
  );

  router.get('/openapi', (request, response) => {
    const format = negotiateFormatOnly(request, response);
    if (format === 'html') return sendHtml(response, renderOpenApiPage(pageRequest(request)));
    sendJson(response, openApiDocument(request.publicBaseUrl), OPENAPI_JSON);
  });

  serveDocument('/conformance', () => presentConformance(conformance), renderConformancePage);
  serveDocument(
    '/collections',
    async (request) =>
      presentCollections(request.publicBaseUrl, config.service, await backend.extent()),
    renderCollectionsPage,
  );
  serveDocument(
    collectionPath,
    async (request) =>
      presentCatalogueCollection(request.publicBaseUrl, config.service, await backend.extent()),
    renderCollectionPage,
  );
  serveDocument(
    `${collectionPath}/queryables`,
    async (request) =>
      presentQueryables(request.publicBaseUrl, (await queryables.fresh()).properties),
    (document, page) => renderSchemaPage(document, page, 'queryables'),
    SCHEMA_JSON,
  );
  serveDocument(
    `${collectionPath}/sortables`,
    async (request) =>
      presentSortables(request.publicBaseUrl, (await queryables.fresh()).properties),
    (document, page) => renderSchemaPage(document, page, 'sortables'),
    SCHEMA_JSON,
  );
  serveDocument(
    `${collectionPath}/facets`,
    (request) => presentFacetDefinitions(request.publicBaseUrl),
    renderFacetsPage,
    FACETS_JSON,
  );

  /** Searches and presents items; a POSTed filter is carried into paging links as cql2-json. */
  async function sendItems(
    request: Request,
    response: Response,
    filter?: FilterBody,
  ): Promise<void> {
    const format = negotiate(request, response, ITEMS_OFFERED);
    const parsed = await queryables.parse((properties, sortable) =>
      parseItemsQuery(
        request.query,
        { ...config.limits, query: config.query, properties, sortable },
        filter,
      ),
    );
    // RDF and schema.org pages cost several times a GeoJSON page to build, all on the event
    // loop: their pages hold at most RDF_PAGE_LIMIT records, and their paging links say so.
    const query =
      format === 'jsonld' || isDcatFormat(format)
        ? { ...parsed, limit: Math.min(parsed.limit, RDF_PAGE_LIMIT) }
        : parsed;
    const presentation = parseItemsPresentation(request.query);
    let facets = parseFacetsQuery(request.query, config.query);
    // The HTML search page shows resource types and keywords beside the results; schema.org and
    // DCAT pages have no place for facets and count none.
    if (format === 'html' && request.query.facets === undefined) {
      facets = parseFacetsParameter('type:10,keywords:15');
    }
    if (format === 'jsonld' || isDcatFormat(format)) facets = [];
    // The search and its facet counts share the request's scope (one deadline, one lane place).
    const options: SearchOptions = {
      scope: request.searchScope,
      facets: facets.length,
      facetBuckets: facetBucketsAsked(facets),
    };
    const [found, counts] = await Promise.all([
      backend.search(query, options),
      countFacets(backend, query, facets, config.query, options),
    ]);
    // Multilingual records in the language `lang` (else Accept-Language) asks for, where they
    // have it; each keeps its own language otherwise.
    const result = {
      ...found,
      records: localiseRecords(
        found.records,
        presentation.lang,
        request.headers['accept-language'],
      ),
    };
    response.vary('Accept-Language');
    const linkQuery = stringParameters(request.query);
    if (filter && query.filter) {
      // The body's filter (CQL2 JSON, or a STAC-style {"filter"} in either encoding) as CQL2 JSON.
      linkQuery.filter = JSON.stringify(printCql2Json(query.filter));
      linkQuery['filter-lang'] = 'cql2-json';
    }
    if (isDcatFormat(format)) {
      const page = { baseUrl: request.publicBaseUrl, query: linkQuery, offset: query.offset };
      const context = { ...page, limit: query.limit, timeStamp: new Date().toISOString() };
      return sendDcat(response, presentDcatItems(result, context, config.service, format));
    }
    if (format === 'jsonld') {
      const page = presentSchemaOrgPage(result, {
        baseUrl: request.publicBaseUrl,
        service: config.service,
        query: linkQuery,
        offset: query.offset,
        limit: query.limit,
      });
      response.set('Link', page.linkHeader);
      return sendJson(response, page.document, JSON_LD);
    }
    const document = presentItems(
      result,
      {
        baseUrl: request.publicBaseUrl,
        query: linkQuery,
        offset: query.offset,
        limit: query.limit,
        timeStamp: new Date().toISOString(),
      },
      counts,
      format === 'json' ? presentation : {},
    );
    if (format === 'html') {
      return sendHtml(
        response,
        renderItemsPage(document, {
          ...pageRequest(request),
          query: linkQuery,
          sortables: SORTABLES,
          offset: query.offset,
        }),
      );
    }
    response.set('Content-Crs', `<${presentation.crs}>`);
    sendJson(response, document, GEOJSON);
  }

  router.get(`${collectionPath}/items`, async (request, response) => {
    await sendItems(request, response);
  });

  // A CQL2 JSON filter as the body (or a STAC-style {"filter": …}); every other parameter
  // comes from the query string. application/query-cql-json is pygeoapi's media type for it.
  router.post(`${collectionPath}/items`, async (request, response) => {
    if (
      !request.is(['application/json', 'application/query-cql-json']) ||
      request.body === undefined
    ) {
      throw new InvalidParameterError(
        'body',
        'POST …/items needs a CQL2 JSON filter as the request body (Content-Type: application/json or application/query-cql-json)',
      );
    }
    await sendItems(request, response, { json: request.body as unknown });
  });

  router.get(`${collectionPath}/items/:recordId`, async (request, response) => {
    // STAC API: `f=stac` (or Accept: application/geo+json with a STAC profile) → STAC Item.
    const stac = isStacItemRequest(request.query.f, request.headers.accept);
    const format = stac ? 'json' : negotiate(request, response, RECORD_OFFERED);
    const presentation = parseItemsPresentation(request.query);
    const stored = await backend.get(request.params.recordId);
    if (!stored) throw new NotFoundError(`No record with id "${request.params.recordId}"`);
    // The source document (f=xml) carries every language; the other encodings show one.
    const negotiated = negotiateRecordLanguage(
      stored,
      format === 'xml' ? undefined : presentation.lang,
      format === 'xml' ? undefined : request.headers['accept-language'],
    );
    setContentLanguage(response, negotiated.language);
    const query = request.originalUrl.indexOf('?');
    const ownUrl = `${recordUrl(request.publicBaseUrl, stored.id)}${query < 0 ? '' : request.originalUrl.slice(query)}`;
    // The RDF encodings carry every language as tagged literals, and must describe one graph
    // whichever encoding is asked: no links to this encoding in other languages there.
    const alternates = isDcatFormat(format)
      ? []
      : languageAlternates(negotiated, format === 'html' ? 'text/html' : GEOJSON, (tag) =>
          withLang(ownUrl, tag),
        );
    const record: CoreRecord = {
      ...negotiated.record,
      links: [...negotiated.record.links, ...alternates],
    };
    if (stac) {
      const parents = await existingParents(
        record.parentId ? [record.parentId] : [],
        request.searchScope,
      );
      return sendJson(response, presentStacItem(record, request.publicBaseUrl, parents), GEOJSON);
    }
    if (format === 'xml') {
      // The stored source document verbatim when it was XML; else a CSW 3.0 full csw:Record.
      if (hasXmlSource(stored)) {
        return void response.type(record.source.mediaType).send(record.source.content);
      }
      return void response
        .type('application/xml')
        .send(writeCswRecord(record, { version: '3.0.0', elementSet: 'full' }));
    }
    if (isDcatFormat(format)) {
      return sendDcat(response, presentDcatRecord(record, request.publicBaseUrl, format));
    }
    const schemaOrg = (): Record<string, unknown> =>
      presentSchemaOrgRecord(record, { baseUrl: request.publicBaseUrl, service: config.service });
    if (format === 'jsonld') return sendJson(response, schemaOrg(), JSON_LD);
    if (format === 'html') {
      const page = presentRecord(record, request.publicBaseUrl);
      return sendHtml(response, renderRecordPage(page, pageRequest(request), schemaOrg()));
    }
    response.set('Content-Crs', `<${presentation.crs}>`);
    sendJson(response, presentRecord(record, request.publicBaseUrl, presentation), GEOJSON);
  });

  router.get('/collections/:collectionId{/*rest}', (request) => {
    throw new NotFoundError(
      `No collection "${request.params.collectionId}"; the catalogue is "${COLLECTION_ID}"`,
    );
  });

  return router;
}
