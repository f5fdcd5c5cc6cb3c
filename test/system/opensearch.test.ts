/**
 * OpenSearch over HTTP: the description document (/catalogue/opensearch and CSW
 * GetCapabilities&mode=opensearch) with its templates, and the Atom feeds its templates lead to
 * (CSW GetRecords&mode=opensearch): the OpenSearch response elements, paging links, GeoRSS
 * footprints, Geo/Time/EO parameters, and the ets-cat30 OpenSearch and Atom rules.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { XmlElement } from '../../shared/xml/index.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { generatedDocuments, readDocuments } from '../support/catalogue-app.js';
import { createCatalogueAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  attribute,
  childNamed,
  childrenNamed,
  cswGet,
  exceptionOf,
  NS,
  rootOf,
} from '../support/csw-client.js';
import { samplePath } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const GEO = 'http://a9.com/-/opensearch/extensions/geo/1.0/';
const EO_NS = 'http://a9.com/-/opensearch/extensions/eo/1.0/';
const GENERATED = 90;

/**
 * Fills an OpenSearch URL template as a client does: given parameters are substituted,
 * optional ones without a value are left empty.
 */
function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}?]+)(\??)\}/g, (_match, name: string, optional: string) => {
    const value = values[name];
    if (value === undefined && optional !== '?') throw new Error(`no value for required ${name}`);
    return encodeURIComponent(value ?? '');
  });
}

