/**
 * The HTML pages of the catalogue: each takes the JSON document its endpoint serves and
 * renders it through a template. Pure apart from reading templates.
 */
import type { MapConfig, ServiceMetadata } from '../../../shared/config/index.js';
import { renderTemplate } from './render.js';
import {
  buildExtentView,
  buildFootprint,
  buildMapGeometry,
  buildMapView,
  buildPage,
  buildRecordView,
  buildResultView,
  buildSearchForm,
  describeMediaType,
  toHtmlHref,
  type Footprint,
  type ViewLink,
} from './views.js';

/** What every page needs from the request. */
export interface PageRequest {
  baseUrl: string;
  service: Pick<ServiceMetadata, 'title' | 'description'>;
  /** The maps' background (MAP_TILE_*); absent: the offline world outline. */
  map?: MapConfig;
}

type Document = Record<string, unknown>;

function linksOf(document: Document): ViewLink[] {
  return Array.isArray(document.links) ? (document.links as ViewLink[]) : [];
}

const collectionCrumb = (baseUrl: string) => ({
  title: 'Collections',
  href: `${baseUrl}/catalogue/collections?f=html`,
});
const catalogueCrumb = (baseUrl: string, title: string) => ({
  title,
  href: `${baseUrl}/catalogue/collections/metadata:main?f=html`,
});

/** The landing page. */
export function renderLandingPage(document: Document, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: request.service.title,
    links: document.links,
    section: 'home',
  });
  page.breadcrumbs = [];
  const links = linksOf(document).map((link) => ({
    ...link,
    typeName: describeMediaType(link.type),
  }));
  return renderTemplate('landing.njk', { page, document, links });
}

/** The conformance declaration. */
export function renderConformancePage(document: Document, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'Conformance classes',
    links: [
      {
        rel: 'self',
        type: 'application/json',
        href: `${request.baseUrl}/catalogue/conformance?f=json`,
      },
    ],
    breadcrumbs: [{ title: 'Conformance' }],
    section: 'conformance',
  });
  return renderTemplate('conformance.njk', { page, classes: document.conformsTo });
}

/** The collections list. */
export function renderCollectionsPage(document: Document, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'Collections',
    links: document.links,
    breadcrumbs: [{ title: 'Collections' }],
    section: 'collections',
  });
  const collections = (document.collections as Document[]).map((collection) => ({
    ...collection,
    href: `${request.baseUrl}/catalogue/collections/${encodeURIComponent(String(collection.id))}?f=html`,
  }));
  return renderTemplate('collections.njk', { page, collections });
}

/** One collection (the catalogue). */
export function renderCollectionPage(document: Document, request: PageRequest): string {
  const title = String(document.title ?? document.id);
  const page = buildPage({
    ...request,
    title,
    links: document.links,
    breadcrumbs: [collectionCrumb(request.baseUrl), { title }],
    section: 'collections',
  });
  const links = linksOf(document)
    .filter((link) => link.rel !== 'self' && link.rel !== 'alternate')
    .map((link) => ({ ...link, typeName: describeMediaType(link.type) }));
  return renderTemplate('collection.njk', {
    page,
    collection: document,
    extent: buildExtentView(document.extent),
    links,
  });
}

/** A queryables or sortables document (JSON Schema). */
export function renderSchemaPage(
  document: Document,
  request: PageRequest,
  kind: 'queryables' | 'sortables',
): string {
  const title = kind === 'queryables' ? 'Queryables' : 'Sortables';
  const page = buildPage({
    ...request,
    title,
    links: [
      {
        rel: 'self',
        type: 'application/schema+json',
        href: `${String(document.$id)}?f=json`,
      },
    ],
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      { title },
    ],
    section: 'collections',
  });
  const properties = Object.entries(document.properties as Record<string, Document>).map(
    ([name, schema]) => ({
      name,
      title: schema.title,
      type: schema.type ?? '',
      format: schema.format ?? '',
      role: schema['x-ogc-role'] ?? '',
    }),
  );
  return renderTemplate('schema.njk', { page, kind, document, properties });
}

/** The facets definitions document. */
export function renderFacetsPage(document: Document, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'Facets',
    links: document.links,
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      { title: 'Facets' },
    ],
    section: 'collections',
  });
  const items = `${request.baseUrl}/catalogue/collections/metadata:main/items`;
  const facets = Object.entries(document.facets as Record<string, Document>).map(
    ([name, facet]) => ({
      name,
      title: facet.title,
      type: facet.type,
      href: `${items}?f=html&facets=${encodeURIComponent(name)}`,
    }),
  );
  return renderTemplate('facets.njk', { page, facets });
}

