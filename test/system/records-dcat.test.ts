/**
 * DCAT-AP over HTTP: every sample record in Turtle, RDF/XML and JSON-LD (`f` and Accept), the
 * same statements in each; a page of items as a dcat:Catalog whose Hydra links a harvester
 * follows to exactly the records the catalogue holds; the formats named in a 400; record
 * text that cannot break the encodings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import jsonld from 'jsonld';
import { DataFactory, Parser, Store, type Quad } from 'n3';
import request from 'supertest';
import { parseXml } from '../../shared/xml/index.js';
import { RDF_PAGE_LIMIT } from '../../services/api/protocols/records/routes.js';
import { defined } from '../support/defined.js';
import { samplePath } from '../support/fixtures.js';
import { systemBackend } from '../support/system-backend.js';
import { startApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const DCAT = 'http://www.w3.org/ns/dcat#';
const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const DCT = 'http://purl.org/dc/terms/';
const { literal, namedNode } = DataFactory;

const HOSTILE = {
  id: 'hostile-dcat',
  type: 'Feature',
  geometry: null,
  properties: {
    type: 'dataset',
    title: '"""\'\'\' </rdf:RDF> <script>alert(1)</script> & \\u0000 ]]>',
    description: 'Line one\nline "two" \\ with a backslash',
    keywords: ['a"b', '<k>'],
  },
  links: [{ rel: 'enclosure', href: 'https://example.org/data?a=1&b=<2>', type: 'text/csv' }],
};

function sampleDocuments(): { name: string; content: string }[] {
  return ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'].flatMap((folder) =>
    readdirSync(samplePath(folder))
      .filter((name) => /\.(xml|json)$/.test(name))
      .map((name) => ({ name, content: readFileSync(join(samplePath(folder), name), 'utf8') })),
  );
}

/**
 * Statements without blank node labels, and without the server's origin (each supertest
 * request runs on a port of its own), for comparing encodings of one graph.
 */
function shape(quads: Quad[]): string[] {
  const local = (value: string): string => value.replace(/^http:\/\/127\.0\.0\.1:\d+/, '');
  const term = (value: Quad['subject'] | Quad['object']): string => {
    if (value.termType === 'BlankNode') return '_';
    if (value.termType !== 'Literal') return `<${local(value.value)}>`;
    return `${JSON.stringify(value.value)}@${value.language}^^${value.datatype.value}`;
  };
  return quads.map((q) => `${term(q.subject)} ${q.predicate.value} ${term(q.object)}`).sort();
}

