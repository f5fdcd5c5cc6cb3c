/**
 * The OpenAPI 3.0 document at /catalogue/openapi: it describes every endpoint of Cairn
 * (Records, STAC, CSW with every KVP parameter, OpenSearch, health, robots.txt and sitemaps), Swagger UI serves it as
 * HTML from local files, requests are validated against it (errors as `{code, description}`
 * naming the parameter), and real responses validate against its schemas (Ajv). The Records
 * responses are also validated against the OGC API – Records Part 1 schema (the OGC's
 * building blocks vendored in test/fixtures), an outside reference that Cairn did not write.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createCatalogueApp, readDocuments } from '../support/catalogue-app.js';
import { defined } from '../support/defined.js';
import { fixturePath, samplePath } from '../support/fixtures.js';

const ROOT = '/catalogue';
const COLLECTION = `${ROOT}/collections/metadata:main`;
const ITEMS = `${COLLECTION}/items`;

type Json = Record<string, unknown>;

/** The OGC API – Records Part 1 building blocks (OpenAPI 3.0 YAML), as vendored. */
const OGC_RECORDS_SCHEMA = fixturePath(
  'xsd',
  'ogc',
  'ogcapi',
  'records',
  'part1',
  '1.0',
  'ogcapi-records-1.yaml',
);

/**
 * The vendored building blocks date from the 2020 draft of OGC API – Records Part 1; the
 * standard as approved (and the schemas of its repository since) changed a few members of
 * `recordGeoJSON`, and Cairn follows the approved text. Exactly these members are replaced here,
 * each with the later definition; every other rule of the file applies unchanged.
 * docs/decisions/tests-that-prove-their-claims.md lists them with the reasons.
 */
function amendToApprovedStandard(document: Json): Json {
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  const record = defined(schemas.recordGeoJSON, 'recordGeoJSON').properties as Record<string, Json>;
  const properties = (record.properties as { properties: Record<string, Json> }).properties;
  // A record's id is a local identifier (the last segment of its URL), not a URI; the draft's
  // `format: uri` would refuse every identifier without a scheme.
  record.id = { type: 'string' };
  // GeoJSON (RFC 7946, 3.2) and the approved standard allow a record without a footprint.
  record.geometry = { oneOf: [{ enum: [null] }, defined(record.geometry, 'geometry')] };
  // The record type is a code and the licence an SPDX identifier or expression (or free text
  // with license links), not URIs.
  properties.type = { type: 'string' };
  properties.license = { type: 'string' };
  // The language is an object with an RFC 5646 code; themes' concepts are objects with an id;
  // formats are objects with a name or a media type.
  properties.language = {
    type: 'object',
    required: ['code'],
    properties: { code: { type: 'string' }, name: { type: 'string', minLength: 1 } },
  };
  const themes = properties.themes as { items: { properties: Record<string, Json> } };
  defined(themes.items.properties.concepts, 'concepts').items = {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string' }, title: { type: 'string' } },
  };
  properties.formats = {
    type: 'array',
    items: {
      type: 'object',
      anyOf: [{ required: ['name'] }, { required: ['mediaType'] }],
      properties: { name: { type: 'string' }, mediaType: { type: 'string' } },
    },
  };
  return document;
}

/** An Ajv instance holding the OGC schemas under `ogc-records.json`, formats checked. */
function ogcRecordsAjv(): Ajv {
  const document = amendToApprovedStandard(
    parseYaml(readFileSync(OGC_RECORDS_SCHEMA, 'utf8')) as Json,
  );
  // The file is OpenAPI 3.0: its schemas are JSON Schema with `nullable` (which Ajv knows) and
  // references into the document's components, rewritten to the id the schemas are added under.
  const copy = JSON.parse(
    JSON.stringify(document).replaceAll('"#/components/', '"ogc-records.json#/components/'),
  ) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The only formats the file uses: RFC 3339 timestamps and absolute URIs.
  ajv.addFormat(
    'date-time',
    (value: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
      !Number.isNaN(Date.parse(value)),
  );
  ajv.addFormat(
    'uri',
    (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value),
  );
  ajv.addSchema({ $id: 'ogc-records.json', components: copy.components }, 'ogc-records.json');
  return ajv;
}

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema?: Json;
}

