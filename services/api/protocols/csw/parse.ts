/**
 * CSW request parsing, shared by both encodings, and the KVP encoding itself (GET query
 * strings and form POSTs). Pure: request parameters in, a CswRequest (with its SearchQuery)
 * out, or a CswError naming the parameter at fault.
 *
 * KVP rules (OGC 06-121r9 / 12-176r7): parameter names are case-insensitive, values are
 * case-sensitive (`request=getCapabilities` is an InvalidParameterValue); unknown parameters are
 * ignored; `service` and `request` are required, and `version` for every operation except
 * GetCapabilities, which negotiates through `acceptVersions`.
 */
import type { SortKey, SearchQuery } from '../../../../shared/query/search-query.js';
import { andAll, type Expression } from '../../../../shared/query/filter-ast.js';
import { checkFilter } from '../../../../shared/query/check-filter.js';
import { parseList } from '../../../../shared/query/params.js';
import { NS } from '../../../../shared/xml/index.js';
import { preferredMediaType } from '../../common/negotiation.js';
import {
  parseOpenSearchPaging,
  parseOpenSearchSearch,
  type OpenSearchEcho,
} from '../opensearch/parse.js';
import {
  CswError,
  invalidParameter,
  missingParameter,
  operationNotSupported,
  optionNotSupported,
} from './csw-errors.js';
import {
  ATOM,
  CAPABILITIES_FORMATS,
  CONSTRAINT_LANGUAGES,
  CSW_NAMESPACE,
  CSW_VERSIONS,
  DEFAULT_VERSION,
  ELEMENT_SETS,
  JSON_FORMAT,
  OUTPUT_SCHEMAS,
  RESULT_TYPES,
  SECTIONS,
  UNSUPPORTED_OPERATIONS,
  XML,
  XML_SCHEMA_LANGUAGE,
  type ConstraintLanguage,
  type CswElementSet,
  type CswVersion,
  type ResultType,
} from './csw-model.js';
import {
  andText,
  parseConstraint,
  parseKvpSortBy,
  type ConstraintInput,
} from './parse-constraint.js';
import type {
  CswParseContext,
  CswRequest,
  GetCapabilitiesRequest,
  GetDomainRequest,
  GetRecordByIdRequest,
  GetRecordsRequest,
  OutputFormat,
  RecordPresentation,
  SectionSelection,
} from './request.js';

/** KVP parameters: values by lower-cased name, and the entries as the client wrote them. */
export interface Kvp {
  values: Readonly<Record<string, string>>;
  entries: readonly [string, string][];
}

/**
 * Reads query parameters into a Kvp with lower-cased names. A parameter repeated with
 * different values is an InvalidParameterValue.
 */
export function readKvp(query: Readonly<Record<string, unknown>>): Kvp {
  const values: Record<string, string> = {};
  const entries: [string, string][] = [];
  for (const [name, raw] of Object.entries(query)) {
    const list = Array.isArray(raw) ? raw : [raw];
    const strings = list.filter((item): item is string => typeof item === 'string');
    if (strings.length === 0) continue;
    const key = name.toLowerCase();
    for (const value of strings) {
      if (values[key] !== undefined && values[key] !== value) {
        throw invalidParameter(name, `Parameter "${name}" is given more than once`);
      }
      values[key] = value;
    }
    const [first] = strings;
    if (first !== undefined) entries.push([name, first]);
  }
  return { values, entries };
}

/** The version a KVP request asks for, as well as can be told before parsing it (for errors). */
export function guessKvpVersion(values: Readonly<Record<string, string>>): CswVersion {
  const accepted = values.acceptversions;
  if (accepted !== undefined) {
    const first = parseList(accepted).find((item) => CSW_VERSIONS.includes(item as CswVersion));
    if (first !== undefined) return first as CswVersion;
  }
  return values.version === '2.0.2' ? '2.0.2' : DEFAULT_VERSION;
}

