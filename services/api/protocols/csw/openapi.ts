/**
 * The CSW part of the OpenAPI document: `/csw` (CSW 2.0.2 / 3.0.0 KVP and XML, with the
 * OpenSearch mode and the EO parameters); the OpenSearch description is the OpenSearch
 * folder's (protocols/opensearch/openapi.ts). KVP names
 * are case-insensitive (CSW's own parser reads them; the request validator never sees /csw);
 * the enums are the CSW model's and the OpenSearch parser's constants.
 */
import {
  EO_PARAMETERS,
  SPATIAL_RELATIONS,
  TEMPORAL_RELATIONS,
} from '../../../../shared/query/opensearch/index.js';
import {
  ATOM,
  CONSTRAINT_LANGUAGES,
  CSW_VERSIONS,
  DEFAULT_VERSION,
  ELEMENT_SETS,
  JSON_FORMAT,
  OPENSEARCH_DESCRIPTION,
  OPERATIONS,
  OUTPUT_FORMATS,
  RESULT_TYPES,
} from './csw-model.js';
import {
  objectContent,
  stringParameter,
  textContent,
  XML,
  type Content,
  type Paths,
  type QueryParameter,
  type Responses,
} from '../../common/openapi.js';

/** The tag of the CSW and OpenSearch operations. */
export const CSW_TAG = 'CSW and OpenSearch';

/** Every operation a request may name (2.0.2 has them all; 3.0.0 dropped DescribeRecord). */
export const CSW_REQUESTS: readonly string[] = [
  ...new Set(CSW_VERSIONS.flatMap((version) => OPERATIONS[version])),
];

/** `mode` values: the OpenSearch description instead of the capabilities. */
export const CSW_MODES: readonly string[] = ['opensearch'];

/** Describes an EO parameter by how its values are read. */
function describeEoParameter({ parameter, type }: (typeof EO_PARAMETERS)[number]): string {
  const ranged = type === 'number' || type === 'integer' || type === 'datetime';
  return `OpenSearch EO ${parameter.slice(3)} (${type}${ranged ? '; a value, a range [a,b] or a bound' : ''}).`;
}

