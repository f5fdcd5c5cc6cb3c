import { expect } from 'chai';
import { toOwsException } from '../../../services/api/protocols/csw/csw-errors.js';
import { toCairnError } from '../../../shared/errors/index.js';
import {
  domainParameterNames,
  findParameterDomain,
} from '../../../services/api/protocols/csw/csw-model.js';
import {
  guessKvpVersion,
  isOwsLibGetRecordById,
  parseCswKvp,
  parseNamespaceParameter,
  parseOutputFormat,
  readKvp,
} from '../../../services/api/protocols/csw/parse.js';
import { parseCswXml } from '../../../services/api/protocols/csw/parse-post.js';
import { computeNextRecord } from '../../../services/api/protocols/csw/present.js';
import type { CswRequest, GetRecordsRequest } from '../../../services/api/protocols/csw/request.js';
import { prefersOpenSearch } from '../../../services/api/protocols/csw/routes.js';
import { parseXml } from '../../../shared/xml/index.js';
import { checkFilter } from '../../../shared/query/check-filter.js';

const CONTEXT = { defaultLimit: 10, maxLimit: 50, maxBytes: 1_000_000 };

function kvp(query: Record<string, string>): CswRequest {
  return parseCswKvp(readKvp(query), CONTEXT);
}

function records(query: Record<string, string>): GetRecordsRequest {
  const request = kvp({
    service: 'CSW',
    version: '3.0.0',
    request: 'GetRecords',
    typeNames: 'csw:Record',
    ...query,
  });
  expect(request.operation).to.equal('GetRecords');
  return request as GetRecordsRequest;
}

function expectCswError(action: () => unknown, code: string, locator: string | undefined): void {
  try {
    action();
  } catch (error) {
    const exception = toOwsException(toCairnError(error));
    expect(exception.exceptionCode, String(error)).to.equal(code);
    expect(exception.locator, String(error)).to.equal(locator);
    return;
  }
  expect.fail('expected a CswError');
}

