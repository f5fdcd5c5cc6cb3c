/**
 * CSW GetCapabilities documents (2.0.2: OWS 1.0.0 + Filter 1.1; 3.0: OWS 2.0 + FES 2.0) and the
 * 2.0.2 DescribeRecord response. Pure: service metadata and endpoint URLs in, XML text out.
 * Parameter domains come from ./csw-model.ts, filter operators from what the FES parser reads
 * and the backends evaluate.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import { QUERYABLES } from '../../../../shared/query/queryables.js';
import type { BackendKind } from '../../../../shared/search/backend.js';
import { createDocument, serialise } from '../../../../shared/records/writers/xml/index.js';
import {
  declareNamespaces,
  xmlAttributes,
  xmlText,
  type XmlNode,
} from '../../../../shared/records/writers/xml/xml-builder.js';
import {
  CONFORMANCE_CLASSES,
  CONFORMANCE_PREFIX,
  CSW_NAMESPACE,
  CSW_NS,
  CSW_PREFIX,
  CSW_VERSIONS,
  OPERATIONS,
  OWS_NAMESPACE,
  OWS_PREFIX,
  POST_OPERATIONS,
  operationParameters,
  type CswVersion,
  type ParameterDomain,
} from './csw-model.js';
import type { SectionSelection } from './request.js';
import { HARVEST_RESOURCE_TYPES, TRANSACTION_OPERATIONS } from './transaction.js';

/** What a capabilities document needs to know about this deployment. */
export interface CapabilitiesContext {
  service: ServiceMetadata;
  /** The CSW endpoint URL (GET and POST). */
  endpoint: string;
  /** The OpenSearch description document URL. */
  openSearchUrl: string;
  /** The OAI-PMH data provider's base URL. */
  oaiUrl: string;
  maxRecordDefault: number;
  backend: BackendKind;
  /** The engine's spatial mode (absent on SQLite). */
  spatial?: 'shape' | 'envelope' | undefined;
  /** CSW-T is offered (writes configured): list Transaction and Harvest. */
  transactions?: boolean;
}

/** Dublin Core queryable names (with csw:AnyText) every filter accepts. */
export function dublinCoreQueryables(): string[] {
  const names = QUERYABLES.flatMap((queryable) =>
    queryable.aliases.filter((alias) => /^(dc|dct|ows):/.test(alias)),
  );
  return ['csw:AnyText', 'dc:date', ...names].sort();
}

/** ISO (apiso) queryable names. */
export function isoQueryables(): string[] {
  const names = QUERYABLES.flatMap((queryable) =>
    queryable.aliases.filter((alias) => alias.startsWith('apiso:')),
  );
  return ['apiso:AnyText', ...names].sort();
}

/** Sortable queryable names (CSW spellings). */
export function sortableQueryables(): string[] {
  return QUERYABLES.filter((queryable) => queryable.sortable)
    .flatMap((queryable) => queryable.aliases.filter((alias) => /^(dc|dct|apiso):/.test(alias)))
    .sort();
}

class OwsWriter {
  readonly ns: string;
  readonly prefix: string;

  constructor(readonly version: CswVersion) {
    this.ns = OWS_NAMESPACE[version];
    this.prefix = OWS_PREFIX[version];
  }

  ele(parent: XmlNode, local: string, attributes?: Record<string, string>): XmlNode {
    return parent.ele(this.ns, `${this.prefix}:${local}`, xmlAttributes(attributes ?? {}));
  }

  text(
    parent: XmlNode,
    local: string,
    value: string | undefined,
    attributes?: Record<string, string>,
  ): void {
    if (value === undefined || value === '') return;
    this.ele(parent, local, attributes).txt(xmlText(value)).up();
  }

  link(parent: XmlNode, local: string, href: string): void {
    parent
      .ele(this.ns, `${this.prefix}:${local}`)
      .att(CSW_NS.xlink, 'xlink:type', 'simple')
      .att(CSW_NS.xlink, 'xlink:href', xmlText(href))
      .up();
  }

