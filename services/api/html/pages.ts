/**
 * The HTML pages of the catalogue: each takes the JSON document its endpoint serves and
 * renders it through a template. Pure apart from reading templates.
 */
import type { MapConfig, ServiceMetadata } from '../../../shared/config/index.js';
import type { CollectionDocument } from '../common/catalogue-collection.js';
import type {
  CollectionsDocument,
  ConformanceDocument,
  FacetsDocument,
  HistogramFacetCounts,
  ItemsPage,
  LandingPage,
  RecordFeature,
  SchemaDocument,
} from '../common/documents.js';
import {
  catalogueUrl,
  collectionsUrl,
  collectionUrl,
  itemsUrl,
  openApiUrl,
  recordUrl,
} from '../common/urls.js';
import { serializeJsonLdForScript } from './json-ld.js';
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
} from './views.js';

/** What every page needs from the request. */
export interface PageRequest {
  baseUrl: string;
  service: Pick<ServiceMetadata, 'title' | 'description'>;
  /** The maps' background (MAP_TILE_*); absent: the offline world outline. */
  map?: MapConfig;
}

const collectionCrumb = (baseUrl: string) => ({
  title: 'Collections',
  href: `${collectionsUrl(baseUrl)}?f=html`,
});
const catalogueCrumb = (baseUrl: string, title: string) => ({
  title,
  href: `${collectionUrl(baseUrl)}?f=html`,
});

/** The landing page; `jsonLd`: the catalogue's structured data (schema.org DataCatalog). */
export function renderLandingPage(
  document: LandingPage,
  request: PageRequest,
  jsonLd?: unknown,
): string {
  const page = buildPage({
    ...request,
    title: request.service.title,
    links: document.links,
    section: 'home',
  });
  page.breadcrumbs = [];
  if (jsonLd !== undefined) page.jsonLd = serializeJsonLdForScript(jsonLd);
  const links = document.links.map((link) => ({
    ...link,
    typeName: describeMediaType(link.type),
  }));
  return renderTemplate('landing.njk', { page, document, links });
}

/** The conformance declaration. */
export function renderConformancePage(document: ConformanceDocument, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'Conformance classes',
    links: [
      {
        rel: 'self',
        type: 'application/json',
        href: `${catalogueUrl(request.baseUrl)}/conformance?f=json`,
      },
    ],
    breadcrumbs: [{ title: 'Conformance' }],
    section: 'conformance',
  });
  return renderTemplate('conformance.njk', { page, classes: document.conformsTo });
}

/** The collections list. */
export function renderCollectionsPage(document: CollectionsDocument, request: PageRequest): string {
  const page = buildPage({
    ...request,
    title: 'Collections',
    links: document.links,
    breadcrumbs: [{ title: 'Collections' }],
    section: 'collections',
  });
  const collections = document.collections.map((collection) => ({
    ...collection,
    href: `${collectionsUrl(request.baseUrl)}/${encodeURIComponent(collection.id)}?f=html`,
  }));
  return renderTemplate('collections.njk', { page, collections });
}

/** One collection (the catalogue). */
export function renderCollectionPage(document: CollectionDocument, request: PageRequest): string {
  const title = document.title;
  const page = buildPage({
    ...request,
    title,
    links: document.links,
    breadcrumbs: [collectionCrumb(request.baseUrl), { title }],
    section: 'collections',
  });
  const links = document.links
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
  document: SchemaDocument,
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
        href: `${document.$id}?f=json`,
      },
    ],
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      { title },
    ],
    section: 'collections',
  });
  const properties = Object.entries(document.properties).map(([name, schema]) => ({
    name,
    title: schema.title,
    type: Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? ''),
    format: schema.format ?? '',
    role: schema['x-ogc-role'] ?? '',
  }));
  return renderTemplate('schema.njk', { page, kind, document, properties });
}

/** The facets definitions document. */
export function renderFacetsPage(document: FacetsDocument, request: PageRequest): string {
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
  const items = itemsUrl(request.baseUrl);
  const facets = Object.entries(document.facets).map(([name, facet]) => ({
    name,
    title: facet.title,
    type: facet.type,
    href: `${items}?f=html&facets=${encodeURIComponent(name)}`,
  }));
  return renderTemplate('facets.njk', { page, facets });
}

type HistogramBucket = HistogramFacetCounts['buckets'][number];

