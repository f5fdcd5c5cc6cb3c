/**
 * The DCAT-AP 3 / GeoDCAT-AP 3 mapping of records (sample records of every format and small
 * hand-made ones) and its three encodings: which classes and properties each record gets,
 * the composed description of a record without one, the EU vocabularies chosen, the catalogue
 * page with its Hydra paging, and Turtle / JSON-LD / RDF/XML holding the same statements.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import jsonld from 'jsonld';
import { DataFactory, Parser, Store, type Quad, type Term } from 'n3';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import {
  buildCatalogPageGraph,
  buildDcatGraph,
  COMPOSED_DESCRIPTION_PREFIX,
  distinctQuads,
  recordToRdfXml,
  writeJsonLd,
  writeRdfXml,
  writeTurtle,
  type DcatOptions,
} from '../../../shared/records/writers/dcat/index.js';
import { parseXml } from '../../../shared/xml/index.js';
import { samplePath } from '../../support/fixtures.js';

const { namedNode } = DataFactory;
const BASE = 'http://cairn.test/catalogue/collections/metadata:main/items/';
const OPTIONS: DcatOptions = {
  recordIri: (id) => `${BASE}${encodeURIComponent(id)}`,
  landingPage: (id) => `${BASE}${encodeURIComponent(id)}?f=html`,
};
const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  hydra: 'http://www.w3.org/ns/hydra/core#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
};

function sample(...path: string[]): CoreRecord {
  const [record] = parseDocuments(readFileSync(samplePath(...path), 'utf8')).records;
  if (!record) throw new Error(`no record in ${path.join('/')}`);
  return record;
}

function jsonRecord(object: Record<string, unknown>): CoreRecord {
  const [record] = parseDocuments(JSON.stringify(object)).records;
  if (!record) throw new Error('no record');
  return record;
}

/** The graph of a record in a store, with helpers to read one subject's values. */
function graphOf(record: CoreRecord): { store: Store; subject: Term } {
  return {
    store: new Store(buildDcatGraph(record, OPTIONS)),
    subject: namedNode(OPTIONS.recordIri(record.id)),
  };
}

function objects(store: Store, subject: Term, predicate: string): Term[] {
  return store.getObjects(subject, namedNode(predicate), null);
}

function values(store: Store, subject: Term, predicate: string): string[] {
  return objects(store, subject, predicate).map((term) => term.value);
}

function one(store: Store, subject: Term, predicate: string): Term {
  const found = objects(store, subject, predicate);
  expect(found, predicate).to.have.length(1);
  return found[0] as Term;
}

const SENTINEL_ITEM = [
  'stac',
  'S2B_MSIL2A_20190910T095029_N0213_R079_T33TWN_20190910T124513.SAFE.json',
];