  /** A named domain (Parameter or Constraint) with its values (and a default, in OWS 2.0). */
  domain(
    parent: XmlNode,
    local: 'Parameter' | 'Constraint',
    name: string,
    values: readonly string[],
    defaultValue?: string,
  ): void {
    const element = this.ele(parent, local, { name });
    if (this.version === '2.0.2') {
      for (const value of values) this.text(element, 'Value', value);
    } else {
      if (values.length === 0) {
        this.ele(element, 'AnyValue').up();
      } else {
        const allowed = this.ele(element, 'AllowedValues');
        for (const value of values) this.text(allowed, 'Value', value);
        allowed.up();
      }
      this.text(element, 'DefaultValue', defaultValue);
    }
    element.up();
  }
}

function appendServiceIdentification(
  ows: OwsWriter,
  root: XmlNode,
  service: ServiceMetadata,
): void {
  const identification = ows.ele(root, 'ServiceIdentification');
  ows.text(identification, 'Title', service.title);
  ows.text(identification, 'Abstract', service.description);
  if (service.keywords.length > 0) {
    const keywords = ows.ele(identification, 'Keywords');
    for (const keyword of service.keywords) ows.text(keywords, 'Keyword', keyword);
    keywords.up();
  }
  ows.text(
    identification,
    'ServiceType',
    'CSW',
    ows.version === '3.0.0' ? { codeSpace: 'OGC' } : undefined,
  );
  for (const version of CSW_VERSIONS) ows.text(identification, 'ServiceTypeVersion', version);
  ows.text(identification, 'Fees', 'NONE');
  ows.text(identification, 'AccessConstraints', service.license);
  identification.up();
}

function appendServiceProvider(ows: OwsWriter, root: XmlNode, service: ServiceMetadata): void {
  const provider = ows.ele(root, 'ServiceProvider');
  ows.text(provider, 'ProviderName', service.provider.name);
  if (service.provider.url) ows.link(provider, 'ProviderSite', service.provider.url);
  const contact = ows.ele(provider, 'ServiceContact');
  ows.text(contact, 'IndividualName', service.contact.name ?? service.contact.organization);
  if (service.contact.email || service.contact.url) {
    const info = ows.ele(contact, 'ContactInfo');
    if (service.contact.email) {
      const address = ows.ele(info, 'Address');
      ows.text(address, 'ElectronicMailAddress', service.contact.email);
      address.up();
    }
    if (service.contact.url) ows.link(info, 'OnlineResource', service.contact.url);
    info.up();
  }
  ows.text(contact, 'Role', 'pointOfContact');
  contact.up();
  provider.up();
}

/** CSW 3.0 conformance classes CSW-T implements (synchronous Harvest; no ResponseHandler). */
const TRANSACTION_CLASSES: ReadonlySet<string> = new Set([
  'Transaction',
  'Harvest-Basic-XML',
  'Harvest-Basic-KVP',
]);

/** Transaction (POST XML) and Harvest (GET KVP or POST XML), with the harvestable types. */
function appendTransactionOperations(ows: OwsWriter, metadata: XmlNode, endpoint: string): void {
  for (const operation of TRANSACTION_OPERATIONS) {
    const element = ows.ele(metadata, 'Operation', { name: operation });
    const http = ows.ele(ows.ele(element, 'DCP'), 'HTTP');
    if (operation === 'Harvest') ows.link(http, 'Get', endpoint);
    ows.link(http, 'Post', endpoint);
    http.up().up();
    if (operation === 'Harvest')
      ows.domain(element, 'Parameter', 'ResourceType', Object.keys(HARVEST_RESOURCE_TYPES));
    element.up();
  }
}