/** Negotiates the version of a GetCapabilities request (OWS 06-121r9 7.3.2). */
export function negotiateVersion(
  acceptVersions: string[] | undefined,
  version: string | undefined,
  fallback: CswVersion,
): CswVersion {
  if (acceptVersions !== undefined) {
    const chosen = acceptVersions.find((item) => CSW_VERSIONS.includes(item as CswVersion));
    if (chosen === undefined) {
      throw new CswError(
        'VersionNegotiationFailed',
        'acceptVersions',
        `None of the versions "${acceptVersions.join(',')}" is supported; supported: ${CSW_VERSIONS.join(', ')}`,
      );
    }
    return chosen as CswVersion;
  }
  if (version !== undefined && CSW_VERSIONS.includes(version as CswVersion)) {
    return version as CswVersion;
  }
  return fallback;
}

/** Reads the sections selection of GetCapabilities; absent means everything. */
export function parseSections(
  version: CswVersion,
  sections: string[] | undefined,
): SectionSelection {
  const all: SectionSelection = {
    serviceIdentification: true,
    serviceProvider: true,
    operationsMetadata: true,
    filterCapabilities: true,
    languages: version === '3.0.0',
  };
  if (sections === undefined || sections.length === 0) return all;
  for (const section of sections) {
    if (!SECTIONS[version].includes(section)) {
      throw invalidParameter(
        'sections',
        `Unknown section "${section}"; sections are ${SECTIONS[version].join(', ')}`,
      );
    }
  }
  if (sections.includes('All')) return all;
  return {
    serviceIdentification: sections.includes('ServiceIdentification'),
    serviceProvider: sections.includes('ServiceProvider'),
    operationsMetadata: sections.includes('OperationsMetadata'),
    // CSW 2.0.2 capabilities always carry Filter_Capabilities (it is mandatory in the schema).
    filterCapabilities: version === '2.0.2' || sections.includes('Filter_Capabilities'),
    languages: version === '3.0.0' && sections.includes('Languages'),
  };
}

/** Picks the capabilities media type from acceptFormats. */
export function parseAcceptFormats(formats: string[] | undefined): string {
  if (formats === undefined || formats.length === 0) return XML;
  const chosen = formats.find((format) => CAPABILITIES_FORMATS.includes(format));
  if (chosen === undefined) {
    throw invalidParameter(
      'acceptFormats',
      `None of the formats "${formats.join(',')}" is offered; offered: ${CAPABILITIES_FORMATS.join(', ')}`,
    );
  }
  return chosen;
}

/** The service parameter must be CSW. */
export function checkService(service: string | undefined, required: boolean): void {
  if (service === undefined) {
    if (required) throw missingParameter('service');
    return;
  }
  if (service !== 'CSW') {
    throw invalidParameter('service', `service must be "CSW", got "${service}"`);
  }
}

/** Resolves a prefixed type name against the known namespaces of the request. */
export function resolveTypeName(
  written: string,
  version: CswVersion,
  resolvePrefix: (prefix: string) => string | undefined,
): 'record' | 'iso' {
  const colon = written.indexOf(':');
  const prefix = colon < 0 ? '' : written.slice(0, colon);
  const local = colon < 0 ? written : written.slice(colon + 1);
  const defaults: Record<string, string> = {
    '': CSW_NAMESPACE[version],
    csw: CSW_NAMESPACE[version],
    csw30: NS.csw30,
    csw3: NS.csw30,
    gmd: NS.gmd,
  };
  const ns = resolvePrefix(prefix) ?? defaults[prefix];
  if ((ns === NS.csw202 || ns === NS.csw30) && local === 'Record') return 'record';
  if (ns === NS.gmd && local === 'MD_Metadata') return 'iso';
  throw invalidParameter(
    'typeNames',
    `Unknown type name "${written}"; query csw:Record or gmd:MD_Metadata`,
  );
}

