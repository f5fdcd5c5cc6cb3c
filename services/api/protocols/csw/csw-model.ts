/**
 * What Cairn's CSW endpoint offers, in one place: versions, namespaces, operations and the
 * value domains of their parameters. Capabilities, GetDomain and request validation all read
 * these tables, so what is advertised is exactly what is accepted.
 */
import { NS } from '../../../../shared/xml/index.js';
import type { CswElementSet, CswVersion } from '../../../../shared/records/writers/xml/index.js';

export type { CswElementSet, CswVersion };

/** Supported versions, preferred first. */
export const CSW_VERSIONS: readonly CswVersion[] = ['3.0.0', '2.0.2'];

/** The version used when a request names none. */
export const DEFAULT_VERSION: CswVersion = '3.0.0';

/** Namespace URIs used by the CSW responses (beyond shared/xml NS). */
export const CSW_NS = Object.freeze({
  ...NS,
  ogc: 'http://www.opengis.net/ogc',
  fes: 'http://www.opengis.net/fes/2.0',
  ows11: 'http://www.opengis.net/ows/1.1',
  apiso: 'http://www.opengis.net/cat/csw/apiso/1.0',
  xs: 'http://www.w3.org/2001/XMLSchema',
});

/** The CSW namespace of each version. */
export const CSW_NAMESPACE: Readonly<Record<CswVersion, string>> = Object.freeze({
  '2.0.2': NS.csw202,
  '3.0.0': NS.csw30,
});

/** The OWS Common namespace each version's responses use. */
export const OWS_NAMESPACE: Readonly<Record<CswVersion, string>> = Object.freeze({
  '2.0.2': NS.ows,
  '3.0.0': NS.ows20,
});

/** Prefix written for the CSW namespace of each version. */
export const CSW_PREFIX: Readonly<Record<CswVersion, string>> = Object.freeze({
  '2.0.2': 'csw',
  '3.0.0': 'csw30',
});

/** Prefix written for the OWS namespace of each version. */
export const OWS_PREFIX: Readonly<Record<CswVersion, string>> = Object.freeze({
  '2.0.2': 'ows',
  '3.0.0': 'ows20',
});

/** Schema locations written in xsi:schemaLocation of each version's responses. */
export const SCHEMA_LOCATION: Readonly<Record<CswVersion, string>> = Object.freeze({
  '2.0.2': 'http://schemas.opengis.net/csw/2.0.2/CSW-discovery.xsd',
  '3.0.0': 'http://schemas.opengis.net/cat/csw/3.0/cswAll.xsd',
});

/** Operations a client may name; those not implemented are answered OperationNotSupported. */
export type CswOperation =
  | 'GetCapabilities'
  | 'DescribeRecord'
  | 'GetRecords'
  | 'GetRecordById'
  | 'GetRepositoryItem'
  | 'GetDomain';

/** Operations defined by CSW that Cairn does not offer (a read-only catalogue). */
export const UNSUPPORTED_OPERATIONS: readonly string[] = ['Transaction', 'Harvest', 'UnHarvest'];

/** The operations each version offers, in capabilities order. */
export const OPERATIONS: Readonly<Record<CswVersion, readonly CswOperation[]>> = Object.freeze({
  '2.0.2': [
    'GetCapabilities',
    'DescribeRecord',
    'GetRecords',
    'GetRecordById',
    'GetRepositoryItem',
    'GetDomain',
  ],
  '3.0.0': ['GetCapabilities', 'GetRecords', 'GetRecordById', 'GetRepositoryItem', 'GetDomain'],
});

/** Operations that accept an XML POST body (GetRepositoryItem is GET only, as in pycsw). */
export const POST_OPERATIONS: ReadonlySet<CswOperation> = new Set([
  'GetCapabilities',
  'DescribeRecord',
  'GetRecords',
  'GetRecordById',
  'GetDomain',
]);

export const ELEMENT_SETS: readonly CswElementSet[] = ['brief', 'summary', 'full'];

/**
 * GetRecords resultType values. The 2.0.2 default (XSD and KVP) is hits; CSW 3.0 dropped the
 * parameter (maxRecords=0 asks for counts), Cairn still honours it there, default results.
 */