function appendOperationsMetadata(
  ows: OwsWriter,
  root: XmlNode,
  context: CapabilitiesContext,
): void {
  const { version } = ows;
  const metadata = ows.ele(root, 'OperationsMetadata');
  for (const operation of OPERATIONS[version]) {
    const element = ows.ele(metadata, 'Operation', { name: operation });
    const http = ows.ele(ows.ele(element, 'DCP'), 'HTTP');
    ows.link(http, 'Get', context.endpoint);
    if (POST_OPERATIONS.has(operation)) ows.link(http, 'Post', context.endpoint);
    http.up().up();
    const parameters: ParameterDomain[] = operationParameters(version, operation).map(
      (parameter) =>
        operation === 'GetDomain' && parameter.name === 'valueReference'
          ? {
              name: version === '2.0.2' ? 'PropertyName' : 'valueReference',
              values: [...dublinCoreQueryables(), ...isoQueryables()],
            }
          : parameter,
    );
    for (const parameter of parameters) {
      ows.domain(element, 'Parameter', parameter.name, parameter.values, parameter.values[0]);
    }
    if (operation === 'GetRecords') {
      ows.domain(element, 'Constraint', 'SupportedDublinCoreQueryables', dublinCoreQueryables());
      ows.domain(element, 'Constraint', 'SupportedISOQueryables', isoQueryables());
      ows.domain(element, 'Constraint', 'SupportedSortables', sortableQueryables());
    }
    element.up();
  }
  if (context.transactions) appendTransactionOperations(ows, metadata, context.endpoint);
  ows.domain(metadata, 'Parameter', 'service', ['CSW'], 'CSW');
  ows.domain(metadata, 'Parameter', 'version', CSW_VERSIONS, CSW_VERSIONS[0]);
  if (version === '3.0.0') {
    for (const [name, implemented] of CONFORMANCE_CLASSES) {
      const value =
        implemented || (context.transactions && TRANSACTION_CLASSES.has(name)) ? 'TRUE' : 'FALSE';
      ows.domain(metadata, 'Constraint', `${CONFORMANCE_PREFIX}${name}`, [value], value);
    }
    ows.domain(metadata, 'Constraint', `${CONFORMANCE_PREFIX}SupportedGMLVersions`, [
      CSW_NS.gml,
      CSW_NS.gml32,
    ]);
  }
  const maxRecords = String(context.maxRecordDefault);
  ows.domain(metadata, 'Constraint', 'MaxRecordDefault', [maxRecords], maxRecords);
  ows.domain(metadata, 'Constraint', 'PostEncoding', ['XML'], 'XML');
  ows.domain(metadata, 'Constraint', 'OpenSearchDescriptionDocument', [context.openSearchUrl]);
  // The same records over OAI-PMH 2.0, deletions included.
  ows.domain(metadata, 'Constraint', 'OAI-PMHBaseURL', [context.oaiUrl]);
  metadata.up();
}

/**
 * Spatial operators every backend evaluates exactly: relations (DE-9IM) and great-circle
 * distances. The engines decide in Node what their index cannot (refine-search.ts), up to
 * SEARCH_REFINE_MAX_CANDIDATES candidates per search (beyond: a 400 that says so).
 */
const SPATIAL_OPERATORS: readonly string[] = [
  'BBOX',
  'Intersects',
  'Disjoint',
  'Within',
  'Contains',
  'Equals',
  'Touches',
  'Crosses',
  'Overlaps',
  'Beyond',
  'DWithin',
];

/** FES 2.0 temporal operators (AnyInteracts is read too, but FES 2.0.0 cannot list it). */
const TEMPORAL_OPERATORS = [
  'After',
  'Before',
  'Begins',
  'BegunBy',
  'TContains',
  'During',
  'TEquals',
  'TOverlaps',
  'Meets',
  'OverlappedBy',
  'MetBy',
  'Ends',
  'EndedBy',
];

const GEOMETRY_OPERANDS = ['Envelope', 'Point', 'LineString', 'Polygon'];

/** A writer of `prefix:local` child elements in one namespace. */
function elementsIn(
  namespace: string,
  prefix: string,
): (parent: XmlNode, local: string, attributes?: Record<string, string>) => XmlNode {
  return (parent, local, attributes) => parent.ele(namespace, `${prefix}:${local}`, attributes);
}