/** How a histogram facet's bucket reads: its calendar period, or its numeric band. */
export function histogramBucketLabel(bucket: HistogramBucket, interval?: string): string {
  const { min, max } = bucket;
  if (typeof min === 'string') {
    switch (interval) {
      case 'year':
        return min.slice(0, 4);
      case 'quarter':
        return `${min.slice(0, 4)}-Q${Math.floor(Number(min.slice(5, 7)) / 3) + 1}`;
      case 'month':
        return min.slice(0, 7);
      case 'week':
        return `week of ${min.slice(0, 10)}`;
      case 'hour':
        return `${min.slice(0, 10)} ${min.slice(11, 16)}`;
      default:
        return min.slice(0, 10);
    }
  }
  if (min !== undefined && max !== undefined) return `${min} to under ${String(max)}`;
  if (min !== undefined) return `${min} and above`;
  if (max !== undefined) return `under ${String(max)}`;
  return bucket.value;
}

/** The CQL2 text condition that matches the records of a histogram facet's bucket. */
export function histogramBucketCondition(property: string, bucket: HistogramBucket): string {
  const literal = (value: string | number) =>
    typeof value === 'number' ? String(value) : `TIMESTAMP('${value.replace(/'/g, "''")}')`;
  const parts: string[] = [];
  if (bucket.min !== undefined) parts.push(`${property} >= ${literal(bucket.min)}`);
  if (bucket.max !== undefined) parts.push(`${property} < ${literal(bucket.max)}`);
  return parts.join(' AND ');
}

/** What the search page needs besides the page of items: the request's query and paging. */
export interface ItemsPageRequest extends PageRequest {
  /** The request's parameters, kept in the form and the facet links. */
  query: Record<string, string>;
  sortables: string[];
  /** Where this page starts in the results. */
  offset: number;
}

/** The search page: form, map, results, facets and paging. */
export function renderItemsPage(document: ItemsPage, request: ItemsPageRequest): string {
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
  const features = document.features;
  const recordHref = (id: string) => `${recordUrl(request.baseUrl, id)}?f=html`;
  const results = features.map((feature) => buildResultView(feature, recordHref(feature.id)));
  const footprints: Footprint[] = features
    .map((feature) => ({
      id: feature.id,
      title: results.find((result) => result.id === feature.id)?.title ?? '',
      href: recordHref(feature.id),
      geometry: buildMapGeometry(buildFootprint(feature)),
    }))
    .filter((footprint) => footprint.geometry !== null);
  const link = (rel: string) => document.links.find((candidate) => candidate.rel === rel);
  const next = link('next');
  const prev = link('prev');
  const { offset } = request;
  const items = itemsUrl(request.baseUrl);
  const facetLink = (name: string, value: string) => {
    const parameters = new URLSearchParams({ ...request.query, f: 'html' });
    parameters.delete('offset');
    parameters.set(name, value);
    return `${items}?${parameters.toString()}`;
  };
  const filterLink = (condition: string) => {
    if (request.query['filter-lang'] === 'cql2-json') return undefined;
    const parameters = new URLSearchParams({ ...request.query, f: 'html' });
    parameters.delete('offset');
    const filter = request.query.filter;
    parameters.set('filter', filter ? `(${filter}) AND ${condition}` : condition);
    return `${items}?${parameters.toString()}`;
  };
  const facets = Object.entries(document.facets ?? {}).map(([name, facet]) => ({
    name,
    buckets:
      facet.type === 'term'
        ? facet.buckets.map((bucket) => ({
            label: bucket.value,
            count: bucket.count,
            href: facetLink(facet.property, bucket.value),
            active: request.query[facet.property] === bucket.value,
          }))
        : facet.buckets.map((bucket) => ({
            label: histogramBucketLabel(bucket, facet.interval),
            count: bucket.count,
            href: filterLink(histogramBucketCondition(facet.property, bucket)),
            active: false,
          })),
  }));
  return renderTemplate('items.njk', {
    page,
    form: buildSearchForm(request.query),
    action: items,
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
    clear: `${items}?f=html`,
  });
}

/** One record; `jsonLd`: its structured data (schema.org), embedded in the page's head. */
export function renderRecordPage(
  document: RecordFeature,
  request: PageRequest,
  jsonLd?: unknown,
): string {
  const record = buildRecordView(document);
  const page = buildPage({
    ...request,
    title: record.title,
    links: document.links,
    breadcrumbs: [
      collectionCrumb(request.baseUrl),
      catalogueCrumb(request.baseUrl, request.service.title),
      {
        title: 'Records',
        href: `${itemsUrl(request.baseUrl)}?f=html`,
      },
      { title: record.title },
    ],
    section: 'search',
  });
  if (jsonLd !== undefined) page.jsonLd = serializeJsonLdForScript(jsonLd);
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
        href: `${openApiUrl(request.baseUrl)}?f=json`,
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