describe('CSW request parsing', () => {
  describe('KVP', () => {
    it('treats parameter names case-insensitively and values case-sensitively', () => {
      const request = kvp({
        SERVICE: 'CSW',
        Version: '2.0.2',
        REQUEST: 'GetRecords',
        TYPENAMES: 'csw:Record',
      });
      expect(request).to.include({ operation: 'GetRecords', version: '2.0.2' });
      expectCswError(
        () => kvp({ service: 'CSW', request: 'getCapabilities' }),
        'InvalidParameterValue',
        'request',
      );
      expectCswError(
        () => kvp({ service: 'csw', request: 'GetCapabilities' }),
        'InvalidParameterValue',
        'service',
      );
    });

    it('makes a request without parameters GetCapabilities 3.0.0', () => {
      expect(kvp({})).to.include({
        operation: 'GetCapabilities',
        version: '3.0.0',
        openSearch: false,
      });
    });

    it('refuses a parameter repeated with different values', () => {
      expectCswError(
        () => readKvp({ service: 'CSW', SERVICE: 'WMS' }),
        'InvalidParameterValue',
        'SERVICE',
      );
      expect(readKvp({ a: ['x', 'x'] }).values).to.deep.equal({ a: 'x' });
    });

    it('negotiates the version of GetCapabilities', () => {
      expect(
        kvp({ service: 'CSW', request: 'GetCapabilities', acceptVersions: '1.0.0,2.0.2,3.0.0' }),
      ).to.include({
        version: '2.0.2',
      });
      expect(kvp({ service: 'CSW', request: 'GetCapabilities', version: '2.0.2' })).to.include({
        version: '2.0.2',
      });
      expect(kvp({ service: 'CSW', request: 'GetCapabilities', version: '9.9.9' })).to.include({
        version: '3.0.0',
      });
      expectCswError(
        () => kvp({ service: 'CSW', request: 'GetCapabilities', acceptVersions: '1.0.0' }),
        'VersionNegotiationFailed',
        'acceptVersions',
      );
      expect(guessKvpVersion({ acceptversions: '2.0.2' })).to.equal('2.0.2');
      expect(guessKvpVersion({ version: '2.0.2' })).to.equal('2.0.2');
      expect(guessKvpVersion({})).to.equal('3.0.0');
    });

    it('reads the GetCapabilities sections', () => {
      const request = kvp({
        service: 'CSW',
        request: 'GetCapabilities',
        sections: 'ServiceProvider,Filter_Capabilities',
      });
      expect(request).to.deep.include({
        sections: {
          serviceIdentification: false,
          serviceProvider: true,
          operationsMetadata: false,
          filterCapabilities: true,
          languages: false,
        },
      });
      expectCswError(
        () => kvp({ service: 'CSW', request: 'GetCapabilities', sections: 'Contents' }),
        'InvalidParameterValue',
        'sections',
      );
    });

    it('requires service, request and (except GetCapabilities) version', () => {
      expectCswError(() => kvp({ request: 'GetCapabilities' }), 'MissingParameterValue', 'service');
      expectCswError(() => kvp({ service: 'CSW' }), 'MissingParameterValue', 'request');
      expectCswError(
        () => kvp({ service: 'CSW', request: 'GetRecords', typeNames: 'csw:Record' }),
        'MissingParameterValue',
        'version',
      );
      expectCswError(
        () => kvp({ service: 'CSW', request: 'GetRecords', version: '1.0.0' }),
        'InvalidParameterValue',
        'version',
      );
    });

    it('answers OperationNotSupported for Transaction, Harvest and the 3.0 DescribeRecord', () => {
      for (const request of ['Transaction', 'Harvest', 'UnHarvest']) {
        expectCswError(
          () => kvp({ service: 'CSW', version: '3.0.0', request }),
          'OperationNotSupported',
          'request',
        );
      }
      expectCswError(
        () => kvp({ service: 'CSW', version: '3.0.0', request: 'DescribeRecord' }),
        'OperationNotSupported',
        'request',
      );
      expect(kvp({ service: 'CSW', version: '2.0.2', request: 'DescribeRecord' })).to.include({
        operation: 'DescribeRecord',
      });
    });
  });

  describe('GetRecords KVP', () => {
    it('defaults to summary, the CSW 3.0 schema, XML, position 1 and the default page size', () => {
      const request = records({});
      expect(request).to.deep.include({
        presentation: { kind: 'elementSet', elementSet: 'summary' },
        outputSchema: 'http://www.opengis.net/cat/csw/3.0',
        outputFormat: 'xml',
        startPosition: 1,
        maxRecords: 10,
      });
      expect(request.query).to.deep.include({ offset: 0, limit: 10, sort: [] });
    });

    it('defaults 2.0.2 to resultType=hits (counts only)', () => {
      const request = kvp({
        service: 'CSW',
        version: '2.0.2',
        request: 'GetRecords',
        typeNames: 'csw:Record',
      }) as GetRecordsRequest;
      expect(request.resultType).to.equal('hits');
      expect(request.query.limit).to.equal(0);
      const results = kvp({
        service: 'CSW',
        version: '2.0.2',
        request: 'GetRecords',
        typeNames: 'csw:Record',
        resultType: 'results',
      }) as GetRecordsRequest;
      expect(results.query.limit).to.equal(10);
    });

    it('pages from startPosition and clamps maxRecords to the maximum', () => {
      const request = records({ startPosition: '21', maxRecords: '500' });
      expect(request.query).to.deep.include({ offset: 20, limit: 50 });
      expect(records({ maxRecords: 'unlimited' }).maxRecords).to.equal(50);
      expect(records({ maxRecords: '0' }).query.limit).to.equal(0);
      expectCswError(
        () => records({ startPosition: '0' }),
        'InvalidParameterValue',
        'startPosition',
      );
      expectCswError(() => records({ maxRecords: '-1' }), 'InvalidParameterValue', 'maxRecords');
    });

    it('resolves typeNames with and without the namespace parameter', () => {
      expect(records({ typeNames: 'Record' }).typeNames).to.deep.equal(['Record']);
      expect(records({ typeNames: 'gmd:MD_Metadata' }).typeNames).to.deep.equal([
        'gmd:MD_Metadata',
      ]);
      expect(
        records({ typeNames: 'x:Record', namespace: 'xmlns(x=http://www.opengis.net/cat/csw/3.0)' })
          .typeNames,
      ).to.deep.equal(['x:Record']);
      expectCswError(
        () => records({ typeNames: 'x:Record' }),
        'InvalidParameterValue',
        'typeNames',
      );
      expectCswError(
        () => records({ typeNames: 'csw:Dataset' }),
        'InvalidParameterValue',
        'typeNames',
      );
      expect(parseNamespaceParameter('xmlns(a=urn:a),xmlns(b=urn:b)')).to.deep.equal(
        new Map([
          ['a', 'urn:a'],
          ['b', 'urn:b'],
        ]),
      );
      expectCswError(() => parseNamespaceParameter('a=b'), 'InvalidParameterValue', 'namespace');
    });

    it('reads ElementName and refuses it together with ElementSetName', () => {
      expect(
        records({ elementName: 'dc:title,/csw:Record/dc:identifier' }).presentation,
      ).to.deep.equal({
        kind: 'elementNames',
        names: [
          { ns: 'http://purl.org/dc/elements/1.1/', local: 'title', written: 'dc:title' },
          {
            ns: 'http://purl.org/dc/elements/1.1/',
            local: 'identifier',
            written: '/csw:Record/dc:identifier',
          },
        ],
      });
      expectCswError(
        () => records({ elementName: 'dc:title', elementSetName: 'brief' }),
        'NoApplicableCode',
        'ElementSetName',
      );
      expectCswError(
        () => records({ elementName: 'dc:nothing' }),
        'InvalidParameterValue',
        'ElementName',
      );
      expectCswError(
        () => records({ elementSetName: 'short' }),
        'InvalidParameterValue',
        'ElementSetName',
      );
    });

    it('ANDs the q/bbox/time shortcuts, EO parameters and the constraint', () => {
      const request = records({
        q: 'lorem',
        bbox: '44,-10,60,10,urn:ogc:def:crs:EPSG::4326',
        time: '2000-01-01/..',
        'eo:cloudCover': '[0,20]',
        constraintLanguage: 'CQL_TEXT',
        constraint: "csw:AnyText LIKE '%ipsum%' AND dc:type = 'x'",
      });
      expect(request.query.text).to.deep.equal([['lorem', 'ipsum']]);
      expect(request.query.spatial).to.deep.equal({
        bbox: [-10, 44, 10, 60],
        relation: 'intersects',
      });
      expect(request.query.temporal).to.deep.include({
        start: '2000-01-01T00:00:00.000Z',
        end: null,
      });
      expect(request.query.filter).to.have.property('op', 'and');
    });

    it('names the parameter as written in shortcut errors', () => {
      expectCswError(() => records({ bbox: '1,2,3' }), 'InvalidParameterValue', 'bbox');
      expectCswError(() => records({ bbox: '1,2,3,4,EPSG:3857' }), 'InvalidParameterValue', 'bbox');
      expectCswError(() => records({ time: 'yesterday' }), 'InvalidParameterValue', 'time');
      expectCswError(
        () => records({ 'eo:cloudCover': '[a' }),
        'InvalidParameterValue',
        'eo:cloudCover',
      );
    });

    it('marks recordIds queries so that none found is NotFound', () => {
      expect(records({ recordIds: 'a,b' })).to.deep.include({ notFoundLocator: 'recordIds' });
      expect(records({ recordIds: 'a,b' }).query.ids).to.deep.equal(['a', 'b']);
    });

    it('needs a constraint language with a constraint', () => {
      expectCswError(
        () => records({ constraint: "dc:title = 'x'" }),
        'MissingParameterValue',
        'CONSTRAINTLANGUAGE',
      );
      expectCswError(
        () => records({ constraint: "dc:title = 'x'", constraintLanguage: 'SQL' }),
        'InvalidParameterValue',
        'CONSTRAINTLANGUAGE',
      );
    });

    it('chooses the output format from outputFormat, then (3.0) from Accept', () => {
      expect(parseOutputFormat('application/json', '3.0.0', undefined)).to.deep.equal({
        format: 'json',
        xmlMediaType: 'application/xml',
      });
      expect(
        parseOutputFormat(undefined, '3.0.0', 'text/html, application/atom+xml;q=0.9, */*;q=0.1'),
      ).to.deep.equal({
        format: 'atom',
        xmlMediaType: 'application/xml',
      });
      expect(parseOutputFormat(undefined, '2.0.2', 'application/atom+xml').format).to.equal('xml');
      expect(parseOutputFormat('text/xml', '3.0.0', undefined)).to.deep.equal({
        format: 'xml',
        xmlMediaType: 'text/xml',
      });
      expectCswError(
        () => parseOutputFormat('text/html', '3.0.0', undefined),
        'InvalidParameterValue',
        'outputFormat',
      );
    });

    it('reads GetRecordById ids as a list, and knows the request OWSLib writes', () => {
      const base = { service: 'CSW', request: 'GetRecordById' };
      expect(kvp({ ...base, version: '2.0.2', id: 'a, b' })).to.deep.include({
        ids: ['a', 'b'],
        asResultList: false,
      });
      const one = kvp({ ...base, version: '3.0.0', id: 'a' });
      expect(one).to.deep.include({ ids: ['a'], asResultList: false });
      expect(one).to.not.have.property('literalId');
      // A comma may belong to the id itself (an anyURI): kept whole beside the list.
      expect(kvp({ ...base, version: '3.0.0', id: 'urn:x:a,b' })).to.deep.include({
        ids: ['urn:x:a', 'b'],
        literalId: 'urn:x:a,b',
      });
      // OWSLib 0.35 csw3.getrecordbyid, spelling for spelling.
      const owsLib = {
        service: 'CSW',
        version: '3.0.0',
        request: 'GetRecordById',
        outputFormat: 'application/xml',
        outputSchema: 'http://www.opengis.net/cat/csw/3.0',
        elementsetname: 'full',
        id: 'a',
      };
      expect(isOwsLibGetRecordById(readKvp(owsLib).entries)).to.equal(true);
      expect(kvp(owsLib)).to.include({ asResultList: true });
      const { elementsetname, ...others } = owsLib;
      const spelled = { ...others, ElementSetName: elementsetname };
      expect(isOwsLibGetRecordById(readKvp(spelled).entries)).to.equal(false);
      expect(kvp(spelled)).to.include({ asResultList: false });
      // CSW 2.0.2 always wraps the records in csw:GetRecordByIdResponse.
      const owsLib202 = {
        ...owsLib,
        version: '2.0.2',
        outputSchema: 'http://www.opengis.net/cat/csw/2.0.2',
      };
      expect(isOwsLibGetRecordById(readKvp(owsLib202).entries)).to.equal(true);
      expect(kvp(owsLib202)).to.include({ asResultList: false });
    });

    it('reads resultType in both versions: default hits in 2.0.2, results in 3.0', () => {
      expect(records({ version: '2.0.2' })).to.deep.include({ resultType: 'hits' });
      expect(records({})).to.deep.include({ resultType: 'results' });
      const hits = records({ resultType: 'hits', maxRecords: '5' });
      expect(hits.resultType).to.equal('hits');
      expect(hits.query.limit).to.equal(0);
      expect(records({ resultType: 'validate' }).resultType).to.equal('validate');
      expectCswError(() => records({ resultType: 'all' }), 'InvalidParameterValue', 'resultType');
    });

    it('sets the Atom format and default type name in OpenSearch mode', () => {
      const request = kvp({
        service: 'CSW',
        version: '3.0.0',
        request: 'GetRecords',
        mode: 'opensearch',
        q: 'x',
      });
      expect(request).to.include({ outputFormat: 'atom' });
      expect((request as GetRecordsRequest).openSearch?.parameters).to.deep.include({
        searchTerms: 'x',
      });
    });
  });

  describe('XML (POST)', () => {
    const xml = (text: string): CswRequest => parseCswXml(parseXml(text), CONTEXT);
    const CSW2 = 'xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"';
    const CSW3 = 'xmlns:csw="http://www.opengis.net/cat/csw/3.0"';

    it('takes the version from the root namespace', () => {
      expect(xml(`<csw:GetCapabilities ${CSW2} service="CSW"/>`)).to.include({ version: '2.0.2' });
      expect(xml(`<csw:GetCapabilities ${CSW3} service="CSW"/>`)).to.include({ version: '3.0.0' });
      expectCswError(() => xml('<GetRecords/>'), 'InvalidParameterValue', 'request');
    });

    it('reads a request by its namespace when its version attribute names the other version', () => {
      // GDAL's CSW driver writes the highest advertised version into a 2.0.2 request.
      const gdal = xml(
        `<csw:GetRecords ${CSW2} service="CSW" version="3.0.0" resultType="hits"><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
      );
      expect(gdal).to.include({ operation: 'GetRecords', version: '2.0.2', resultType: 'hits' });
      expect(
        xml(
          `<csw:GetRecordById ${CSW3} service="CSW" version="2.0.2"><csw:Id>a</csw:Id></csw:GetRecordById>`,
        ),
      ).to.include({ operation: 'GetRecordById', version: '3.0.0' });
      expectCswError(
        () =>
          xml(
            `<csw:GetRecords ${CSW2} service="CSW" version="9.9.9"><csw:Query typeNames="csw:Record"/></csw:GetRecords>`,
          ),
        'InvalidParameterValue',
        'version',
      );
    });

    it('reads GetRecords with its Query, constraint and SortBy', () => {
      const request =
        xml(`<csw:GetRecords ${CSW2} xmlns:ogc="http://www.opengis.net/ogc" service="CSW" version="2.0.2"
          resultType="results" startPosition="3" maxRecords="5" outputSchema="http://www.opengis.net/cat/csw/2.0.2">
        <csw:Query typeNames="csw:Record">
          <csw:ElementSetName>brief</csw:ElementSetName>
          <csw:Constraint version="1.1.0"><ogc:Filter><ogc:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\">
            <ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>L%</ogc:Literal></ogc:PropertyIsLike></ogc:Filter></csw:Constraint>
          <ogc:SortBy><ogc:SortProperty><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder></ogc:SortProperty></ogc:SortBy>
        </csw:Query>
      </csw:GetRecords>`) as GetRecordsRequest;
      expect(request).to.deep.include({ resultType: 'results', startPosition: 3, maxRecords: 5 });
      expect(request.query).to.deep.include({
        offset: 2,
        limit: 5,
        sort: [{ field: 'title', direction: 'desc' }],
      });
      expect(request.query.filter).to.deep.equal(
        checkFilter({
          kind: 'op',
          op: 'like',
          args: [
            { kind: 'property', name: 'dc:title' },
            { kind: 'literal', value: 'L%' },
          ],
        }),
      );
    });

    it('refuses a second Query, a missing Query and typeNames, and GetRecordById without Id', () => {
      expectCswError(
        () => xml(`<csw:GetRecords ${CSW3} service="CSW" version="3.0.0"/>`),
        'MissingParameterValue',
        'Query',
      );
      expectCswError(
        () =>
          xml(
            `<csw:GetRecords ${CSW3} service="CSW" version="3.0.0"><csw:Query/></csw:GetRecords>`,
          ),
        'MissingParameterValue',
        'typeNames',
      );
      expectCswError(
        () => xml(`<csw:GetRecordById ${CSW3} service="CSW" version="3.0.0"/>`),
        'MissingParameterValue',
        'Id',
      );
    });

    it('answers OperationNotSupported for Transaction and Harvest', () => {
      expectCswError(
        () => xml(`<csw:Transaction ${CSW3} service="CSW" version="3.0.0"/>`),
        'OperationNotSupported',
        'request',
      );
    });
  });

  describe('paging and negotiation helpers', () => {
    it('computes nextRecord: the next position, or 0 when done', () => {
      expect(computeNextRecord(1, 10, 12)).to.equal(11);
      expect(computeNextRecord(11, 2, 12)).to.equal(0);
      expect(computeNextRecord(3, 2, 12)).to.equal(5);
      expect(computeNextRecord(1, 0, 1)).to.equal(1);
      expect(computeNextRecord(1, 0, 0)).to.equal(0);
      expect(computeNextRecord(20, 0, 12)).to.equal(0);
    });

    it('prefers the OpenSearch description only when Accept ranks it first', () => {
      expect(prefersOpenSearch('application/opensearchdescription+xml')).to.equal(true);
      expect(
        prefersOpenSearch('application/vnd.a9.opensearchdescription+xml, application/xml;q=0.5'),
      ).to.equal(true);
      expect(prefersOpenSearch('application/xml, application/opensearchdescription+xml')).to.equal(
        false,
      );
      expect(prefersOpenSearch('*/*')).to.equal(false);
      expect(prefersOpenSearch(undefined)).to.equal(false);
    });

    it('lists every Operation.parameter for GetDomain', () => {
      expect(domainParameterNames('3.0.0')).to.include.members([
        'GetRecords.ElementSetName',
        'GetRecords.outputSchema',
        'GetRecords.typeNames',
        'GetRecordById.outputFormat',
      ]);
      expect(domainParameterNames('2.0.2')).to.include('GetRecords.resultType');
      // CSW 3.0 dropped resultType; Cairn still answers it (OWSLib asks GetDomain about it).
      expect(findParameterDomain('3.0.0', 'GetRecords.resultType')).to.deep.equal({
        name: 'GetRecords.resultType',
        values: ['hits', 'results', 'validate'],
      });
      expect(findParameterDomain('3.0.0', 'GetRecords.elementsetname')).to.deep.equal({
        name: 'GetRecords.ElementSetName',
        values: ['brief', 'summary', 'full'],
      });
      expect(findParameterDomain('3.0.0', 'GetRecords.nothing')).to.equal(undefined);
    });
  });
});
