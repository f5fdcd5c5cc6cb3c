/**
 * What web search engines and crawlers read, over HTTP on the chosen backend
 * (CAIRN_TEST_SYSTEM_BACKEND): the schema.org JSON-LD every record page embeds (and f=jsonld),
 * the landing page's DataCatalog, /robots.txt, and the sitemap index and files — validated
 * against the sitemaps.org schemas (test/fixtures/xsd/sitemaps), listing every record page
 * exactly once (as many as numberMatched), each answering 200.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { parseXml, type XmlElement } from '../../shared/xml/index.js';
import { createApp } from '../../services/api/app.js';
import { presentLastmod } from '../../services/api/protocols/web/sitemap.js';
import { createCatalogueApp, readDocuments } from '../support/catalogue-app.js';
import { fixturePath, samplePath } from '../support/fixtures.js';
import { systemBackend } from '../support/system-backend.js';
import type { TestApp } from '../support/test-app.js';
import { requireXmllint } from '../unit/formats-xml/xmllint.js';

const BASE = 'https://catalogue.example.org';
const ITEMS = '/catalogue/collections/metadata:main/items';
const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** Small files, so that the samples fill several and the ranges between them are exercised. */
const PER_FILE = 7;
const HOSTILE_TITLE = '</script><script>window.pwned=1</script><!-- & \u2028 title';

const HOSTILE_RECORD = {
  id: 'hostile record ü&<x>',
  type: 'Feature',
  conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
  geometry: null,
  properties: {
    type: 'dataset',
    title: HOSTILE_TITLE,
    description: 'A record whose title tries to end the script element <!-- and open a comment.',
    updated: '2024-03-01T10:00:00Z',
  },
  links: [],
};

/** Every sample record, from every folder of data/samples. */
function sampleDocuments() {
  return ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'].flatMap((folder) =>
    readDocuments(samplePath(folder)).map((document) => ({
      ...document,
      name: `${folder}/${document.name}`,
    })),
  );
}

/** The text of each `<script type="application/ld+json">` element of a page. */
function jsonLdScripts(html: string): string[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    (match) => match[1] ?? '',
  );
}

