/**
 * OGC API – Records encodings and resources over HTTP: every endpoint in JSON and HTML (and a
 * record in XML), `f` and Accept negotiation, the landing page's links (each followed), the
 * collection, queryables, sortables and facets documents, record links, every 400 and 404 in
 * JSON and HTML, escaping, and HTML pages that reference nothing outside the server.
 */
import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { QUERYABLES } from '../../shared/query/queryables.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const ROOT = '/catalogue';
const COLLECTION = `${ROOT}/collections/metadata:main`;
const ITEMS = `${COLLECTION}/items`;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const OGC_REL = 'http://www.opengis.net/def/rel/ogc/1.0';

/**
 * A filter of each CQL2 class the search engines cannot decide on their index alone: every
 * backend declares the class and answers (the engines decide these in Node, refine-search.ts).
 */
const REFINED_CLASSES: readonly [string, string][] = [
  ['spatial-functions', 'S_CROSSES(geometry, LINESTRING(-170 -80, 170 80))'],
  ['property-property', 'updated > created'],
  ['arithmetic', 'cloudCover + 1 > 30'],
];

interface Link {
  rel: string;
  type?: string;
  href: string;
}

const XML_RECORD = `<?xml version="1.0" encoding="UTF-8"?>
<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:dct="http://purl.org/dc/terms/" xmlns:ows="http://www.opengis.net/ows">
  <dc:identifier>urn:test:xml-record</dc:identifier>
  <dc:type>dataset</dc:type>
  <dc:title>An XML sourced record</dc:title>
  <dct:abstract>Stored as Dublin Core.</dct:abstract>
  <ows:BoundingBox crs="urn:ogc:def:crs:EPSG::4326">
    <ows:LowerCorner>44 5</ows:LowerCorner>
    <ows:UpperCorner>49 17</ows:UpperCorner>
  </ows:BoundingBox>
</csw:Record>`;

const HOSTILE_RECORD = {
  id: 'hostile-record',
  type: 'Feature',
  conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
  time: { date: '2020-05-01' },
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [10, 40],
        [12, 40],
        [12, 42],
        [10, 42],
        [10, 40],
      ],
    ],
  },
  properties: {
    type: 'dataset',
    title: '<script>alert("title")</script> Hostile',
    description: 'An <img src=x onerror=alert(1)> description',
    keywords: ['<b>bold</b>'],
  },
  links: [{ href: 'javascript:alert(1)', rel: 'related', title: 'click me' }],
};

