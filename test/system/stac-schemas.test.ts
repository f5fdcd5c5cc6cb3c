/**
 * Cairn's STAC responses against the official STAC 1.0.0 JSON Schemas (radiantearth/stac-spec)
 * and the STAC API ItemCollection (radiantearth/stac-api-spec), vendored with their provenance
 * in test/fixtures/schemas/stac: outside references that Cairn did not write. Every sample
 * record of data/samples is loaded, on the backend CAIRN_TEST_SYSTEM_BACKEND chooses, and
 * served over HTTP: both STAC roots must be Catalogs, every collection (from the list and from
 * its own URL) a Collection, and every Feature of every collection's items and of item search
 * (GET and POST) an Item. An Item or Collection that declares the STAC Language extension
 * (stac-extensions/language, vendored beside them) is checked against that schema too, and the
 * multilingual ISO samples must declare it.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { STAC_LANGUAGE_EXTENSION } from '../../shared/records/writers/stac-item.js';
import { createCatalogueApp, readDocuments } from '../support/catalogue-app.js';
import { defined } from '../support/defined.js';
import { fixturePath, samplePath } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';

type Json = Record<string, unknown>;

const ROOT = '/catalogue';
const STAC_ROOT = `${ROOT}/stac`;
const SAMPLE_FOLDERS = ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'];

const SCHEMAS = (...path: string[]) => fixturePath('schemas', 'stac', ...path);
const STAC_SPEC = (...path: string[]) => SCHEMAS('stac-spec', 'v1.0.0', ...path);
const STAC_SCHEMA_FILES = [
  STAC_SPEC('catalog-spec', 'json-schema', 'catalog.json'),
  STAC_SPEC('collection-spec', 'json-schema', 'collection.json'),
  ...['item', 'basics', 'datetime', 'instrument', 'licensing', 'provider'].map((name) =>
    STAC_SPEC('item-spec', 'json-schema', `${name}.json`),
  ),
  ...['Feature', 'Geometry', 'FeatureCollection'].map((name) => SCHEMAS('geojson', `${name}.json`)),
  SCHEMAS('language', 'v1.0.0', 'schema.json'),
];

const SCHEMA_IDS = {
  catalog: 'https://schemas.stacspec.org/v1.0.0/catalog-spec/json-schema/catalog.json',
  collection: 'https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json',
  item: 'https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json',
  featureCollection: 'https://geojson.org/schema/FeatureCollection.json',
  itemCollection: 'stac-api-itemcollection.json',
  language: STAC_LANGUAGE_EXTENSION,
} as const;

/** Multilingual sample records (ISO 19139 with PT_FreeText), whose items name their languages. */
const MULTILINGUAL_SAMPLES = ['CZ-CUZK-ATOM-DATA50', 'OCEANO_MODELE_HYDRODYN.xml'];

type SchemaName = keyof typeof SCHEMA_IDS;

/**
 * Sample Collections written for another STAC version, which Cairn serves as Collections with
 * the version they declare (as Items it writes them anew, as 1.0.0):
 * data/samples/stac/simple-collection.json is a STAC 1.1.0 example. No STAC 1.1.0 schema is
 * vendored (the stac-spec snapshot available ends at v1.1.0-beta.1), so these are checked
 * against the 1.0.0 schema with only the version constant set aside: the test asserts the
 * declared version is served and validates the rest.
 */
const OTHER_VERSIONS: Readonly<Record<string, string>> = { 'simple-collection': '1.1.0' };

/** RFC 3339 timestamps, as the STAC datetime fields require. */
function isDateTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

/**
 * The STAC API ItemCollection (OpenAPI 3.0, the only form the STAC API publishes it in) as a
 * JSON Schema: its references to the API's common item and link schemas point at the core STAC
 * Item schema and the Item schema's link definition, which state the same members more strictly.
 */
function itemCollectionSchema(): Json {
  const document = parseYaml(
    readFileSync(
      SCHEMAS('stac-api-spec', 'v1.0.0', 'fragments', 'itemcollection', 'openapi.yaml'),
      'utf8',
    ),
  ) as { components: { schemas: { itemCollection: Json } } };
  const text = JSON.stringify(document.components.schemas.itemCollection)
    .replaceAll('"../../core/commons.yaml#/components/schemas/item"', `"${SCHEMA_IDS.item}"`)
    .replaceAll(
      '"../../core/commons.yaml#/components/schemas/link"',
      `"${SCHEMA_IDS.item}#/definitions/link"`,
    );
  expect(text, 'every reference rewritten').not.to.include('commons.yaml');
  return { $id: SCHEMA_IDS.itemCollection, ...(JSON.parse(text) as Json) };
}