describe(`DCAT-AP encodings over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;
  let ids: string[];

  before(async () => {
    test = await startApp(
      systemBackend(),
      [...sampleDocuments(), { name: 'hostile.json', content: JSON.stringify(HOSTILE) }],
      { LIMIT_MAX: '1000' },
    );
    const all = await request(test.app).get(`${ITEMS}?limit=100`).expect(200);
    ids = (all.body.features as { id: string }[]).map((feature) => feature.id);
    expect(ids).to.have.length(all.body.numberMatched as number);
  });
  after(async () => {
    await test?.close();
  });

  const recordPath = (id: string) => `${ITEMS}/${encodeURIComponent(id)}`;

  async function turtleOf(path: string): Promise<Quad[]> {
    const url = path.includes('f=ttl') ? path : `${path}${path.includes('?') ? '&' : '?'}f=ttl`;
    const response = await request(test.app).get(url).expect(200);
    expect(response.type).to.equal('text/turtle');
    return new Parser({ baseIRI: 'http://unused.invalid/' }).parse(response.text);
  }

  it('serves every record in Turtle, JSON-LD and RDF/XML with the same statements', async () => {
    expect(ids.length).to.be.greaterThan(60);
    for (const id of ids) {
      const turtle = await turtleOf(recordPath(id));
      const store = new Store(turtle);
      const subjects = store.getSubjects(namedNode(`${DCT}identifier`), literal(id), null);
      expect(subjects, id).to.have.length(1);
      expect(new URL(subjects[0]?.value ?? '').pathname, id).to.equal(recordPath(id));
      const ld = await request(test.app).get(recordPath(id)).query({ f: 'dcat' }).expect(200);
      expect(ld.type).to.equal('application/ld+json');
      const nquads = (await jsonld.toRDF(JSON.parse(ld.text) as object, {
        format: 'application/n-quads',
      })) as string;
      expect(shape(new Parser({ format: 'N-Quads' }).parse(nquads)), `${id} JSON-LD`).to.deep.equal(
        shape(turtle),
      );
      const xml = await request(test.app).get(recordPath(id)).query({ f: 'rdf' }).expect(200);
      expect(xml.type).to.equal('application/rdf+xml');
      const root = parseXml(xml.text).root;
      expect(root.local).to.equal('RDF');
      expect(
        root.children.flatMap((description) => description.children),
        `${id} RDF/XML`,
      ).to.have.length(turtle.length);
    }
  });

  it('answers Accept: text/turtle and application/rdf+xml, and f beats Accept', async () => {
    const path = recordPath(ids[0] ?? '');
    const turtle = await request(test.app).get(path).set('Accept', 'text/turtle').expect(200);
    expect(turtle.type).to.equal('text/turtle');
    const xml = await request(test.app).get(path).set('Accept', 'application/rdf+xml').expect(200);
    expect(xml.type).to.equal('application/rdf+xml');
    const json = await request(test.app)
      .get(`${path}?f=json`)
      .set('Accept', 'text/turtle')
      .expect(200);
    expect(json.type).to.equal('application/geo+json');
    const page = await request(test.app)
      .get(`${ITEMS}?limit=2`)
      .set('Accept', 'text/turtle')
      .expect(200);
    expect(page.type).to.equal('text/turtle');
  });

  it('names the DCAT encodings in the 400 for an unknown f', async () => {
    for (const path of [ITEMS, recordPath(ids[0] ?? '')]) {
      const response = await request(test.app).get(path).query({ f: 'n3' }).expect(400);
      expect(JSON.stringify(response.body))
        .to.include('ttl')
        .and.include('rdf')
        .and.include('dcat');
    }
  });

  it('caps a DCAT page at RDF_PAGE_LIMIT records, and its paging links say so', async () => {
    const quads = await turtleOf(`${ITEMS}?f=ttl&limit=1000`);
    const store = new Store(quads);
    const [catalog] = store.getSubjects(namedNode(RDF_TYPE), namedNode(`${DCAT}Catalog`), null);
    const [view] = store.getObjects(catalog ?? null, namedNode(`${HYDRA}view`), null);
    const first = store.getObjects(view ?? null, namedNode(`${HYDRA}first`), null)[0]?.value;
    expect(new URL(defined(first, 'hydra:first')).searchParams.get('limit')).to.equal(
      String(RDF_PAGE_LIMIT),
    );
  });

  it('lets a harvester walk the catalogue page by page through hydra:next to exactly its records', async () => {
    const seen: string[] = [];
    let next: string | undefined = `${ITEMS}?f=ttl&limit=7`;
    let pages = 0;
    let last: string | undefined;
    while (next) {
      const quads = await turtleOf(next);
      const store = new Store(quads);
      const [catalog] = store.getSubjects(namedNode(RDF_TYPE), namedNode(`${DCAT}Catalog`), null);
      expect(catalog, next).to.not.equal(undefined);
      const members = [
        ...store.getObjects(catalog ?? null, namedNode(`${DCAT}dataset`), null),
        ...store.getObjects(catalog ?? null, namedNode(`${DCAT}service`), null),
      ];
      seen.push(...members.map((member) => member.value));
      const total = store.getObjects(catalog ?? null, namedNode(`${HYDRA}totalItems`), null);
      expect(total.map((term) => term.value)).to.deep.equal([String(ids.length)]);
      const [view] = store.getObjects(catalog ?? null, namedNode(`${HYDRA}view`), null);
      const link = (rel: string): string | undefined => {
        const target = store.getObjects(view ?? null, namedNode(`${HYDRA}${rel}`), null)[0];
        return target && new URL(target.value).pathname + new URL(target.value).search;
      };
      last ??= link('last');
      expect(link('last')).to.equal(last);
      const target = link('next');
      next = target;
      pages += 1;
      expect(pages).to.be.lessThan(50);
    }
    expect(pages).to.equal(Math.ceil(ids.length / 7));
    expect(new Set(seen).size).to.equal(ids.length);
    expect(
      seen.map((iri) => decodeURIComponent(iri.slice(iri.lastIndexOf('/') + 1))).sort(),
    ).to.deep.equal([...ids].sort());
  });

  it('keeps hostile record text inside its literals in every encoding', async () => {
    const path = recordPath('hostile-dcat');
    const quads = await turtleOf(path);
    const title = quads.find((q) => q.predicate.value === 'http://purl.org/dc/terms/title');
    expect(title?.object.value).to.equal(HOSTILE.properties.title);
    const xml = await request(test.app).get(path).query({ f: 'rdf' }).expect(200);
    const root = parseXml(xml.text).root;
    expect(root.children.flatMap((description) => description.children)).to.have.length(
      quads.length,
    );
    const ld = await request(test.app).get(path).query({ f: 'dcat' }).expect(200);
    expect(JSON.stringify(JSON.parse(ld.text))).to.include('</rdf:RDF>');
  });

  it('offers the DCAT output schema in CSW GetRecords and GetRecordById, as RDF/XML in the response', async () => {
    const schema = encodeURIComponent('http://www.w3.org/ns/dcat#');
    const csw = '/catalogue/csw?service=CSW';
    const records = await request(test.app)
      .get(
        `${csw}&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results&maxRecords=5&outputSchema=${schema}`,
      )
      .expect(200);
    const results = parseXml(records.text).root.children.find(
      (child) => child.local === 'SearchResults',
    );
    const recordSchema = results?.attributes.find(
      (attribute) => attribute.local === 'recordSchema',
    );
    expect(recordSchema?.value).to.equal('http://www.w3.org/ns/dcat#');
    const graphs = (results?.children ?? []).filter((child) => child.local === 'RDF');
    expect(graphs).to.have.length(5);
    const id = ids[0] ?? '';
    for (const version of ['2.0.2', '3.0.0']) {
      const byId = await request(test.app)
        .get(
          `${csw}&version=${version}&request=GetRecordById&id=${encodeURIComponent(id)}&outputSchema=${schema}`,
        )
        .expect(200);
      expect(byId.text, version)
        .to.include('<rdf:RDF')
        .and.include(`${ITEMS}/${encodeURIComponent(id)}`);
    }
    const capabilities = await request(test.app).get(`${csw}&request=GetCapabilities`).expect(200);
    expect(capabilities.text).to.include('http://www.w3.org/ns/dcat#');
  });
});