/** The path and query of an absolute URL, for supertest. */
function local(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

interface Feed {
  root: XmlElement;
  total: number;
  startIndex: number;
  itemsPerPage: number;
  entries: XmlElement[];
  ids: string[];
  links: Record<string, string>;
}

function feedOf(text: string): Feed {
  const root = rootOf(text);
  expect(`${root.ns} ${root.local}`).to.equal(`${NS.atom} feed`);
  const number = (local: string) => Number(childNamed(root, local)?.text);
  const entries = childrenNamed(root, 'entry');
  const links: Record<string, string> = {};
  for (const link of childrenNamed(root, 'link'))
    links[attribute(link, 'rel') ?? ''] = attribute(link, 'href') ?? '';
  return {
    root,
    total: number('totalResults'),
    startIndex: number('startIndex'),
    itemsPerPage: number('itemsPerPage'),
    entries,
    ids: entries.map((entry) => childrenNamed(entry, 'identifier')[0]?.text ?? ''),
    links,
  };
}

function describeSuite(backend: SuiteBackend): void {
  describe(`OpenSearch over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    let description: XmlElement;
    let atomTemplate: string;
    let xmlTemplate: string;
    const generated = [...generateRecords(GENERATED, 7)];

    before(async function () {
      test = await createCatalogueAppOn(
        backend,
        [...readDocuments(samplePath('dublin-core-cite')), ...generatedDocuments(GENERATED)],
        { PUBLIC_BASE_URL: 'http://catalogue.test' },
      );
      const response = await request(test.app).get('/catalogue/opensearch').expect(200);
      description = rootOf(response.text);
      const urls = childrenNamed(description, 'Url');
      atomTemplate =
        attribute(
          urls.find((url) => attribute(url, 'type') === 'application/atom+xml'),
          'template',
        ) ?? '';
      xmlTemplate =
        attribute(
          urls.find((url) => attribute(url, 'type') === 'application/xml'),
          'template',
        ) ?? '';
    });
    after(async () => {
      await test?.close();
    });

    const search = async (values: Record<string, string>, status = 200) =>
      request(test.app)
        .get(local(fillTemplate(atomTemplate, values)))
        .expect(status);

    describe('the description document', () => {
      it('is served at /catalogue/opensearch and by GetCapabilities&mode=opensearch', async () => {
        const direct = await request(test.app)
          .get('/catalogue/opensearch')
          .expect(200)
          .expect('Content-Type', /application\/opensearchdescription\+xml/);
        const viaCsw = await cswGet(test.app, {
          service: 'CSW',
          request: 'GetCapabilities',
          mode: 'opensearch',
        })
          .expect(200)
          .expect('Content-Type', /application\/opensearchdescription\+xml/);
        expect(viaCsw.text).to.equal(direct.text);
      });

      it('follows the ets-cat30 OpenSearch rules (opensearch-1.1.sch)', () => {
        expect(`${description.ns} ${description.local}`).to.equal(`${NS.os} OpenSearchDescription`);
        const results = childrenNamed(description, 'Url').filter((url) =>
          [undefined, 'results'].includes(attribute(url, 'rel')),
        );
        expect(
          results.some((url) => attribute(url, 'type')?.startsWith('application/atom+xml')),
        ).to.equal(true);
        expect(
          results.some(
            (url) =>
              attribute(url, 'type')?.startsWith('application/xml') &&
              attribute(url, 'template')?.includes(
                'outputschema=http://www.opengis.net/cat/csw/3.0',
              ),
          ),
        ).to.equal(true);
      });

      it('has the OpenSearch metadata within its length limits', () => {
        expect(childNamed(description, 'ShortName')?.text.length).to.be.at.most(16);
        expect(childNamed(description, 'LongName')?.text.length).to.be.at.most(48);
        expect(childNamed(description, 'Description')?.text).to.be.a('string');
        expect(childNamed(description, 'Tags')?.text.length).to.be.at.most(256);
      });

      it('templates carry the core, Geo, Time and EO parameters, all optional', () => {
        for (const template of [atomTemplate, xmlTemplate]) {
          for (const parameter of [
            'searchTerms',
            'count',
            'startIndex',
            'startPage',
            'geo:box',
            'geo:geometry',
            'geo:uid',
            'geo:lat',
            'geo:lon',
            'geo:radius',
            'geo:relation',
            'time:start',
            'time:end',
            'time:relation',
            'eo:cloudCover',
            'eo:instrument',
            'eo:platform',
            'eo:orbitDirection',
            'eo:orbitNumber',
            'eo:processingLevel',
            'eo:productType',
            'eo:sensorType',
            'eo:snowCover',
            'eo:spectralRange',
          ]) {
            expect(template, parameter).to.include(`{${parameter}?}`);
          }
        }
        expect(atomTemplate).to.include('mode=opensearch');
      });

      it('advertises parameter options through the Parameter extension', () => {
        const url = childrenNamed(description, 'Url')[0];
        const parameters = childrenNamed(url, 'Parameter');
        const orbit = parameters.find((item) => attribute(item, 'value') === '{eo:orbitDirection}');
        expect(
          childrenNamed(orbit, 'Option').map((item) => attribute(item, 'value')),
        ).to.deep.equal(['ASCENDING', 'DESCENDING']);
      });

      it('has an example query that finds records', async () => {
        const example = childrenNamed(description, 'Query').find(
          (item) => attribute(item, 'role') === 'example',
        );
        const terms = attribute(example, 'searchTerms');
        expect(terms).to.be.a('string').and.not.equal('');
        const feed = feedOf((await search({ searchTerms: terms! })).text);
        expect(feed.total).to.be.greaterThan(0);
      });

      it('its XML template answers a CSW 3.0 GetRecordsResponse', async () => {
        const response = await request(test.app)
          .get(local(fillTemplate(xmlTemplate, { searchTerms: 'lorem', count: '3' })))
          .expect(200);
        const root = rootOf(response.text);
        expect(`${root.ns} ${root.local}`).to.equal(`${NS.csw30} GetRecordsResponse`);
      });
    });

    describe('Atom feeds', () => {
      it('follow the ets-cat30 Atom rules (atom-feed.sch) and echo the request', async () => {
        const response = await search({ searchTerms: 'lorem', count: '2' });
        expect(response.headers['content-type']).to.match(/application\/atom\+xml/);
        const feed = feedOf(response.text);
        expect(childNamed(feed.root, 'author')).to.not.equal(undefined);
        const searchLink = childrenNamed(feed.root, 'link').find(
          (link) => attribute(link, 'rel') === 'search',
        );
        expect(attribute(searchLink, 'type')).to.include('opensearchdescription+xml');
        expect(feed).to.include({ total: 5, startIndex: 1, itemsPerPage: 2 });
        expect(feed.entries).to.have.length(2);
        const query = childNamed(feed.root, 'Query');
        expect(attribute(query, 'role')).to.equal('request');
        expect(attribute(query, 'searchTerms')).to.equal('lorem');
        expect(attribute(query, 'count')).to.equal('2');
        for (const local of ['id', 'title', 'updated'])
          expect(childNamed(feed.root, local)).to.not.equal(undefined);
      });

      it('pages with self/first/next/prev/last links that cover every result once', async () => {
        const first = feedOf((await search({ searchTerms: 'lorem,climate', count: '4' })).text);
        expect(Object.keys(first.links)).to.include.members([
          'self',
          'first',
          'next',
          'last',
          'search',
        ]);
        expect(first.links.prev).to.equal(undefined);
        const seen = [...first.ids];
        let feed = first;
        while (feed.links.next) {
          feed = feedOf((await request(test.app).get(local(feed.links.next)).expect(200)).text);
          seen.push(...feed.ids);
          expect(feed.links.prev).to.be.a('string');
        }
        expect(seen).to.have.length(first.total);
        expect(new Set(seen).size).to.equal(first.total);
        const last = feedOf(
          (
            await request(test.app)
              .get(local(defined(first.links.last, 'the last link')))
              .expect(200)
          ).text,
        );
        expect(last.ids).to.deep.equal(feed.ids);
      });

      it('startIndex and startPage choose the page (startIndex wins)', async () => {
        const all = feedOf((await search({ searchTerms: 'lorem', count: '5' })).text);
        const byIndex = feedOf(
          (await search({ searchTerms: 'lorem', count: '2', startIndex: '3' })).text,
        );
        expect(byIndex.ids).to.deep.equal(all.ids.slice(2, 4));
        expect(byIndex.startIndex).to.equal(3);
        const byPage = feedOf(
          (await search({ searchTerms: 'lorem', count: '2', startPage: '2' })).text,
        );
        expect(byPage.ids).to.deep.equal(all.ids.slice(2, 4));
        const both = feedOf(
          (await search({ searchTerms: 'lorem', count: '2', startPage: '3', startIndex: '2' }))
            .text,
        );
        expect(both.ids).to.deep.equal(all.ids.slice(1, 3));
      });

      it('entries carry an id, dc:identifier, GeoRSS footprint and links to the record', async () => {
        const feed = feedOf(
          (await search({ 'geo:uid': 'urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc' })).text,
        );
        expect(feed.ids).to.deep.equal(['urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc']);
        const entry = feed.entries[0];
        expect(childNamed(entry, 'title')?.text).to.equal('Ñunç elementum');
        expect(childNamed(entry, 'box')?.ns).to.equal('http://www.georss.org/georss');
        const links = childrenNamed(entry, 'link');
        const alternate = links.find((link) => attribute(link, 'type') === 'application/xml');
        const record = rootOf(
          (
            await request(test.app)
              .get(local(attribute(alternate, 'href')!))
              .expect(200)
          ).text,
        );
        expect(record.local).to.equal('Record');
        const via = links.find((link) => attribute(link, 'rel') === 'via');
        await request(test.app)
          .get(local(attribute(via, 'href')!))
          .expect(200);
      });

      it('geo:box, geo:geometry and geo:lat/lon/radius select by footprint', async () => {
        const box = feedOf(
          (await search({ 'geo:box': '-6.17,44.79,17.92,68.41', count: '100' })).text,
        );
        const csw = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecords',
          typeNames: 'csw:Record',
          bbox: '-6.17,44.79,17.92,68.41',
          maxRecords: '0',
        }).expect(200);
        expect(box.total).to.equal(Number(/numberOfRecordsMatched="(\d+)"/.exec(csw.text)?.[1]));
        expect(box.ids).to.include('urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc');
        const polygon = 'POLYGON((-6.17 44.79,17.92 44.79,17.92 68.41,-6.17 68.41,-6.17 44.79))';
        const geometry = feedOf((await search({ 'geo:geometry': polygon, count: '100' })).text);
        expect(geometry.ids).to.have.members(box.ids);
        const disjoint = feedOf(
          (await search({ 'geo:box': '-6.17,44.79,17.92,68.41', 'geo:relation': 'disjoint' })).text,
        );
        expect(disjoint.total).to.be.greaterThan(0);
        const radius = { 'geo:lat': '65', 'geo:lon': '15', 'geo:radius': '200000' };
        // In envelope mode the engine cannot prove which footprints meet the circle: it decides
        // its candidates in Node (refine-search.ts), so every backend answers.
        expect(feedOf((await search(radius)).text).total).to.be.greaterThan(0);
      });

      it('time:start and time:end select by time', async () => {
        const feed = feedOf(
          (await search({ 'time:start': '2005-01-01', 'time:end': '2006-12-31', count: '100' }))
            .text,
        );
        expect(feed.ids).to.include.members([
          'urn:uuid:784e2afd-a9fd-44a6-9a92-a3848371c8ec',
          'urn:uuid:94bc9c83-97f6-4b40-9eb8-a8e8787a5c63',
          'urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc',
        ]);
        expect(feed.ids).to.not.include('urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db');
      });

      it('EO parameters filter, and os:Query echoes them in the EO namespace', async () => {
        const cloudy = generated.filter((record) => {
          const cover = (record.properties as Record<string, number | undefined>).cloudCover;
          return cover !== undefined && cover >= 50;
        });
        const response = await search({ 'eo:cloudCover': '[50', count: '100' });
        const feed = feedOf(response.text);
        expect(feed.total).to.equal(cloudy.length);
        const query = childNamed(feed.root, 'Query');
        expect(
          query?.attributes.find((item) => item.ns === EO_NS && item.local === 'cloudCover')?.value,
        ).to.equal('[50');
        const ascending = generated.filter(
          (record) => (record.properties as Record<string, unknown>).orbitDirection === 'ASCENDING',
        );
        expect(feedOf((await search({ 'eo:orbitDirection': 'ASCENDING' })).text).total).to.equal(
          ascending.length,
        );
      });

      it('echoes geo parameters in the Geo namespace', async () => {
        const feed = feedOf((await search({ 'geo:box': '0,40,20,70' })).text);
        const query = childNamed(feed.root, 'Query');
        expect(
          query?.attributes.find((item) => item.ns === GEO && item.local === 'box')?.value,
        ).to.equal('0,40,20,70');
      });

      it('GetRecords&mode=opensearch returns results in CSW 2.0.2 too', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '2.0.2',
          request: 'GetRecords',
          mode: 'opensearch',
          q: 'lorem',
        }).expect(200);
        const feed = feedOf(response.text);
        expect(feed.total).to.equal(5);
        expect(feed.entries).to.have.length(5);
      });

      it('refuses bad parameters with ExceptionReports: an unknown geo:uid is 404', async () => {
        const notFound = exceptionOf((await search({ 'geo:uid': 'urn:nothing' }, 404)).text);
        expect(notFound).to.include({ code: 'NotFound', locator: 'recordIds' });
        const badBox = exceptionOf(
          (await search({ 'geo:box': '500000,4000000,600000,5000000' }, 400)).text,
        );
        expect(badBox).to.include({ code: 'InvalidParameterValue', locator: 'bbox' });
        const badCount = exceptionOf((await search({ count: 'many' }, 400)).text);
        expect(badCount).to.include({ code: 'InvalidParameterValue', locator: 'maxRecords' });
      });
    });
  });
}

for (const backend of suiteBackends()) describeSuite(backend);
