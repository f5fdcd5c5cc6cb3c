/**
 * CSW GetCapabilities over HTTP, both versions: sections, version negotiation, service metadata
 * from the configuration, OperationsMetadata (parameter domains, constraints, CSW 3.0
 * conformance classes, the OpenSearch description link), Filter_Capabilities that list exactly
 * the operators that work, the ets-cat30 capabilities rules, and schema validity.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { XmlElement } from '../../shared/xml/index.js';
import { createCiteAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  attribute,
  childNamed,
  childrenNamed,
  cswGet,
  cswPost,
  descendantsNamed,
  getRecords202,
  getRecords30,
  NS,
  rootOf,
  searchResultsOf,
} from '../support/csw-client.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import type { TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

/** The DCAT outputSchema (DCAT-AP in RDF/XML). */
const DCAT_NS = 'http://www.w3.org/ns/dcat#';

const SERVICE_YAML = `
title: Cairn test catalogue
description: Records for the CSW capabilities tests.
keywords: [alpha, beta]
contact:
  name: Jane Doe
  organization: Example Org
  email: jane@example.org
  url: https://example.org/contact
provider:
  name: Example Org
  url: https://example.org/
license: CC-BY-4.0
`;

/** Values of an ows Parameter/Constraint (OWS 1.0 Value or OWS 2.0 AllowedValues/Value). */
function valuesOf(domain: XmlElement | undefined): string[] {
  if (domain === undefined) return [];
  return descendantsNamed(domain, 'Value').map((value) => value.text.trim());
}

function named(
  parent: XmlElement | undefined,
  local: string,
  name: string,
): XmlElement | undefined {
  return childrenNamed(parent, local).find((item) => attribute(item, 'name') === name);
}

/** The spatial operators of FES every backend evaluates (the engines refine in Node). */
const SPATIAL_OPERATORS = [
  'BBOX',
  'Disjoint',
  'Intersects',
  'Within',
  'Contains',
  'Equals',
  'Touches',
  'Crosses',
  'Overlaps',
  'Beyond',
  'DWithin',
];