function appendFilterCapabilities11(root: XmlNode): void {
  const ogc = elementsIn(CSW_NS.ogc, 'ogc');
  const capabilities = ogc(root, 'Filter_Capabilities');
  const spatial = ogc(capabilities, 'Spatial_Capabilities');
  const operands = ogc(spatial, 'GeometryOperands');
  for (const operand of GEOMETRY_OPERANDS)
    ogc(operands, 'GeometryOperand').txt(`gml:${operand}`).up();
  operands.up();
  const spatialOperators = ogc(spatial, 'SpatialOperators');
  for (const name of SPATIAL_OPERATORS) {
    ogc(spatialOperators, 'SpatialOperator', { name }).up();
  }
  spatialOperators.up();
  spatial.up();
  const scalar = ogc(capabilities, 'Scalar_Capabilities');
  ogc(scalar, 'LogicalOperators').up();
  const comparison = ogc(scalar, 'ComparisonOperators');
  for (const name of [
    'LessThan',
    'GreaterThan',
    'LessThanEqualTo',
    'GreaterThanEqualTo',
    'EqualTo',
    'NotEqualTo',
    'Like',
    'Between',
    'NullCheck',
  ]) {
    ogc(comparison, 'ComparisonOperator').txt(name).up();
  }
  comparison.up();
  ogc(ogc(scalar, 'ArithmeticOperators'), 'SimpleArithmetic').up().up();
  scalar.up();
  const id = ogc(capabilities, 'Id_Capabilities');
  ogc(id, 'EID').up();
  ogc(id, 'FID').up();
  id.up();
  capabilities.up();
}

/** FES 2.0 conformance constraints and whether they hold. */
const FES_CONFORMANCE: readonly [string, boolean][] = [
  ['ImplementsQuery', true],
  ['ImplementsAdHocQuery', true],
  ['ImplementsFunctions', false],
  ['ImplementsResourceId', true],
  ['ImplementsMinStandardFilter', true],
  ['ImplementsStandardFilter', true],
  ['ImplementsMinSpatialFilter', true],
  ['ImplementsSpatialFilter', true],
  ['ImplementsMinTemporalFilter', true],
  ['ImplementsTemporalFilter', true],
  ['ImplementsVersionNav', false],
  ['ImplementsSorting', true],
  ['ImplementsExtendedOperators', false],
  ['ImplementsMinimumXPath', true],
  ['ImplementsSchemaElementFunc', false],
];

function appendFilterCapabilities20(root: XmlNode): void {
  const fes = elementsIn(CSW_NS.fes, 'fes');
  const capabilities = fes(root, 'Filter_Capabilities');
  const conformance = fes(capabilities, 'Conformance');
  for (const [name, value] of FES_CONFORMANCE) {
    fes(conformance, 'Constraint', { name })
      .ele(CSW_NS.ows11, 'ows11:NoValues')
      .up()
      .ele(CSW_NS.ows11, 'ows11:DefaultValue')
      .txt(value ? 'TRUE' : 'FALSE')
      .up()
      .up();
  }
  conformance.up();
  fes(fes(capabilities, 'Id_Capabilities'), 'ResourceIdentifier', { name: 'csw30:Record' })
    .up()
    .up();
  const scalar = fes(capabilities, 'Scalar_Capabilities');
  fes(scalar, 'LogicalOperators').up();
  const comparison = fes(scalar, 'ComparisonOperators');
  for (const name of [
    'PropertyIsEqualTo',
    'PropertyIsNotEqualTo',
    'PropertyIsLessThan',
    'PropertyIsGreaterThan',
    'PropertyIsLessThanOrEqualTo',
    'PropertyIsGreaterThanOrEqualTo',
    'PropertyIsLike',
    'PropertyIsNull',
    'PropertyIsNil',
    'PropertyIsBetween',
  ]) {
    fes(comparison, 'ComparisonOperator', { name }).up();
  }
  comparison.up();
  scalar.up();
  const spatial = fes(capabilities, 'Spatial_Capabilities');
  const operands = fes(spatial, 'GeometryOperands');
  for (const operand of GEOMETRY_OPERANDS)
    fes(operands, 'GeometryOperand', { name: `gml32:${operand}` }).up();
  operands.up();
  const spatialOperators = fes(spatial, 'SpatialOperators');
  for (const name of SPATIAL_OPERATORS) {
    fes(spatialOperators, 'SpatialOperator', { name }).up();
  }
  spatialOperators.up();
  spatial.up();
  const temporal = fes(capabilities, 'Temporal_Capabilities');
  const temporalOperands = fes(temporal, 'TemporalOperands');
  for (const operand of ['TimeInstant', 'TimePeriod']) {
    fes(temporalOperands, 'TemporalOperand', { name: `gml32:${operand}` }).up();
  }
  temporalOperands.up();
  const temporalOperators = fes(temporal, 'TemporalOperators');
  for (const name of TEMPORAL_OPERATORS) fes(temporalOperators, 'TemporalOperator', { name }).up();
  temporalOperators.up();
  temporal.up();
  capabilities.up();
}