export const RESULT_TYPES = ['hits', 'results', 'validate'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

export const CONSTRAINT_LANGUAGES = ['FILTER', 'CQL_TEXT'] as const;
export type ConstraintLanguage = (typeof CONSTRAINT_LANGUAGES)[number];

/** Media types of GetRecords / GetRecordById responses. */
export const XML = 'application/xml';
export const JSON_FORMAT = 'application/json';
export const ATOM = 'application/atom+xml';
export const OPENSEARCH_DESCRIPTION = 'application/opensearchdescription+xml';

/** Output formats, default first; `text/xml` is accepted as a synonym of application/xml. */
export const OUTPUT_FORMATS: readonly string[] = [XML, JSON_FORMAT, ATOM];

/** The DCAT namespace, the outputSchema of DCAT-AP records (RDF/XML), as pycsw names it. */
export const DCAT_OUTPUT_SCHEMA = 'http://www.w3.org/ns/dcat#';

/** Output schemas of each version, default first (CSW 3.0 requires Atom to be listed). */
export const OUTPUT_SCHEMAS: Readonly<Record<CswVersion, readonly [string, ...string[]]>> =
  Object.freeze({
    '2.0.2': [NS.csw202, NS.gmd, NS.atom, DCAT_OUTPUT_SCHEMA],
    '3.0.0': [NS.csw30, NS.gmd, NS.atom, DCAT_OUTPUT_SCHEMA],
  });

/** A type name a query may target, as a namespace + local name. */
export interface TypeName {
  ns: string;
  local: string;
}

/** Type names each version accepts (written with the conventional prefixes). */
export const TYPE_NAMES: Readonly<Record<CswVersion, readonly string[]>> = Object.freeze({
  '2.0.2': ['csw:Record', 'gmd:MD_Metadata'],
  '3.0.0': ['csw:Record', 'gmd:MD_Metadata'],
});

/** Sections of a capabilities document, by version (2.0.2 always carries Filter_Capabilities). */
export const SECTIONS: Readonly<Record<CswVersion, readonly string[]>> = Object.freeze({
  '2.0.2': [
    'ServiceIdentification',
    'ServiceProvider',
    'OperationsMetadata',
    'Filter_Capabilities',
    'All',
  ],
  '3.0.0': [
    'ServiceIdentification',
    'ServiceProvider',
    'OperationsMetadata',
    'Languages',
    'Filter_Capabilities',
    'All',
  ],
});

/** GetCapabilities acceptFormats values. */
export const CAPABILITIES_FORMATS: readonly string[] = ['text/xml', 'application/xml'];

/** DescribeRecord schema language (2.0.2). */
export const XML_SCHEMA_LANGUAGE = 'http://www.w3.org/XML/Schema';

/** A named parameter with its allowed values. */
export interface ParameterDomain {
  name: string;
  values: readonly string[];
}

/**
 * The parameters of each operation with their value domains, as capabilities advertise them and
 * GetDomain `parameterName=Operation.parameter` reports them.
 */
export function operationParameters(
  version: CswVersion,
  operation: CswOperation,
): ParameterDomain[] {
  const versions = [...CSW_VERSIONS];
  const elementSets = [...ELEMENT_SETS];
  switch (operation) {
    case 'GetCapabilities':
      return [
        { name: 'acceptVersions', values: versions },
        { name: 'acceptFormats', values: CAPABILITIES_FORMATS },
        { name: 'sections', values: SECTIONS[version] },
      ];
    case 'DescribeRecord':
      return [
        { name: 'typeName', values: TYPE_NAMES[version] },
        { name: 'outputFormat', values: [XML] },
        { name: 'schemaLanguage', values: [XML_SCHEMA_LANGUAGE] },
      ];
    case 'GetRecords':
      return [
        { name: 'typeNames', values: TYPE_NAMES[version] },
        { name: 'outputFormat', values: OUTPUT_FORMATS },
        { name: 'outputSchema', values: OUTPUT_SCHEMAS[version] },
        { name: 'resultType', values: RESULT_TYPES },
        { name: 'ElementSetName', values: elementSets },
        { name: 'CONSTRAINTLANGUAGE', values: CONSTRAINT_LANGUAGES },
      ];
    case 'GetRecordById':
      return [
        { name: 'outputFormat', values: OUTPUT_FORMATS },
        { name: 'outputSchema', values: OUTPUT_SCHEMAS[version] },
        { name: 'ElementSetName', values: elementSets },
      ];
    case 'GetRepositoryItem':
      return [];
    case 'GetDomain':
      return [
        { name: 'parameterName', values: domainParameterNames(version) },
        { name: 'valueReference', values: [] },
      ];
  }
}

/** Every `Operation.parameter` name GetDomain can describe. */
export function domainParameterNames(version: CswVersion): string[] {
  const names: string[] = [];
  for (const operation of OPERATIONS[version]) {
    if (operation === 'GetDomain') continue;
    for (const parameter of operationParameters(version, operation)) {
      names.push(`${operation}.${parameter.name}`);
    }
  }
  return names;
}

/** The value domain of `Operation.parameter` (case-insensitive), or undefined when unknown. */
export function findParameterDomain(
  version: CswVersion,
  qualifiedName: string,
): ParameterDomain | undefined {
  const dot = qualifiedName.indexOf('.');
  if (dot < 0) return undefined;
  const operation = OPERATIONS[version].find((name) => name === qualifiedName.slice(0, dot));
  if (operation === undefined || operation === 'GetDomain') return undefined;
  const parameter = qualifiedName.slice(dot + 1).toLowerCase();
  const found = operationParameters(version, operation).find(
    (item) => item.name.toLowerCase() === parameter,
  );
  return found && { name: `${operation}.${found.name}`, values: found.values };
}

/** CSW 3.0 conformance classes (OGC 12-176r7) and whether Cairn implements them. */
export const CONFORMANCE_CLASSES: readonly [string, boolean][] = [
  ['OpenSearch', true],
  ['GetCapabilities-XML', true],
  ['GetRecordById-XML', true],
  ['GetRecords-Basic-XML', true],
  ['GetRecords-Distributed-XML', false],
  ['GetRecords-Distributed-KVP', false],
  ['GetRecords-Async-XML', false],
  ['GetRecords-Async-KVP', false],
  ['GetDomain-XML', true],
  ['GetDomain-KVP', true],
  ['Transaction', false],
  ['Harvest-Basic-XML', false],
  ['Harvest-Basic-KVP', false],
  ['Harvest-Async-XML', false],
  ['Harvest-Async-KVP', false],
  ['Harvest-Periodic-XML', false],
  ['Harvest-Periodic-KVP', false],
  // CQL_TEXT: the OGC CQL grammar of shared/query/cql-text, mapped onto the CSW queryables.
  ['Filter-CQL', true],
  ['Filter-FES-XML', true],
  ['Filter-FES-KVP', true],
  ['Filter-FES-KVP-Advanced', true],
  ['CoreQueryables', true],
  ['CoreSortables', true],
];

/** Prefix of the CSW 3.0 conformance class URIs. */
export const CONFORMANCE_PREFIX = 'http://www.opengis.net/spec/csw/3.0/conf/';