describe(`OGC API – Records encodings and resources over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(120);
    const summary = await ingestDocuments(test.backend, [
      { name: 'xml-record.xml', content: XML_RECORD },
      { name: 'hostile.json', content: JSON.stringify(HOSTILE_RECORD) },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  const get = (path: string, accept?: string) => {
    const call = request(test.app).get(path);
    return accept === undefined ? call : call.set('Accept', accept);
  };
  const pathOf = (href: string) => {
    const url = new URL(href);
    return url.pathname + url.search;
  };
  const linksOf = (body: { links: Link[] }, rel: string) =>
    body.links.filter((link) => link.rel === rel);

  /** The JSON resources and their media types. */
  const RESOURCES: [string, RegExp][] = [
    [ROOT, /^application\/json/],
    [`${ROOT}/openapi`, /^application\/vnd\.oai\.openapi\+json; ?version=3\.0/],
    [`${ROOT}/conformance`, /^application\/json/],
    [`${ROOT}/collections`, /^application\/json/],
    [COLLECTION, /^application\/json/],
    [`${COLLECTION}/queryables`, /^application\/schema\+json/],
    [`${COLLECTION}/sortables`, /^application\/schema\+json/],
    [`${COLLECTION}/facets`, /^application\/facets\+json/],
    [ITEMS, /^application\/geo\+json/],
    [`${ITEMS}/urn%3Atest%3Axml-record`, /^application\/geo\+json/],
  ];

  describe('formats and negotiation', () => {
    for (const [path, type] of RESOURCES) {
      it(`${path}: JSON by default, for f=json and for Accept: application/json`, async () => {
        for (const response of [
          await get(path),
          await get(`${path}?f=json`),
          await get(path, 'application/json'),
          await get(path, '*/*'),
        ]) {
          expect(response.status).to.equal(200);
          expect(response.headers['content-type']).to.match(type);
          expect(response.body).to.be.an('object');
        }
      });

      it(`${path}: HTML for f=html and for a browser's Accept header`, async () => {
        for (const response of [await get(`${path}?f=html`), await get(path, BROWSER_ACCEPT)]) {
          expect(response.status).to.equal(200);
          expect(response.headers['content-type']).to.match(/^text\/html/);
          expect(response.text).to.match(/^<!doctype html>/);
          // Autodiscovery: the API definition and the catalogue, from every page.
          expect(response.text).to.match(
            /<link rel="service-desc" type="application\/vnd.oai.openapi\+json;version=3.0" href="[^"]+\/catalogue\/openapi\?f=json">/,
          );
          expect(response.text).to.contain(`rel="${OGC_REL}/ogc-catalog"`);
        }
        const negotiated = await get(path, BROWSER_ACCEPT);
        expect(negotiated.headers.vary).to.match(/Accept/);
      });

      it(`${path}: an unsupported f is a 400 naming it, in JSON`, async () => {
        const response = await get(`${path}?f=pdf`).expect(400).expect('Content-Type', /json/);
        expect(response.body).to.have.all.keys('code', 'description');
        expect(response.body.description).to.contain('f=pdf');
      });
    }

    it('f beats the Accept header, and quality values rank the Accept header', async () => {
      await get(`${ROOT}?f=json`, 'text/html').expect('Content-Type', /json/);
      await get(`${ROOT}?f=html`, 'application/json').expect('Content-Type', /html/);
      await get(ROOT, 'text/html;q=0.5, application/json').expect('Content-Type', /json/);
      await get(ROOT, 'application/json;q=0.5, text/html').expect('Content-Type', /html/);
    });

    it('an Accept header naming nothing offered is a 406 naming what is offered, in JSON', async () => {
      for (const [path] of RESOURCES) {
        for (const accept of ['image/png', 'image/*, application/pdf;q=0.5']) {
          const response = await get(path, accept).expect(406).expect('Content-Type', /json/);
          expect(response.body.code, path).to.equal('UNSUPPORTED_FORMAT');
          expect(response.body.description, path).to.contain(`Accept: ${accept}`);
          expect(response.body.description, path).to.contain('application/json');
          expect(response.body.description, path).to.contain('f=html');
        }
      }
      // The items and a record name their RDF encodings too; only a record names XML.
      const items = await get(ITEMS, 'image/png').expect(406);
      expect(items.body.description).to.contain('text/turtle');
      expect(items.body.description).to.contain('f=ttl');
      expect(items.body.description).not.to.contain('f=xml');
      const record = await get(`${ITEMS}/hostile-record`, 'image/png').expect(406);
      expect(record.body.description).to.contain('application/rdf+xml');
      expect(record.body.description).to.contain('f=xml');
      // A browser's HTML error page is not offered either: the 406 is JSON.
      await get(ROOT, 'image/png, text/plain').expect(406).expect('Content-Type', /json/);
    });

    it('an absent, blank or any-type Accept header gets the default; f overrides Accept', async () => {
      for (const [path, type] of RESOURCES) {
        for (const accept of [undefined, '', '*/*', 'image/png, */*;q=0.1']) {
          const response = await get(path, accept).expect(200);
          expect(response.headers['content-type'], `${path} ${accept}`).to.match(type);
        }
        await get(`${path}?f=json`, 'image/png').expect(200).expect('Content-Type', type);
      }
    });

    it('a mix of supported and unsupported types with quality values gets the best supported', async () => {
      await get(ITEMS, 'image/png, text/turtle;q=0.5, application/geo+json;q=0.2')
        .expect(200)
        .expect('Content-Type', /^text\/turtle/);
      await get(ITEMS, 'image/png, application/rdf+xml;q=0.3, text/turtle;q=0.2')
        .expect(200)
        .expect('Content-Type', /^application\/rdf\+xml/);
      await get(`${ITEMS}/hostile-record`, 'image/png;q=1, application/xml;q=0.4, text/html;q=0.3')
        .expect(200)
        .expect('Content-Type', /^application\/xml/);
      await get(ROOT, 'application/pdf, text/html;q=0.1')
        .expect(200)
        .expect('Content-Type', /^text\/html/);
    });

    it('the STAC API documents (JSON only) refuse an Accept header without JSON with a 406', async () => {
      const paths = [
        `${ROOT}/stac`,
        `${ROOT}/stac/conformance`,
        `${ROOT}/stac/collections`,
        `${ROOT}/stac/collections/metadata:main`,
        `${ROOT}/stac/collections/metadata:main/items`,
        `${ROOT}/stac/collections/metadata:main/items/hostile-record`,
        `${ROOT}/search`,
        `${ROOT}/queryables`,
        `${ROOT}/aggregations`,
        `${COLLECTION}?f=stac`,
      ];
      for (const path of paths) {
        const refused = await get(path, 'text/turtle').expect(406).expect('Content-Type', /json/);
        expect(refused.body.code, path).to.equal('UNSUPPORTED_FORMAT');
        expect(refused.body.description, path).to.contain('application/json');
        await get(path, 'text/turtle, application/json;q=0.1').expect(200);
        await get(path, '*/*').expect(200);
        await get(path).expect(200);
      }
      await request(test.app)
        .post(`${ROOT}/search`)
        .set('Accept', 'application/xml')
        .send({ limit: 1 })
        .expect(406);
    });

    it('offers f=xml only for a single record', async () => {
      for (const path of [ROOT, `${ROOT}/conformance`, COLLECTION, ITEMS]) {
        const response = await get(`${path}?f=xml`).expect(400);
        expect(response.body.description).to.contain('f=xml');
      }
    });

    it('answers f=xml with the stored XML source verbatim', async () => {
      const response = await get(`${ITEMS}/urn%3Atest%3Axml-record?f=xml`)
        .expect(200)
        .expect('Content-Type', /^application\/xml/);
      expect(response.text).to.equal(XML_RECORD);
      const negotiated = await get(`${ITEMS}/urn%3Atest%3Axml-record`, 'application/xml');
      expect(negotiated.text).to.equal(XML_RECORD);
    });

    it('answers f=xml for a JSON-sourced record with a CSW 3.0 csw:Record (full)', async () => {
      const response = await get(`${ITEMS}/hostile-record?f=xml`)
        .expect(200)
        .expect('Content-Type', /^application\/xml/);
      expect(response.text).to.match(/<csw30:Record /);
      expect(response.text).to.contain('http://www.opengis.net/cat/csw/3.0');
      expect(response.text).to.contain('<dc:identifier>hostile-record</dc:identifier>');
      expect(response.text).to.contain('&lt;script&gt;');
    });

    it('still serves STAC Items for f=stac', async () => {
      const response = await get(`${ITEMS}/hostile-record?f=stac`).expect(200);
      expect(response.body).to.include({ type: 'Feature', stac_version: '1.0.0' });
    });
  });

  describe('landing page', () => {
    it('links to itself, its HTML, the API definition and docs, conformance, data, the catalogue and the STAC search', async () => {
      const { body } = await get(ROOT).expect(200);
      const has = (rel: string, type: string, path: string) =>
        expect(
          body.links.some(
            (link: Link) => link.rel === rel && link.type === type && pathOf(link.href) === path,
          ),
          `${rel} ${type} ${path}`,
        ).to.equal(true);
      has('self', 'application/json', `${ROOT}?f=json`);
      has('alternate', 'text/html', `${ROOT}?f=html`);
      has('service-desc', 'application/vnd.oai.openapi+json;version=3.0', `${ROOT}/openapi?f=json`);
      has('service-doc', 'text/html', `${ROOT}/openapi?f=html`);
      has('conformance', 'application/json', `${ROOT}/conformance?f=json`);
      has('data', 'application/json', `${ROOT}/collections?f=json`);
      has(`${OGC_REL}/ogc-catalog`, 'application/json', COLLECTION);
      expect(linksOf(body, 'child')).to.have.length.greaterThan(0);
      expect(linksOf(body, 'search').map((link) => pathOf(link.href))).to.include(`${ROOT}/search`);
      // Each link once.
      const keys = body.links.map(
        (link: Link & { method?: string }) =>
          `${link.rel} ${link.type} ${link.method} ${link.href}`,
      );
      expect(new Set(keys).size).to.equal(keys.length);
    });

    it('has links that all resolve, with the media type they announce', async () => {
      const { body } = await get(ROOT).expect(200);
      for (const link of body.links as (Link & { method?: string })[]) {
        const call =
          link.method === 'POST'
            ? request(test.app).post(pathOf(link.href)).send({})
            : get(pathOf(link.href));
        const response = await call;
        expect(response.status, `${link.rel} ${link.href}`).to.equal(200);
        if (link.type === 'text/html') expect(response.headers['content-type']).to.match(/html/);
        if (link.type?.endsWith('json')) expect(response.headers['content-type']).to.match(/json/);
      }
    });

    it('renders its HTML page with the service title and a search form', async () => {
      const response = await get(`${ROOT}?f=html`).expect(200);
      expect(response.text).to.contain(`<h1>${test.config.service.title}</h1>`);
      expect(response.text).to.match(/<form[^>]+action="[^"]+\/items"/);
    });
  });

  describe('conformance', () => {
    it('declares the Records, Features, CQL2, facets and STAC classes, each once', async () => {
      const { body } = await get(`${ROOT}/conformance`).expect(200);
      const classes = body.conformsTo as string[];
      expect(new Set(classes).size).to.equal(classes.length);
      const records = 'http://www.opengis.net/spec/ogcapi-records-1/1.0/conf';
      const cql2 = 'http://www.opengis.net/spec/cql2/1.0/conf';
      expect(classes).to.include.members([
        ...[
          'searchable-catalog',
          'searchable-catalog-filtering',
          'searchable-catalog/filtering',
          'searchable-catalog-sorting',
          'searchable-catalog/sorting',
          'record-core',
          'record-collection',
          'record-core-query-parameters',
          'record-api',
          'records-api',
          'sorting',
          'filtering',
          'cql-filter',
          'json',
          'html',
          'oas30',
          'autodiscovery',
        ].map((name) => `${records}/${name}`),
        ...['core', 'geojson', 'html', 'oas30'].map(
          (name) => `http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/${name}`,
        ),
        ...['queryables', 'queryables-query-parameters', 'filter', 'features-filter'].map(
          (name) => `http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/${name}`,
        ),
        ...[
          'basic-cql2',
          'advanced-comparison-operators',
          'case-insensitive-comparison',
          'accent-insensitive-comparison',
          'basic-spatial-functions',
          'basic-spatial-functions-plus',
          'temporal-functions',
          'array-functions',
          'cql2-text',
          'cql2-json',
        ].map((name) => `${cql2}/${name}`),
        'http://www.opengis.net/spec/ogcapi-records-2/1.0/conf/simple',
        'https://api.stacspec.org/v1.0.0/core',
        'https://api.stacspec.org/v1.0.0/item-search',
      ]);
      const page = await get(`${ROOT}/conformance?f=html`).expect(200);
      for (const uri of classes) expect(page.text).to.contain(uri);
      // Every backend declares the classes the engines decide in Node, and answers them.
      for (const [name, filter] of REFINED_CLASSES) {
        expect(classes).to.include(`${cql2}/${name}`);
        const response = await get(`${ITEMS}?filter=${encodeURIComponent(filter)}`);
        expect(response.status, `${filter}: ${JSON.stringify(response.body)}`).to.equal(200);
        expect(response.body.numberMatched, filter).to.be.a('number');
      }
    });
  });

  describe('the catalogue collection', () => {
    it('describes metadata:main with config metadata, CRS84, extent, keywords, sort order and links', async () => {
      const { body } = await get(COLLECTION).expect(200);
      const { service } = test.config;
      expect(body).to.include({
        id: 'metadata:main',
        type: 'Collection',
        itemType: 'record',
        title: service.title,
        description: service.description,
      });
      expect(body.crs).to.deep.equal([
        'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
        'http://www.opengis.net/def/crs/EPSG/0/4326',
      ]);
      expect(body.storageCrs).to.equal('http://www.opengis.net/def/crs/OGC/1.3/CRS84');
      expect(body.keywords).to.deep.equal(service.keywords);
      expect(body.defaultSortOrder).to.deep.equal([{ field: 'id', direction: 'asc' }]);
      const extent = await test.backend.extent();
      expect(body.extent.spatial.bbox).to.deep.equal([extent.bbox]);
      expect(body.extent.temporal.interval).to.deep.equal([[extent.start, extent.end]]);
      const has = (rel: string, type: string, suffix: string) =>
        expect(
          body.links.some(
            (link: Link) =>
              link.rel === rel &&
              link.type === type &&
              pathOf(link.href) === `${COLLECTION}${suffix}`,
          ),
          `${rel} ${type} ${suffix}`,
        ).to.equal(true);
      has('self', 'application/json', '?f=json');
      has('alternate', 'text/html', '?f=html');
      has('items', 'application/geo+json', '/items?f=json');
      has('items', 'text/html', '/items?f=html');
      has(`${OGC_REL}/queryables`, 'application/schema+json', '/queryables?f=json');
      has(`${OGC_REL}/queryables`, 'text/html', '/queryables?f=html');
      has(`${OGC_REL}/sortables`, 'application/schema+json', '/sortables?f=json');
      has(`${OGC_REL}/sortables`, 'text/html', '/sortables?f=html');
      for (const link of body.links as Link[]) await get(pathOf(link.href)).expect(200);
    });

    it('lists the collection in /collections with self and alternate links', async () => {
      const { body } = await get(`${ROOT}/collections`).expect(200);
      expect(body.collections).to.have.length(1);
      expect(linksOf(body, 'self')[0]?.type).to.equal('application/json');
      expect(linksOf(body, 'alternate')[0]?.type).to.equal('text/html');
    });
  });

  describe('queryables and sortables', () => {
    it('serves the queryables as a JSON Schema 2020-12 document from the registry', async () => {
      const { body } = await get(`${COLLECTION}/queryables`).expect(200);
      expect(body.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
      expect(body.$id).to.match(/\/catalogue\/collections\/metadata:main\/queryables$/);
      expect(body.type).to.equal('object');
      // The core queryables first, in the registry's order; then the records' own properties.
      const names = Object.keys(body.properties);
      expect(names.slice(0, QUERYABLES.length)).to.deep.equal(QUERYABLES.map((q) => q.name));
      for (const name of names.slice(QUERYABLES.length)) {
        const { type } = body.properties[name] as { type: string | string[] };
        for (const each of [type].flat()) {
          expect(['string', 'number', 'boolean', 'array'], name).to.include(each);
        }
      }
      expect(body.properties.id).to.include({ type: 'string', 'x-ogc-role': 'id' });
      expect(body.properties.geometry).to.include({
        format: 'geometry-any',
        'x-ogc-role': 'primary-geometry',
      });
      expect(body.properties.geometry).to.not.have.property('type');
      expect(body.properties.start_datetime).to.include({
        type: 'string',
        format: 'date-time',
        'x-ogc-role': 'primary-interval-start',
      });
      expect(body.properties.end_datetime).to.include({ 'x-ogc-role': 'primary-interval-end' });
      expect(body.properties.updated).to.include({ type: 'string', format: 'date-time' });
      expect(body.properties.keywords).to.deep.include({ type: 'array' });
    });

    it('serves the sortables, each of which sortby accepts', async () => {
      const { body } = await get(`${COLLECTION}/sortables`).expect(200);
      expect(body.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
      expect(body.$id).to.match(/\/sortables$/);
      expect(body.additionalProperties).to.equal(false);
      const names = Object.keys(body.properties);
      // The core sortables first; then learned properties a sort can order by, which the
      // queryables also list (which ones depends on the backend: docs/operations.md).
      const core = QUERYABLES.filter((q) => q.sortable).map((q) => q.name);
      expect(names.slice(0, core.length)).to.deep.equal(core);
      const queryables = (await get(`${COLLECTION}/queryables`).expect(200)).body as {
        properties: Record<string, unknown>;
      };
      for (const name of names.slice(core.length)) {
        expect(core, name).to.not.include(name);
        expect(queryables.properties, name).to.have.property(name);
      }
      for (const name of names) {
        await get(`${ITEMS}?sortby=${name}&limit=1`).expect(200);
        await get(`${ITEMS}?sortby=-${name}&limit=1`).expect(200);
      }
      await get(`${ITEMS}?sortby=description`).expect(400);
    });

    it('renders both as HTML tables', async () => {
      const queryables = await get(`${COLLECTION}/queryables?f=html`).expect(200);
      for (const queryable of QUERYABLES)
        expect(queryables.text).to.contain(`<code>${queryable.name}</code>`);
      const sortables = await get(`${COLLECTION}/sortables?f=html`).expect(200);
      expect(sortables.text).to.contain('<code>updated</code>');
      expect(sortables.text).to.not.contain('<code>description</code>');
    });
  });

  describe('items', () => {
    it('carries timeStamp, numberMatched/Returned and self, alternate, collection, next links', async () => {
      const { body } = await get(`${ITEMS}?limit=5`).expect(200);
      expect(body.timeStamp).to.match(/^\d{4}-\d\d-\d\dT.*Z$/);
      expect(body).to.include({ numberReturned: 5 });
      expect(linksOf(body, 'self')[0]?.type).to.equal('application/geo+json');
      expect(linksOf(body, 'alternate')[0]?.type).to.equal('text/html');
      expect(linksOf(body, 'collection')).to.have.length(1);
      expect(linksOf(body, 'next')).to.have.length(1);
      await get(pathOf(defined(linksOf(body, 'alternate')[0], 'the alternate link').href))
        .expect(200)
        .expect('Content-Type', /html/);
    });

    it('counts facets over the same query (type, keywords)', async () => {
      const { body } = await get(
        `${ITEMS}?facets=type,keywords&bbox=-180,-90,180,90&limit=1`,
      ).expect(200);
      expect(body.facets).to.have.all.keys('type', 'keywords');
      expect(body.facets.type).to.include({ type: 'term', property: 'type' });
      const buckets = body.facets.type.buckets as { value: string; count: number }[];
      expect(buckets.length).to.be.greaterThan(1);
      const counts = buckets.map((bucket) => bucket.count);
      expect(counts).to.deep.equal([...counts].sort((a, b) => b - a));
      for (const bucket of buckets.slice(0, 3)) {
        const check = await get(
          `${ITEMS}?type=${encodeURIComponent(bucket.value)}&bbox=-180,-90,180,90&limit=1`,
        ).expect(200);
        expect(check.body.numberMatched, bucket.value).to.equal(bucket.count);
      }
      const keyword = body.facets.keywords.buckets[0] as { value: string; count: number };
      const byKeyword = await get(
        `${ITEMS}?keywords=${encodeURIComponent(keyword.value)}&bbox=-180,-90,180,90&limit=1`,
      ).expect(200);
      expect(byKeyword.body.numberMatched).to.equal(keyword.count);
    });

    it('limits and orders facet buckets as asked, and omits facets unless asked', async () => {
      const limited = await get(`${ITEMS}?facets=keywords:3`).expect(200);
      expect(limited.body.facets.keywords.buckets).to.have.length(3);
      const byValue = await get(`${ITEMS}?facets=type:20:value_asc`).expect(200);
      const values = byValue.body.facets.type.buckets.map((b: { value: string }) => b.value);
      expect(values).to.deep.equal([...values].sort((a, b) => a.localeCompare(b)));
      const narrowed = await get(`${ITEMS}?facets=type&type=service`).expect(200);
      expect(narrowed.body.facets.type.buckets).to.have.length(1);
      const none = await get(`${ITEMS}?limit=1`).expect(200);
      expect(none.body).to.not.have.property('facets');
    });

    it('serves the facet definitions', async () => {
      const { body } = await get(`${COLLECTION}/facets`).expect(200);
      expect(body.facets.type).to.include({ type: 'term', property: 'type' });
      expect(body.facets).to.have.property('keywords');
    });
  });

  describe('one record', () => {
    it('links itself (GeoJSON), its HTML and XML, the collection and the profile', async () => {
      const { body } = await get(`${ITEMS}/hostile-record`).expect(200);
      const link = (rel: string, type?: string) =>
        body.links.find((l: Link) => l.rel === rel && (type === undefined || l.type === type));
      expect(link('self', 'application/geo+json')).to.not.equal(undefined);
      expect(link('alternate', 'text/html')).to.not.equal(undefined);
      expect(link('alternate', 'application/xml')).to.not.equal(undefined);
      expect(link('collection')).to.not.equal(undefined);
      expect(link('profile').href).to.equal('http://www.opengis.net/def/profile/OGC/0/ogc-record');
      for (const rel of ['self', 'alternate', 'collection']) {
        for (const l of body.links.filter((x: Link) => x.rel === rel)) {
          await get(pathOf(l.href)).expect(200);
        }
      }
    });

    it('renders every property, the links and a map of the footprint', async () => {
      const response = await get(`${ITEMS}/urn%3Atest%3Axml-record?f=html`).expect(200);
      expect(response.text).to.contain('<h1>An XML sourced record</h1>');
      expect(response.text).to.contain('Stored as Dublin Core.');
      expect(response.text).to.match(/<div id="map"[^>]+data-geometry="[^"]*Polygon/);
      expect(response.text).to.contain('/catalogue/static/vendor/leaflet/leaflet.js');
      expect(response.text).to.contain('?f=xml');
    });

    it('escapes record content and does not link javascript: URLs', async () => {
      const response = await get(`${ITEMS}/hostile-record?f=html`).expect(200);
      expect(response.text).to.not.contain('<script>alert');
      expect(response.text).to.not.contain('<img src=x');
      expect(response.text).to.not.contain('<b>bold</b>');
      expect(response.text).to.contain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
      expect(response.text).to.not.match(/href="javascript:/i);
      const results = await get(`${ITEMS}?f=html&ids=hostile-record`).expect(200);
      expect(results.text).to.not.contain('<script>alert');
      expect(results.text).to.contain('&lt;script&gt;');
    });

    it('answers an unknown record with 404 in JSON and in HTML', async () => {
      const json = await get(`${ITEMS}/no-such-record`).expect(404).expect('Content-Type', /json/);
      expect(json.body).to.deep.equal({
        code: 'NOT_FOUND',
        description: 'No record with id "no-such-record"',
      });
      for (const response of [
        await get(`${ITEMS}/no-such-record?f=html`),
        await get(`${ITEMS}/no-such-record`, BROWSER_ACCEPT),
      ]) {
        expect(response.status).to.equal(404);
        expect(response.headers['content-type']).to.match(/html/);
        expect(response.text).to.contain('No record with id &quot;no-such-record&quot;');
      }
      await get(`${ITEMS}/no-such-record?f=xml`).expect(404);
    });
  });

  describe('HTML search page', () => {
    it('shows the form with the request values, results, facets and paging', async () => {
      const response = await get(`${ITEMS}?f=html&limit=5&offset=5&sortby=-updated`).expect(200);
      const html = response.text;
      expect(html).to.match(/<input id="q" name="q" type="search" value=""/);
      expect(html).to.match(/<option value="-updated" selected>/);
      expect(html).to.match(/Records 6–10 of \d+/);
      expect(html.match(/<li class="result">/g)).to.have.length(5);
      expect(html).to.match(/<a rel="next" href="[^"]*f=html[^"]*offset=10[^"]*"/);
      expect(html).to.match(/<a rel="prev" href="[^"]*f=html[^"]*offset=0[^"]*"/);
      expect(html).to.contain('aria-label="Facets"');
      expect(html).to.match(/data-footprints="\[/);
    });

    it('keeps the typed search in the form and in the paging links', async () => {
      const response = await get(
        `${ITEMS}?f=html&q=land&bbox=-180,-90,180,90&datetime=2000-01-01/..&limit=2`,
      ).expect(200);
      expect(response.text).to.contain('value="land"');
      expect(response.text).to.contain('value="-180,-90,180,90"');
      expect(response.text).to.contain('value="2000-01-01/.."');
      const next = /<a rel="next" href="([^"]+)"/.exec(response.text)?.[1];
      if (next !== undefined) {
        const href = next.replace(/&amp;/g, '&');
        expect(href).to.contain('q=land');
        expect(href).to.contain('datetime=2000-01-01');
      }
    });

    it('redirects a form submission with empty fields to the URL without them', async () => {
      const response = await get(`${ITEMS}?f=html&q=land&bbox=&datetime=&sortby=`).expect(303);
      expect(pathOf(defined(response.headers.location, 'the Location header'))).to.equal(
        `${ITEMS}?f=html&q=land`,
      );
      // JSON requests keep the strict rule: an empty bbox is invalid.
      await get(`${ITEMS}?bbox=`).expect(400);
    });

    it('shows invalid input as an HTML 400 page naming the parameter', async () => {
      const response = await get(`${ITEMS}?f=html&bbox=1,2,3`).expect(400);
      expect(response.headers['content-type']).to.match(/html/);
      expect(response.text).to.contain('bbox');
      expect(response.text).to.contain('role="alert"');
    });

    it('references only this server from every page (scripts, styles, links in the head)', async () => {
      const pages = [
        `${ROOT}?f=html`,
        `${ROOT}/openapi?f=html`,
        `${ROOT}/conformance?f=html`,
        `${COLLECTION}?f=html`,
        `${ITEMS}?f=html`,
        `${ITEMS}/hostile-record?f=html`,
      ];
      for (const page of pages) {
        const { text } = await get(page).expect(200);
        const sources = [
          ...text.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"/g),
        ].map((match) => defined(match[1], 'a src or href'));
        expect(sources.length).to.be.greaterThan(0);
        for (const source of sources) {
          expect(new URL(source).hostname, `${page}: ${source}`).to.equal('127.0.0.1');
        }
      }
    });

    it('serves the vendored Leaflet and Swagger UI files and the stylesheet', async () => {
      await get(`${ROOT}/static/vendor/leaflet/leaflet.js`)
        .expect(200)
        .expect('Content-Type', /javascript/);
      await get(`${ROOT}/static/vendor/leaflet/leaflet.css`)
        .expect(200)
        .expect('Content-Type', /css/);
      await get(`${ROOT}/static/vendor/swagger-ui/swagger-ui-bundle.js`).expect(200);
      await get(`${ROOT}/static/vendor/swagger-ui/swagger-ui.css`).expect(200);
      await get(`${ROOT}/static/cairn.css`).expect(200).expect('Content-Type', /css/);
      await get(`${ROOT}/static/map.js`).expect(200);
      await get(`${ROOT}/static/no-such-file.js`).expect(404);
    });
  });

  describe('errors', () => {
    const unknownCollection = [
      `${ROOT}/collections/other`,
      `${ROOT}/collections/other/queryables`,
      `${ROOT}/collections/other/sortables`,
      `${ROOT}/collections/other/facets`,
      `${ROOT}/collections/other/items`,
      `${ROOT}/collections/other/items/x`,
      `${ROOT}/no-such-path`,
    ];
    for (const path of unknownCollection) {
      it(`answers ${path} with 404 in JSON and in HTML`, async () => {
        const json = await get(path).expect(404).expect('Content-Type', /json/);
        expect(json.body.code).to.equal('NOT_FOUND');
        const html = await get(`${path}?f=html`).expect(404).expect('Content-Type', /html/);
        expect(html.text).to.contain('Not found');
      });
    }

    const badRequests: [string, string][] = [
      [`${ROOT}?foo=1`, 'foo'],
      [`${ROOT}/conformance?foo=1`, 'foo'],
      [`${ROOT}/collections?limit=1`, 'limit'],
      [`${COLLECTION}?bbox=1,2,3,4`, 'bbox'],
      [`${COLLECTION}/queryables?q=x`, 'q'],
      [`${COLLECTION}/sortables?f=json&x=1`, 'x'],
      [`${ROOT}/openapi?f=yaml`, 'f=yaml'],
      [`${ITEMS}?limit=abc`, 'limit'],
      [`${ITEMS}?limit=0`, 'limit'],
      [`${ITEMS}?offset=-3`, 'offset'],
      [`${ITEMS}?bbox=1,2,x,4`, 'bbox'],
      [`${ITEMS}?bbox=1,2,3,4,5,6,7`, 'bbox'],
      [`${ITEMS}?facets=nosuchfacet`, 'facets'],
      [`${ITEMS}?facets=type:0`, 'facets'],
      [`${ITEMS}?facets=type:5:sideways`, 'facets'],
      [`${ITEMS}?facets=title`, 'facets'],
      [`${ITEMS}?f=json&f=html`, 'f'],
      [`${ITEMS}/x?f=csv`, 'f=csv'],
      [`${ITEMS}?datetime=yesterday`, 'datetime'],
      [`${ITEMS}?externalIds=a:b:c`, 'externalIds'],
    ];
    for (const [path, named] of badRequests) {
      it(`answers ${path} with 400 {code, description} naming ${named}, and as HTML`, async () => {
        const response = await get(path).expect(400).expect('Content-Type', /json/);
        expect(response.body).to.have.all.keys('code', 'description');
        expect(response.body.description).to.contain(named);
        if (!/[?&]f=/.test(path)) {
          const html = await get(path, BROWSER_ACCEPT).expect(400).expect('Content-Type', /html/);
          expect(html.text).to.contain('Bad request');
        }
      });
    }

    it('refuses other methods on the read-only resources', async () => {
      const response = await request(test.app).put(`${ROOT}/conformance`).send({});
      expect(response.status).to.be.oneOf([404, 405]);
      expect(response.body).to.have.all.keys('code', 'description');
    });
  });
});