/** Parses the KVP `namespace=xmlns(p=uri),xmlns(q=uri)` parameter into a prefix map. */
export function parseNamespaceParameter(value: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (value === undefined) return map;
  const pattern = /xmlns\(\s*(?:([A-Za-z_][\w.-]*)\s*=\s*)?([^)\s]+)\s*\)/g;
  let matched = 0;
  for (const match of value.matchAll(pattern)) {
    const uri = match[2];
    if (uri !== undefined) map.set(match[1] ?? '', uri);
    matched += match[0].length;
  }
  if (matched === 0 || value.replace(pattern, '').replace(/[\s,]/g, '') !== '') {
    throw invalidParameter('namespace', 'namespace must be a list of xmlns(prefix=uri)');
  }
  return map;
}

/** Reads an element set name. */
export function parseElementSet(value: string, locator = 'ElementSetName'): CswElementSet {
  const set = value.trim() as CswElementSet;
  if (!ELEMENT_SETS.includes(set)) {
    throw invalidParameter(
      locator,
      `ElementSetName must be one of ${ELEMENT_SETS.join(', ')}, got "${value}"`,
    );
  }
  return set;
}

/** Elements a csw:Record may be reduced to with ElementName, by namespace. */
const RECORD_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  [NS.dc]: [
    'identifier',
    'title',
    'type',
    'subject',
    'format',
    'relation',
    'date',
    'creator',
    'publisher',
    'contributor',
    'source',
    'language',
    'rights',
  ],
  [NS.dct]: [
    'modified',
    'abstract',
    'spatial',
    'license',
    'alternative',
    'created',
    'issued',
    'references',
    'temporal',
  ],
  [NS.ows]: ['BoundingBox'],
  [NS.ows20]: ['BoundingBox'],
  [NS.csw30]: ['TemporalExtent'],
};

