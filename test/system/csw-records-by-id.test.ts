/**
 * CSW GetRecordById (2.0.2 wrapper with several ids, 3.0 bare record), GetRepositoryItem (the
 * stored source, verbatim, with its media type), GetDomain (parameter domains from the model,
 * property values with counts) and the 2.0.2 DescribeRecord, over HTTP, with schema validation.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { readDocuments } from '../support/catalogue-app.js';
import { createCatalogueAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  attribute,
  childNamed,
  childrenNamed,
  cswGet,
  cswPost,
  NS,
  recordId,
  rootOf,
} from '../support/csw-client.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import { samplePath } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';

/** The DCAT outputSchema (DCAT-AP in RDF/XML). */
const DCAT_NS = 'http://www.w3.org/ns/dcat#';

const LOREM = 'urn:uuid:19887a8a-f6b0-4a63-ae56-7fba0e17801f';
const FUSCE = 'urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db';
const ISO_FILE = 'T_ortho_RAS_1998_284404.xml';
const ISO_ID = 'de53e931-778a-4792-94ad-9fe507aca483';
const STAC_FILE = 'S2B_MSIL1C_20190910T095029_N0208_R079_T33TWN_20190910T120910.SAFE.json';

function describeSuite(backend: SuiteBackend): void {
  describe(`CSW GetRecordById, GetRepositoryItem, GetDomain, DescribeRecord over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    const documents: Record<
      Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
      { name: string; xml: string }[]
    > = {
      'csw-2.0.2': [],
      'csw-3.0': [],
    };

    before(async function () {
      const stac = readDocuments(samplePath('stac')).filter(
        (document) => document.name === STAC_FILE,
      );
      const iso = readDocuments(samplePath('iso19139')).filter(
        (document) => document.name === ISO_FILE,
      );
      test = await createCatalogueAppOn(backend, [
        ...readDocuments(samplePath('dublin-core-cite')),
        ...iso,
        ...stac,
      ]);
    });
    after(async () => {
      await test?.close();
    });

    const byId = async (
      version: '2.0.2' | '3.0.0',
      extra: Record<string, string>,
      status = 200,
    ) => {
      const response = await cswGet(test.app, {
        service: 'CSW',
        version,
        request: 'GetRecordById',
        ...extra,
      }).expect(status);
      // CSW documents only (bare ISO and Atom records are checked elsewhere).
      if (/^<\?xml[^>]*>\s*<csw/.test(response.text)) {
        documents[version === '2.0.2' ? 'csw-2.0.2' : 'csw-3.0'].push({
          name: JSON.stringify(extra),
          xml: response.text,
        });
      }
      return response;
    };

    describe('GetRecordById', () => {
      it('2.0.2: several comma-separated ids in csw:GetRecordByIdResponse (summary by default)', async () => {
        const root = rootOf((await byId('2.0.2', { id: `${LOREM},${FUSCE},urn:unknown` })).text);
        expect(root.local).to.equal('GetRecordByIdResponse');
        expect(root.ns).to.equal(NS.csw202);
        expect(root.children.map((record) => record.local)).to.deep.equal([
          'SummaryRecord',
          'SummaryRecord',
        ]);
        expect(root.children.map(recordId)).to.have.members([LOREM, FUSCE]);
      });

      it('2.0.2: element sets and ISO 19139 output', async () => {
        for (const elementSetName of ['brief', 'summary', 'full']) {
          const root = rootOf((await byId('2.0.2', { id: LOREM, elementSetName })).text);
          expect(root.children[0]?.local).to.equal(
            { brief: 'BriefRecord', summary: 'SummaryRecord', full: 'Record' }[elementSetName],
          );
        }
        const iso = rootOf(
          (
            await byId('2.0.2', {
              id: `${LOREM},${ISO_ID}`,
              outputSchema: NS.gmd,
              elementSetName: 'full',
            })
          ).text,
        );
        expect(iso.children.map((record) => `${record.ns} ${record.local}`)).to.deep.equal([
          `${NS.gmd} MD_Metadata`,
          `${NS.gmd} MD_Metadata`,
        ]);
      });

      it('2.0.2: by POST with several Id elements', async () => {
        const response = await cswPost(
          test.app,
          `<csw:GetRecordById xmlns:csw="${NS.csw202}" service="CSW" version="2.0.2"><csw:Id>${LOREM}</csw:Id><csw:Id>${FUSCE}</csw:Id><csw:ElementSetName>brief</csw:ElementSetName></csw:GetRecordById>`,
        ).expect(200);
        documents['csw-2.0.2'].push({ name: 'POST', xml: response.text });
        expect(rootOf(response.text).children.map(recordId)).to.have.members([LOREM, FUSCE]);
      });

      it('3.0: one bare record, summary by default, each element set', async () => {
        const summary = rootOf((await byId('3.0.0', { id: FUSCE })).text);
        expect(summary.local).to.equal('SummaryRecord');
        expect(summary.ns).to.equal(NS.csw30);
        expect(recordId(summary)).to.equal(FUSCE);
        const full = rootOf((await byId('3.0.0', { id: FUSCE, elementSetName: 'full' })).text);
        expect(full.local).to.equal('Record');
        expect(childNamed(full, 'date')?.text).to.equal('2003-05-09');
        expect(
          rootOf((await byId('3.0.0', { id: FUSCE, elementSetName: 'brief' })).text).local,
        ).to.equal('BriefRecord');
      });

      it('3.0: ISO 19139 output is the stored ISO document verbatim, or a synthesised one', async () => {
        const stored = readFileSync(samplePath('iso19139', ISO_FILE), 'utf8');
        const verbatim = await byId('3.0.0', { id: ISO_ID, outputSchema: NS.gmd });
        expect(verbatim.text).to.equal(stored);
        const synthesised = rootOf((await byId('3.0.0', { id: LOREM, outputSchema: NS.gmd })).text);
        expect(`${synthesised.ns} ${synthesised.local}`).to.equal(`${NS.gmd} MD_Metadata`);
      });

      it('3.0: Atom and JSON outputs', async () => {
        const atom = await byId('3.0.0', { id: LOREM, outputFormat: 'application/atom+xml' });
        expect(atom.headers['content-type']).to.match(/application\/atom\+xml/);
        const entry = rootOf(atom.text);
        expect(`${entry.ns} ${entry.local}`).to.equal(`${NS.atom} entry`);
        const json = await byId('3.0.0', {
          id: LOREM,
          outputFormat: 'application/json',
          elementSetName: 'brief',
        });
        expect(json.body['csw30:BriefRecord']['dc:identifier']).to.equal(LOREM);
        const schema = rootOf((await byId('3.0.0', { id: LOREM, outputSchema: NS.atom })).text);
        expect(schema.local).to.equal('entry');
      });

      it('3.0: by POST', async () => {
        const response = await cswPost(
          test.app,
          `<csw:GetRecordById xmlns:csw="${NS.csw30}" service="CSW" version="3.0.0"><csw:Id>${LOREM}</csw:Id><csw:ElementSetName>full</csw:ElementSetName></csw:GetRecordById>`,
        ).expect(200);
        expect(rootOf(response.text).local).to.equal('Record');
      });

      it('a STAC Item can be read as a CSW record', async () => {
        const id = STAC_FILE.replace(/\.json$/, '');
        const record = rootOf((await byId('3.0.0', { id, elementSetName: 'full' })).text);
        expect(recordId(record)).to.equal(id);
        expect(childNamed(record, 'BoundingBox')).to.not.equal(undefined);
      });
    });

    describe('GetRepositoryItem', () => {
      it('returns each stored source with its media type', async () => {
        const cases: [string, string, string][] = [
          [
            LOREM,
            samplePath('dublin-core-cite', 'Record_19887a8a-f6b0-4a63-ae56-7fba0e17801f.xml'),
            'application/xml',
          ],
          [ISO_ID, samplePath('iso19139', ISO_FILE), 'application/xml'],
          [STAC_FILE.replace(/\.json$/, ''), samplePath('stac', STAC_FILE), 'application/geo+json'],
        ];
        for (const version of ['2.0.2', '3.0.0']) {
          for (const [id, file, mediaType] of cases) {
            const response = await cswGet(test.app, {
              service: 'CSW',
              version,
              request: 'GetRepositoryItem',
              id,
            })
              .buffer(true)
              .parse((res, callback) => {
                let text = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => (text += chunk));
                res.on('end', () => callback(null, text));
              })
              .expect(200);
            expect(response.headers['content-type']).to.match(
              new RegExp(`^${mediaType.replace('+', '\\+')}`),
            );
            const stored = readFileSync(file, 'utf8');
            // XML sources are kept byte for byte; the ingest stores JSON documents re-serialised.
            if (mediaType === 'application/xml') expect(response.body).to.equal(stored);
            else expect(JSON.parse(response.body as string)).to.deep.equal(JSON.parse(stored));
          }
        }
      });
    });

    describe('GetDomain', () => {
      it('3.0: parameter domains from the service model', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetDomain',
          parameterName: 'GetRecords.ElementSetName,GetRecords.outputSchema,GetRecords.typeNames',
        }).expect(200);
        documents['csw-3.0'].push({ name: 'GetDomain parameters', xml: response.text });
        const domains = childrenNamed(rootOf(response.text), 'DomainValues');
        const read = (index: number) => ({
          name: childNamed(domains[index], 'ParameterName')?.text,
          values: childrenNamed(childNamed(domains[index], 'ListOfValues'), 'Value').map(
            (value) => value.text,
          ),
          type: attribute(domains[index], 'type'),
        });
        expect(read(0)).to.deep.equal({
          name: 'GetRecords.ElementSetName',
          values: ['brief', 'summary', 'full'],
          type: 'csw30:Record',
        });
        expect(read(1).values).to.deep.equal([NS.csw30, NS.gmd, NS.atom, DCAT_NS]);
        expect(read(2).values).to.deep.equal(['csw:Record', 'gmd:MD_Metadata']);
      });

      it('2.0.2: GetRecords.resultType, and the model parameters are case-insensitive', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '2.0.2',
          request: 'GetDomain',
          parameterName: 'GetRecords.resulttype',
        }).expect(200);
        documents['csw-2.0.2'].push({ name: 'GetDomain 2.0.2', xml: response.text });
        const domain = childNamed(rootOf(response.text), 'DomainValues');
        expect(childNamed(domain, 'ParameterName')?.text).to.equal('GetRecords.resultType');
        expect(
          childrenNamed(childNamed(domain, 'ListOfValues'), 'Value').map((value) => value.text),
        ).to.deep.equal(['hits', 'results', 'validate']);
      });

      it('3.0: valueReference lists the distinct values with their counts, most frequent first', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetDomain',
          valueReference: 'dc:type',
        }).expect(200);
        documents['csw-3.0'].push({ name: 'GetDomain dc:type', xml: response.text });
        const domain = childNamed(rootOf(response.text), 'DomainValues');
        expect(attribute(domain, 'resultType')).to.equal('available');
        expect(childNamed(domain, 'ValueReference')?.text).to.equal('dc:type');
        const values = childrenNamed(childNamed(domain, 'ListOfValues'), 'Value').map((value) => [
          value.text,
          attribute(value, 'count'),
        ]);
        expect(values.slice(0, 3)).to.deep.equal([
          ['http://purl.org/dc/dcmitype/Dataset', '3'],
          ['http://purl.org/dc/dcmitype/Image', '3'],
          ['http://purl.org/dc/dcmitype/Service', '3'],
        ]);
      });

      it('2.0.2: PropertyName (by POST) on the list-valued dc:subject', async () => {
        const response = await cswPost(
          test.app,
          `<csw:GetDomain xmlns:csw="${NS.csw202}" service="CSW" version="2.0.2"><csw:PropertyName>dc:subject</csw:PropertyName></csw:GetDomain>`,
        ).expect(200);
        documents['csw-2.0.2'].push({ name: 'GetDomain POST', xml: response.text });
        const domain = childNamed(rootOf(response.text), 'DomainValues');
        expect(childNamed(domain, 'PropertyName')?.text).to.equal('dc:subject');
        const values = childrenNamed(childNamed(domain, 'ListOfValues'), 'Value').map(
          (value) => value.text,
        );
        expect(values).to.include.members(['Land titles', 'Vegetation', 'Tourism--Greece']);
      });

      it('a property without values gives an empty DomainValues', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '3.0.0',
          request: 'GetDomain',
          valueReference: 'eo:snowCover',
        }).expect(200);
        documents['csw-3.0'].push({ name: 'GetDomain empty', xml: response.text });
        const domain = childNamed(rootOf(response.text), 'DomainValues');
        expect(childNamed(domain, 'ListOfValues')).to.equal(undefined);
      });
    });

    describe('DescribeRecord (2.0.2)', () => {
      it('describes csw:Record and gmd:MD_Metadata with schema components', async () => {
        const response = await cswGet(test.app, {
          service: 'CSW',
          version: '2.0.2',
          request: 'DescribeRecord',
        }).expect(200);
        documents['csw-2.0.2'].push({ name: 'DescribeRecord', xml: response.text });
        const components = childrenNamed(rootOf(response.text), 'SchemaComponent');
        expect(components.map((item) => attribute(item, 'targetNamespace'))).to.deep.equal([
          NS.csw202,
          NS.gmd,
        ]);
        await cswPost(
          test.app,
          `<csw:DescribeRecord xmlns:csw="${NS.csw202}" service="CSW" version="2.0.2"><csw:TypeName>csw:Record</csw:TypeName></csw:DescribeRecord>`,
        ).expect(200);
      });
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} response of this suite validates`, () => {
          expect(documents[schema].length).to.be.greaterThan(3);
          const invalid = validateCsw(schema, documents[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

for (const backend of suiteBackends()) describeSuite(backend);
