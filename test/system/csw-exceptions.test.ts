/**
 * Every CSW exception over HTTP: the ExceptionReport's OWS version (OWS 1.0.0 for 2.0.2, OWS 2.0
 * for 3.0), exceptionCode, locator and HTTP status; hostile and malformed XML bodies; unknown
 * errors as a generic NoApplicableCode 500. Every report is validated against the schemas.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createCiteAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import { cswGet, cswPost, exceptionOf, NS } from '../support/csw-client.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import type { TestApp } from '../support/test-app.js';

interface Case {
  title: string;
  params?: Record<string, string>;
  body?: string;
  contentType?: string;
  status: number;
  code: string;
  locator?: string;
  /** The CSW version the report must be in. */
  version: '2.0.2' | '3.0.0';
}

const V3 = { service: 'CSW', version: '3.0.0' };
const V2 = { service: 'CSW', version: '2.0.2' };
const RECORDS3 = { ...V3, request: 'GetRecords', typeNames: 'csw:Record' };
const RECORDS2 = { ...V2, request: 'GetRecords', typeNames: 'csw:Record', resultType: 'results' };
const CSW3 = `xmlns:csw="${NS.csw30}"`;
const CSW2 = `xmlns:csw="${NS.csw202}"`;

const CASES: Case[] = [
  // Service, request, version.
  {
    title: 'missing service',
    params: { request: 'GetCapabilities' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'service',
    version: '3.0.0',
  },
  {
    title: 'missing service (2.0.2)',
    params: { request: 'GetRecords', version: '2.0.2' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'service',
    version: '2.0.2',
  },
  {
    title: 'service is not CSW',
    params: { service: 'WMS', request: 'GetCapabilities' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'service',
    version: '3.0.0',
  },
  {
    title: 'missing request',
    params: { service: 'CSW', version: '2.0.2' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'request',
    version: '2.0.2',
  },
  {
    title: 'request names are case-sensitive',
    params: { service: 'CSW', request: 'getCapabilities' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'unknown request',
    params: { ...V3, request: 'GetEverything' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'Transaction',
    params: { ...V3, request: 'Transaction' },
    status: 501,
    code: 'OperationNotSupported',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'Harvest (2.0.2)',
    params: { ...V2, request: 'Harvest' },
    status: 501,
    code: 'OperationNotSupported',
    locator: 'request',
    version: '2.0.2',
  },
  {
    title: 'UnHarvest',
    params: { ...V3, request: 'UnHarvest' },
    status: 501,
    code: 'OperationNotSupported',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'DescribeRecord in 3.0',
    params: { ...V3, request: 'DescribeRecord' },
    status: 501,
    code: 'OperationNotSupported',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'missing version',
    params: { service: 'CSW', request: 'GetRecords', typeNames: 'csw:Record' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'version',
    version: '3.0.0',
  },
  {
    title: 'unsupported version',
    params: { service: 'CSW', version: '1.0.0', request: 'GetRecords', typeNames: 'csw:Record' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'version',
    version: '3.0.0',
  },
  // GetCapabilities.
  {
    title: 'acceptVersions with no supported version',
    params: { service: 'CSW', request: 'GetCapabilities', acceptVersions: '1.0.0,4.0.0' },
    status: 400,
    code: 'VersionNegotiationFailed',
    locator: 'acceptVersions',
    version: '3.0.0',
  },
  {
    title: 'acceptFormats with no offered format',
    params: { service: 'CSW', request: 'GetCapabilities', acceptFormats: 'text/html' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'acceptFormats',
    version: '3.0.0',
  },
  {
    title: 'unknown section',
    params: { service: 'CSW', request: 'GetCapabilities', sections: 'Contents' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'sections',
    version: '3.0.0',
  },
  {
    title: 'unknown section (2.0.2)',
    params: {
      service: 'CSW',
      request: 'GetCapabilities',
      acceptVersions: '2.0.2',
      sections: 'Languages',
    },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'sections',
    version: '2.0.2',
  },
  {
    title: 'unknown mode',
    params: { service: 'CSW', request: 'GetCapabilities', mode: 'sru' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'mode',
    version: '3.0.0',
  },
  // GetRecords presentation.
  {
    title: 'missing typeNames',
    params: { ...V3, request: 'GetRecords' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'typeNames',
    version: '3.0.0',
  },
  {
    title: 'unknown typeNames (2.0.2)',
    params: { ...RECORDS2, typeNames: 'csw:Dataset' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'typeNames',
    version: '2.0.2',
  },
  {
    title: 'undeclared prefix in typeNames',
    params: { ...RECORDS3, typeNames: 'x:Record' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'typeNames',
    version: '3.0.0',
  },
  {
    title: 'malformed namespace',
    params: { ...RECORDS3, namespace: 'x=urn:x' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'namespace',
    version: '3.0.0',
  },
  {
    title: 'unknown ElementSetName',
    params: { ...RECORDS3, elementSetName: 'short' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'ElementSetName',
    version: '3.0.0',
  },
  {
    title: 'ElementSetName with ElementName',
    params: { ...RECORDS3, elementSetName: 'brief', elementName: 'dc:title' },
    status: 400,
    code: 'NoApplicableCode',
    locator: 'ElementSetName',
    version: '3.0.0',
  },
  {
    title: 'unknown ElementName (2.0.2)',
    params: { ...RECORDS2, elementName: 'dc:colour' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'ElementName',
    version: '2.0.2',
  },
  {
    title: 'unknown outputFormat',
    params: { ...RECORDS3, outputFormat: 'application/xhtml+xml' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'outputFormat',
    version: '3.0.0',
  },
  {
    title: 'unknown outputSchema',
    params: { ...RECORDS3, outputSchema: 'http://www.opengis.net/cat/csw/2.0.2' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'outputSchema',
    version: '3.0.0',
  },
  {
    title: 'unknown outputSchema (2.0.2)',
    params: { ...RECORDS2, outputSchema: 'urn:nothing' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'outputSchema',
    version: '2.0.2',
  },
  {
    title: 'unknown resultType (2.0.2)',
    params: { ...RECORDS2, resultType: 'all' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'resultType',
    version: '2.0.2',
  },
  {
    title: 'startPosition 0',
    params: { ...RECORDS3, startPosition: '0' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'startPosition',
    version: '3.0.0',
  },
  {
    title: 'startPosition not a number (2.0.2)',
    params: { ...RECORDS2, startPosition: 'first' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'startPosition',
    version: '2.0.2',
  },
  {
    title: 'negative maxRecords',
    params: { ...RECORDS3, maxRecords: '-5' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'maxRecords',
    version: '3.0.0',
  },
  {
    title: 'ResponseHandler (asynchronous)',
    params: { ...RECORDS3, responseHandler: 'mailto:a@example.org' },
    status: 501,
    code: 'OptionNotSupported',
    locator: 'ResponseHandler',
    version: '3.0.0',
  },
  // Constraints and sorting.
  {
    title: 'constraint without language',
    params: { ...RECORDS3, constraint: "dc:title = 'x'" },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'CONSTRAINTLANGUAGE',
    version: '3.0.0',
  },
  {
    title: 'unknown constraint language (2.0.2)',
    params: { ...RECORDS2, constraintLanguage: 'SPARQL', constraint: 'x' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'CONSTRAINTLANGUAGE',
    version: '2.0.2',
  },
  {
    title: 'malformed FILTER',
    params: { ...RECORDS3, constraintLanguage: 'FILTER', constraint: '<fes:Filter' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Constraint',
    version: '3.0.0',
  },
  {
    title: 'FILTER with a DOCTYPE',
    params: {
      ...RECORDS3,
      constraintLanguage: 'FILTER',
      constraint: '<!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]><Filter>&x;</Filter>',
    },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Constraint',
    version: '3.0.0',
  },
  {
    title: 'FILTER on an unknown queryable (2.0.2)',
    params: {
      ...RECORDS2,
      constraintLanguage: 'FILTER',
      constraint: `<ogc:Filter xmlns:ogc="${NS.ogc}"><ogc:PropertyIsEqualTo><ogc:PropertyName>dc:colour</ogc:PropertyName><ogc:Literal>red</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>`,
    },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Constraint',
    version: '2.0.2',
  },
  {
    title: 'FILTER of the other FES version',
    params: {
      ...RECORDS2,
      constraintLanguage: 'FILTER',
      constraint_language_version: '1.1.0',
      constraint: '<Filter><ResourceId rid="x"/></Filter>',
    },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Constraint',
    version: '2.0.2',
  },
  {
    title: 'CQL syntax error',
    params: { ...RECORDS3, constraintLanguage: 'CQL_TEXT', constraint: "dc:title LIKE 'x' AND" },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Constraint',
    version: '3.0.0',
  },
  {
    title: 'LIKE on the list-valued dc:subject',
    params: { ...RECORDS3, constraintLanguage: 'CQL_TEXT', constraint: "dc:subject LIKE 'Veg%'" },
    status: 501,
    code: 'OptionNotSupported',
    locator: 'Constraint',
    version: '3.0.0',
  },
  {
    title: 'sortBy on an unknown property',
    params: { ...RECORDS3, sortBy: 'dc:colour:A' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'SortBy',
    version: '3.0.0',
  },
  {
    title: 'sortBy on an unsortable property (2.0.2)',
    params: { ...RECORDS2, sortBy: 'dct:abstract:D' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'SortBy',
    version: '2.0.2',
  },
  // CSW 3.0 KVP shortcuts and EO parameters.
  {
    title: 'projected bbox without CRS',
    params: { ...RECORDS3, bbox: '500000,4000000,600000,5000000' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'bbox',
    version: '3.0.0',
  },
  {
    title: 'bbox with an unsupported CRS',
    params: { ...RECORDS3, bbox: '0,0,1,1,urn:ogc:def:crs:EPSG::3857' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'bbox',
    version: '3.0.0',
  },
  {
    title: 'bbox with three numbers',
    params: { ...RECORDS3, bbox: '1,2,3' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'bbox',
    version: '3.0.0',
  },
  {
    title: 'recordIds that match nothing',
    params: { ...RECORDS3, recordIds: 'urn:nothing:1,urn:nothing:2' },
    status: 404,
    code: 'NotFound',
    locator: 'recordIds',
    version: '3.0.0',
  },
  {
    title: 'time that is no time',
    params: { ...RECORDS3, time: 'yesterday/today' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'time',
    version: '3.0.0',
  },
  {
    title: 'EO value that is no interval',
    params: { ...RECORDS3, 'eo:cloudCover': '[10,' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'eo:cloudCover',
    version: '3.0.0',
  },
  {
    title: 'geo:relation unknown',
    params: { ...RECORDS3, bbox: '0,0,1,1', relation: 'near' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'relation',
    version: '3.0.0',
  },
  // GetRecordById, GetRepositoryItem, GetDomain.
  {
    title: 'GetRecordById without id',
    params: { ...V3, request: 'GetRecordById' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'id',
    version: '3.0.0',
  },
  {
    title: 'GetRecordById of an unknown id (3.0)',
    params: { ...V3, request: 'GetRecordById', id: 'urn:nothing' },
    status: 404,
    code: 'NotFound',
    locator: 'id',
    version: '3.0.0',
  },
  {
    title: 'GetRecordById with a bad outputSchema',
    params: { ...V3, request: 'GetRecordById', id: 'x', outputSchema: 'urn:x' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'outputSchema',
    version: '3.0.0',
  },
  {
    title: 'GetRepositoryItem of an unknown id',
    params: { ...V3, request: 'GetRepositoryItem', id: 'urn:nothing' },
    status: 404,
    code: 'NotFound',
    locator: 'id',
    version: '3.0.0',
  },
  {
    title: 'GetRepositoryItem of an unknown id (2.0.2)',
    params: { ...V2, request: 'GetRepositoryItem', id: 'urn:nothing' },
    status: 404,
    code: 'NotFound',
    locator: 'id',
    version: '2.0.2',
  },
  {
    title: 'GetRepositoryItem without id',
    params: { ...V3, request: 'GetRepositoryItem' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'id',
    version: '3.0.0',
  },
  {
    title: 'GetDomain without parameterName or valueReference',
    params: { ...V3, request: 'GetDomain' },
    status: 400,
    code: 'MissingParameterValue',
    locator: 'parameterName',
    version: '3.0.0',
  },
  {
    title: 'GetDomain of an unknown parameter',
    params: { ...V3, request: 'GetDomain', parameterName: 'GetRecords.colour' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'parameterName',
    version: '3.0.0',
  },
  {
    title: 'GetDomain of AnyText',
    params: { ...V3, request: 'GetDomain', valueReference: 'csw:AnyText' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'valueReference',
    version: '3.0.0',
  },
  {
    title: 'GetDomain of an unknown queryable (2.0.2)',
    params: { ...V2, request: 'GetDomain', propertyName: 'dc:colour' },
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'valueReference',
    version: '2.0.2',
  },
  // POST bodies.
  {
    title: 'malformed XML body',
    body: `<csw:GetRecords ${CSW3}>`,
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'body with a DOCTYPE and an external entity (XXE)',
    body: `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><csw:GetCapabilities ${CSW3}>&x;</csw:GetCapabilities>`,
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'body with entity expansion (billion laughs)',
    body: `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>`,
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'body with XInclude',
    body: `<csw:GetCapabilities ${CSW3} xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="file:///etc/passwd"/></csw:GetCapabilities>`,
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'empty body',
    body: '',
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'JSON body',
    body: '{"request":"GetRecords"}',
    contentType: 'application/json',
    status: 400,
    code: 'NoApplicableCode',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'malformed JSON body',
    body: '{"request":',
    contentType: 'application/json',
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'body',
    version: '3.0.0',
  },
  {
    title: 'body too large',
    body: `<csw:GetCapabilities ${CSW3}><!--${'x'.repeat(5000)}--></csw:GetCapabilities>`,
    status: 413,
    code: 'NoApplicableCode',
    version: '3.0.0',
  },
  {
    title: 'body not in a CSW namespace',
    body: '<GetRecords service="CSW" version="3.0.0"/>',
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'request',
    version: '3.0.0',
  },
  {
    title: 'POSTed Transaction (2.0.2)',
    body: `<csw:Transaction ${CSW2} service="CSW" version="2.0.2"/>`,
    status: 501,
    code: 'OperationNotSupported',
    locator: 'request',
    version: '2.0.2',
  },
  {
    title: 'POSTed GetRecords without version (2.0.2)',
    body: `<csw:GetRecords ${CSW2} service="CSW"><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
    status: 400,
    code: 'MissingParameterValue',
    locator: 'version',
    version: '2.0.2',
  },
  {
    title: 'POSTed GetRecords with service WFS',
    body: `<csw:GetRecords ${CSW3} service="WFS" version="3.0.0"><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'service',
    version: '3.0.0',
  },
  {
    title: 'POSTed GetRecords with two queries',
    body: `<csw:GetRecords ${CSW3} service="CSW" version="3.0.0"><csw:Query typeNames="csw:Record"/><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'Query',
    version: '3.0.0',
  },
  {
    title: 'POSTed SortBy on an unknown property',
    body: `<csw:GetRecords ${CSW3} xmlns:fes="${NS.fes}" service="CSW" version="3.0.0"><csw:Query typeNames="csw:Record"><fes:SortBy><fes:SortProperty><fes:ValueReference>dc:colour</fes:ValueReference></fes:SortProperty></fes:SortBy></csw:Query></csw:GetRecords>`,
    status: 400,
    code: 'InvalidParameterValue',
    locator: 'SortBy',
    version: '3.0.0',
  },
  {
    title: 'POSTed GetCapabilities with no acceptable version',
    body: `<csw:GetCapabilities ${CSW3} xmlns:ows="${NS.ows20}" service="CSW"><ows:AcceptVersions><ows:Version>9.0.0</ows:Version></ows:AcceptVersions></csw:GetCapabilities>`,
    status: 400,
    code: 'VersionNegotiationFailed',
    locator: 'acceptVersions',
    version: '3.0.0',
  },
];

function describeSuite(backend: SuiteBackend): void {
  describe(`CSW exceptions over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    const reports: Record<
      Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
      { name: string; xml: string }[]
    > = {
      'csw-2.0.2': [],
      'csw-3.0': [],
    };

    before(async function () {
      test = await createCiteAppOn(backend, {
        BODY_LIMIT_BYTES: '4096',
      });
    });
    after(async () => {
      await test?.close();
    });

    for (const item of CASES) {
      it(`${item.title} → ${item.status} ${item.code}${item.locator ? `/${item.locator}` : ''}`, async () => {
        const response =
          item.body !== undefined
            ? await cswPost(test.app, item.body, item.contentType ?? 'application/xml')
            : await cswGet(test.app, item.params ?? {});
        expect(response.status, response.text).to.equal(item.status);
        expect(response.headers['content-type']).to.match(/^application\/xml/);
        const report = exceptionOf(response.text);
        expect(report.code).to.equal(item.code);
        expect(report.locator).to.equal(item.locator);
        expect(report.text).to.not.equal('');
        expect(report.ns).to.equal(item.version === '2.0.2' ? NS.ows : NS.ows20);
        expect(report.version).to.equal(item.version);
        reports[item.version === '2.0.2' ? 'csw-2.0.2' : 'csw-3.0'].push({
          name: item.title,
          xml: response.text,
        });
      });
    }

    it('GetRecordById of unknown ids in 2.0.2 is an empty response, not an exception', async () => {
      const response = await cswGet(test.app, {
        ...V2,
        request: 'GetRecordById',
        id: 'urn:nothing',
      }).expect(200);
      expect(response.text).to.include('GetRecordByIdResponse');
    });

    it('an unknown path below /catalogue/csw is a NotFound ExceptionReport, not JSON', async () => {
      const response = await request(test.app).get('/catalogue/csw/records').expect(404);
      expect(exceptionOf(response.text)).to.include({ code: 'NotFound', ns: NS.ows20 });
    });

    it('an unexpected failure is a generic NoApplicableCode 500 that leaks nothing', async () => {
      const backend = test.backend as { search: (...args: unknown[]) => Promise<unknown> };
      const original = backend.search;
      backend.search = async () => {
        throw new Error(
          'SQLITE_CORRUPT: database disk image is malformed at /var/secret/cairn.sqlite',
        );
      };
      try {
        const response = await cswGet(test.app, RECORDS2).expect(500);
        const report = exceptionOf(response.text);
        expect(report).to.include({
          code: 'NoApplicableCode',
          ns: NS.ows,
          text: 'An internal error occurred',
        });
        expect(report.locator).to.equal(undefined);
        expect(response.text).to.not.include('SQLITE').and.to.not.include('secret');
      } finally {
        backend.search = original;
      }
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} ExceptionReport validates`, () => {
          expect(reports[schema].length).to.be.greaterThan(5);
          const invalid = validateCsw(schema, reports[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

for (const backend of suiteBackends()) describeSuite(backend);
