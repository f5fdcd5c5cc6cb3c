/**
 * CSW requests as the clients people use write them (test/interop runs the clients themselves):
 * GDAL's CSW driver marks its 2.0.2 requests with the highest version the capabilities
 * advertise (`3.0.0`); OWSLib's CSW 3.0 `getrecordbyid` reads records only below the document
 * root and joins several ids with commas; OWSLib reads either the gmd:MD_Metadata or the
 * gmi:MI_Metadata records of a response, not both; and asks GetDomain for
 * `GetRecords.resultType` in CSW 3.0 too. Over HTTP on every backend, with schema validation.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { RawDocument } from '../../shared/ingest/pipeline.js';
import { readDocuments } from '../support/catalogue-app.js';
import { createCatalogueAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  attribute,
  childNamed,
  childrenNamed,
  cswGet,
  cswPost,
  exceptionOf,
  NS,
  recordId,
  rootOf,
  searchResultsOf,
} from '../support/csw-client.js';
import { requireXmllint, validateCsw } from '../support/csw-schemas.js';
import { samplePath } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';

const LOREM = 'urn:uuid:19887a8a-f6b0-4a63-ae56-7fba0e17801f';
const FUSCE = 'urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db';
const ISO_FILE = 'T_ortho_RAS_1998_284404.xml';
const ISO_ID = 'de53e931-778a-4792-94ad-9fe507aca483';
/** An ISO 19115-2 record (gmi:MI_Metadata with acquisition information). */
const MI_FILE = 'iso_19115-2_Sentinel-2-scene.xml';
const MI_ID = 'S2B_MSIL2A_20200902T090559_N0214_R050_T34SFG_20200902T113910.SAFE';
/** A record whose id holds a comma (a legal character of a URI). */
const COMMA_ID = 'urn:example:a,b';
const COMMA_RECORD: RawDocument = {
  name: 'comma.xml',
  content: `<csw:Record xmlns:csw="${NS.csw202}" xmlns:dc="${NS.dc}">
  <dc:identifier>${COMMA_ID}</dc:identifier><dc:title>A comma in the id</dc:title>
</csw:Record>`,
};

/** GDAL's CSW driver GetRecords (ogrcswdataset.cpp), with the version it writes. */
function gdalGetRecords(version: string, resultType: 'hits' | 'results'): string {
  const paging = resultType === 'results' ? ' startPosition="1" maxRecords="500"' : '';
  return `<?xml version="1.0" encoding="UTF-8"?><csw:GetRecords resultType="${resultType}" service="CSW" version="${version}"${paging} xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:gml="http://www.opengis.net/gml" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/" xmlns:ogc="http://www.opengis.net/ogc" xmlns:ows="http://www.opengis.net/ows" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/cat/csw/2.0.2 http://schemas.opengis.net/csw/2.0.2/CSW-discovery.xsd"><csw:Query typeNames="csw:Record"><csw:ElementSetName>full</csw:ElementSetName></csw:Query></csw:GetRecords>`;
}

/** OWSLib 0.35's CSW 3.0 `getrecordbyid` query string, parameter for parameter. */
/** Its parameters, by name (a type of known members, so each one reads as a string). */
type OwsLibGetRecordById = Record<
  'service' | 'version' | 'request' | 'outputFormat' | 'outputSchema' | 'elementsetname' | 'id',
  string
>;

function owsLibGetRecordById(ids: string[]): OwsLibGetRecordById {
  return {
    service: 'CSW',
    version: '3.0.0',
    request: 'GetRecordById',
    outputFormat: 'application/xml',
    outputSchema: NS.csw30,
    elementsetname: 'full',
    id: ids.join(','),
  };
}