interface FacetBody {
  property: string;
  buckets: { value: string; count: number }[];
}

/** The search page: form, map, results, facets and paging. */
export function renderItemsPage(
  document: Document,
  request: PageRequest & { query: Record<string, string>; sortables: string[] },
): string {
  const page = buildPage({
    ...request,
    title: 'Search',
    links: document.links,
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      { title: 'Search' },
    ],
    section: 'search',
  });
  const features = (document.features as Document[]) ?? [];
  const recordHref = (id: string) =>
    `${request.baseUrl}/catalogue/collections/metadata:main/items/${encodeURIComponent(id)}?f=html`;
  const results = features.map((feature) =>
    buildResultView(feature as never, recordHref(String(feature.id))),
  );
  const footprints: Footprint[] = features
    .map((feature) => ({
      id: String(feature.id),
      title: results.find((result) => result.id === String(feature.id))?.title ?? '',
      href: recordHref(String(feature.id)),
      geometry: buildMapGeometry(buildFootprint(feature)),
    }))
    .filter((footprint) => footprint.geometry !== null);
  const link = (rel: string) => linksOf(document).find((candidate) => candidate.rel === rel);
  const next = link('next');
  const prev = link('prev');
  const offset = Number(new URL(String(link('self')?.href)).searchParams.get('offset') ?? 0);
  const itemsUrl = `${request.baseUrl}/catalogue/collections/metadata:main/items`;
  const facetLink = (name: string, value: string) => {
    const parameters = new URLSearchParams({ ...request.query, f: 'html' });
    parameters.delete('offset');
    parameters.set(name, value);
    return `${itemsUrl}?${parameters.toString()}`;
  };
  const facets = Object.entries((document.facets as Record<string, FacetBody>) ?? {}).map(
    ([name, facet]) => ({
      name,
      buckets: facet.buckets.map((bucket) => ({
        ...bucket,
        href: facetLink(facet.property, bucket.value),
        active: request.query[facet.property] === bucket.value,
      })),
    }),
  );
  return renderTemplate('items.njk', {
    page,
    form: buildSearchForm(request.query),
    action: itemsUrl,
    results,
    footprints,
    map: buildMapView(page.staticPath, request.map),
    facets,
    sortables: request.sortables,
    matched: document.numberMatched,
    returned: document.numberReturned,
    first: features.length > 0 ? offset + 1 : 0,
    last: offset + features.length,
    next: next ? toHtmlHref(next.href) : undefined,
    prev: prev ? toHtmlHref(prev.href) : undefined,
    clear: `${itemsUrl}?f=html`,
  });
}

/** One record. */
export function renderRecordPage(document: Document, request: PageRequest): string {
  const record = buildRecordView(document as never);
  const page = buildPage({
    ...request,
    title: record.title,
    links: document.links,
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      {
        title: 'Records',
        href: `${request.baseUrl}/catalogue/collections/metadata:main/items?f=html`,
      },
      { title: record.title },
    ],
    section: 'search',
  });
  return renderTemplate('record.njk', {
    page,
    record,
    map: buildMapView(page.staticPath, request.map),
  });
}

/** The API documentation: Swagger UI over the OpenAPI document, from swagger-ui-dist. */
export function renderOpenApiPage(request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'API definition',
    links: [
      {
        rel: 'self',
        type: 'application/vnd.oai.openapi+json;version=3.0',
        href: `${request.baseUrl}/catalogue/openapi?f=json`,
      },
    ],
    breadcrumbs: [{ title: 'API' }],
    section: 'api',
  });
  return renderTemplate('openapi.njk', { page, specUrl: `${page.root}/openapi?f=json` });
}

/** An error page (4xx/5xx) in the HTML interface. */
export function renderErrorPage(
  error: { status: number; code: string; description: string },
  request: PageRequest,
): string {
  const title =
    error.status === 404 ? 'Not found' : error.status >= 500 ? 'Server error' : 'Bad request';
  const page = buildPage({ ...request, title, links: [], breadcrumbs: [{ title }] });
  return renderTemplate('error.njk', { page, error });
}