function describeCapabilities(backend: SuiteBackend): void {
  describe(`CSW GetCapabilities over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    let directory: string;
    const documents: Record<
      Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
      { name: string; xml: string }[]
    > = {
      'csw-2.0.2': [],
      'csw-3.0': [],
    };

    before(async function () {
      directory = mkdtempSync(join(tmpdir(), 'cairn-csw-service-'));
      const file = join(directory, 'service.yaml');
      writeFileSync(file, SERVICE_YAML);
      test = await createCiteAppOn(backend, {
        SERVICE_METADATA_FILE: file,
        LIMIT_DEFAULT: '7',
        PUBLIC_BASE_URL: 'https://catalogue.example.org',
      });
    });
    after(async () => {
      await test?.close();
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    const capabilities = async (
      params: Record<string, string>,
      schema: Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
    ): Promise<XmlElement> => {
      const response = await cswGet(test.app, params).expect(200);
      documents[schema].push({ name: JSON.stringify(params), xml: response.text });
      return rootOf(response.text);
    };
    const caps30 = (extra: Record<string, string> = {}) =>
      capabilities({ service: 'CSW', request: 'GetCapabilities', ...extra }, 'csw-3.0');
    const caps202 = (extra: Record<string, string> = {}) =>
      capabilities(
        { service: 'CSW', request: 'GetCapabilities', acceptVersions: '2.0.2', ...extra },
        'csw-2.0.2',
      );

    describe('versions and encodings', () => {
      it('a bare GET returns the CSW 3.0 capabilities', async () => {
        const response = await cswGet(test.app, {})
          .expect(200)
          .expect('Content-Type', /application\/xml/);
        const root = rootOf(response.text);
        expect(root.local).to.equal('Capabilities');
        expect(root.ns).to.equal(NS.csw30);
        expect(attribute(root, 'version')).to.equal('3.0.0');
        documents['csw-3.0'].push({ name: 'bare', xml: response.text });
      });

      it('a bare GET preferring application/opensearchdescription+xml returns the OpenSearch description', async () => {
        const response = await cswGet(test.app, {}, 'application/opensearchdescription+xml')
          .expect(200)
          .expect('Content-Type', /application\/opensearchdescription\+xml/);
        expect(rootOf(response.text).local).to.equal('OpenSearchDescription');
      });

      it('negotiates 2.0.2 through acceptVersions or version, 3.0.0 by default', async () => {
        expect((await caps202()).ns).to.equal(NS.csw202);
        const byVersion = await capabilities(
          { service: 'CSW', version: '2.0.2', request: 'GetCapabilities' },
          'csw-2.0.2',
        );
        expect(attribute(byVersion, 'version')).to.equal('2.0.2');
        expect((await caps30({ acceptVersions: '3.0.0,2.0.2' })).ns).to.equal(NS.csw30);
        expect((await caps30({ acceptVersions: '4.0.0,3.0.0' })).ns).to.equal(NS.csw30);
      });

      it('answers text/xml when acceptFormats asks for it', async () => {
        await cswGet(test.app, {
          service: 'CSW',
          request: 'GetCapabilities',
          acceptFormats: 'text/xml',
        })
          .expect(200)
          .expect('Content-Type', /^text\/xml/);
      });

      it('accepts POSTed GetCapabilities in both versions (with AcceptVersions and Sections)', async () => {
        const response = await cswPost(
          test.app,
          `<csw:GetCapabilities xmlns:csw="${NS.csw30}" xmlns:ows="${NS.ows20}" service="CSW">
          <ows:AcceptVersions><ows:Version>2.0.2</ows:Version></ows:AcceptVersions>
          <ows:Sections><ows:Section>ServiceIdentification</ows:Section></ows:Sections>
        </csw:GetCapabilities>`,
        ).expect(200);
        const root = rootOf(response.text);
        expect(root.ns).to.equal(NS.csw202);
        expect(root.children.map((child) => child.local)).to.deep.equal([
          'ServiceIdentification',
          'Filter_Capabilities',
        ]);
        documents['csw-2.0.2'].push({ name: 'POST', xml: response.text });
        const v3 = await cswPost(
          test.app,
          `<csw:GetCapabilities xmlns:csw="${NS.csw30}" service="CSW"/>`,
        ).expect(200);
        expect(rootOf(v3.text).ns).to.equal(NS.csw30);
      });

      it('ignores updateSequence (no update sequence is advertised)', async () => {
        const root = await caps30({ updateSequence: '123' });
        expect(attribute(root, 'updateSequence')).to.equal(undefined);
        expect(childNamed(root, 'OperationsMetadata')).to.not.equal(undefined);
      });
    });

    describe('sections', () => {
      it('CSW 3.0: everything by default and with All, in schema order', async () => {
        const order = [
          'ServiceIdentification',
          'ServiceProvider',
          'OperationsMetadata',
          'Languages',
          'Filter_Capabilities',
        ];
        expect((await caps30()).children.map((child) => child.local)).to.deep.equal(order);
        expect(
          (await caps30({ sections: 'All' })).children.map((child) => child.local),
        ).to.deep.equal(order);
      });

      it('CSW 3.0: only the sections asked for (Filter_Capabilities alone is not empty)', async () => {
        for (const section of [
          'ServiceIdentification',
          'ServiceProvider',
          'OperationsMetadata',
          'Languages',
          'Filter_Capabilities',
        ]) {
          expect(
            (await caps30({ sections: section })).children.map((child) => child.local),
          ).to.deep.equal([section]);
        }
        expect(
          (await caps30({ sections: 'ServiceProvider,OperationsMetadata' })).children.map(
            (child) => child.local,
          ),
        ).to.deep.equal(['ServiceProvider', 'OperationsMetadata']);
      });

      it('CSW 2.0.2: ogc:Filter_Capabilities is always there (the schema requires it)', async () => {
        expect((await caps202()).children.map((child) => child.local)).to.deep.equal([
          'ServiceIdentification',
          'ServiceProvider',
          'OperationsMetadata',
          'Filter_Capabilities',
        ]);
        expect(
          (await caps202({ sections: 'ServiceProvider' })).children.map((child) => child.local),
        ).to.deep.equal(['ServiceProvider', 'Filter_Capabilities']);
      });
    });

    describe('service metadata from the configuration', () => {
      for (const version of ['3.0.0', '2.0.2'] as const) {
        it(`${version}: title, abstract, keywords, provider and contact`, async () => {
          const root = version === '3.0.0' ? await caps30() : await caps202();
          const identification = childNamed(root, 'ServiceIdentification');
          expect(childNamed(identification, 'Title')?.text).to.equal('Cairn test catalogue');
          expect(childNamed(identification, 'Abstract')?.text).to.equal(
            'Records for the CSW capabilities tests.',
          );
          expect(
            childrenNamed(childNamed(identification, 'Keywords'), 'Keyword').map(
              (item) => item.text,
            ),
          ).to.deep.equal(['alpha', 'beta']);
          expect(childNamed(identification, 'ServiceType')?.text).to.equal('CSW');
          expect(
            childrenNamed(identification, 'ServiceTypeVersion').map((item) => item.text),
          ).to.have.members(['2.0.2', '3.0.0']);
          const provider = childNamed(root, 'ServiceProvider');
          expect(childNamed(provider, 'ProviderName')?.text).to.equal('Example Org');
          const site = childNamed(provider, 'ProviderSite');
          expect(
            site?.attributes.find((item) => item.ns === NS.xlink && item.local === 'href')?.value,
          ).to.equal('https://example.org/');
          const contact = childNamed(provider, 'ServiceContact');
          expect(childNamed(contact, 'IndividualName')?.text).to.equal('Jane Doe');
          expect(descendantsNamed(contact!, 'ElectronicMailAddress')[0]?.text).to.equal(
            'jane@example.org',
          );
        });
      }
    });

    describe('OperationsMetadata', () => {
      const endpoint = 'https://catalogue.example.org/catalogue/csw';

      it('CSW 3.0: the operations with their GET/POST endpoints', async () => {
        const metadata = childNamed(await caps30(), 'OperationsMetadata');
        const operations = childrenNamed(metadata, 'Operation');
        expect(operations.map((item) => attribute(item, 'name'))).to.deep.equal([
          'GetCapabilities',
          'GetRecords',
          'GetRecordById',
          'GetRepositoryItem',
          'GetDomain',
        ]);
        for (const operation of operations) {
          const hrefs = descendantsNamed(operation, 'Get').map(
            (item) => item.attributes.find((a) => a.local === 'href')?.value,
          );
          expect(hrefs).to.deep.equal([endpoint]);
        }
        expect(
          descendantsNamed(named(metadata, 'Operation', 'GetRepositoryItem')!, 'Post'),
        ).to.have.length(0);
      });

      it('CSW 2.0.2 also offers DescribeRecord', async () => {
        const metadata = childNamed(await caps202(), 'OperationsMetadata');
        expect(
          childrenNamed(metadata, 'Operation').map((item) => attribute(item, 'name')),
        ).to.include('DescribeRecord');
      });

      it('GetRecords parameter domains are those the requests accept', async () => {
        const getRecords = named(
          childNamed(await caps30(), 'OperationsMetadata'),
          'Operation',
          'GetRecords',
        );
        expect(valuesOf(named(getRecords, 'Parameter', 'typeNames'))).to.deep.equal([
          'csw:Record',
          'gmd:MD_Metadata',
        ]);
        expect(valuesOf(named(getRecords, 'Parameter', 'outputSchema'))).to.deep.equal([
          NS.csw30,
          NS.gmd,
          NS.atom,
          DCAT_NS,
        ]);
        expect(valuesOf(named(getRecords, 'Parameter', 'outputFormat'))).to.deep.equal([
          'application/xml',
          'application/json',
          'application/atom+xml',
        ]);
        expect(valuesOf(named(getRecords, 'Parameter', 'ElementSetName'))).to.deep.equal([
          'brief',
          'summary',
          'full',
        ]);
        expect(valuesOf(named(getRecords, 'Parameter', 'CONSTRAINTLANGUAGE'))).to.deep.equal([
          'FILTER',
          'CQL_TEXT',
        ]);
        // Not a CSW 3.0 parameter, but honoured (default results) and so advertised.
        expect(valuesOf(named(getRecords, 'Parameter', 'resultType'))).to.deep.equal([
          'hits',
          'results',
          'validate',
        ]);
        expect(
          valuesOf(named(getRecords, 'Constraint', 'SupportedDublinCoreQueryables')),
        ).to.include.members([
          'csw:AnyText',
          'dc:title',
          'dc:subject',
          'dct:abstract',
          'dct:modified',
          'ows:BoundingBox',
        ]);
        const getRecords202 = named(
          childNamed(await caps202(), 'OperationsMetadata'),
          'Operation',
          'GetRecords',
        );
        expect(valuesOf(named(getRecords202, 'Parameter', 'resultType'))).to.deep.equal([
          'hits',
          'results',
          'validate',
        ]);
        expect(valuesOf(named(getRecords202, 'Parameter', 'outputSchema'))[0]).to.equal(NS.csw202);
      });

      it('every advertised domain value is accepted', async () => {
        const getRecords = named(
          childNamed(await caps30(), 'OperationsMetadata'),
          'Operation',
          'GetRecords',
        );
        for (const typeNames of valuesOf(named(getRecords, 'Parameter', 'typeNames'))) {
          await cswGet(test.app, getRecords30({ typeNames })).expect(200);
        }
        for (const outputSchema of valuesOf(named(getRecords, 'Parameter', 'outputSchema'))) {
          await cswGet(test.app, getRecords30({ outputSchema })).expect(200);
        }
        for (const outputFormat of valuesOf(named(getRecords, 'Parameter', 'outputFormat'))) {
          await cswGet(test.app, getRecords30({ outputFormat })).expect(200);
        }
        for (const queryable of valuesOf(
          named(getRecords, 'Constraint', 'SupportedDublinCoreQueryables'),
        )) {
          if (['ows:BoundingBox', 'csw:AnyText', 'dc:subject', 'dc:format'].includes(queryable))
            continue;
          await cswGet(
            test.app,
            getRecords202({ constraintLanguage: 'CQL_TEXT', constraint: `${queryable} IS NULL` }),
          ).expect(200);
        }
      });

      it('MaxRecordDefault is the configured page size, and is the default', async () => {
        for (const root of [await caps30(), await caps202()]) {
          const metadata = childNamed(root, 'OperationsMetadata');
          expect(valuesOf(named(metadata, 'Constraint', 'MaxRecordDefault'))).to.deep.equal(['7']);
        }
        expect(
          searchResultsOf((await cswGet(test.app, getRecords30()).expect(200)).text).returned,
        ).to.equal(7);
      });

      it('links the OpenSearch description document, which resolves', async () => {
        const metadata = childNamed(await caps30(), 'OperationsMetadata');
        const [url] = valuesOf(named(metadata, 'Constraint', 'OpenSearchDescriptionDocument'));
        expect(url).to.equal('https://catalogue.example.org/catalogue/opensearch');
        const response = await request(test.app)
          .get(new URL(defined(url, 'the description document URL')).pathname)
          .expect(200);
        expect(rootOf(response.text).local).to.equal('OpenSearchDescription');
      });

      it('declares the CSW 3.0 conformance classes, TRUE only for what is implemented', async () => {
        const metadata = childNamed(await caps30(), 'OperationsMetadata');
        const conformance = (name: string) => {
          const constraint = named(
            metadata,
            'Constraint',
            `http://www.opengis.net/spec/csw/3.0/conf/${name}`,
          );
          return childNamed(constraint, 'DefaultValue')?.text;
        };
        for (const name of [
          'OpenSearch',
          'GetCapabilities-XML',
          'GetRecordById-XML',
          'GetRecords-Basic-XML',
          'GetDomain-XML',
          'GetDomain-KVP',
          'Filter-FES-XML',
          'Filter-FES-KVP',
          'CoreQueryables',
          'CoreSortables',
          'Filter-CQL',
        ]) {
          expect(conformance(name), name).to.equal('TRUE');
        }
        for (const name of [
          'Transaction',
          'Harvest-Basic-XML',
          'Harvest-Basic-KVP',
          'GetRecords-Async-XML',
          'GetRecords-Distributed-KVP',
        ]) {
          expect(conformance(name), name).to.equal('FALSE');
        }
      });
    });

    describe('the ets-cat30 capabilities rules (csw-capabilities-3.0.sch)', () => {
      it('holds every rule of the BasicCatalogue phase', async () => {
        const root = await caps30();
        expect(root.children.map((child) => child.local)).to.include.members([
          'ServiceIdentification',
          'ServiceProvider',
          'OperationsMetadata',
          'Languages',
          'Filter_Capabilities',
        ]);
        const metadata = childNamed(root, 'OperationsMetadata')!;
        for (const name of [
          'OpenSearch',
          'GetCapabilities-XML',
          'GetRecordById-XML',
          'GetRecords-Basic-XML',
          'GetRecords-Distributed-XML',
          'GetRecords-Distributed-KVP',
          'GetRecords-Async-XML',
          'GetRecords-Async-KVP',
          'GetDomain-XML',
          'GetDomain-KVP',
          'Transaction',
          'Harvest-Basic-XML',
          'Harvest-Basic-KVP',
          'Harvest-Async-XML',
          'Harvest-Async-KVP',
          'Harvest-Periodic-XML',
          'Harvest-Periodic-KVP',
          'Filter-CQL',
          'Filter-FES-XML',
          'Filter-FES-KVP-Advanced',
        ]) {
          const constraint = childrenNamed(metadata, 'Constraint').find((item) =>
            attribute(item, 'name')?.endsWith(name),
          );
          expect(
            childNamed(constraint, 'DefaultValue') ?? valuesOf(constraint)[0],
            name,
          ).to.not.equal(undefined);
        }
        const getCapabilities = named(metadata, 'Operation', 'GetCapabilities')!;
        expect(
          descendantsNamed(getCapabilities, 'Get')[0]?.attributes.some(
            (item) => item.local === 'href',
          ),
        ).to.equal(true);
        expect(valuesOf(named(getCapabilities, 'Parameter', 'acceptVersions'))).to.include('3.0.0');
        expect(valuesOf(named(getCapabilities, 'Parameter', 'acceptFormats'))).to.include(
          'text/xml',
        );
        expect(valuesOf(named(getCapabilities, 'Parameter', 'sections'))).to.include.members([
          'Filter_Capabilities',
          'All',
        ]);
        expect(named(metadata, 'Operation', 'GetRecordById')).to.not.equal(undefined);
        for (const operation of ['GetRecords', 'GetRecordById']) {
          const schemas = valuesOf(
            named(named(metadata, 'Operation', operation), 'Parameter', 'outputSchema'),
          );
          expect(schemas[0]).to.equal(NS.csw30);
          expect(schemas).to.include(NS.atom);
        }
        const fesConformance = childNamed(childNamed(root, 'Filter_Capabilities'), 'Conformance');
        for (const name of ['ImplementsMinSpatialFilter', 'ImplementsMinimumXPath']) {
          expect(
            childNamed(named(fesConformance, 'Constraint', name), 'DefaultValue')?.text,
          ).to.equal('TRUE');
        }
        const identification = childNamed(root, 'ServiceIdentification');
        expect(childNamed(identification, 'ServiceType')?.text.toUpperCase()).to.equal('CSW');
        expect(
          childrenNamed(identification, 'ServiceTypeVersion').map((item) => item.text),
        ).to.include('3.0.0');
      });
    });

    describe('Filter_Capabilities list exactly the operators that work', () => {
      const fes = (predicate: string) =>
        `<fes:Filter xmlns:fes="${NS.fes}" xmlns:gml="http://www.opengis.net/gml/3.2">${predicate}</fes:Filter>`;
      const polygon =
        '<gml:Polygon gml:id="p"><gml:exterior><gml:LinearRing><gml:posList>40 -10 40 20 70 20 70 -10 40 -10</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>';
      const run = (constraint: string) =>
        cswGet(
          test.app,
          getRecords30({ constraintLanguage: 'FILTER', constraint, maxRecords: '0' }),
        );

      it('every spatial operator advertised (FES 2.0 and 1.1) is evaluated', async () => {
        const capabilities = childNamed(await caps30(), 'Filter_Capabilities');
        const operators = descendantsNamed(capabilities!, 'SpatialOperator').map((item) =>
          attribute(item, 'name')!,
        );
        // Every backend evaluates every relation and the great-circle distances.
        expect(operators).to.have.members(SPATIAL_OPERATORS);
        const operators11 = descendantsNamed(
          childNamed(await caps202(), 'Filter_Capabilities')!,
          'SpatialOperator',
        );
        expect(operators11.map((item) => attribute(item, 'name'))).to.have.members(operators);
        for (const operator of operators) {
          const geometry =
            operator === 'BBOX'
              ? '<gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>40 -10</gml:lowerCorner><gml:upperCorner>70 20</gml:upperCorner></gml:Envelope>'
              : polygon;
          const distance = ['DWithin', 'Beyond'].includes(operator)
            ? '<fes:Distance uom="m">1000</fes:Distance>'
            : '';
          const response = await run(
            fes(
              `<fes:${operator}><fes:ValueReference>ows:BoundingBox</fes:ValueReference>${geometry}${distance}</fes:${operator}>`,
            ),
          );
          expect(response.status, `${operator}: ${response.text}`).to.equal(200);
        }
      });

      it('every comparison and temporal operator advertised (FES 2.0) is evaluated', async () => {
        const capabilities = childNamed(await caps30(), 'Filter_Capabilities')!;
        for (const operator of descendantsNamed(capabilities, 'ComparisonOperator').map((item) =>
          attribute(item, 'name')!,
        )) {
          let predicate: string;
          if (operator === 'PropertyIsLike') {
            predicate = `<fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>L%</fes:Literal></fes:PropertyIsLike>`;
          } else if (operator === 'PropertyIsNull' || operator === 'PropertyIsNil') {
            predicate = `<fes:${operator}><fes:ValueReference>dc:title</fes:ValueReference></fes:${operator}>`;
          } else if (operator === 'PropertyIsBetween') {
            predicate = `<fes:PropertyIsBetween><fes:ValueReference>dc:title</fes:ValueReference><fes:LowerBoundary><fes:Literal>A</fes:Literal></fes:LowerBoundary><fes:UpperBoundary><fes:Literal>M</fes:Literal></fes:UpperBoundary></fes:PropertyIsBetween>`;
          } else {
            predicate = `<fes:${operator}><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>M</fes:Literal></fes:${operator}>`;
          }
          const response = await run(fes(predicate));
          expect(response.status, `${operator}: ${response.text}`).to.equal(200);
        }
        for (const operator of descendantsNamed(capabilities, 'TemporalOperator').map((item) =>
          attribute(item, 'name')!,
        )) {
          const response = await run(
            fes(
              `<fes:${operator}><fes:ValueReference>dc:date</fes:ValueReference><gml:TimePeriod gml:id="t"><gml:beginPosition>2005-01-01</gml:beginPosition><gml:endPosition>2006-12-31</gml:endPosition></gml:TimePeriod></fes:${operator}>`,
            ),
          );
          expect(response.status, `${operator}: ${response.text}`).to.equal(200);
        }
      });

      it('every comparison operator and arithmetic advertised (Filter 1.1) is evaluated', async () => {
        const capabilities = childNamed(await caps202(), 'Filter_Capabilities')!;
        const operators = descendantsNamed(capabilities, 'ComparisonOperator').map((item) =>
          item.text.trim(),
        );
        const element: Record<string, string> = {
          LessThan: 'PropertyIsLessThan',
          GreaterThan: 'PropertyIsGreaterThan',
          LessThanEqualTo: 'PropertyIsLessThanOrEqualTo',
          GreaterThanEqualTo: 'PropertyIsGreaterThanOrEqualTo',
          EqualTo: 'PropertyIsEqualTo',
          NotEqualTo: 'PropertyIsNotEqualTo',
        };
        for (const operator of operators) {
          let predicate: string;
          if (operator === 'Like') {
            predicate = `<ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="!"><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>L*</ogc:Literal></ogc:PropertyIsLike>`;
          } else if (operator === 'NullCheck') {
            predicate = `<ogc:PropertyIsNull><ogc:PropertyName>dc:title</ogc:PropertyName></ogc:PropertyIsNull>`;
          } else if (operator === 'Between') {
            predicate = `<ogc:PropertyIsBetween><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:LowerBoundary><ogc:Literal>A</ogc:Literal></ogc:LowerBoundary><ogc:UpperBoundary><ogc:Literal>M</ogc:Literal></ogc:UpperBoundary></ogc:PropertyIsBetween>`;
          } else {
            predicate = `<ogc:${element[operator]}><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>M</ogc:Literal></ogc:${element[operator]}>`;
          }
          const response = await cswGet(
            test.app,
            getRecords202({
              constraintLanguage: 'FILTER',
              constraint: `<ogc:Filter xmlns:ogc="${NS.ogc}">${predicate}</ogc:Filter>`,
            }),
          );
          expect(response.status, `${operator}: ${response.text}`).to.equal(200);
        }
        // Arithmetic, on literals and on properties, is advertised and evaluated everywhere
        // (the engines decide arithmetic on properties in Node).
        expect(descendantsNamed(capabilities, 'SimpleArithmetic')).to.have.length(1);
        const matched = async (predicate: string): Promise<number> => {
          const response = await cswGet(
            test.app,
            getRecords202({
              constraintLanguage: 'FILTER',
              constraint: `<ogc:Filter xmlns:ogc="${NS.ogc}">${predicate}</ogc:Filter>`,
            }),
          );
          expect(response.status, response.text).to.equal(200);
          return searchResultsOf(response.text).matched;
        };
        const sum = (left: string) =>
          `<ogc:PropertyIsGreaterThan><ogc:Add>${left}<ogc:Literal>2</ogc:Literal></ogc:Add><ogc:Literal>2</ogc:Literal></ogc:PropertyIsGreaterThan>`;
        expect(await matched(sum('<ogc:Literal>1</ogc:Literal>'))).to.equal(12);
        const cloudCover = '<ogc:PropertyName>eo:cloudCover</ogc:PropertyName>';
        // cloudCover + 2 > 2 holds exactly where cloudCover > 0.
        expect(await matched(sum(cloudCover))).to.equal(
          await matched(
            `<ogc:PropertyIsGreaterThan>${cloudCover}<ogc:Literal>0</ogc:Literal></ogc:PropertyIsGreaterThan>`,
          ),
        );
      });
    });

    it('the landing page links the CSW capabilities, the OpenSearch description and OAI-PMH', async () => {
      const landing = await request(test.app).get('/catalogue?f=json').expect(200);
      const links = (landing.body.links as { rel: string; type: string; href: string }[]).filter(
        (link) => link.rel === 'service',
      );
      expect(links.map((link) => link.type)).to.include.members([
        'application/xml',
        'application/opensearchdescription+xml',
      ]);
      for (const link of links) {
        const url = new URL(link.href);
        const response = await request(test.app)
          .get(url.pathname + url.search)
          .expect(200);
        expect(['Capabilities', 'OpenSearchDescription', 'OAI-PMH']).to.include(
          rootOf(response.text).local,
        );
      }
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} capabilities document of this suite validates`, () => {
          expect(documents[schema].length).to.be.greaterThan(3);
          const invalid = validateCsw(schema, documents[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

for (const backend of suiteBackends()) describeCapabilities(backend);