describe('DCAT-AP mapping of records', () => {
  it('maps a STAC Item to a dcat:Dataset whose composed description states only its facts', () => {
    const record = sample(...SENTINEL_ITEM);
    expect(record.description).to.equal(undefined);
    const { store, subject } = graphOf(record);
    expect(values(store, subject, `${NS.rdf}type`)).to.deep.equal([`${NS.dcat}Dataset`]);
    const description = one(store, subject, `${NS.dct}description`).value;
    expect(description.startsWith(COMPOSED_DESCRIPTION_PREFIX)).to.equal(true);
    expect(description).to.include('STAC Item').and.include('platform Sentinel-2B');
    expect(description).to.include('cloud cover 44.521128 %').and.include('part of "S2MSI2A"');
    // No title in the source: titled by its identifier, which is also dct:identifier.
    expect(one(store, subject, `${NS.dct}title`).value).to.equal(record.id);
    expect(one(store, subject, `${NS.dct}identifier`).value).to.equal(record.id);
    expect(values(store, subject, `${NS.dct}isPartOf`)).to.deep.equal([
      OPTIONS.recordIri('S2MSI2A'),
    ]);
  });

  it('turns STAC assets into distributions with download URLs, IANA media types and EU file types', () => {
    const record = sample(...SENTINEL_ITEM);
    const { store, subject } = graphOf(record);
    const distributions = objects(store, subject, `${NS.dcat}distribution`);
    const assets = record.links.filter((link) => link.roles !== undefined);
    expect(distributions.length).to.be.greaterThanOrEqual(assets.length);
    const cog = record.links.find((link) => /geotiff/.test(link.type ?? ''));
    expect(cog, 'a GeoTIFF asset').to.not.equal(undefined);
    const [distribution] = store.getSubjects(
      namedNode(`${NS.dcat}downloadURL`),
      namedNode(cog?.href ?? ''),
      null,
    );
    expect(distribution).to.not.equal(undefined);
    const node = distribution as Term;
    expect(values(store, node, `${NS.dcat}accessURL`)).to.deep.equal([cog?.href]);
    expect(values(store, node, `${NS.dcat}mediaType`)).to.deep.equal([
      'http://www.iana.org/assignments/media-types/image/tiff',
    ]);
    expect(values(store, node, `${NS.dct}format`)).to.deep.equal([
      'http://publications.europa.eu/resource/authority/file-type/GEOTIFF',
    ]);
    // Every distribution has its mandatory access URL.
    for (const each of distributions)
      expect(objects(store, each, `${NS.dcat}accessURL`)).to.have.length(1);
  });

  it('gives the bbox as a CRS84 WKT polygon and the time as a dct:PeriodOfTime', () => {
    const record = jsonRecord({
      type: 'Feature',
      id: 'box',
      geometry: null,
      bbox: [5.5, -10, 7.25, 12],
      time: { interval: ['2020-01-01', '..'] },
      properties: { title: 'Box', description: 'A box', type: 'dataset' },
      links: [],
    });
    const { store, subject } = graphOf(record);
    const location = one(store, subject, `${NS.dct}spatial`);
    const bbox = one(store, location, `${NS.dcat}bbox`);
    expect(bbox.value).to.equal('POLYGON((5.5 12,7.25 12,7.25 -10,5.5 -10,5.5 12))');
    expect(bbox.termType === 'Literal' && bbox.datatype.value).to.equal(`${NS.gsp}wktLiteral`);
    const period = one(store, subject, `${NS.dct}temporal`);
    const start = one(store, period, `${NS.dcat}startDate`);
    expect(start.value).to.equal('2020-01-01');
    expect(start.termType === 'Literal' && start.datatype.value).to.equal(`${NS.xsd}date`);
    expect(objects(store, period, `${NS.dcat}endDate`)).to.have.length(0);
  });

  it('maps an ISO 19115-3 series to dcat:DatasetSeries, its language to the EU authority and its contacts by role', () => {
    const record = sample('iso19115-3', 'metawal.wallonie.be-catchments.xml');
    const { store, subject } = graphOf(record);
    expect(values(store, subject, `${NS.rdf}type`)).to.include(`${NS.dcat}DatasetSeries`);
    expect(values(store, subject, `${NS.dct}language`)).to.deep.equal([
      'http://publications.europa.eu/resource/authority/language/FRA',
    ]);
    const title = one(store, subject, `${NS.dct}title`);
    expect(title.termType === 'Literal' && title.language).to.equal('fr');
    const contact = one(store, subject, `${NS.dcat}contactPoint`);
    expect(values(store, contact, `${NS.rdf}type`)).to.include(`${NS.vcard}Kind`);
    expect(values(store, contact, `${NS.vcard}hasEmail`)).to.deep.equal([
      'mailto:helpdesk.carto@spw.wallonie.be',
    ]);
    expect(
      values(store, namedNode('mailto:helpdesk.carto@spw.wallonie.be'), `${NS.rdf}type`),
    ).to.deep.equal([`${NS.vcard}Email`]);
    const custodian = one(store, subject, 'http://data.europa.eu/930/custodian');
    expect(values(store, custodian, `${NS.foaf}name`)[0]).to.match(
      /^Direction des Eaux souterraines/,
    );
  });

  it('maps a service record to dcat:DataService with its online resources as endpoint URLs', () => {
    const record = sample('iso19115-3', 'metawal.wallonie.be-srv.xml');
    const { store, subject } = graphOf(record);
    expect(values(store, subject, `${NS.rdf}type`)).to.deep.equal([`${NS.dcat}DataService`]);
    expect(objects(store, subject, `${NS.dcat}endpointURL`).length).to.be.greaterThan(0);
    expect(objects(store, subject, `${NS.dcat}distribution`)).to.have.length(0);
  });

  it('chooses an EU licence only where the record names one, and keeps other licence text as it is', () => {
    const base = { type: 'Feature', geometry: null, links: [] };
    const spdx = graphOf(
      jsonRecord({
        ...base,
        id: 'a',
        properties: { title: 'A', description: 'a', license: 'CC-BY-4.0' },
      }),
    );
    expect(values(spdx.store, spdx.subject, `${NS.dct}license`)).to.deep.equal([
      'http://publications.europa.eu/resource/authority/licence/CC_BY_4_0',
    ]);
    const text = graphOf(sample('iso19139', 'T_ortho_RAS_1998_288395.xml'));
    const licence = one(text.store, text.subject, `${NS.dct}license`);
    expect(licence.termType).to.equal('BlankNode');
    expect(values(text.store, licence, 'http://www.w3.org/2000/01/rdf-schema#label')).to.deep.equal(
      ['no conditions apply'],
    );
    const other = graphOf(
      jsonRecord({
        ...base,
        id: 'b',
        properties: { title: 'B', description: 'b', license: 'other' },
        links: [{ rel: 'license', href: 'https://example.org/licence' }],
      }),
    );
    expect(values(other.store, other.subject, `${NS.dct}license`)).to.deep.equal([
      'https://example.org/licence',
    ]);
  });

  it('keeps a single dct:publisher (DCAT-AP allows one) and needs a name for every agent', () => {
    const record = sample('iso19115-3', 'auscope-3d-model.xml');
    const { store, subject } = graphOf(record);
    const publishers = objects(store, subject, `${NS.dct}publisher`);
    expect(publishers).to.have.length(1);
    for (const agent of store.getSubjects(
      namedNode(`${NS.rdf}type`),
      namedNode(`${NS.foaf}Agent`),
      null,
    )) {
      expect(values(store, agent, `${NS.foaf}name`)).to.have.length(1);
    }
  });

  it('writes Turtle, JSON-LD and RDF/XML holding the same statements, and escapes record text', async () => {
    const record = jsonRecord({
      type: 'Feature',
      id: 'x</script>&"',
      geometry: null,
      properties: {
        contacts: [
          {
            name: 'Someone',
            roles: ['pointOfContact'],
            emails: [{ value: 'not an <address>@x y' }, { value: 'ok@example.org' }],
          },
        ],
        title: 'Title with <markup> & "quotes"',
        description: 'd\nline two',
        keywords: ['a<b'],
      },
      links: [{ rel: 'enclosure', href: 'https://example.org/a?b=1&c=2', type: 'text/csv' }],
    });
    const quads = distinctQuads(buildDcatGraph(record, OPTIONS));
    // Only the plain address becomes a mailto: IRI; the other cannot be written as an IRI.
    expect(
      quads.filter((q) => q.predicate.value === `${NS.vcard}hasEmail`).map((q) => q.object.value),
    ).to.deep.equal(['mailto:ok@example.org']);
    const fromTurtle = new Parser().parse(writeTurtle(quads));
    expect(fromTurtle).to.have.length(quads.length);
    const fromJsonLd = (await jsonld.toRDF(writeJsonLd(quads), {
      format: 'application/n-quads',
    })) as string;
    expect(new Parser({ format: 'N-Quads' }).parse(fromJsonLd)).to.have.length(quads.length);
    const xml = writeRdfXml(quads);
    const root = parseXml(xml).root;
    expect(root.local).to.equal('RDF');
    expect(xml).to.include('Title with &lt;markup&gt; &amp; "quotes"');
    expect(xml).to.not.include('<markup>');
    // Statements in RDF/XML: one property element per quad.
    const properties = root.children.flatMap((description) => description.children);
    expect(properties).to.have.length(quads.length);
    // recordToRdfXml (for other protocols) writes the same graph (blank node labels aside).
    const standalone = parseXml(recordToRdfXml(record, OPTIONS)).root;
    expect(standalone.children.flatMap((description) => description.children)).to.have.length(
      quads.length,
    );
  });

  it('writes Turtle that reads back to the same terms for text with characters to escape', () => {
    const { namedNode, literal, quad, blankNode } = DataFactory;
    const subject = namedNode('http://example.org/caf%C3%A9/é?a=1&b=(2)#x');
    const text = 'quote " backslash \\ tab \t line \n return \r bell \u0007 del \u007f é 😀';
    const node = blankNode('b1');
    const quads: Quad[] = [
      quad(subject, namedNode('http://purl.org/dc/terms/title'), literal(text, 'en')),
      quad(subject, namedNode('http://purl.org/dc/terms/description'), literal(text)),
      quad(
        subject,
        namedNode('http://example.org/p#x.y'),
        literal('1', namedNode('http://example.org/t#y-1')),
      ),
      quad(
        subject,
        namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'),
        namedNode('http://example.org/C'),
      ),
      quad(subject, namedNode('http://purl.org/dc/terms/title'), literal(text, 'en')),
      quad(subject, namedNode('http://purl.org/dc/terms/spatial'), node),
      quad(
        node,
        namedNode('http://www.w3.org/ns/dcat#bbox'),
        literal('POLYGON((0 0))', namedNode('http://www.opengis.net/ont/geosparql#wktLiteral')),
      ),
    ];
    const read = new Parser().parse(writeTurtle(quads));
    // Blank nodes are relabelled on reading: compared by kind only.
    const term = (value: Term) => (value.termType === 'BlankNode' ? '_' : value.id);
    const key = (item: Quad) => `${term(item.subject)} ${item.predicate.id} ${term(item.object)}`;
    expect(read.map(key).sort()).to.deep.equal(distinctQuads(quads).map(key).sort());
    expect(read.filter((item) => item.subject.termType === 'NamedNode')[0]?.subject.value).to.equal(
      subject.value,
    );
  });

  it('drops a repeated statement once, whether its terms are shared or made anew, for subjects with few and many statements', () => {
    const { namedNode, literal, quad, blankNode } = DataFactory;
    const keyword = namedNode(`${NS.dcat}keyword`);
    const many = namedNode('http://example.org/many');
    const few = blankNode('few');
    const quads: Quad[] = [];
    for (let index = 0; index < 12; index += 1) {
      quads.push(quad(many, keyword, literal(`k${index}`)));
      // The other subject's statements between them, as the mapping interleaves subjects.
      if (index < 3) quads.push(quad(few, keyword, literal(`k${index}`)));
    }
    const repeated = quads[0] as Quad;
    quads.push(
      repeated, // the same quad again
      quad(many, namedNode(`${NS.dcat}keyword`), literal('k3')), // new terms, same statement
      quad(many, keyword, literal('k11')), // the last one kept
      quad(few, namedNode(`${NS.dcat}keyword`), literal('k1')), // few statements, new terms
      // Not repeats: the same object under another predicate, the same text in a language.
      quad(many, namedNode(`${NS.dct}subject`), literal('k4')),
      quad(many, keyword, literal('k4', 'en')),
      quad(few, keyword, literal('k2', 'en')),
    );
    const distinct = distinctQuads(quads);
    expect(distinct).to.have.length(12 + 3 + 3);
    const key = (item: Quad) => `${item.subject.id} ${item.predicate.id} ${item.object.id}`;
    expect(new Set(distinct.map(key)).size).to.equal(distinct.length);
    expect(distinct.map(key)).to.include.members([
      `${many.id} ${NS.dct}subject "k4"`,
      `${many.id} ${keyword.id} "k4"@en`,
      `${few.id} ${keyword.id} "k2"@en`,
    ]);
    // Each subject's statements together, subjects in the order they first appear.
    expect(distinct.slice(0, 14).every((item) => item.subject.equals(many))).to.equal(true);
    expect(distinct.slice(14).every((item) => item.subject.equals(few))).to.equal(true);
    // The encodings write each statement once.
    expect(new Parser().parse(writeTurtle(quads))).to.have.length(distinct.length);
    const properties = parseXml(writeRdfXml(quads)).root.children.flatMap(
      (description) => description.children,
    );
    expect(properties).to.have.length(distinct.length);
  });

  it('leaves out link IRIs whose scheme JSON-LD would read as a compact IRI of its context', () => {
    const record = jsonRecord({
      type: 'Feature',
      id: 'schemes',
      geometry: null,
      properties: { title: 'Schemes', description: 'd' },
      links: [
        { rel: 'enclosure', href: 'dct:title' },
        { rel: 'enclosure', href: 'ftp://example.org/data.csv' },
      ],
    });
    const { store, subject } = graphOf(record);
    const distributions = objects(store, subject, `${NS.dcat}distribution`);
    expect(
      distributions.flatMap((node) => values(store, node, `${NS.dcat}accessURL`)),
    ).to.deep.equal(['ftp://example.org/data.csv']);
    const graph = writeJsonLd(buildDcatGraph(record, OPTIONS)) as { '@graph': { '@id': string }[] };
    const dataset = graph['@graph'].find((node) => node['@id'] === OPTIONS.recordIri('schemes'));
    expect(dataset).to.have.property('dct:title');
  });

  it('builds a catalogue page: a dcat:Catalog with its datasets and services and a Hydra view', () => {
    const records = [sample(...SENTINEL_ITEM), sample('iso19115-3', 'metawal.wallonie.be-srv.xml')];
    const page =
      'http://cairn.test/catalogue/collections/metadata:main/items?f=ttl&offset=10&limit=2';
    const quads: Quad[] = buildCatalogPageGraph(
      records,
      {
        catalogIri: 'http://cairn.test/catalogue/collections/metadata:main',
        title: 'Cairn',
        description: 'A catalogue',
        publisherName: 'Cairn',
        license: 'CC-BY-4.0',
        totalItems: 65,
        view: {
          self: page,
          first: page.replace('offset=10', 'offset=0'),
          last: page.replace('offset=10', 'offset=64'),
          previous: page.replace('offset=10', 'offset=8'),
          next: page.replace('offset=10', 'offset=12'),
        },
      },
      OPTIONS,
    );
    const store = new Store(quads);
    const catalog = namedNode('http://cairn.test/catalogue/collections/metadata:main');
    expect(values(store, catalog, `${NS.dcat}dataset`)).to.deep.equal([
      OPTIONS.recordIri(records[0]?.id ?? ''),
    ]);
    expect(values(store, catalog, `${NS.dcat}service`)).to.deep.equal([
      OPTIONS.recordIri(records[1]?.id ?? ''),
    ]);
    expect(values(store, catalog, `${NS.hydra}totalItems`)).to.deep.equal(['65']);
    const view = one(store, catalog, `${NS.hydra}view`);
    expect(view.value).to.equal(page);
    expect(values(store, view, `${NS.rdf}type`)).to.deep.equal([
      `${NS.hydra}PartialCollectionView`,
    ]);
    for (const rel of ['first', 'last', 'next', 'previous']) {
      expect(values(store, view, `${NS.hydra}${rel}`), rel).to.have.length(1);
    }
    const publisher = one(store, catalog, `${NS.dct}publisher`);
    expect(values(store, publisher, `${NS.foaf}name`)).to.deep.equal(['Cairn']);
  });

  it('maps every sample record to a titled, described resource of one DCAT class', () => {
    const root = samplePath();
    const files = ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'].flatMap((folder) =>
      readdirNames(`${root}/${folder}`).map((name) => [folder, name]),
    );
    expect(files.length).to.be.greaterThan(60);
    for (const [folder, name] of files) {
      for (const record of parseDocuments(readFileSync(`${root}/${folder}/${name}`, 'utf8'))
        .records) {
        const { store, subject } = graphOf(record);
        expect(objects(store, subject, `${NS.dct}title`), name).to.have.length(1);
        const kinds = values(store, subject, `${NS.rdf}type`);
        if (!kinds.includes(`${NS.dcat}DataService`)) {
          expect(objects(store, subject, `${NS.dct}description`), name).to.have.length(1);
        }
      }
    }
  });
});

function readdirNames(path: string): string[] {
  return readdirSync(path).filter((name) => /\.(xml|json)$/.test(name));
}