/** Reads ElementName values (QNames, optionally as `/csw:Record/dc:title`). */
export function parseElementNames(
  names: string[],
  resolvePrefix: (prefix: string) => string | undefined,
): RecordPresentation {
  const defaults: Record<string, string> = {
    dc: NS.dc,
    dct: NS.dct,
    ows: NS.ows,
    ows20: NS.ows20,
    csw30: NS.csw30,
  };
  const resolved = names.map((written) => {
    const name = written.replace(/^\/?(?:[A-Za-z][\w.-]*:)?Record\//, '');
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const local = colon < 0 ? name : name.slice(colon + 1);
    const ns = resolvePrefix(prefix) ?? defaults[prefix];
    if (ns === undefined || !(RECORD_ELEMENTS[ns] ?? []).includes(local)) {
      throw invalidParameter('ElementName', `"${written}" is not an element of csw:Record`);
    }
    return { ns, local, written };
  });
  if (resolved.length === 0) throw invalidParameter('ElementName', 'ElementName is empty');
  return { kind: 'elementNames', names: resolved };
}

/** Checks the output schema against the version's list (default: the version's CSW schema). */
export function parseOutputSchema(version: CswVersion, value: string | undefined): string {
  if (value === undefined || value.trim() === '') return OUTPUT_SCHEMAS[version][0];
  const schema = value.trim();
  if (!OUTPUT_SCHEMAS[version].includes(schema)) {
    throw invalidParameter(
      'outputSchema',
      `outputSchema "${value}" is not offered; offered: ${OUTPUT_SCHEMAS[version].join(', ')}`,
    );
  }
  return schema;
}

/** An output format and, for XML, the media type to answer with. */
export interface FormatChoice {
  format: OutputFormat;
  xmlMediaType: string;
}

function formatOf(mediaType: string): FormatChoice | undefined {
  switch (mediaType) {
    case XML:
    case 'text/xml':
      return { format: 'xml', xmlMediaType: mediaType };
    case JSON_FORMAT:
      return { format: 'json', xmlMediaType: XML };
    case ATOM:
      return { format: 'atom', xmlMediaType: XML };
    default:
      return undefined;
  }
}

/** The media types the Accept header chooses among (CSW 3.0), default first. */
const NEGOTIATED_FORMATS: readonly string[] = [XML, 'text/xml', JSON_FORMAT, ATOM];

/**
 * Reads outputFormat; when absent (CSW 3.0) the Accept header chooses among the offered formats
 * (common/negotiation.ts), and application/xml is the default.
 */
export function parseOutputFormat(
  value: string | undefined,
  version: CswVersion,
  accept: string | undefined,
): FormatChoice {
  if (value !== undefined && value.trim() !== '') {
    const choice = formatOf(value.trim());
    if (choice === undefined) {
      throw invalidParameter(
        'outputFormat',
        `outputFormat "${value}" is not offered; offered: ${[XML, JSON_FORMAT, ATOM].join(', ')}`,
      );
    }
    return choice;
  }
  const preferred =
    version === '3.0.0' ? preferredMediaType(accept, NEGOTIATED_FORMATS) : undefined;
  return formatOf(preferred ?? XML) ?? { format: 'xml', xmlMediaType: XML };
}

/** Reads the constraint language name. */
export function parseConstraintLanguage(value: string): ConstraintLanguage {
  const language = value.trim().toUpperCase();
  if (!(CONSTRAINT_LANGUAGES as readonly string[]).includes(language)) {
    throw invalidParameter(
      'CONSTRAINTLANGUAGE',
      `CONSTRAINTLANGUAGE must be FILTER or CQL_TEXT, got "${value}"`,
    );
  }
  return language as ConstraintLanguage;
}

/**
 * Reads resultType: its default is hits in CSW 2.0.2 and results in 3.0, which has no such
 * parameter but whose clients may still send it (Cairn answers it as 2.0.2 does).
 */
export function parseResultType(
  value: string | undefined,
  version: CswVersion = '2.0.2',
): ResultType {
  if (value === undefined || value.trim() === '') return version === '2.0.2' ? 'hits' : 'results';
  if (!(RESULT_TYPES as readonly string[]).includes(value.trim())) {
    throw invalidParameter(
      'resultType',
      `resultType must be one of ${RESULT_TYPES.join(', ')}, got "${value}"`,
    );
  }
  return value.trim() as ResultType;
}

/** The parts of a GetRecords request both encodings share, before the SearchQuery is built. */
export interface GetRecordsParts {
  version: CswVersion;
  typeNames: string[];
  presentation: RecordPresentation;
  outputSchema: string;
  format: FormatChoice;
  resultType: ResultType;
  startPosition: number;
  maxRecords: number;
  constraint?: ConstraintInput | undefined;
  sort: SortKey[];
  /** OpenSearch-style parameters (KVP only). */
  openSearch?: {
    kvp: Readonly<Record<string, string>>;
    spelling: Readonly<Record<string, string>>;
    echo: OpenSearchEcho;
  };
  requestId?: string;
}

/** Builds the GetRecords request: constraint and OpenSearch parameters ANDed, paging applied. */
export function buildGetRecordsRequest(
  parts: GetRecordsParts,
  context: CswParseContext,
): GetRecordsRequest {
  const query: SearchQuery = { sort: parts.sort, offset: parts.startPosition - 1, limit: 0 };
  const filters: Expression[] = [];
  let notFoundLocator: string | undefined;
  if (parts.openSearch !== undefined) {
    const search = parseOpenSearchSearch(parts.openSearch.kvp, parts.openSearch.spelling);
    const { text, spatial, temporal, ids, filter } = search.fragment;
    if (text !== undefined) query.text = text;
    if (spatial !== undefined) query.spatial = spatial;
    if (temporal !== undefined) query.temporal = temporal;
    if (ids !== undefined) {
      query.ids = ids;
      notFoundLocator = parts.openSearch.kvp.recordids !== undefined ? 'recordIds' : 'geo:uid';
    }
    if (filter !== undefined) filters.push(filter);
    Object.assign(parts.openSearch.echo.parameters, search.parameters);
  }
  if (parts.constraint !== undefined) {
    const constraint = parseConstraint(
      parts.constraint,
      { maxBytes: context.maxBytes },
      context.query,
    );
    const text = andText(query.text, constraint.text);
    if (text !== undefined) query.text = text;
    if (constraint.filter !== undefined) filters.push(constraint.filter);
  }
  const filter = andAll(filters);
  if (filter !== undefined) query.filter = checkFilter(filter, context.query);
  const countsOnly = parts.maxRecords === 0 || parts.resultType !== 'results';
  query.limit = countsOnly ? 0 : parts.maxRecords;
  return {
    operation: 'GetRecords',
    version: parts.version,
    typeNames: parts.typeNames,
    presentation: parts.presentation,
    outputSchema: parts.outputSchema,
    outputFormat: parts.format.format,
    xmlMediaType: parts.format.xmlMediaType,
    resultType: parts.resultType,
    startPosition: parts.startPosition,
    maxRecords: parts.maxRecords,
    query,
    ...(parts.requestId !== undefined ? { requestId: parts.requestId } : {}),
    ...(parts.openSearch !== undefined ? { openSearch: parts.openSearch.echo } : {}),
    ...(notFoundLocator !== undefined ? { notFoundLocator } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// KVP

function parseGetCapabilitiesKvp(values: Readonly<Record<string, string>>): GetCapabilitiesRequest {
  const acceptVersions =
    values.acceptversions === undefined ? undefined : parseList(values.acceptversions);
  const version = negotiateVersion(acceptVersions, values.version, DEFAULT_VERSION);
  const mode = values.mode;
  if (mode !== undefined && mode !== 'opensearch') {
    throw invalidParameter('mode', `mode must be "opensearch", got "${mode}"`);
  }
  return {
    operation: 'GetCapabilities',
    version,
    sections: parseSections(
      version,
      values.sections === undefined ? undefined : parseList(values.sections),
    ),
    mediaType: parseAcceptFormats(
      values.acceptformats === undefined ? undefined : parseList(values.acceptformats),
    ),
    openSearch: mode === 'opensearch',
  };
}

function presentationKvp(
  values: Readonly<Record<string, string>>,
  resolvePrefix: (prefix: string) => string | undefined,
): RecordPresentation {
  const elementSet = values.elementsetname;
  const elementName = values.elementname;
  if (elementSet !== undefined && elementName !== undefined) {
    throw new CswError(
      'NoApplicableCode',
      'ElementSetName',
      'Give only one of ElementSetName and ElementName',
      400,
    );
  }
  if (elementName !== undefined) return parseElementNames(parseList(elementName), resolvePrefix);
  return {
    kind: 'elementSet',
    elementSet:
      elementSet === undefined || elementSet === '' ? 'summary' : parseElementSet(elementSet),
  };
}

function parseGetRecordsKvp(
  kvp: Kvp,
  version: CswVersion,
  context: CswParseContext,
): GetRecordsRequest {
  const { values } = kvp;
  const namespaces = parseNamespaceParameter(values.namespace);
  const resolvePrefix = (prefix: string): string | undefined => namespaces.get(prefix);
  const mode = values.mode;
  if (mode !== undefined && mode !== 'opensearch') {
    throw invalidParameter('mode', `mode must be "opensearch", got "${mode}"`);
  }
  const openSearchMode = mode === 'opensearch';
  const typeNamesValue = values.typenames ?? (openSearchMode ? 'csw:Record' : undefined);
  if (typeNamesValue === undefined || typeNamesValue.trim() === '') {
    throw missingParameter('typeNames');
  }
  const typeNames = typeNamesValue.split(/[\s,]+/).filter((item) => item !== '');
  for (const name of typeNames) resolveTypeName(name, version, resolvePrefix);
  if (values.responsehandler !== undefined) {
    throw optionNotSupported('ResponseHandler', 'Asynchronous responses are not supported');
  }
  const format = openSearchMode
    ? { format: 'atom' as const, xmlMediaType: XML }
    : parseOutputFormat(values.outputformat, version, context.accept);
  const paging = parseOpenSearchPaging(values, context);
  let constraint: ConstraintInput | undefined;
  const constraintText = values.constraint;
  const languageText = values.constraintlanguage ?? values.constraint_language;
  if (constraintText !== undefined && constraintText.trim() !== '') {
    if (languageText === undefined) throw missingParameter('CONSTRAINTLANGUAGE');
    const language = parseConstraintLanguage(languageText);
    constraint =
      language === 'FILTER'
        ? { language, xml: constraintText, version: values.constraint_language_version }
        : { language, text: constraintText };
  } else if (languageText !== undefined) {
    parseConstraintLanguage(languageText);
  }
  const echo: OpenSearchEcho = { parameters: { ...paging.parameters }, query: [...kvp.entries] };
  return buildGetRecordsRequest(
    {
      version,
      typeNames,
      presentation: presentationKvp(values, resolvePrefix),
      outputSchema: parseOutputSchema(version, values.outputschema),
      format,
      // An OpenSearch search returns results whatever the version (2.0.2 defaults to hits).
      resultType:
        openSearchMode && values.resulttype === undefined
          ? 'results'
          : parseResultType(values.resulttype, version),
      startPosition: paging.startPosition,
      maxRecords: paging.maxRecords,
      constraint,
      sort:
        values.sortby !== undefined && values.sortby.trim() !== ''
          ? parseKvpSortBy(values.sortby)
          : [],
      openSearch: {
        kvp: values,
        spelling: Object.fromEntries(kvp.entries.map(([name]) => [name.toLowerCase(), name])),
        echo,
      },
      ...(values.requestid !== undefined ? { requestId: values.requestid } : {}),
    },
    context,
  );
}

/** The parameter names as OWSLib's `getrecordbyid` spells them (0.35; unchanged since 2021). */
const OWSLIB_GET_RECORD_BY_ID = [
  'elementsetname',
  'id',
  'outputFormat',
  'outputSchema',
  'request',
  'service',
  'version',
].join(',');

/**
 * True when a KVP request is OWSLib's `getrecordbyid`: exactly its parameters, with its mix of
 * spellings (`outputFormat` next to `elementsetname`). OWSLib's CSW 3.0 client looks for records
 * only below the document root, so it cannot read the bare record CSW 3.0 answers with.
 */
export function isOwsLibGetRecordById(entries: readonly [string, string][]): boolean {
  const names = entries.map(([name]) => name).sort();
  return names.join(',') === OWSLIB_GET_RECORD_BY_ID;
}

function parseGetRecordByIdKvp(
  kvp: Kvp,
  version: CswVersion,
  context: CswParseContext,
): GetRecordByIdRequest {
  const { values } = kvp;
  const id = values.id;
  if (id === undefined || id.trim() === '') throw missingParameter('id');
  // CSW 3.0 takes one id (an anyURI, which may hold a comma); a comma-separated list, as
  // 2.0.2 and OWSLib write it, is read as a list unless a record has the whole value as its id.
  const ids = parseList(id);
  if (ids.length === 0) throw missingParameter('id');
  const literalId = version === '3.0.0' && ids.length > 1 ? id.trim() : undefined;
  const elementSet = values.elementsetname;
  const format = parseOutputFormat(values.outputformat, version, context.accept);
  return {
    operation: 'GetRecordById',
    version,
    ids,
    ...(literalId !== undefined ? { literalId } : {}),
    asResultList: version === '3.0.0' && isOwsLibGetRecordById(kvp.entries),
    presentation: {
      kind: 'elementSet',
      elementSet:
        elementSet === undefined || elementSet === '' ? 'summary' : parseElementSet(elementSet),
    },
    outputSchema: parseOutputSchema(version, values.outputschema),
    outputFormat: format.format,
    xmlMediaType: format.xmlMediaType,
  };
}

function parseGetDomainKvp(
  values: Readonly<Record<string, string>>,
  version: CswVersion,
): GetDomainRequest {
  const parameterNames = parseList(values.parametername ?? '');
  const valueReferences = parseList(values.valuereference ?? values.propertyname ?? '');
  if (parameterNames.length === 0 && valueReferences.length === 0) {
    throw missingParameter(
      'parameterName',
      `GetDomain needs parameterName or ${version === '2.0.2' ? 'PropertyName' : 'valueReference'}`,
    );
  }
  return { operation: 'GetDomain', version, parameterNames, valueReferences };
}

function checkDescribeRecordKvp(
  values: Readonly<Record<string, string>>,
  version: CswVersion,
): void {
  const namespaces = parseNamespaceParameter(values.namespace);
  for (const name of parseList(values.typename ?? '')) {
    resolveTypeName(name, version, (prefix) => namespaces.get(prefix));
  }
  if (values.outputformat !== undefined && values.outputformat !== XML) {
    throw invalidParameter('outputFormat', `DescribeRecord offers ${XML} only`);
  }
  const language = values.schemalanguage;
  if (language !== undefined && language !== XML_SCHEMA_LANGUAGE && language !== 'XMLSCHEMA') {
    throw invalidParameter('schemaLanguage', `schemaLanguage must be ${XML_SCHEMA_LANGUAGE}`);
  }
}

/** Checks the `version` of an operation other than GetCapabilities. */
export function checkOperationVersion(version: string | undefined): CswVersion {
  if (version === undefined || version.trim() === '') throw missingParameter('version');
  if (!CSW_VERSIONS.includes(version as CswVersion)) {
    throw invalidParameter(
      'version',
      `version "${version}" is not supported; supported: ${CSW_VERSIONS.join(', ')}`,
    );
  }
  return version as CswVersion;
}

/**
 * Parses a KVP request. A request without any parameter is GetCapabilities (CSW 3.0,
 * Requirement 006); the caller decides whether it gets the OpenSearch description instead.
 */
export function parseCswKvp(kvp: Kvp, context: CswParseContext): CswRequest {
  const { values } = kvp;
  if (kvp.entries.length === 0) {
    return parseGetCapabilitiesKvp({ service: 'CSW', request: 'GetCapabilities' });
  }
  checkService(values.service, true);
  const request = values.request;
  if (request === undefined || request.trim() === '') throw missingParameter('request');
  if (UNSUPPORTED_OPERATIONS.includes(request)) throw operationNotSupported(request);
  if (request === 'GetCapabilities') return parseGetCapabilitiesKvp(values);
  const known = ['DescribeRecord', 'GetRecords', 'GetRecordById', 'GetRepositoryItem', 'GetDomain'];
  if (!known.includes(request)) {
    throw invalidParameter('request', `Unknown operation "${request}"`);
  }
  const version = checkOperationVersion(values.version);
  switch (request) {
    case 'DescribeRecord':
      if (version !== '2.0.2') throw operationNotSupported('DescribeRecord (removed in CSW 3.0)');
      checkDescribeRecordKvp(values, version);
      return { operation: 'DescribeRecord', version };
    case 'GetRecords':
      return parseGetRecordsKvp(kvp, version, context);
    case 'GetRecordById':
      return parseGetRecordByIdKvp(kvp, version, context);
    case 'GetRepositoryItem': {
      const id = values.id;
      if (id === undefined || id.trim() === '') throw missingParameter('id');
      return { operation: 'GetRepositoryItem', version, id: id.trim() };
    }
    default:
      return parseGetDomainKvp(values, version);
  }
}