describe('OpenAPI document and request validation', () => {
  let test: TestApp;
  let document: Json;
  let ajv: Ajv;

  before(async () => {
    test = await createTestApp(60);
    const response = await request(test.app).get(`${ROOT}/openapi`).expect(200);
    document = response.body;
    // The document's schemas under an id, every local reference rewritten to point there.
    ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    const copy = JSON.parse(
      JSON.stringify(document).replaceAll('"#/components/', '"openapi.json#/components/'),
    ) as Json;
    ajv.addSchema({ $id: 'openapi.json', components: copy.components }, 'openapi.json');
  });
  after(async () => {
    await test?.close();
  });

  const paths = () => document.paths as Record<string, Record<string, Json>>;
  /** A path item of the document, or an error naming the missing path. */
  const pathItem = (path: string): Record<string, Json> => defined(paths()[path], `path ${path}`);
  /** An operation of the document, or an error naming the missing operation. */
  const operationOf = (path: string, method: string): Json =>
    defined(pathItem(path)[method], `${method} ${path}`);
  /** A media type without its parameters. */
  const mediaType = (value: string): string => defined(value.split(';')[0], value).trim();
  const resolve = <T>(value: unknown): T => {
    const reference = (value as { $ref?: string }).$ref;
    if (!reference) return value as T;
    return reference
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json)[key], document) as T;
  };
  const parametersOf = (path: string, method: string): Parameter[] =>
    ((operationOf(path, method).parameters as unknown[]) ?? []).map((p) => resolve<Parameter>(p));

  /** The Ajv validator for a response of an operation, by status and media type. */
  function responseValidator(
    template: string,
    method: string,
    status: number,
    contentType: string,
  ): ValidateFunction {
    const operation = operationOf(template, method);
    const responses = operation.responses as Record<string, unknown>;
    const response = resolve<{ content: Record<string, { schema: Json }> }>(
      responses[String(status)],
    );
    expect(response, `${method} ${template} ${status}`).to.not.equal(undefined);
    const wanted = mediaType(contentType);
    const entry = Object.entries(response.content).find(([type]) => mediaType(type) === wanted);
    expect(entry, `${method} ${template} ${status} ${contentType}`).to.not.equal(undefined);
    const schema = JSON.parse(
      JSON.stringify(entry![1].schema).replaceAll('"#/components/', '"openapi.json#/components/'),
    ) as Json;
    return ajv.compile(schema);
  }

  /** Sends a request and checks the response body against the document. */
  async function expectDocumented(
    template: string,
    method: 'get' | 'post',
    url: string,
    body?: unknown,
  ): Promise<request.Response> {
    const call =
      method === 'get'
        ? request(test.app).get(url)
        : request(test.app)
            .post(url)
            .send(body as object);
    const response = await call;
    const contentType = defined(
      response.headers['content-type'],
      `the Content-Type of ${method} ${url}`,
    );
    const validate = responseValidator(template, method, response.status, contentType);
    const value = /json/.test(contentType) ? response.body : response.text;
    expect(validate(value), `${method} ${url}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
    return response;
  }

  describe('the document', () => {
    it('is OpenAPI 3.0 JSON with this deployment as its server', async () => {
      const response = await request(test.app)
        .get(`${ROOT}/openapi?f=json`)
        .expect(200)
        .expect('Content-Type', /^application\/vnd\.oai\.openapi\+json; ?version=3\.0/);
      expect(response.body.openapi).to.match(/^3\.0\.\d$/);
      expect(response.body.info).to.include({ title: test.config.service.title });
      expect(response.body.servers[0].url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/catalogue$/);
    });

    it('describes every endpoint of Cairn', () => {
      const expected: [string, string[]][] = [
        ['/', ['get']],
        ['/openapi', ['get']],
        ['/conformance', ['get']],
        ['/collections', ['get']],
        ['/collections/{collectionId}', ['get']],
        ['/collections/{collectionId}/queryables', ['get']],
        ['/collections/{collectionId}/sortables', ['get']],
        ['/collections/{collectionId}/facets', ['get']],
        ['/collections/{collectionId}/items', ['get', 'post']],
        ['/collections/{collectionId}/items/{recordId}', ['get', 'put', 'delete']],
        ['/search', ['get', 'post']],
        ['/aggregations', ['get']],
        ['/aggregate', ['get', 'post']],
        ['/queryables', ['get']],
        ['/stac', ['get']],
        ['/stac/conformance', ['get']],
        ['/stac/collections', ['get']],
        ['/stac/collections/{stacCollectionId}', ['get']],
        ['/stac/collections/{stacCollectionId}/items', ['get']],
        ['/stac/collections/{stacCollectionId}/items/{stacItemId}', ['get']],
        ['/csw', ['get', 'post']],
        ['/opensearch', ['get']],
        ['/oai', ['get', 'post']],
        ['/healthz', ['get']],
        ['/readyz', ['get']],
        ['/admin/ingest', ['post']],
        ['/admin/jobs', ['get']],
        ['/admin/jobs/{jobId}', ['get']],
        ['/admin/jobs/{jobId}/failures', ['get']],
        ['/robots.txt', ['get']],
        ['/sitemap.xml', ['get']],
        ['/sitemap-records.xml', ['get']],
      ];
      expect(Object.keys(paths()).sort()).to.deep.equal(expected.map(([path]) => path).sort());
      for (const [path, methods] of expected) {
        expect(Object.keys(pathItem(path)).filter((key) => key !== 'servers')).to.deep.equal(
          methods,
        );
        for (const method of methods) {
          const operation = operationOf(path, method);
          expect(operation.summary, `${method} ${path}`).to.be.a('string');
          const statuses = Object.keys(operation.responses as object);
          expect(
            statuses.some((status) => /^20\d$/.test(status)),
            `${method} ${path}`,
          ).to.equal(true);
        }
      }
    });

    it('lists every Records items parameter and lets other queryables through', () => {
      const names = parametersOf('/collections/{collectionId}/items', 'get').map((p) => p.name);
      expect(names).to.include.members([
        'f',
        'q',
        'bbox',
        'datetime',
        'ids',
        'type',
        'externalIds',
        'limit',
        'offset',
        'sortby',
        'filter',
        'filter-lang',
        'filter-crs',
        'facets',
      ]);
      expect(pathItem('/collections/{collectionId}/items').get).to.have.property(
        'x-eov-allow-unknown-query-parameters',
        true,
      );
      const bbox = parametersOf('/collections/{collectionId}/items', 'get').find(
        (p) => p.name === 'bbox',
      );
      expect(bbox).to.deep.include({ style: 'form', explode: false });
      expect(bbox!.schema).to.deep.include({ type: 'array', minItems: 4, maxItems: 6 });
    });

    it('lists every CSW KVP parameter, with id as the record identifier and start/stop for time', () => {
      const parameters = parametersOf('/csw', 'get');
      const names = parameters.map((p) => p.name);
      expect(new Set(names).size).to.equal(names.length);
      expect(names).to.include.members([
        'service',
        'version',
        'request',
        'acceptVersions',
        'sections',
        'acceptFormats',
        'updateSequence',
        'namespace',
        'typeNames',
        'ElementSetName',
        'ElementName',
        'outputFormat',
        'outputSchema',
        'startPosition',
        'maxRecords',
        'resultType',
        'CONSTRAINTLANGUAGE',
        'Constraint',
        'constraint_language_version',
        'SortBy',
        'DistributedSearch',
        'hopCount',
        'ResponseHandler',
        'id',
        'parameterName',
        'valueReference',
        'mode',
        'q',
        'bbox',
        'recordIds',
        'time',
        'start',
        'stop',
        'lat',
        'lon',
        'radius',
        'geometry',
        'relation',
        'eo:cloudCover',
        'eo:platform',
      ]);
      expect(names.filter((name) => name === 'start')).to.have.length(1);
      const id = parameters.find((p) => p.name === 'id')!;
      expect(id.description).to.match(/identifier of the record/);
      expect(id.schema).to.not.have.property('enum');
      expect(operationOf('/csw', 'post').requestBody).to.have.nested.property(
        'content.application/xml',
      );
    });

    it('describes the STAC search by GET and POST', () => {
      const names = parametersOf('/search', 'get').map((p) => p.name);
      expect(names).to.include.members([
        'bbox',
        'intersects',
        'datetime',
        'ids',
        'collections',
        'limit',
        'q',
        'filter',
        'filter-lang',
        'sortby',
        'fields',
        'token',
      ]);
      expect(operationOf('/search', 'post').requestBody).to.have.nested.property(
        'content.application/json',
      );
    });
  });

  describe('the document against the routes', () => {
    it('offers on every Records and STAC read exactly the f values its route answers', async () => {
      const page = await request(test.app).get(`${ITEMS}?limit=1`).expect(200);
      const id = page.body.features[0].id as string;
      const values: Record<string, string> = {
        collectionId: 'metadata:main',
        recordId: id,
        stacCollectionId: 'metadata:main',
        stacItemId: id,
      };
      let checked = 0;
      for (const template of Object.keys(paths())) {
        const f =
          pathItem(template).get && parametersOf(template, 'get').find((p) => p.name === 'f');
        if (!f) continue;
        const url =
          ROOT +
          template.replace(/\{(\w+)\}/g, (_, name: string) =>
            encodeURIComponent(defined(values[name], `a value for {${name}}`)),
          );
        for (const value of (f.schema?.enum as string[] | undefined) ?? []) {
          const response = await request(test.app).get(url).query({ f: value });
          expect(response.status, `${url}?f=${value}`).to.equal(200);
          checked += 1;
        }
        const refused = await request(test.app).get(url).query({ f: 'bogus' });
        expect(refused.status, `${url}?f=bogus`).to.equal(400);
      }
      expect(checked).to.be.greaterThan(20);
    });

    it('matches bbox and datetime as documented: never a record without a footprint or time', async () => {
      const all = await request(test.app).get(`${ITEMS}?limit=1000`).expect(200);
      const features = all.body.features as { geometry: unknown; time: unknown }[];
      expect(features).to.have.length(all.body.numberMatched as number);
      const located = features.filter((feature) => feature.geometry !== null).length;
      const timed = features.filter(
        (feature) => feature.time !== null && feature.time !== undefined,
      ).length;
      // The sample records include some without a footprint and some without a time extent.
      expect(located).to.be.lessThan(features.length);
      expect(timed).to.be.lessThan(features.length);
      const world = await request(test.app)
        .get(`${ITEMS}?bbox=-180,-90,180,90&limit=1`)
        .expect(200);
      expect(world.body.numberMatched).to.equal(located);
      const always = await request(test.app)
        .get(`${ITEMS}?datetime=1000-01-01T00:00:00Z/2999-12-31T23:59:59Z&limit=1`)
        .expect(200);
      expect(always.body.numberMatched).to.equal(timed);
      const items = parametersOf('/collections/{collectionId}/items', 'get');
      expect(items.find((p) => p.name === 'bbox')!.description).to.match(
        /without a footprint never matches/,
      );
      expect(items.find((p) => p.name === 'datetime')!.description).to.match(
        /without a temporal extent never matches/,
      );
    });
  });

  describe('Swagger UI', () => {
    it('serves the document as HTML through Swagger UI from swagger-ui-dist, offline', async () => {
      const response = await request(test.app)
        .get(`${ROOT}/openapi?f=html`)
        .expect(200)
        .expect('Content-Type', /html/);
      expect(response.text).to.match(
        /<script src="[^"]+\/catalogue\/static\/vendor\/swagger-ui\/swagger-ui-bundle\.js">/,
      );
      expect(response.text).to.match(/data-spec-url="[^"]+\/catalogue\/openapi\?f=json"/);
      const init = await request(test.app).get(`${ROOT}/static/swagger-init.js`).expect(200);
      expect(init.text).to.contain('validatorUrl: null');
      await request(test.app)
        .get(`${ROOT}/openapi`)
        .set('Accept', 'text/html')
        .expect('Content-Type', /html/);
    });
  });

  describe('request validation', () => {
    const cases: [string, string, string][] = [
      ['limit not an integer', `${ITEMS}?limit=ten`, 'limit'],
      ['limit below the minimum', `${ITEMS}?limit=0`, 'limit'],
      ['a negative offset', `${ITEMS}?offset=-1`, 'offset'],
      ['bbox with a word', `${ITEMS}?bbox=1,2,three,4`, 'bbox'],
      ['bbox with three numbers', `${ITEMS}?bbox=1,2,3`, 'bbox'],
      ['an unknown f', `${ITEMS}?f=atom`, 'f=atom'],
      ['an unknown parameter on the landing page', `${ROOT}?bogus=1`, 'bogus'],
      ['an unknown parameter on a record', `${ITEMS}/x?bogus=1`, 'bogus'],
      ['an unknown item parameter (not a queryable)', `${ITEMS}?bogus=1`, 'bogus'],
      ['STAC limit not an integer', `${ROOT}/search?limit=many`, 'limit'],
      ['STAC bbox with a word', `${ROOT}/search?bbox=a,b,c,d`, 'bbox'],
      ['an unknown STAC parameter', `${ROOT}/search?bogus=1`, 'bogus'],
      ['a parameter on the STAC queryables', `${ROOT}/queryables?bogus=1`, 'bogus'],
    ];
    for (const [name, url, parameter] of cases) {
      it(`refuses ${name} with 400 {code, description} naming ${parameter}`, async () => {
        const response = await expectDocumented(
          url.startsWith(`${ROOT}/search`)
            ? '/search'
            : url.startsWith(`${ROOT}/queryables`)
              ? '/queryables'
              : url.startsWith(`${ITEMS}/`)
                ? '/collections/{collectionId}/items/{recordId}'
                : url.startsWith(ITEMS)
                  ? '/collections/{collectionId}/items'
                  : '/',
          'get',
          url,
        );
        expect(response.status).to.equal(400);
        expect(response.body).to.have.all.keys('code', 'description');
        expect(response.body.code).to.match(
          /^(INVALID_PARAMETER|UNKNOWN_PARAMETER|UNSUPPORTED_FORMAT)$/,
        );
        expect(response.body.description).to.contain(parameter);
      });
    }

    it('refuses a STAC POST body member of the wrong type, naming it', async () => {
      const response = await expectDocumented('/search', 'post', `${ROOT}/search`, {
        limit: 'lots',
      });
      expect(response.status).to.equal(400);
      expect(response.body.description).to.contain('limit');
    });

    it('accepts reserved characters and empty values where the parsers allow them', async () => {
      await request(test.app)
        .get(
          `${ITEMS}?datetime=2000-01-01T00:00:00Z/..&filter=updated >= TIMESTAMP('2001-01-01T00:00:00Z')`,
        )
        .expect(200);
      await request(test.app).get(`${ROOT}/search?fields=`).expect(200);
    });

    it('leaves CSW requests to the CSW parser (case-insensitive KVP names)', async () => {
      const response = await request(test.app)
        .get(`${ROOT}/csw?SERVICE=CSW&REQUEST=GetCapabilities&aCcEpTvErSiOnS=3.0.0`)
        .expect(200);
      expect(response.headers['content-type']).to.match(/xml/);
    });
  });

  describe('responses match the document', () => {
    const gets: [string, string][] = [
      ['/', ROOT],
      ['/conformance', `${ROOT}/conformance`],
      ['/collections', `${ROOT}/collections`],
      ['/collections/{collectionId}', COLLECTION],
      ['/collections/{collectionId}/queryables', `${COLLECTION}/queryables`],
      ['/collections/{collectionId}/sortables', `${COLLECTION}/sortables`],
      ['/collections/{collectionId}/facets', `${COLLECTION}/facets`],
      ['/collections/{collectionId}/items', `${ITEMS}?limit=7&facets=type,keywords:4`],
      ['/collections/{collectionId}/items', `${ITEMS}?q=land&sortby=-updated&f=html`],
      ['/collections/{collectionId}/items', `${ITEMS}?bbox=0,40,20,60&datetime=2000-01-01/..`],
      ['/collections/{collectionId}/items/{recordId}', `${ITEMS}/none`],
      ['/collections/{collectionId}', `${ROOT}/collections/other`],
      ['/search', `${ROOT}/search?limit=3`],
      ['/queryables', `${ROOT}/queryables`],
      ['/stac', `${ROOT}/stac`],
      ['/stac/conformance', `${ROOT}/stac/conformance`],
      ['/stac/collections', `${ROOT}/stac/collections?limit=3&offset=1`],
      ['/stac/collections/{stacCollectionId}', `${ROOT}/stac/collections/metadata:main`],
      ['/stac/collections/{stacCollectionId}', `${ROOT}/stac/collections/none`],
      [
        '/stac/collections/{stacCollectionId}/items',
        `${ROOT}/stac/collections/metadata:main/items?limit=2`,
      ],
      [
        '/stac/collections/{stacCollectionId}/items/{stacItemId}',
        `${ROOT}/stac/collections/metadata:main/items/none`,
      ],
      ['/openapi', `${ROOT}/openapi?f=html`],
      ['/', `${ROOT}?f=html`],
    ];
    for (const [template, url] of gets) {
      it(`GET ${url}`, async () => {
        await expectDocumented(template, 'get', url);
      });
    }

    it('GET one record in JSON, HTML and XML', async () => {
      const page = await request(test.app).get(`${ITEMS}?limit=1`).expect(200);
      const id = encodeURIComponent(page.body.features[0].id as string);
      for (const f of ['json', 'html', 'xml']) {
        const response = await expectDocumented(
          '/collections/{collectionId}/items/{recordId}',
          'get',
          `${ITEMS}/${id}?f=${f}`,
        );
        expect(response.status).to.equal(200);
      }
    });

    it('POST a CQL2 JSON filter to the items and a STAC search', async () => {
      const response = await expectDocumented(
        '/collections/{collectionId}/items',
        'post',
        `${ITEMS}?limit=3`,
        {
          op: '=',
          args: [{ property: 'type' }, 'dataset'],
        },
      );
      expect(response.status).to.equal(200);
      const search = await expectDocumented('/search', 'post', `${ROOT}/search`, { limit: 2 });
      expect(search.status).to.equal(200);
    });
  });

  describe('Records responses match the OGC API – Records schema', () => {
    let ogc: Ajv;
    before(() => {
      ogc = ogcRecordsAjv();
    });

    /** Fetches a Records resource as JSON and validates it against an OGC schema. */
    async function expectOgc(schema: string, url: string): Promise<request.Response> {
      const response = await request(test.app).get(url).expect(200);
      const validate = defined(
        ogc.getSchema(`ogc-records.json#/components/schemas/${schema}`),
        `the OGC schema ${schema}`,
      );
      expect(
        validate(response.body),
        `${url} as ${schema}: ${ogc.errorsText(validate.errors, { separator: '\n' })}`,
      ).to.equal(true);
      return response;
    }

    it('checks what it claims: the schema refuses a record without a title or a bad link', () => {
      const validate = defined(ogc.getSchema('ogc-records.json#/components/schemas/recordGeoJSON'));
      const record = {
        id: 'a',
        type: 'Feature',
        geometry: null,
        properties: { type: 'dataset', title: 'A' },
        links: [{ href: 'https://example.org/a', rel: 'self' }],
      };
      expect(validate(record)).to.equal(true);
      expect(validate({ ...record, properties: { type: 'dataset' } })).to.equal(false);
      expect(validate({ ...record, links: [{ rel: 'self' }] })).to.equal(false);
      expect(validate({ ...record, geometry: { type: 'Point', coordinates: [1] } })).to.equal(
        false,
      );
      expect(
        validate({ ...record, properties: { ...record.properties, created: '2020-01-01' } }),
      ).to.equal(false);
    });

    it('the landing page (landingPage)', async () => {
      await expectOgc('landingPage', ROOT);
    });

    it('the conformance declaration (confClasses)', async () => {
      await expectOgc('confClasses', `${ROOT}/conformance`);
    });

    it('the collections (collections) and the catalogue collection (collectionInfo)', async () => {
      const collections = await expectOgc('collections', `${ROOT}/collections`);
      const ids = (collections.body.collections as { id: string }[]).map((c) => c.id);
      expect(ids).to.include('metadata:main');
      for (const id of ids) {
        await expectOgc('collectionInfo', `${ROOT}/collections/${encodeURIComponent(id)}`);
      }
    });

    it('every record of the collection, in pages (featureCollectionGeoJSON)', async () => {
      const seen: string[] = [];
      let located = 0;
      for (let offset = 0; ; offset += 25) {
        const page = await expectOgc(
          'featureCollectionGeoJSON',
          `${ITEMS}?limit=25&offset=${offset}`,
        );
        const features = page.body.features as { id: string; geometry: unknown }[];
        // The schema's text: numberReturned is the number of records in the response.
        expect(page.body.numberReturned).to.equal(features.length);
        seen.push(...features.map((feature) => feature.id));
        located += features.filter((feature) => feature.geometry !== null).length;
        if (features.length < 25) break;
      }
      expect(seen).to.have.length(60);
      // Both kinds of record were validated: with a footprint and without one.
      expect(located).to.be.within(1, 59);
    });

    it('filtered and sorted pages (featureCollectionGeoJSON)', async () => {
      for (const query of [
        'q=land&sortby=-updated',
        'bbox=0,40,20,60&datetime=2000-01-01T00:00:00Z/..',
        "filter=type = 'dataset'&limit=3",
        'ids=none',
      ]) {
        await expectOgc('featureCollectionGeoJSON', `${ITEMS}?${query}`);
      }
    });

    it('one record, with and without a footprint (recordGeoJSON)', async () => {
      const all = await request(test.app).get(`${ITEMS}?limit=100`).expect(200);
      const features = all.body.features as { id: string; geometry: unknown }[];
      const located = defined(
        features.find((feature) => feature.geometry !== null),
        'located',
      );
      const unlocated = defined(
        features.find((feature) => feature.geometry === null),
        'unlocated',
      );
      for (const feature of [located, unlocated]) {
        const response = await expectOgc(
          'recordGeoJSON',
          `${ITEMS}/${encodeURIComponent(feature.id)}`,
        );
        expect(response.headers['content-type']).to.match(/^application\/geo\+json/);
      }
    });
    it('every sample record, from each of the formats Cairn reads (recordGeoJSON)', async () => {
      const folders = ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'];
      const documents = folders.flatMap((folder) => readDocuments(samplePath(folder)));
      const samples = await createCatalogueApp(documents);
      try {
        const validate = defined(
          ogc.getSchema('ogc-records.json#/components/schemas/recordGeoJSON'),
          'recordGeoJSON',
        );
        const page = await request(samples.app).get(`${ITEMS}?limit=100`).expect(200);
        const features = page.body.features as Json[];
        expect(features).to.have.length(page.body.numberMatched as number);
        expect(features.length).to.be.greaterThan(50);
        const refused = features.flatMap((feature) =>
          validate(feature) ? [] : [`${String(feature.id)}: ${ogc.errorsText(validate.errors)}`],
        );
        expect(refused, refused.join('\n')).to.deep.equal([]);
      } finally {
        await samples.close();
      }
    });
  });
});