/** Ajv (draft-07) holding every vendored schema under its own `$id`; formats checked. */
function stacAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('date-time', isDateTime);
  // An IRI is absolute (a scheme); an IRI reference may be relative. Neither holds white space.
  ajv.addFormat('iri', (value: string) => /^[a-z][a-z0-9+.-]*:\S*$/i.test(value));
  ajv.addFormat('iri-reference', (value: string) => /^\S*$/.test(value));
  for (const file of STAC_SCHEMA_FILES) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')));
  ajv.addSchema(itemCollectionSchema());
  return ajv;
}

describe(`STAC responses against the STAC 1.0.0 JSON Schemas`, () => {
  let test: TestApp;
  let ajv: Ajv;
  const validators = new Map<SchemaName, ValidateFunction>();
  let collectionIds: string[] = [];

  before(async () => {
    ajv = stacAjv();
    for (const name of Object.keys(SCHEMA_IDS) as SchemaName[]) {
      validators.set(name, defined(ajv.getSchema(SCHEMA_IDS[name]), SCHEMA_IDS[name]));
    }
    const documents = SAMPLE_FOLDERS.flatMap((folder) => readDocuments(samplePath(folder)));
    test = await createCatalogueApp(documents, { LIMIT_MAX: '100' });
  });
  after(async () => {
    await test?.close();
  });

  /** The schema's complaints about a document, each prefixed with where it came from. */
  function violations(schema: SchemaName, document: unknown, where: string): string[] {
    const validate = defined(validators.get(schema), schema);
    const { id, stac_version: version } = document as Json;
    const other =
      schema === 'collection' && typeof id === 'string' ? OTHER_VERSIONS[id] : undefined;
    if (other !== undefined) {
      if (version !== other)
        return [`${where}: serves stac_version ${String(version)}, not ${other}`];
      document = { ...(document as Json), stac_version: '1.0.0' };
    }
    const own = validate(document)
      ? []
      : (validate.errors ?? []).map(
          (error) =>
            `${where}: ${error.instancePath || '/'} ${error.message ?? ''} (${error.schemaPath})`,
        );
    return [...own, ...extensionViolations(schema, document, where)];
  }

  /** What the Language extension's schema says of a document that declares it. */
  function extensionViolations(schema: SchemaName, document: unknown, where: string): string[] {
    const { stac_extensions: extensions } = document as Json;
    const declared = Array.isArray(extensions) && extensions.includes(STAC_LANGUAGE_EXTENSION);
    if (!declared || (schema !== 'item' && schema !== 'collection')) return [];
    return violations('language', document, `${where} (language extension)`);
  }

  async function getJson(path: string, query: Record<string, string> = {}): Promise<Json> {
    const response = await request(test.app).get(path).query(query).expect(200);
    return response.body as Json;
  }

  /** Each Feature of an ItemCollection checked as an Item, and the collection as a whole. */
  function itemCollectionViolations(body: Json, where: string): string[] {
    const features = body.features as Json[];
    return [
      ...violations('featureCollection', body, where),
      ...violations('itemCollection', body, where),
      ...features.flatMap((feature) =>
        violations('item', feature, `${where} item ${String(feature.id)}`),
      ),
    ];
  }

  it('loads the schemas offline, and they refuse what they must', () => {
    // The schemas are live: an Item without assets or a datetime, and a Catalog without links,
    // are refused; a minimal valid Item is accepted.
    const item = {
      type: 'Feature',
      stac_version: '1.0.0',
      id: 'x',
      geometry: null,
      properties: { datetime: '2020-01-01T00:00:00Z' },
      links: [],
      assets: {},
    };
    expect(violations('item', item, 'minimal')).to.deep.equal([]);
    expect(violations('item', { ...item, assets: undefined }, 'no assets')).to.have.length.above(0);
    expect(violations('item', { ...item, properties: {} }, 'no datetime')).to.have.length.above(0);
    expect(
      violations('item', { ...item, properties: { datetime: 'yesterday' } }, 'bad datetime'),
    ).to.have.length.above(0);
    expect(
      violations(
        'catalog',
        { type: 'Catalog', stac_version: '1.0.0', id: 'c', description: 'd' },
        'no links',
      ),
    ).to.have.length.above(0);
  });

  it('the STAC API root and the catalogue landing page are STAC Catalogs', async () => {
    const refused = [
      ...violations('catalog', await getJson(STAC_ROOT), STAC_ROOT),
      ...violations('catalog', await getJson(ROOT), ROOT),
    ];
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });

  it('every collection, in the list and at its own URL, is a STAC Collection', async () => {
    const list = await getJson(`${STAC_ROOT}/collections`, { limit: '100' });
    const collections = list.collections as Json[];
    collectionIds = collections.map((collection) => String(collection.id));
    // The catalogue collection and the sample Collections the Items name as parent.
    expect(collectionIds).to.include.members([
      'metadata:main',
      'sentinel-2-l2a',
      'S2MSI1C',
      'S2MSI2A',
    ]);
    expect(collections.length).to.equal(list.numberMatched ?? collections.length);
    const refused: string[] = [];
    for (const collection of collections) {
      const id = String(collection.id);
      refused.push(...violations('collection', collection, `list: ${id}`));
      const own = await getJson(`${STAC_ROOT}/collections/${encodeURIComponent(id)}`);
      refused.push(...violations('collection', own, `own URL: ${id}`));
    }
    refused.push(
      ...violations(
        'collection',
        await getJson(`${ROOT}/collections/metadata:main`, { f: 'stac' }),
        'metadata:main?f=stac',
      ),
    );
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });

  it('every item of every collection is a STAC Item', async () => {
    expect(collectionIds, 'collections listed first').to.have.length.above(0);
    const refused: string[] = [];
    let catalogueItems = 0;
    for (const id of collectionIds) {
      const path = `${STAC_ROOT}/collections/${encodeURIComponent(id)}/items`;
      const body = await getJson(path, { limit: '100' });
      const features = body.features as Json[];
      if (id === 'metadata:main') catalogueItems = features.length;
      refused.push(...itemCollectionViolations(body, path));
      // Each item also at its own URL (STAC API Features).
      for (const feature of features) {
        const own = `${path}/${encodeURIComponent(String(feature.id))}`;
        refused.push(...violations('item', await getJson(own), own));
      }
      // The schema is live on Cairn's own output: the first item without its assets or its
      // datetime is refused.
      const first = features[0];
      if (first) {
        const properties = { ...(first.properties as Json), datetime: undefined };
        expect(
          violations('item', { ...first, assets: undefined }, 'no assets'),
        ).to.have.length.above(0);
        expect(violations('item', { ...first, properties }, 'no datetime')).to.have.length.above(0);
      }
    }
    const records = SAMPLE_FOLDERS.flatMap((folder) => readDocuments(samplePath(folder)));
    // Every record of the catalogue is an item of metadata:main, one page of 100 holds them all.
    expect(catalogueItems).to.be.at.least(records.length);
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });

  it('the multilingual samples are Items of the Language extension, in each language', async () => {
    const refused: string[] = [];
    for (const id of MULTILINGUAL_SAMPLES) {
      const path = `${STAC_ROOT}/collections/metadata:main/items/${encodeURIComponent(id)}`;
      const own = await getJson(path);
      expect(own.stac_extensions, id).to.include(STAC_LANGUAGE_EXTENSION);
      const languages = (own.properties as Json).languages as { code: string }[];
      expect(languages, id).to.have.length.above(0);
      refused.push(...violations('item', own, path));
      for (const { code } of languages) {
        const other = await getJson(path, { lang: code });
        expect((other.properties as Json).language, `${id} ${code}`).to.deep.include({ code });
        refused.push(...violations('item', other, `${path}?lang=${code}`));
      }
    }
    // The schema is live: an item without `language`, or with a code that is no tag, is refused.
    const sample = await getJson(
      `${STAC_ROOT}/collections/metadata:main/items/${MULTILINGUAL_SAMPLES[0] ?? ''}`,
    );
    const properties = sample.properties as Json;
    expect(
      violations(
        'language',
        { ...sample, properties: { ...properties, language: undefined } },
        'x',
      ),
    ).to.have.length.above(0);
    expect(
      violations(
        'language',
        { ...sample, properties: { ...properties, language: { code: 'not a tag' } } },
        'x',
      ),
    ).to.have.length.above(0);
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });

  it('every Feature of item search, GET and POST, is a STAC Item', async () => {
    const get = await getJson(`${ROOT}/search`, { limit: '100' });
    const post = (await request(test.app).post(`${ROOT}/search`).send({ limit: 100 }).expect(200))
      .body as Json;
    expect(get.numberMatched).to.be.a('number');
    expect((get.features as Json[]).length).to.equal(get.numberMatched);
    expect((post.features as Json[]).map((feature) => feature.id)).to.deep.equal(
      (get.features as Json[]).map((feature) => feature.id),
    );
    const refused = [
      ...itemCollectionViolations(get, 'GET /search'),
      ...itemCollectionViolations(post, 'POST /search'),
    ];
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });
});
