/**
 * The XML (POST) encoding of CSW requests → CswRequest. Pure. The body has already been read by
 * the one safe XML parser (no DOCTYPE, entities or XInclude); elements are matched by local name
 * within the request, and the root's namespace gives the version (CSW 2.0.2 or 3.0).
 */
import {
  attr,
  type XmlDocument,
  type XmlElement,
  lookupNamespace,
} from '../../../../shared/xml/index.js';
import { parseFesSortBy } from '../../../../shared/query/fes/index.js';
import {
  CswError,
  invalidParameter,
  missingParameter,
  operationNotSupported,
  optionNotSupported,
} from './csw-errors.js';
import {
  CSW_NAMESPACE,
  CSW_VERSIONS,
  XML,
  XML_SCHEMA_LANGUAGE,
  type CswVersion,
} from './csw-model.js';
import {
  buildGetRecordsRequest,
  checkService,
  negotiateVersion,
  parseAcceptFormats,
  parseConstraintLanguage,
  parseElementNames,
  parseElementSet,
  parseOutputFormat,
  parseOutputSchema,
  parseResultType,
  parseSections,
  resolveTypeName,
} from './parse.js';
import { resolveSortKeys, type ConstraintInput } from './parse-constraint.js';
import type { CswParseContext, CswRequest, RecordPresentation } from './request.js';

function childrenNamed(element: XmlElement, local: string): XmlElement[] {
  return element.children.filter((item) => item.local === local);
}

function childNamed(element: XmlElement, local: string): XmlElement | undefined {
  return element.children.find((item) => item.local === local);
}

function textOf(element: XmlElement): string {
  return element.text.trim();
}

function plain(element: XmlElement, name: string): string | undefined {
  return attr(element, '', name);
}

/** The version a POSTed request is in, from its root namespace (for errors before parsing). */
export function versionOfDocument(document: XmlDocument): CswVersion | undefined {
  const ns = document.root.ns;
  return CSW_VERSIONS.find((version) => CSW_NAMESPACE[version] === ns);
}

/**
 * Checks the `version` attribute of a POSTed request, which is read by its namespace: a version
 * Cairn supports that differs from the namespace's (GDAL's CSW driver writes the highest version
 * the capabilities advertise, `3.0.0`, into a CSW 2.0.2 request) is answered in the namespace's
 * version; a version Cairn does not support is an InvalidParameterValue.
 */
export function checkVersionAttribute(written: string | undefined, version: CswVersion): void {
  if (written === undefined) {
    if (version === '2.0.2') throw missingParameter('version');
    return;
  }
  if (!CSW_VERSIONS.includes(written.trim() as CswVersion)) {
    throw invalidParameter(
      'version',
      `version "${written}" is not supported; supported: ${CSW_VERSIONS.join(', ')} ` +
        `(the request is read as ${version}, by its namespace ${CSW_NAMESPACE[version]})`,
    );
  }
}