/** Writes the capabilities document of a version with the selected sections. */
export function presentCapabilities(
  version: CswVersion,
  sections: SectionSelection,
  context: CapabilitiesContext,
): string {
  const document = createDocument();
  const cswPrefix = CSW_PREFIX[version];
  const root = document.ele(CSW_NAMESPACE[version], `${cswPrefix}:Capabilities`, { version });
  const ows = new OwsWriter(version);
  declareNamespaces(root, {
    [cswPrefix]: CSW_NAMESPACE[version],
    [ows.prefix]: ows.ns,
    ...(version === '2.0.2'
      ? { ogc: CSW_NS.ogc, gml: CSW_NS.gml }
      : { fes: CSW_NS.fes, gml32: CSW_NS.gml32, ows11: CSW_NS.ows11 }),
    xlink: CSW_NS.xlink,
    xsi: CSW_NS.xsi,
  });
  root.att(
    CSW_NS.xsi,
    'xsi:schemaLocation',
    version === '2.0.2'
      ? `${CSW_NS.csw202} http://schemas.opengis.net/csw/2.0.2/CSW-discovery.xsd`
      : `${CSW_NS.csw30} http://schemas.opengis.net/cat/csw/3.0/cswGetCapabilities.xsd`,
  );
  if (sections.serviceIdentification) appendServiceIdentification(ows, root, context.service);
  if (sections.serviceProvider) appendServiceProvider(ows, root, context.service);
  if (sections.operationsMetadata) appendOperationsMetadata(ows, root, context);
  if (sections.languages && version === '3.0.0') {
    ows.text(ows.ele(root, 'Languages'), 'Language', 'en');
  }
  if (sections.filterCapabilities) {
    if (version === '2.0.2') appendFilterCapabilities11(root);
    else appendFilterCapabilities20(root);
  }
  return serialise(document);
}

/**
 * The CSW 2.0.2 DescribeRecord response: one SchemaComponent per record type, each a small
 * XML Schema that includes the official schema of the type.
 */
export function presentDescribeRecord(): string {
  const document = createDocument();
  const root = document.ele(CSW_NS.csw202, 'csw:DescribeRecordResponse');
  declareNamespaces(root, { csw: CSW_NS.csw202, xs: CSW_NS.xs });
  const components: [string, string][] = [
    [CSW_NS.csw202, 'http://schemas.opengis.net/csw/2.0.2/record.xsd'],
    [CSW_NS.gmd, 'http://schemas.opengis.net/iso/19139/20060504/gmd/gmd.xsd'],
  ];
  for (const [targetNamespace, location] of components) {
    root
      .ele(CSW_NS.csw202, 'csw:SchemaComponent', {
        targetNamespace,
        schemaLanguage: 'http://www.w3.org/XML/Schema',
      })
      .ele(CSW_NS.xs, 'xs:schema', { targetNamespace, elementFormDefault: 'qualified' })
      .ele(CSW_NS.xs, 'xs:include', { schemaLocation: location })
      .up()
      .up()
      .up();
  }
  return serialise(document);
}