/** The CSW and OpenSearch KVP parameters of `GET /csw`. */
export function buildCswParameters(): QueryParameter[] {
  const kvp = stringParameter;
  return [
    kvp('service', 'Must be `CSW`.', { enum: ['CSW'] }),
    kvp('version', `CSW version; default ${DEFAULT_VERSION}.`, { enum: [...CSW_VERSIONS] }),
    kvp('request', 'The operation.', { enum: [...CSW_REQUESTS] }),
    kvp('acceptVersions', 'GetCapabilities: versions the client accepts, in preference order.'),
    kvp(
      'sections',
      'GetCapabilities: All, ServiceIdentification, ServiceProvider, OperationsMetadata, Filter_Capabilities (3.0: Languages).',
    ),
    kvp('acceptFormats', 'GetCapabilities: application/xml or text/xml.'),
    kvp('updateSequence', 'GetCapabilities: the capabilities version the client holds.'),
    kvp('mode', 'GetCapabilities: `opensearch` returns the OpenSearch description document.', {
      enum: [...CSW_MODES],
    }),
    kvp('namespace', 'Namespace bindings as `xmlns(prefix=uri),…`.'),
    kvp('typeNames', 'GetRecords: csw:Record or gmd:MD_Metadata.'),
    kvp('typeName', 'DescribeRecord (2.0.2): the record types to describe.'),
    kvp('schemaLanguage', 'DescribeRecord (2.0.2): XML Schema.'),
    kvp(
      'ElementSetName',
      `${ELEMENT_SETS.join(', ')} (default summary); not together with ElementName.`,
      {
        enum: [...ELEMENT_SETS],
      },
    ),
    kvp('ElementName', 'GetRecords: the elements to return, comma-separated.'),
    kvp(
      'outputFormat',
      `${OUTPUT_FORMATS[0]} (default), ${OUTPUT_FORMATS.filter(
        (format) => format !== OUTPUT_FORMATS[0],
      )
        .map((format) => (format === ATOM ? `${format} (3.0)` : format))
        .join(', ')}.`,
    ),
    kvp(
      'outputSchema',
      'http://www.opengis.net/cat/csw/3.0 (or 2.0.2) for csw:Record, http://www.isotc211.org/2005/gmd for ISO 19139.',
    ),
    kvp('startPosition', 'GetRecords: one-based index of the first record (default 1).', {
      pattern: '^\\s*\\d+\\s*$',
    }),
    kvp('maxRecords', 'GetRecords: records per response (default 10; 0 counts only).', {
      pattern: '^\\s*(\\d+|unlimited)\\s*$',
    }),
    kvp(
      'resultType',
      `GetRecords: ${RESULT_TYPES.join(', ')}; default hits in 2.0.2, results in 3.0 (which dropped the parameter; maxRecords=0 counts only).`,
      { enum: [...RESULT_TYPES] },
    ),
    kvp('CONSTRAINTLANGUAGE', `Language of Constraint: ${CONSTRAINT_LANGUAGES.join(' or ')}.`, {
      enum: [...CONSTRAINT_LANGUAGES],
    }),
    kvp('Constraint', 'GetRecords: an FES filter (XML) or a CQL text.'),
    kvp('constraint_language_version', 'Version of the constraint language (e.g. 1.1.0, 2.0.0).'),
    kvp('SortBy', 'GetRecords: `property:A|D` pairs, comma-separated.'),
    kvp('DistributedSearch', 'GetRecords: distributed search is not supported (FALSE).'),
    kvp('hopCount', 'GetRecords: with DistributedSearch.'),
    kvp('ResponseHandler', 'GetRecords: asynchronous responses are not supported.'),
    kvp('requestId', 'GetRecords: a client request identifier echoed in the response.'),
    kvp(
      'id',
      'GetRecordById and GetRepositoryItem: the identifier of the record. GetRecordById takes a comma-separated list too: 2.0.2 wraps the records in csw:GetRecordByIdResponse; 3.0 answers one id with the bare record and several (unless one record has the whole value as its id) with a csw30:GetRecordsResponse.',
    ),
    kvp('parameterName', 'GetDomain: a request parameter, e.g. GetRecords.ElementSetName.'),
    kvp('valueReference', 'GetDomain (3.0): a record property, e.g. dc:title.'),
    kvp('PropertyName', 'GetDomain (2.0.2): a record property, e.g. dc:title.'),
    kvp('q', 'GetRecords (3.0, OpenSearch): free text.'),
    kvp(
      'bbox',
      'GetRecords (3.0, OpenSearch): minx,miny,maxx,maxy[,crs]; CRS84 by default, EPSG:4326 is lat/lon.',
    ),
    kvp('recordIds', 'GetRecords (3.0, OpenSearch): record identifiers; none found → 404.'),
    kvp('time', 'GetRecords (3.0, OpenSearch): a period start/end.'),
    kvp('start', 'OpenSearch time:start: start of the temporal period (RFC 3339).'),
    kvp(
      'end',
      'OpenSearch time:end: end of the temporal period (RFC 3339), as the description names it.',
    ),
    kvp('stop', 'OpenSearch time:end, as `end`.'),
    kvp('timeRelation', 'OpenSearch time:relation.', { enum: [...TEMPORAL_RELATIONS] }),
    kvp('geometry', 'OpenSearch geo:geometry: a WKT geometry.'),
    kvp('lat', 'OpenSearch geo:lat: latitude of a circle centre.'),
    kvp('lon', 'OpenSearch geo:lon: longitude of a circle centre.'),
    kvp('radius', 'OpenSearch geo:radius: radius of the circle in metres.'),
    kvp('relation', 'OpenSearch geo:relation.', { enum: [...SPATIAL_RELATIONS] }),
    kvp('startIndex', 'OpenSearch: one-based index of the first result (as startPosition).'),
    kvp('startPage', 'OpenSearch: one-based page number.'),
    kvp('count', 'OpenSearch: results per page (as maxRecords).'),
    ...EO_PARAMETERS.map((entry) => kvp(entry.parameter, describeEoParameter(entry))),
  ];
}

/** The CSW path (KVP names are case-insensitive; values are not). */
export function buildCswPaths(): Paths {
  const xml = textContent(XML);
  const responses: Responses = {
    '200': {
      description: 'The CSW response',
      content: { ...textContent(XML, ATOM), ...objectContent(JSON_FORMAT) } satisfies Content,
    },
    '400': {
      description: 'ows:ExceptionReport (MissingParameterValue, InvalidParameterValue …)',
      content: xml,
    },
    '404': { description: 'ows:ExceptionReport NotFound (CSW 3.0)', content: xml },
    '501': {
      description: 'ows:ExceptionReport OperationNotSupported / OptionNotSupported',
      content: xml,
    },
  };
  return {
    '/csw': {
      get: {
        summary: 'CSW 2.0.2 / 3.0.0 (KVP)',
        description:
          'Catalogue Service for the Web. Parameter names are case-insensitive, values are ' +
          'case-sensitive. Without parameters: the capabilities, or the OpenSearch description ' +
          `when Accept prefers ${OPENSEARCH_DESCRIPTION}.`,
        tags: [CSW_TAG],
        parameters: buildCswParameters(),
        responses,
      },
      post: {
        summary: 'CSW 2.0.2 / 3.0.0 (XML request body, or KVP as a form)',
        tags: [CSW_TAG],
        requestBody: {
          required: true,
          content: {
            ...textContent(XML, 'text/xml'),
            ...objectContent('application/x-www-form-urlencoded'),
          },
        },
        responses,
      },
    },
  };
}