function intAttribute(root: XmlElement, name: string, min: number): number | undefined {
  const value = plain(root, name);
  if (value === undefined) return undefined;
  if (!/^\+?\d{1,15}$/.test(value.trim()) || Number(value) < min) {
    throw invalidParameter(name, `${name} must be an integer of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

function presentationOf(query: XmlElement): RecordPresentation {
  const setElement = childNamed(query, 'ElementSetName');
  const names = childrenNamed(query, 'ElementName');
  if (setElement !== undefined && names.length > 0) {
    throw new CswError(
      'NoApplicableCode',
      'ElementSetName',
      'Give only one of ElementSetName and ElementName',
      400,
    );
  }
  const [firstName] = names;
  if (firstName !== undefined) {
    return parseElementNames(names.map(textOf), (prefix) => lookupNamespace(firstName, prefix));
  }
  return {
    kind: 'elementSet',
    elementSet: setElement === undefined ? 'summary' : parseElementSet(textOf(setElement)),
  };
}

function constraintOf(query: XmlElement): ConstraintInput | undefined {
  const constraint = childNamed(query, 'Constraint');
  if (constraint === undefined) return undefined;
  const cql = childNamed(constraint, 'CqlText');
  const filter = childNamed(constraint, 'Filter');
  if (cql !== undefined && filter !== undefined) {
    throw invalidParameter('Constraint', 'A Constraint holds either a Filter or CqlText');
  }
  if (cql !== undefined) {
    parseConstraintLanguage('CQL_TEXT');
    return { language: 'CQL_TEXT', text: textOf(cql) };
  }
  if (filter === undefined) {
    throw missingParameter('Constraint', 'The Constraint holds neither a Filter nor CqlText');
  }
  return { language: 'FILTER', xml: filter, version: plain(constraint, 'version') };
}

function parseGetRecords(
  root: XmlElement,
  version: CswVersion,
  context: CswParseContext,
): CswRequest {
  checkVersionAttribute(plain(root, 'version'), version);
  if (childNamed(root, 'ResponseHandler') !== undefined) {
    throw optionNotSupported('ResponseHandler', 'Asynchronous responses are not supported');
  }
  const [query, ...otherQueries] = childrenNamed(root, 'Query');
  if (query === undefined) throw missingParameter('Query', 'GetRecords needs one csw:Query');
  if (otherQueries.length > 0) throw invalidParameter('Query', 'GetRecords takes one csw:Query');
  const typeNamesText = plain(query, 'typeNames');
  if (typeNamesText === undefined || typeNamesText.trim() === '') {
    throw missingParameter('typeNames');
  }
  const typeNames = typeNamesText.split(/\s+/).filter((item) => item !== '');
  for (const name of typeNames) {
    resolveTypeName(name, version, (prefix) => lookupNamespace(query, prefix));
  }
  const maxRecords = intAttribute(root, 'maxRecords', 0) ?? context.defaultLimit;
  const sortBy = childNamed(query, 'SortBy');
  const echo = root;
  const requestId = plain(root, 'requestId');
  const request = buildGetRecordsRequest(
    {
      version,
      typeNames,
      presentation: presentationOf(query),
      outputSchema: parseOutputSchema(version, plain(root, 'outputSchema')),
      format: parseOutputFormat(plain(root, 'outputFormat'), version, context.accept),
      resultType: parseResultType(plain(root, 'resultType'), version),
      startPosition: intAttribute(root, 'startPosition', 1) ?? 1,
      maxRecords: Math.min(maxRecords, context.maxLimit),
      constraint: constraintOf(query),
      sort: sortBy === undefined ? [] : resolveSortKeys(parseFesSortBy(sortBy)),
      ...(requestId !== undefined ? { requestId } : {}),
    },
    context,
  );
  return { ...request, echo };
}

function parseGetRecordById(
  root: XmlElement,
  version: CswVersion,
  context: CswParseContext,
): CswRequest {
  checkVersionAttribute(plain(root, 'version'), version);
  const ids = childrenNamed(root, 'Id')
    .map(textOf)
    .filter((id) => id !== '');
  if (ids.length === 0) throw missingParameter('Id');
  const setElement = childNamed(root, 'ElementSetName');
  const format = parseOutputFormat(plain(root, 'outputFormat'), version, context.accept);
  return {
    operation: 'GetRecordById',
    version,
    ids,
    // The 3.0 schema allows one Id; several are answered as GetRecords with recordIds would be.
    asResultList: false,
    presentation: {
      kind: 'elementSet',
      elementSet: setElement === undefined ? 'summary' : parseElementSet(textOf(setElement)),
    },
    outputSchema: parseOutputSchema(version, plain(root, 'outputSchema')),
    outputFormat: format.format,
    xmlMediaType: format.xmlMediaType,
  };
}

function parseGetCapabilities(root: XmlElement, version: CswVersion): CswRequest {
  const versions = childNamed(root, 'AcceptVersions');
  const chosen = negotiateVersion(
    versions === undefined ? undefined : childrenNamed(versions, 'Version').map(textOf),
    undefined,
    version,
  );
  const sections = childNamed(root, 'Sections');
  const formats = childNamed(root, 'AcceptFormats');
  return {
    operation: 'GetCapabilities',
    version: chosen,
    sections: parseSections(
      chosen,
      sections === undefined ? undefined : childrenNamed(sections, 'Section').map(textOf),
    ),
    mediaType: parseAcceptFormats(
      formats === undefined ? undefined : childrenNamed(formats, 'OutputFormat').map(textOf),
    ),
    openSearch: false,
  };
}

function parseGetDomain(root: XmlElement, version: CswVersion): CswRequest {
  checkVersionAttribute(plain(root, 'version'), version);
  const parameterNames = childrenNamed(root, 'ParameterName').map(textOf);
  const valueReferences = [
    ...childrenNamed(root, 'ValueReference'),
    ...childrenNamed(root, 'PropertyName'),
  ].map(textOf);
  if (parameterNames.length === 0 && valueReferences.length === 0) {
    throw missingParameter('parameterName', 'GetDomain needs a ParameterName or a ValueReference');
  }
  return { operation: 'GetDomain', version, parameterNames, valueReferences };
}

function parseDescribeRecord(root: XmlElement, version: CswVersion): CswRequest {
  if (version !== '2.0.2') throw operationNotSupported('DescribeRecord (removed in CSW 3.0)');
  checkVersionAttribute(plain(root, 'version'), version);
  for (const typeName of childrenNamed(root, 'TypeName')) {
    resolveTypeName(textOf(typeName), version, (prefix) => lookupNamespace(typeName, prefix));
  }
  const format = plain(root, 'outputFormat');
  if (format !== undefined && format !== XML) {
    throw invalidParameter('outputFormat', `DescribeRecord offers ${XML} only`);
  }
  const language = plain(root, 'schemaLanguage');
  if (language !== undefined && language !== XML_SCHEMA_LANGUAGE && language !== 'XMLSCHEMA') {
    throw invalidParameter('schemaLanguage', `schemaLanguage must be ${XML_SCHEMA_LANGUAGE}`);
  }
  return { operation: 'DescribeRecord', version };
}

/** Parses a CSW request sent as an XML document. */
export function parseCswXml(document: XmlDocument, context: CswParseContext): CswRequest {
  const root = document.root;
  const version = versionOfDocument(document);
  if (version === undefined) {
    throw invalidParameter(
      'request',
      `"${root.local}" (${root.ns || 'no namespace'}) is not a CSW 2.0.2 or 3.0 request`,
    );
  }
  checkService(plain(root, 'service'), false);
  switch (root.local) {
    case 'GetCapabilities':
      return parseGetCapabilities(root, version);
    case 'GetRecords':
      return parseGetRecords(root, version, context);
    case 'GetRecordById':
      return parseGetRecordById(root, version, context);
    case 'GetDomain':
      return parseGetDomain(root, version);
    case 'DescribeRecord':
      return parseDescribeRecord(root, version);
    case 'Transaction':
    case 'Harvest':
    case 'UnHarvest':
      throw operationNotSupported(root.local);
    default:
      throw invalidParameter('request', `Unknown operation "${root.local}"`);
  }
}