/** xmllint's verdict on a document against one of the sitemaps.org schemas. */
function validateSitemapXml(xml: string, schema: 'sitemap.xsd' | 'siteindex.xsd'): string[] {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-sitemap-'));
  try {
    const file = join(directory, 'document.xml');
    writeFileSync(file, xml);
    const result = spawnSync(
      'xmllint',
      ['--noout', '--nonet', '--schema', fixturePath('xsd', 'sitemaps', schema), file],
      { encoding: 'utf8' },
    );
    return result.status === 0 ? [] : [result.stderr];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The text of the child elements named `name` (sitemap namespace) of each `parent`. */
function childTexts(root: XmlElement, parent: string, name: string): string[][] {
  return root.children
    .filter((child) => child.ns === SITEMAP_NS && child.local === parent)
    .map((entry) =>
      entry.children
        .filter((child) => child.ns === SITEMAP_NS && child.local === name)
        .map((child) => child.text),
    );
}

/** The path and query of an absolute URL under BASE, for supertest. */
function localPath(url: string): string {
  expect(url.startsWith(`${BASE}/`), url).to.equal(true);
  return url.slice(BASE.length);
}

describe(`Web search engines and crawlers on ${systemBackend().label}`, () => {
  let test: TestApp;
  let records: { id: string; properties: { updated?: string } }[];
  let matched: number;

  before(async function () {
    this.timeout(120_000);
    requireXmllint();
    test = await createCatalogueApp(sampleDocuments(), {
      PUBLIC_BASE_URL: BASE,
      SITEMAP_URLS_PER_FILE: String(PER_FILE),
    });
    const summary = await ingestDocuments(test.backend, [
      { name: 'hostile.json', content: JSON.stringify(HOSTILE_RECORD) },
    ]);
    expect(summary.rejected).to.deep.equal([]);
    const page = await request(test.app).get(`${ITEMS}?f=json&limit=1000`).expect(200);
    records = page.body.features;
    matched = page.body.numberMatched;
    expect(records).to.have.length(matched);
    expect(matched).to.be.greaterThan(60);
  });
  after(async () => {
    await test?.close();
  });

  describe('schema.org JSON-LD', () => {
    it('embeds one JSON-LD description in every record page, the same as f=jsonld', async function () {
      this.timeout(120_000);
      const types = new Set<string>();
      for (const record of records) {
        const path = `${ITEMS}/${encodeURIComponent(record.id)}`;
        const page = await request(test.app).get(`${path}?f=html`).expect(200);
        const scripts = jsonLdScripts(page.text);
        expect(scripts, record.id).to.have.length(1);
        const embedded = JSON.parse(scripts[0]!);
        const served = await request(test.app).get(`${path}?f=jsonld`).expect(200);
        expect(served.type).to.equal('application/ld+json');
        expect(served.body, record.id).to.deep.equal(embedded);
        expect(embedded['@context']).to.equal('https://schema.org/');
        expect(embedded.name, record.id).to.be.a('string').and.not.equal('');
        expect(String(embedded.description).length, record.id).to.be.within(50, 5000);
        expect(embedded.url).to.equal(`${BASE}${path}?f=html`);
        types.add(embedded['@type']);
      }
      expect([...types].sort()).to.deep.equal(['DataCatalog', 'Dataset', 'WebAPI']);
    });

    it('keeps a hostile title inside the script element and reads it back exactly', async () => {
      const path = `${ITEMS}/${encodeURIComponent(HOSTILE_RECORD.id)}?f=html`;
      const page = await request(test.app).get(path).expect(200);
      expect(page.text).to.not.include('window.pwned=1</script>');
      const scripts = jsonLdScripts(page.text);
      expect(scripts).to.have.length(1);
      expect(scripts[0]).to.not.match(/[<>&\u2028]/);
      expect(JSON.parse(scripts[0]!).name).to.equal(HOSTILE_TITLE);
    });

    it('embeds the catalogue as a DataCatalog in the landing page', async () => {
      const page = await request(test.app).get('/catalogue?f=html').expect(200);
      const scripts = jsonLdScripts(page.text);
      expect(scripts).to.have.length(1);
      expect(JSON.parse(scripts[0]!)).to.include({
        '@context': 'https://schema.org/',
        '@type': 'DataCatalog',
        '@id': `${BASE}/catalogue`,
      });
    });

    it('gives a page of items as an ItemList with numberMatched and Link paging', async () => {
      const response = await request(test.app)
        .get(`${ITEMS}?limit=5&offset=5`)
        .set('Accept', 'application/ld+json')
        .expect(200);
      expect(response.type).to.equal('application/ld+json');
      expect(response.body['@type']).to.equal('ItemList');
      expect(response.body.numberOfItems).to.equal(matched);
      const positions = response.body.itemListElement.map(
        (item: { position: number }) => item.position,
      );
      expect(positions).to.deep.equal([6, 7, 8, 9, 10]);
      expect(response.headers.link).to.match(/offset=10[^>]*f=jsonld>; rel="next"/);
      expect(response.headers.link).to.match(/offset=0[^>]*f=jsonld>; rel="prev"/);
    });

    it('refuses an unknown f with 400 naming the formats offered, jsonld among them', async () => {
      const items = await request(test.app).get(`${ITEMS}?f=rdfa`).expect(400);
      expect(items.body.description).to.include('jsonld');
      const id = encodeURIComponent(records[0]!.id);
      const record = await request(test.app).get(`${ITEMS}/${id}?f=rdfa`).expect(400);
      expect(record.body.description).to.include('jsonld');
    });
  });

  describe('robots.txt and sitemaps', () => {
    it('serves robots.txt at the server root naming the sitemap index', async () => {
      const response = await request(test.app).get('/robots.txt').expect(200);
      expect(response.type).to.equal('text/plain');
      expect(response.text).to.include(`Sitemap: ${BASE}/catalogue/sitemap.xml`);
      expect(response.text).to.include(`Disallow: ${ITEMS}?`);
      expect(response.text).to.include(`Allow: ${ITEMS}/`);
    });

    it('lists every record page exactly once in schema-valid files of at most N URLs, each answering 200', async function () {
      this.timeout(120_000);
      const index = await request(test.app).get('/catalogue/sitemap.xml').expect(200);
      expect(index.type).to.equal('application/xml');
      expect(validateSitemapXml(index.text, 'siteindex.xsd')).to.deep.equal([]);
      const fileUrls = childTexts(parseXml(index.text).root, 'sitemap', 'loc').map(([loc]) => loc!);
      expect(fileUrls).to.have.length(Math.ceil(matched / PER_FILE));
      const listed: string[] = [];
      const lastmods = new Map<string, string | undefined>();
      for (const url of fileUrls) {
        const file = await request(test.app).get(localPath(url)).expect(200);
        expect(validateSitemapXml(file.text, 'sitemap.xsd'), url).to.deep.equal([]);
        const root = parseXml(file.text).root;
        const locs = childTexts(root, 'url', 'loc').map(([loc]) => loc!);
        expect(locs.length, url).to.be.within(1, PER_FILE);
        const dates = childTexts(root, 'url', 'lastmod');
        locs.forEach((loc, at) => lastmods.set(loc, dates[at]?.[0]));
        listed.push(...locs);
      }
      const pages = records.map(
        (record) => `${BASE}${ITEMS}/${encodeURIComponent(record.id)}?f=html`,
      );
      expect(listed).to.have.length(matched);
      expect([...listed].sort()).to.deep.equal([...pages].sort());
      for (const record of records) {
        const loc = `${BASE}${ITEMS}/${encodeURIComponent(record.id)}?f=html`;
        expect(lastmods.get(loc), record.id).to.equal(presentLastmod(record.properties.updated));
      }
      expect([...lastmods.values()].filter(Boolean).length).to.be.greaterThan(0);
      for (const loc of listed) {
        const page = await request(test.app).get(localPath(loc)).expect(200);
        expect(page.type, loc).to.equal('text/html');
      }
    });

    it('refuses bad sitemap file parameters with 400', async () => {
      await request(test.app).get('/catalogue/sitemap-records.xml?page=2').expect(400);
      await request(test.app).get('/catalogue/sitemap-records.xml?after=').expect(400);
      await request(test.app).get('/catalogue/sitemap-records.xml?after=a&after=b').expect(400);
      await request(test.app).get('/catalogue/sitemap-records.xml?after=b&through=a').expect(400);
      await request(test.app).get('/catalogue/sitemap.xml?x=1').expect(400);
    });

    // Up to 900 characters: the engines refuse a range bound of more than 1,000 characters
    // (Lucene's automaton limit; docs/decisions/web-discovery.md).
    it('answers odd range ids with a sitemap file, never a server error', async () => {
      const odd = ['%00', '%FF', '%F0%9F%8C%8D', 'x'.repeat(900), '%25', '*', '%5C', '..'];
      for (const value of odd) {
        for (const name of ['after', 'through']) {
          const response = await request(test.app).get(
            `/catalogue/sitemap-records.xml?${name}=${value}`,
          );
          expect(response.status, `${name}=${value.slice(0, 20)}`).to.equal(200);
          expect(
            validateSitemapXml(response.text, 'sitemap.xsd').length === 0 ||
              !response.text.includes('<url>'),
            value.slice(0, 20),
          ).to.equal(true);
        }
      }
    });

    it('switches robots.txt and the sitemaps off, or serves a robots file, by configuration', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'cairn-robots-'));
      try {
        const file = join(directory, 'robots.txt');
        writeFileSync(file, 'User-agent: *\nDisallow: /private\n');
        const appWith = (environment: Record<string, string>) =>
          createApp({
            config: loadConfig({ ...environment, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: BASE }),
            backend: test.backend,
            logger: createLogger('silent', 'test'),
          });
        const fromFile = appWith({ ROBOTS_TXT_FILE: file, SITEMAP_ENABLED: 'false' });
        const robots = await request(fromFile).get('/robots.txt').expect(200);
        expect(robots.text).to.equal('User-agent: *\nDisallow: /private\n');
        await request(fromFile).get('/catalogue/sitemap.xml').expect(404);
        await request(fromFile).get('/catalogue/sitemap-records.xml').expect(404);
        const off = appWith({ ROBOTS_TXT: 'off', SITEMAP_ENABLED: 'false' });
        await request(off).get('/robots.txt').expect(404);
        const noSitemap = appWith({ SITEMAP_ENABLED: 'false' });
        const generated = await request(noSitemap).get('/robots.txt').expect(200);
        expect(generated.text).to.not.include('Sitemap:');
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });
});
