/**
 * CSW GetRecords over HTTP, both versions, GET (KVP) and POST (XML), against the OGC CITE
 * Dublin Core records (pycsw's CITE expectations) and, for ISO output and EO parameters, a
 * catalogue of generated records. Responses are validated against the official schemas.
 */
import { expect } from 'chai';
import { generatedDocuments } from '../support/catalogue-app.js';
import {
  createCiteAppOn,
  createCatalogueAppOn,
  suiteBackends,
  type SuiteBackend,
} from '../support/csw-backends.js';
import {
  attribute,
  childNamed,
  childrenNamed,
  cswGet,
  cswPost,
  getRecords202,
  getRecords30,
  NS,
  rootOf,
  searchResultsOf,
  type SearchResults,
} from '../support/csw-client.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import type { TestApp } from '../support/test-app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { defined } from '../support/defined.js';

/** Text order as sorting promises it: case- and accent-insensitive, ties by code point. */
function byFoldedText(a: string, b: string): number {
  const fold = (text: string) =>
    text
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase();
  const [x, y] = [fold(a), fold(b)];
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const IMAGE = 'http://purl.org/dc/dcmitype/Image';
const FES20 = `xmlns:fes="${NS.fes}"`;
const OGC11 = `xmlns:ogc="${NS.ogc}"`;

function describeCiteRecords(backend: SuiteBackend): void {
  /** Documents collected during the suite and validated at its end, per schema. */
  const toValidate: Record<
    Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
    { name: string; xml: string }[]
  > = {
    'csw-2.0.2': [],
    'csw-3.0': [],
  };
  function keep(
    schema: Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
    name: string,
    xml: string,
  ): void {
    toValidate[schema].push({ name, xml });
  }

  describe(`CSW GetRecords over HTTP on ${backend.label} (CITE Dublin Core records)`, function () {
    this.timeout(120_000);
    let test: TestApp;

    before(async function () {
      test = await createCiteAppOn(backend);
    });
    after(async () => {
      await test?.close();
    });

    const get30 = async (extra: Record<string, string>) => {
      const response = await cswGet(test.app, getRecords30(extra)).expect(200);
      keep('csw-3.0', JSON.stringify(extra), response.text);
      return searchResultsOf(response.text);
    };
    const get202 = async (extra: Record<string, string>) => {
      const response = await cswGet(test.app, getRecords202(extra)).expect(200);
      keep('csw-2.0.2', JSON.stringify(extra), response.text);
      return searchResultsOf(response.text);
    };

    describe("pycsw's CITE expectations (CSW 3.0 KVP)", () => {
      it('no filter → matched 12, returned 10, nextRecord 11', async () => {
        const results = await get30({});
        expect(results).to.include({ matched: 12, returned: 10, next: 11, status: 'subset' });
        expect(results.root.ns).to.equal(NS.csw30);
        expect(results.records.every((record) => record.local === 'SummaryRecord')).to.equal(true);
      });

      it('bbox=-6.17,44.79,17.92,68.41 → 3', async () => {
        const results = await get30({ bbox: '-6.17,44.79,17.92,68.41' });
        expect(results).to.include({ matched: 3, returned: 3, next: 0, status: 'complete' });
      });

      it('the same box in EPSG:4326 latitude/longitude order → the same 3', async () => {
        const lonLat = await get30({ bbox: '-6.17,44.79,17.92,68.41' });
        const latLon = await get30({ bbox: '44.79,-6.17,68.41,17.92,urn:ogc:def:crs:EPSG::4326' });
        expect(latLon.ids).to.deep.equal(lonLat.ids);
      });

      it('q=Fuscé Land → 1, and accent-insensitively (q=fusce LAND)', async () => {
        const accented = await get30({ q: 'Fuscé Land' });
        expect(accented).to.include({ matched: 1, returned: 1 });
        expect(accented.ids).to.deep.equal(['urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db']);
        const plain = await get30({ q: 'fusce LAND' });
        expect(plain.ids).to.deep.equal(accented.ids);
      });

      it('startPosition=3&maxRecords=2 → 2 records, nextRecord 5', async () => {
        const results = await get30({ startPosition: '3', maxRecords: '2' });
        expect(results).to.include({ matched: 12, returned: 2, next: 5 });
        const all = await get30({ maxRecords: '12' });
        expect(results.ids).to.deep.equal(all.ids.slice(2, 4));
      });

      it('maxRecords=0&q=titles → matched 1, returned 0', async () => {
        const results = await get30({ maxRecords: '0', q: 'titles' });
        expect(results).to.include({ matched: 1, returned: 0, next: 1 });
      });

      it('time=start/end matches the records dated in the interval', async () => {
        const results = await get30({ time: '2005-01-01/2006-12-31', elementSetName: 'full' });
        expect(results.matched).to.equal(3);
        const open = await get30({ time: '2006-01-01/' });
        expect(open.matched).to.equal(2);
      });

      it('recordIds → exactly those records', async () => {
        const ids = [
          'urn:uuid:19887a8a-f6b0-4a63-ae56-7fba0e17801f',
          'urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db',
        ];
        const results = await get30({ recordIds: ids.join(',') });
        expect(results.ids).to.have.members(ids);
      });

      it('the last page has nextRecord 0', async () => {
        const results = await get30({ startPosition: '11' });
        expect(results).to.include({ returned: 2, next: 0 });
        const beyond = await get30({ startPosition: '40' });
        expect(beyond).to.include({ matched: 12, returned: 0, next: 0 });
      });
    });

    describe('CSW 2.0.2 resultType', () => {
      it('defaults to hits: counts only', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '2.0.2',
          request: 'GetRecords',
          typeNames: 'csw:Record',
        }).expect(200);
        keep('csw-2.0.2', 'hits', response.text);
        const results = searchResultsOf(response.text);
        expect(results).to.include({ matched: 12, returned: 0, next: 1 });
        expect(results.root.ns).to.equal(NS.csw202);
      });

      it('results → matched 12, returned 10, nextRecord 11', async () => {
        expect(await get202({})).to.include({ matched: 12, returned: 10, next: 11 });
      });

      it('validate → an Acknowledgement echoing the request', async () => {
        const response = await cswGet(test.app, getRecords202({ resultType: 'validate' })).expect(
          200,
        );
        keep('csw-2.0.2', 'validate', response.text);
        const root = rootOf(response.text);
        expect(root.local).to.equal('Acknowledgement');
        expect(attribute(root, 'timeStamp')).to.match(/^\d{4}-/);
        const echoed = childNamed(childNamed(root, 'EchoedRequest'), 'GetRecords');
        expect(attribute(echoed, 'resultType')).to.equal('validate');
      });

      it('validate by POST echoes the request document', async () => {
        const body = `<csw:GetRecords xmlns:csw="${NS.csw202}" service="CSW" version="2.0.2" resultType="validate" maxRecords="3">
        <csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName></csw:Query></csw:GetRecords>`;
        const response = await cswPost(test.app, body).expect(200);
        keep('csw-2.0.2', 'validate POST', response.text);
        const echoed = childNamed(childNamed(rootOf(response.text), 'EchoedRequest'), 'GetRecords');
        expect(attribute(echoed, 'maxRecords')).to.equal('3');
      });
    });

    describe('element sets and elements', () => {
      for (const [version, get] of [
        ['3.0.0', get30],
        ['2.0.2', get202],
      ] as const) {
        it(`${version}: brief, summary and full records with their elements`, async () => {
          const brief = await get({ elementSetName: 'brief', maxRecords: '12' });
          expect(brief.elementSet).to.equal('brief');
          expect(brief.records.every((record) => record.local === 'BriefRecord')).to.equal(true);
          const allowed = ['identifier', 'title', 'type', 'BoundingBox'];
          for (const record of brief.records) {
            for (const child of record.children) expect(allowed).to.include(child.local);
          }
          const summary = await get({ elementSetName: 'summary', maxRecords: '12' });
          expect(summary.records.every((record) => record.local === 'SummaryRecord')).to.equal(
            true,
          );
          const full = await get({ elementSetName: 'full', maxRecords: '12' });
          expect(full.records.every((record) => record.local === 'Record')).to.equal(true);
          const fusce = full.records.find(
            (record) => childNamed(record, 'title')?.text === 'Fuscé vitae ligulä',
          );
          expect(childNamed(fusce, 'date')?.text).to.equal('2003-05-09');
          expect(childrenNamed(fusce, 'subject').map((item) => item.text)).to.deep.equal([
            'Land titles',
          ]);
        });

        it(`${version}: ElementName reduces csw:Record to the named elements`, async () => {
          const results = await get({
            elementName: 'dc:title,/csw:Record/dc:identifier',
            maxRecords: '12',
          });
          expect(results.elementSet).to.equal(undefined);
          for (const record of results.records) {
            expect(record.local).to.equal('Record');
            expect(record.children.map((child) => child.local)).to.satisfy((names: string[]) =>
              names.every((name) => name === 'identifier' || name === 'title'),
            );
          }
        });
      }
    });

    describe('constraints', () => {
      const fes20 = (predicate: string) => `<fes:Filter ${FES20}>${predicate}</fes:Filter>`;
      const fes11 = (predicate: string) => `<ogc:Filter ${OGC11}>${predicate}</ogc:Filter>`;
      const titleLike = (prefix: string, pattern: string) =>
        `<${prefix}:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\"><${prefix}:${prefix === 'fes' ? 'ValueReference' : 'PropertyName'}>dc:title</${prefix}:${prefix === 'fes' ? 'ValueReference' : 'PropertyName'}><${prefix}:Literal>${pattern}</${prefix}:Literal></${prefix}:PropertyIsLike>`;

      it('FILTER (FES 2.0) in KVP: PropertyIsLike on dc:title', async () => {
        const results = await get30({
          constraintLanguage: 'FILTER',
          constraint_language_version: '2.0.0',
          constraint: fes20(titleLike('fes', 'Lorem%')),
        });
        expect(results.matched).to.equal(2);
      });

      it('FILTER (FES 1.1) in 2.0.2 KVP: PropertyIsEqualTo dc:type, Not, And/Or', async () => {
        const equal = `<ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>${IMAGE}</ogc:Literal></ogc:PropertyIsEqualTo>`;
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: fes11(equal) })).matched,
        ).to.equal(3);
        expect(
          (
            await get202({
              constraintLanguage: 'FILTER',
              constraint: fes11(`<ogc:Not>${equal}</ogc:Not>`),
            })
          ).matched,
        ).to.equal(9);
        const or = `<ogc:Or>${equal}${titleLike('ogc', 'Fusc%')}</ogc:Or>`;
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: fes11(or) })).matched,
        ).to.equal(4);
      });

      it('csw:AnyText is accent-insensitive free text over every field', async () => {
        const anyText = (value: string) =>
          fes11(
            `<ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><ogc:PropertyName>csw:AnyText</ogc:PropertyName><ogc:Literal>${value}</ogc:Literal></ogc:PropertyIsLike>`,
          );
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: anyText('*lorem*') })).matched,
        ).to.equal(5);
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: anyText('*ultrices*') }))
            .matched,
        ).to.equal(2);
        const mixed = fes11(
          `<ogc:Or><ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><ogc:PropertyName>csw:AnyText</ogc:PropertyName><ogc:Literal>*maecenas*</ogc:Literal></ogc:PropertyIsLike><ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>${IMAGE}</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Or>`,
        );
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: mixed })).matched,
        ).to.equal(4);
      });

      it('list-valued dc:subject compares by membership', async () => {
        const subject = (value: string) =>
          fes11(
            `<ogc:PropertyIsEqualTo><ogc:PropertyName>dc:subject</ogc:PropertyName><ogc:Literal>${value}</ogc:Literal></ogc:PropertyIsEqualTo>`,
          );
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: subject('Vegetation') })).ids,
        ).to.deep.equal(['urn:uuid:6a3de50b-fa66-4b58-a0e6-ca146fdd18d4']);
      });

      it('BBOX (FES 2.0, EPSG:4326 lat/lon) matches the bbox shortcut', async () => {
        const bbox = fes20(
          `<fes:BBOX><fes:ValueReference>ows:BoundingBox</fes:ValueReference><gml:Envelope xmlns:gml="http://www.opengis.net/gml/3.2" srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>44.79 -6.17</gml:lowerCorner><gml:upperCorner>68.41 17.92</gml:upperCorner></gml:Envelope></fes:BBOX>`,
        );
        expect((await get30({ constraintLanguage: 'FILTER', constraint: bbox })).matched).to.equal(
          3,
        );
      });

      it('dc:date comparisons (FES 1.1) and temporal operators (FES 2.0)', async () => {
        const after = fes11(
          `<ogc:PropertyIsGreaterThanOrEqualTo><ogc:PropertyName>dc:date</ogc:PropertyName><ogc:Literal>2005-01-01</ogc:Literal></ogc:PropertyIsGreaterThanOrEqualTo>`,
        );
        expect(
          (await get202({ constraintLanguage: 'FILTER', constraint: after })).matched,
        ).to.equal(3);
        const during = fes20(
          `<fes:During><fes:ValueReference>dc:date</fes:ValueReference><gml:TimePeriod xmlns:gml="http://www.opengis.net/gml/3.2" gml:id="p"><gml:beginPosition>2006-01-01</gml:beginPosition><gml:endPosition>2006-12-31</gml:endPosition></gml:TimePeriod></fes:During>`,
        );
        expect(
          (await get30({ constraintLanguage: 'FILTER', constraint: during })).matched,
        ).to.equal(2);
      });

      it('CQL_TEXT: comparisons, LIKE, classic BBOX', async () => {
        expect(
          (await get30({ constraintLanguage: 'CQL_TEXT', constraint: "dc:title LIKE 'Lorem%'" }))
            .matched,
        ).to.equal(2);
        expect(
          (
            await get202({
              constraintLanguage: 'CQL_TEXT',
              constraint: `dc:type = '${IMAGE}' AND dc:title LIKE 'Lorem%'`,
            })
          ).matched,
        ).to.equal(2);
        expect(
          (
            await get30({
              constraintLanguage: 'CQL_TEXT',
              constraint: 'BBOX(ows:BoundingBox, -6.17, 44.79, 17.92, 68.41)',
            })
          ).matched,
        ).to.equal(3);
      });

      it('the constraint is ANDed with q and bbox', async () => {
        const results = await get30({
          q: 'lorem',
          constraintLanguage: 'CQL_TEXT',
          constraint: `dc:type = '${IMAGE}'`,
        });
        expect(results.matched).to.equal(2);
      });
    });

    describe('sorting', () => {
      const titles = (results: SearchResults) =>
        results.records.map(
          (record) => record.children.find((child) => child.local === 'title')?.text ?? '',
        );

      it('sortBy=dc:title:D sorts descending, records without a title last', async () => {
        const results = await get30({
          sortBy: 'dc:title:D',
          maxRecords: '12',
          elementSetName: 'brief',
        });
        const named = titles(results).filter((title) => title !== '');
        expect(named).to.deep.equal([...named].sort(byFoldedText).reverse());
        expect(titles(results).slice(-2)).to.deep.equal(['', '']);
      });

      it('an ogc:SortBy in a POSTed query sorts ascending', async () => {
        const body = `<csw:GetRecords xmlns:csw="${NS.csw202}" ${OGC11} service="CSW" version="2.0.2" resultType="results" maxRecords="12">
        <csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName>
        <ogc:SortBy><ogc:SortProperty><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>ASC</ogc:SortOrder></ogc:SortProperty></ogc:SortBy>
        </csw:Query></csw:GetRecords>`;
        const response = await cswPost(test.app, body).expect(200);
        keep('csw-2.0.2', 'sort POST', response.text);
        const named = titles(searchResultsOf(response.text)).filter((title) => title !== '');
        expect(named).to.deep.equal([...named].sort(byFoldedText));
      });

      it('without sortBy the order is by identifier (stable for harvesting)', async () => {
        const results = await get30({ maxRecords: '12' });
        expect(results.ids).to.deep.equal([...results.ids].sort());
      });
    });

    describe('POST (XML)', () => {
      it('CSW 3.0 GetRecords with a FES 2.0 filter labelled version 1.1.0 (as OWSLib sends it)', async () => {
        const body = `<csw:GetRecords xmlns:csw="${NS.csw30}" ${FES20} service="CSW" version="3.0.0" maxRecords="5" outputSchema="${NS.csw30}" outputFormat="application/xml">
        <csw:Query typeNames="csw:Record"><csw:ElementSetName>full</csw:ElementSetName>
        <csw:Constraint version="1.1.0"><fes:Filter><fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>Lorem%</fes:Literal></fes:PropertyIsLike></fes:Filter></csw:Constraint>
        </csw:Query></csw:GetRecords>`;
        const response = await cswPost(test.app, body).expect(200);
        keep('csw-3.0', 'POST like', response.text);
        expect(searchResultsOf(response.text)).to.include({ matched: 2, returned: 2, next: 0 });
      });

      it('CSW 3.0 GetRecords with CqlText, startPosition and maxRecords', async () => {
        const body = `<csw:GetRecords xmlns:csw="${NS.csw30}" service="CSW" version="3.0.0" startPosition="2" maxRecords="1">
        <csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName>
        <csw:Constraint version="1.1.0"><csw:CqlText>dc:title LIKE 'Lorem%'</csw:CqlText></csw:Constraint>
        </csw:Query></csw:GetRecords>`;
        const response = await cswPost(test.app, body).expect(200);
        expect(searchResultsOf(response.text)).to.include({ matched: 2, returned: 1, next: 0 });
      });

      it('a form-encoded POST is read as KVP', async () => {
        const response = await cswPost(
          test.app,
          new URLSearchParams(getRecords30({ q: 'titles' })).toString(),
          'application/x-www-form-urlencoded',
        ).expect(200);
        expect(searchResultsOf(response.text).matched).to.equal(1);
      });
    });

    describe('output formats and schemas', () => {
      it('outputFormat=application/json renders the same response as JSON', async () => {
        const response = await cswGet(
          test.app,
          getRecords30({ outputFormat: 'application/json', maxRecords: '2' }),
        )
          .expect(200)
          .expect('Content-Type', /application\/json/);
        const body = response.body as Record<string, Record<string, unknown>>;
        const results = defined(body['csw30:GetRecordsResponse'], 'the GetRecordsResponse')[
          'csw30:SearchResults'
        ] as Record<string, unknown>;
        expect(results['@numberOfRecordsMatched']).to.equal('12');
        expect(results['@nextRecord']).to.equal('3');
        expect(results['csw30:SummaryRecord']).to.have.length(2);
      });

      it('outputFormat=application/atom+xml answers an OpenSearch Atom feed', async () => {
        const response = await cswGet(
          test.app,
          getRecords30({ outputFormat: 'application/atom+xml', maxRecords: '5' }),
        )
          .expect(200)
          .expect('Content-Type', /application\/atom\+xml/);
        const feed = rootOf(response.text);
        expect(feed.local).to.equal('feed');
        expect(childNamed(feed, 'totalResults')?.text).to.equal('12');
        expect(childrenNamed(feed, 'entry')).to.have.length(5);
      });

      it('the Accept header chooses the format when outputFormat is absent (CSW 3.0)', async () => {
        await cswGet(test.app, getRecords30({}), 'application/atom+xml')
          .expect(200)
          .expect('Content-Type', /atom/);
      });

      it('outputSchema=Atom writes atom:entry records inside the CSW response', async () => {
        const results = searchResultsOf(
          (
            await cswGet(test.app, getRecords30({ outputSchema: NS.atom, maxRecords: '3' })).expect(
              200,
            )
          ).text,
        );
        expect(results.recordSchema).to.equal(NS.atom);
        expect(results.records.map((record) => record.ns)).to.deep.equal([
          NS.atom,
          NS.atom,
          NS.atom,
        ]);
      });

      it('outputSchema=gmd writes ISO 19139 records (2.0.2 and 3.0)', async () => {
        for (const [schema, params] of [
          ['csw-3.0', getRecords30({ outputSchema: NS.gmd, maxRecords: '12' })],
          [
            'csw-2.0.2',
            getRecords202({ outputSchema: NS.gmd, maxRecords: '12', typeNames: 'gmd:MD_Metadata' }),
          ],
        ] as const) {
          const response = await cswGet(test.app, params).expect(200);
          keep(schema, `gmd ${schema}`, response.text);
          const results = searchResultsOf(response.text);
          expect(results.returned).to.equal(12);
          expect(results.recordSchema).to.equal(NS.gmd);
          expect(
            results.records.every(
              (record) => record.local === 'MD_Metadata' && record.ns === NS.gmd,
            ),
          ).to.equal(true);
        }
      });

      it('typeNames may use the namespace parameter and unprefixed Record (3.0)', async () => {
        expect((await get30({ typeNames: 'Record' })).matched).to.equal(12);
        expect(
          (await get30({ typeNames: 'c:Record', namespace: `xmlns(c=${NS.csw30})` })).matched,
        ).to.equal(12);
      });

      it('requestId is echoed', async () => {
        const results = await get30({ requestId: 'urn:example:request:1' });
        expect(childNamed(results.root, 'RequestId')?.text).to.equal('urn:example:request:1');
      });
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} response of this suite validates`, () => {
          expect(toValidate[schema].length).to.be.greaterThan(5);
          const invalid = validateCsw(schema, toValidate[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

function describeGeneratedRecords(backend: SuiteBackend): void {
  describe(`CSW GetRecords over HTTP on ${backend.label} (generated records, EO parameters, ISO output)`, function () {
    this.timeout(120_000);
    let test: TestApp;
    const COUNT = 120;
    const generated = [...generateRecords(COUNT, 7)];
    const eo = (name: string) =>
      generated.filter(
        (record) => (record.properties as Record<string, unknown>)[name] !== undefined,
      );

    before(async function () {
      test = await createCatalogueAppOn(backend, generatedDocuments(COUNT));
    });
    after(async () => {
      await test?.close();
    });

    const matched = async (extra: Record<string, string>): Promise<number> =>
      searchResultsOf(
        (await cswGet(test.app, getRecords30({ maxRecords: '0', ...extra })).expect(200)).text,
      ).matched;

    it('eo:cloudCover intervals', async () => {
      const cloud = (record: (typeof generated)[number]) =>
        (record.properties as Record<string, number | undefined>).cloudCover;
      const expected = (test: (value: number) => boolean) =>
        eo('cloudCover').filter((record) => test(cloud(record) as number)).length;
      expect(await matched({ 'eo:cloudCover': '[0,20]' })).to.equal(
        expected((v) => v >= 0 && v <= 20),
      );
      expect(await matched({ 'eo:cloudCover': ']50' })).to.equal(expected((v) => v > 50));
      expect(await matched({ 'eo:cloudCover': '20[' })).to.equal(expected((v) => v < 20));
      expect(expected((v) => v > 50)).to.be.greaterThan(0);
    });

    for (const name of [
      'platform',
      'instrument',
      'orbitDirection',
      'processingLevel',
      'productType',
      'sensorType',
    ]) {
      it(`eo:${name} equality`, async () => {
        const values = eo(name).map((record) =>
          String((record.properties as Record<string, unknown>)[name]),
        );
        const value = values[0];
        expect(value, `generated records carry ${name}`).to.be.a('string');
        const count = values.filter((item) => item === value).length;
        expect(await matched({ [`eo:${name}`]: defined(value, name) })).to.equal(count);
      });
    }

    it('eo:orbitNumber ranges, eo:snowCover and eo:spectralRange are accepted', async () => {
      const orbits = eo('orbitNumber').map(
        (record) => (record.properties as { orbitNumber: number }).orbitNumber,
      );
      expect(await matched({ 'eo:orbitNumber': '[1000,20000]' })).to.equal(
        orbits.filter((orbit) => orbit >= 1000 && orbit <= 20000).length,
      );
      expect(await matched({ 'eo:snowCover': '[0,10]' })).to.equal(0);
      expect(await matched({ 'eo:spectralRange': 'INFRARED' })).to.equal(0);
    });

    it('CQL_TEXT compares numeric EO queryables as numbers (bare or quoted)', async () => {
      const cloud = (record: (typeof generated)[number]) =>
        (record.properties as Record<string, number | undefined>).cloudCover as number;
      const between = eo('cloudCover').filter(
        (record) => cloud(record) >= 10 && cloud(record) <= 30,
      ).length;
      expect(between).to.be.greaterThan(0);
      expect(
        await matched({
          constraintLanguage: 'CQL_TEXT',
          constraint: 'eo:cloudCover BETWEEN 10 AND 30',
        }),
      ).to.equal(between);
      expect(
        await matched({ constraintLanguage: 'CQL_TEXT', constraint: "eo:cloudCover < '9.5'" }),
      ).to.equal(eo('cloudCover').filter((record) => cloud(record) < 9.5).length);
    });

    it('EO parameters AND with each other and with q', async () => {
      const first = defined(eo('platform')[0], 'a record with a platform');
      const both = eo('platform').filter(
        (record) =>
          (record.properties as Record<string, unknown>).orbitDirection === 'ASCENDING' &&
          (record.properties as Record<string, unknown>).platform ===
            (first.properties as Record<string, unknown>).platform,
      ).length;
      expect(
        await matched({
          'eo:platform': String((first.properties as Record<string, unknown>).platform),
          'eo:orbitDirection': 'ASCENDING',
        }),
      ).to.equal(both);
    });

    it('synthesised ISO 19139 records validate (2.0.2 and 3.0 envelopes)', async function () {
      requireXmllint();
      const documents30 = [
        (
          await cswGet(test.app, getRecords30({ outputSchema: NS.gmd, maxRecords: '15' })).expect(
            200,
          )
        ).text,
      ];
      const documents202 = [
        (
          await cswGet(
            test.app,
            getRecords202({ outputSchema: NS.gmd, maxRecords: '15', elementSetName: 'full' }),
          ).expect(200)
        ).text,
      ];
      const invalid = [
        ...validateCsw(
          'csw-3.0',
          documents30.map((xml, index) => ({ name: `3.0 ${index}`, xml })),
        ),
        ...validateCsw(
          'csw-2.0.2',
          documents202.map((xml, index) => ({ name: `2.0.2 ${index}`, xml })),
        ),
      ].filter((result) => !result.valid);
      expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
    });

    it('GetRecords in gmd keeps the ISO fileIdentifier = record id', async () => {
      const results = searchResultsOf(
        (
          await cswGet(test.app, getRecords30({ outputSchema: NS.gmd, maxRecords: '5' })).expect(
            200,
          )
        ).text,
      );
      const csw = searchResultsOf(
        (await cswGet(test.app, getRecords30({ maxRecords: '5' })).expect(200)).text,
      );
      expect(results.ids).to.deep.equal(csw.ids);
      expect(attribute(results.root, 'version')).to.equal('3.0.0');
    });
  });
}

for (const backend of suiteBackends()) {
  describeCiteRecords(backend);
  describeGeneratedRecords(backend);
}