function describeSuite(backend: SuiteBackend): void {
  describe(`CSW requests as GDAL and OWSLib write them, over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    let total = 0;
    const documents: Record<'csw-2.0.2' | 'csw-3.0', { name: string; xml: string }[]> = {
      'csw-2.0.2': [],
      'csw-3.0': [],
    };
    const keep = (schema: 'csw-2.0.2' | 'csw-3.0', name: string, xml: string): void => {
      documents[schema].push({ name, xml });
    };

    before(async function () {
      const iso = readDocuments(samplePath('iso19139')).filter((document) =>
        [ISO_FILE, MI_FILE].includes(document.name),
      );
      const loaded = [...readDocuments(samplePath('dublin-core-cite')), ...iso, COMMA_RECORD];
      total = loaded.length;
      test = await createCatalogueAppOn(backend, loaded);
    });
    after(async () => {
      await test?.close();
    });

    describe('version and namespace (GDAL)', () => {
      it('a 2.0.2 request marked version="3.0.0" is answered in 2.0.2, by its namespace', async () => {
        const hits = await cswPost(test.app, gdalGetRecords('3.0.0', 'hits')).expect(200);
        keep('csw-2.0.2', 'GDAL hits', hits.text);
        const counted = searchResultsOf(hits.text);
        expect(counted.root.ns).to.equal(NS.csw202);
        expect(attribute(counted.root, 'version')).to.equal('2.0.2');
        expect(counted).to.include({ matched: total, returned: 0 });
        const results = await cswPost(test.app, gdalGetRecords('3.0.0', 'results')).expect(200);
        keep('csw-2.0.2', 'GDAL results', results.text);
        const read = searchResultsOf(results.text);
        expect(read).to.include({ matched: total, returned: total, next: 0 });
        expect(read.records.every((record) => record.ns === NS.csw202)).to.equal(true);
      });

      it('a version Cairn does not support is still an InvalidParameterValue', async () => {
        const response = await cswPost(test.app, gdalGetRecords('9.9.9', 'hits')).expect(400);
        expect(exceptionOf(response.text)).to.include({
          ns: NS.ows,
          code: 'InvalidParameterValue',
          locator: 'version',
        });
      });
    });

    describe('CSW 3.0 GetRecordById (OWSLib)', () => {
      it("OWSLib's request gets its record in a GetRecordsResponse, others the bare record", async () => {
        const owsLib = await cswGet(test.app, owsLibGetRecordById([FUSCE])).expect(200);
        keep('csw-3.0', 'OWSLib getrecordbyid', owsLib.text);
        const listed = searchResultsOf(owsLib.text);
        expect(`${listed.root.ns} ${listed.root.local}`).to.equal(`${NS.csw30} GetRecordsResponse`);
        expect(listed).to.include({ matched: 1, returned: 1, next: 0, status: 'complete' });
        expect(listed.records.map((record) => record.local)).to.deep.equal(['Record']);
        expect(listed.ids).to.deep.equal([FUSCE]);
        // The same parameters spelled otherwise (as the CSW 3.0 test suite writes them).
        const { elementsetname, ...others } = owsLibGetRecordById([FUSCE]);
        const bare = await cswGet(test.app, { ...others, ElementSetName: elementsetname }).expect(
          200,
        );
        keep('csw-3.0', 'bare getrecordbyid', bare.text);
        expect(`${rootOf(bare.text).ns} ${rootOf(bare.text).local}`).to.equal(`${NS.csw30} Record`);
      });

      it('several ids, comma-separated or as Id elements, list the records found', async () => {
        const kvp = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecordById',
          id: `${LOREM},urn:unknown,${FUSCE}`,
          elementSetName: 'brief',
        }).expect(200);
        keep('csw-3.0', 'several ids', kvp.text);
        const listed = searchResultsOf(kvp.text);
        expect(listed).to.include({ matched: 2, returned: 2, next: 0, elementSet: 'brief' });
        expect(listed.ids).to.have.members([LOREM, FUSCE]);
        expect(listed.records.map((record) => record.local)).to.deep.equal([
          'BriefRecord',
          'BriefRecord',
        ]);
        const post = await cswPost(
          test.app,
          `<csw:GetRecordById xmlns:csw="${NS.csw30}" service="CSW" version="3.0.0"><csw:Id>${LOREM}</csw:Id><csw:Id>${FUSCE}</csw:Id></csw:GetRecordById>`,
        ).expect(200);
        keep('csw-3.0', 'several Id elements', post.text);
        expect(searchResultsOf(post.text).ids).to.have.members([LOREM, FUSCE]);
        const none = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecordById',
          id: 'urn:unknown:1,urn:unknown:2',
        }).expect(404);
        expect(exceptionOf(none.text)).to.include({ code: 'NotFound', locator: 'id' });
      });

      it('an id holding a comma names the record that has it', async () => {
        const one = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecordById',
          id: COMMA_ID,
        }).expect(200);
        const root = rootOf(one.text);
        expect(root.local).to.equal('SummaryRecord');
        expect(recordId(root)).to.equal(COMMA_ID);
        const owsLib = await cswGet(test.app, owsLibGetRecordById([COMMA_ID])).expect(200);
        expect(searchResultsOf(owsLib.text).ids).to.deep.equal([COMMA_ID]);
      });

      it('CSW 2.0.2 GetRecordById keeps its csw:GetRecordByIdResponse for OWSLib', async () => {
        const response = await cswGet(test.app, {
          ...owsLibGetRecordById([LOREM, FUSCE]),
          version: '2.0.2',
          outputSchema: NS.csw202,
        }).expect(200);
        keep('csw-2.0.2', 'OWSLib getrecordbyid 2.0.2', response.text);
        const root = rootOf(response.text);
        expect(root.local).to.equal('GetRecordByIdResponse');
        expect(root.children.map(recordId)).to.have.members([LOREM, FUSCE]);
      });
    });

    describe('gmi:MI_Metadata in ISO 19139 output', () => {
      it('lists of records write it as gmd:MD_Metadata, without acquisition information', async () => {
        const stored = rootOf(readFileSync(samplePath('iso19139', MI_FILE), 'utf8'));
        for (const version of ['2.0.2', '3.0.0'] as const) {
          const response = await cswGet(test.app, {
            service: 'CSW',
            version,
            request: 'GetRecords',
            typeNames: 'gmd:MD_Metadata',
            resultType: 'results',
            outputSchema: NS.gmd,
            elementSetName: 'full',
            maxRecords: '50',
          }).expect(200);
          const results = searchResultsOf(response.text);
          expect(results).to.include({ matched: total, returned: total });
          expect(
            results.records.every(
              (record) => `${record.ns} ${record.local}` === `${NS.gmd} MD_Metadata`,
            ),
          ).to.equal(true);
          const scene = results.records.find((record) => recordId(record) === MI_ID);
          expect(scene, `${version}: ${MI_ID} is listed`).to.not.equal(undefined);
          expect(scene?.children.map((child) => child.local)).to.deep.equal(
            stored.children
              .map((child) => child.local)
              .filter((local) => local !== 'acquisitionInformation'),
          );
          const byId = await cswGet(test.app, {
            service: 'CSW',
            version,
            request: 'GetRecordById',
            id: `${ISO_ID},${MI_ID}`,
            outputSchema: NS.gmd,
          }).expect(200);
          const records =
            version === '2.0.2' ? rootOf(byId.text).children : searchResultsOf(byId.text).records;
          expect(records.map((record) => `${record.local} ${recordId(record)}`)).to.have.members([
            `MD_Metadata ${ISO_ID}`,
            `MD_Metadata ${MI_ID}`,
          ]);
        }
      });

      it('the record alone stays the stored gmi:MI_Metadata document', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecordById',
          id: MI_ID,
          outputSchema: NS.gmd,
        }).expect(200);
        expect(response.text).to.equal(readFileSync(samplePath('iso19139', MI_FILE), 'utf8'));
      });
    });

    describe('resultType in CSW 3.0', () => {
      it('GetDomain answers GetRecords.resultType in 3.0 as in 2.0.2 (OWSLib asks by POST)', async () => {
        for (const [version, ns] of [
          ['3.0.0', NS.csw30],
          ['2.0.2', NS.csw202],
        ] as const) {
          const response = await cswPost(
            test.app,
            `<csw:GetDomain xmlns:csw="${ns}" service="CSW" version="${version}"><csw:ParameterName>GetRecords.resultType</csw:ParameterName></csw:GetDomain>`,
          ).expect(200);
          keep(
            version === '2.0.2' ? 'csw-2.0.2' : 'csw-3.0',
            `GetDomain ${version}`,
            response.text,
          );
          const domain = childNamed(rootOf(response.text), 'DomainValues');
          expect(childNamed(domain, 'ParameterName')?.text).to.equal('GetRecords.resultType');
          expect(
            childrenNamed(childNamed(domain, 'ListOfValues'), 'Value').map((value) => value.text),
          ).to.deep.equal(['hits', 'results', 'validate']);
        }
      });

      it('3.0 GetRecords honours resultType: results by default, hits, validate', async () => {
        const get = (extra: Record<string, string>) =>
          cswGet(test.app, {
            service: 'CSW',
            version: '3.0.0',
            request: 'GetRecords',
            typeNames: 'csw:Record',
            maxRecords: '5',
            ...extra,
          }).expect(200);
        expect(searchResultsOf((await get({})).text)).to.include({ matched: total, returned: 5 });
        const hits = await get({ resultType: 'hits' });
        keep('csw-3.0', 'resultType hits', hits.text);
        expect(searchResultsOf(hits.text)).to.include({ matched: total, returned: 0, next: 1 });
        const validate = await get({ resultType: 'validate' });
        keep('csw-3.0', 'resultType validate', validate.text);
        const root = rootOf(validate.text);
        expect(`${root.ns} ${root.local}`).to.equal(`${NS.csw30} Acknowledgement`);
        const echoed = childNamed(childNamed(root, 'EchoedRequest'), 'GetRecords');
        expect(attribute(echoed, 'maxRecords')).to.equal('5');
        const post = await cswPost(
          test.app,
          `<csw:GetRecords xmlns:csw="${NS.csw30}" service="CSW" version="3.0.0" resultType="hits"><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
        ).expect(200);
        expect(searchResultsOf(post.text)).to.include({ matched: total, returned: 0 });
        const wrong = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetRecords',
          typeNames: 'csw:Record',
          resultType: 'all',
        }).expect(400);
        expect(exceptionOf(wrong.text)).to.include({
          code: 'InvalidParameterValue',
          locator: 'resultType',
        });
      });
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} response of this suite validates`, () => {
          expect(documents[schema].length).to.be.greaterThan(2);
          const invalid = validateCsw(schema, documents[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

for (const backend of suiteBackends()) describeSuite(backend);
