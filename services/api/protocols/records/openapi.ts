/**
 * The OGC API – Records part of the OpenAPI document: the items parameters (components), the
 * record, page, catalogue and facet schemas, and the paths under /collections. The items
 * parameters are the parser's own list (ITEMS_PARAMETER_NAMES, a type-checked mapping below);
 * their bounds and enums come from the parser's constants and the configured limits.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { QUERYABLES } from '../../../../shared/query/queryables.js';
import { CALENDAR_INTERVALS } from '../../../../shared/search/aggregations.js';
import {
  DATE_HISTOGRAM_FACETS,
  DEFAULT_FACET_INTERVAL,
  FACET_ORDERS,
  FACET_PROPERTIES,
  RANGE_FACETS,
  FILTER_LANGUAGES,
  ITEMS_PARAMETER_NAMES,
  LANGUAGE_TAG_PATTERN,
  PRESENTATION_PARAMETER_NAMES,
  PROPERTY_NAME_PATTERN,
  EXTERNAL_ID_PATTERN,
  FACET_ITEM_PATTERN,
  SORTBY_ITEM_PATTERN,
  SUPPORTED_CRS,
  type ItemsParameterName,
  type OutputFormat,
} from './parse.js';
import { createRecordsOperation, recordWriteOperations } from '../../common/openapi-writes.js';
import {
  BBOX_SCHEMA,
  FACETS_JSON,
  formatParameter,
  GEOJSON,
  HTML_CONTENT,
  integerParameter,
  jsonContent,
  JSON_LD,
  LINKS,
  listParameter,
  OPENAPI_MEDIA_TYPE,
  objectContent,
  pageSchema,
  pathParameter,
  queryParameter,
  readOperation,
  ref,
  SCHEMA_JSON,
  stringParameter,
  textContent,
  XML,
  type DocumentPurpose,
  type PageLimits,
  type Parameter,
  type PathItem,
  type Paths,
  type Reference,
  type Schema,
} from '../../common/openapi.js';

/** The encodings of the Records resources (`f`), the default first. */
export const RECORDS_FORMATS: readonly OutputFormat[] = ['json', 'html'];
/**
 * The encodings of the items: GeoJSON, HTML, a DCAT-AP catalogue page (Turtle, RDF/XML, JSON-LD)
 * and a schema.org ItemList (`jsonld`).
 */
export const ITEMS_FORMATS = [
  'json',
  'html',
  'ttl',
  'rdf',
  'dcat',
  'jsonld',
] as const satisfies readonly OutputFormat[];
/** The encodings of one record; `stac` (a STAC Item) is the STAC router's. */
export const RECORD_FORMATS = [
  'json',
  'html',
  'xml',
  'ttl',
  'rdf',
  'dcat',
  'jsonld',
  'stac',
] as const satisfies readonly (OutputFormat | 'stac')[];
/** The media types of the DCAT encodings in responses. */
const DCAT_CONTENT = {
  ...textContent('text/turtle', 'application/rdf+xml'),
  ...objectContent(JSON_LD),
};
/** The encodings of the catalogue collection; `stac` (a STAC Collection) is the STAC router's. */
export const COLLECTION_FORMATS: readonly (OutputFormat | 'stac')[] = ['json', 'html', 'stac'];

/** Query parameters of the items endpoint that are queryables of their own (`name=value`). */
const OWN_QUERYABLE_PARAMETERS = new Set<string>(['type', 'externalIds']);

/**
 * The registered queryables that are query parameters of the items endpoint (`name=value`
 * equality) beside the parameters it has anyway; clients such as GDAL read this list to know
 * which properties they may filter on at the server.
 */
export function queryableParameterNames(): string[] {
  return QUERYABLES.filter(
    (q) => q.type !== 'geometry' && !OWN_QUERYABLE_PARAMETERS.has(q.name),
  ).map((q) => q.name);
}

/** The sortable queryables, as `sortby` names them (aliases are accepted too). */
export function sortableNames(): string[] {
  return QUERYABLES.filter((q) => q.sortable).map((q) => q.name);
}

/** Component names of the items parameters, by the parser's parameter name. */
const ITEMS_PARAMETER_COMPONENTS = {
  f: 'fItems',
  q: 'q',
  bbox: 'bbox',
  'bbox-crs': 'bboxCrs',
  datetime: 'datetime',
  ids: 'ids',
  type: 'type',
  externalIds: 'externalIds',
  limit: 'limit',
  offset: 'offset',
  startindex: 'startindex',
  sortby: 'sortby',
  filter: 'filter',
  'filter-lang': 'filterLang',
  'filter-crs': 'filterCrs',
  facets: 'facets',
  crs: 'crs',
  properties: 'properties',
  skipGeometry: 'skipGeometry',
  lang: 'lang',
} as const satisfies Record<ItemsParameterName, string>;

type ParameterComponent =
  | (typeof ITEMS_PARAMETER_COMPONENTS)[ItemsParameterName]
  | 'fJsonHtml'
  | 'collectionId'
  | 'recordId';

/** A reference to one of the Records parameters (components/parameters). */
export const parameterRef = (name: ParameterComponent): Reference => ref('parameters', name);

/**
 * The Records parameters (components/parameters). For request validation `limit` has no
 * maximum: a larger limit is clamped (Features /req/core/fc-limit-response-1), not refused.
 */
export function buildRecordsParameters(
  limits: PageLimits,
  purpose: DocumentPurpose,
): Record<ParameterComponent, Parameter> {
  const crsList = SUPPORTED_CRS.join(' or ');
  return {
    collectionId: pathParameter(
      'collectionId',
      'Identifier of the collection; the catalogue is `metadata:main`.',
      'metadata:main',
    ),
    recordId: pathParameter('recordId', 'Identifier of a record.'),
    fJsonHtml: formatParameter(RECORDS_FORMATS, 'Output format.'),
    fItems: formatParameter(
      ITEMS_FORMATS,
      'Output format: `ttl`, `rdf` and `dcat` give the page as a DCAT-AP 3 dcat:Catalog of its ' +
        'records (Turtle, RDF/XML, JSON-LD) with Hydra paging links; `jsonld` as a schema.org ' +
        "ItemList (JSON-LD) of the records' schema.org descriptions, with next and prev pages in " +
        'Link headers.',
    ),
    bbox: queryParameter(
      'bbox',
      'Bounding box in CRS84: minLon,minLat,maxLon,maxLat (or six numbers with heights). ' +
        'A west edge greater than the east edge crosses the antimeridian. Records whose footprint ' +
        'intersects the box match; a record without a footprint never matches.',
      BBOX_SCHEMA,
      { style: 'form', explode: false },
    ),
    bboxCrs: stringParameter(
      'bbox-crs',
      `CRS of bbox (OGC API – Features Part 2): ${crsList} (latitude first, as EPSG defines it); ` +
        'CRS84 by default.',
      { format: 'uri-reference' },
    ),
    crs: stringParameter(
      'crs',
      `CRS of the returned geometries and bboxes (OGC API – Features Part 2): ${crsList} ` +
        '(latitude first); CRS84 by default. The Content-Crs response header names it.',
      { format: 'uri-reference' },
    ),
    properties: listParameter(
      'properties',
      'Only these properties are returned in each record (comma-separated names).',
      { pattern: PROPERTY_NAME_PATTERN.source },
    ),
    skipGeometry: queryParameter(
      'skipGeometry',
      'true: records are returned with a null geometry.',
      { type: 'boolean', default: false },
    ),
    lang: stringParameter(
      'lang',
      'Preferred language (a language tag, RFC 4647 lookup): a record that has a translation in ' +
        'it is shown in it, else in its own language; the Content-Language header names the ' +
        'language of a single record. Takes precedence over Accept-Language.',
      { pattern: LANGUAGE_TAG_PATTERN.source },
    ),
    datetime: stringParameter(
      'datetime',
      'An instant or an interval (start/end, open ends as `..` or empty), RFC 3339; dates are ' +
        'accepted too. Records whose temporal extent intersects match; a record without a ' +
        'temporal extent never matches (its other dates do not stand in for one).',
    ),
    q: listParameter(
      'q',
      'Free text. Commas separate alternatives (OR); the words of one alternative must all ' +
        'occur (case-insensitive), searched in title, description, keywords and the other text fields.',
    ),
    ids: listParameter('ids', 'Record identifiers; a record matches when its id is one of them.'),
    type: listParameter(
      'type',
      'Resource types (dataset, series, service …); any of them matches.',
    ),
    externalIds: listParameter(
      'externalIds',
      'External identifiers as `scheme:value`, `value` or `scheme:`.',
      { pattern: EXTERNAL_ID_PATTERN.source },
    ),
    limit: integerParameter(
      'limit',
      'Records per page; values above the maximum are clamped to it.',
      purpose === 'served'
        ? { minimum: 1, maximum: limits.maxLimit, default: limits.defaultLimit }
        : { minimum: 1, default: limits.defaultLimit },
    ),
    offset: integerParameter('offset', 'Zero-based index of the first record of the page.', {
      minimum: 0,
      default: 0,
    }),
    startindex: integerParameter('startindex', 'Synonym of offset.', { minimum: 0 }),
    sortby: listParameter(
      'sortby',
      `Sort keys: sortable names (${sortableNames()
        .map((name) => `\`${name}\``)
        .join(', ')}, then the sortable properties learned from the records; see …/sortables), ` +
        'each prefixed by `-` for descending or ' +
        '`+` (sent as %2B) for ascending order.',
      { pattern: SORTBY_ITEM_PATTERN.source },
    ),
    filter: stringParameter('filter', 'A CQL2 filter in the encoding filter-lang names.'),
    filterLang: stringParameter(
      'filter-lang',
      'Encoding of filter: cql2-text (default) or cql2-json; cql-text is the draft name of ' +
        'cql2-text (sent by GDAL up to 3.6). Any other value is refused with 400.',
      { enum: [...FILTER_LANGUAGES], default: FILTER_LANGUAGES[0] },
    ),
    filterCrs: stringParameter('filter-crs', 'CRS of the geometries in filter; only CRS84.', {
      format: 'uri-reference',
    }),
    facets: listParameter(
      'facets',
      `Facets to count among the matching records: \`name[:bucketCount[:option]]\`. Term ` +
        `facets (${FACET_PROPERTIES.join(', ')}): the option is an order, ${FACET_ORDERS[0]} ` +
        `(default), ${FACET_ORDERS.slice(1, -1).join(', ')} or ` +
        `${FACET_ORDERS[FACET_ORDERS.length - 1]}. Date histograms ` +
        `(${DATE_HISTOGRAM_FACETS.join(', ')}; by the calendar period, UTC, the record's time ` +
        `starts in): the option is an interval, ${CALENDAR_INTERVALS.join(', ')} (default ` +
        `${DEFAULT_FACET_INTERVAL}). Numeric ranges (${Object.keys(RANGE_FACETS).join(', ')}; ` +
        `bands of 10): no option. A histogram gives every non-empty bucket unless a bucket ` +
        `count is given; its periods may not exceed QUERY_MAX_AGGREGATION_BUCKETS (400).`,
      { pattern: FACET_ITEM_PATTERN.source },
    ),
  };
}

const NULLABLE_OBJECT: Schema = { type: 'object', nullable: true };

/** The Records schemas (components/schemas). */
export function buildRecordsSchemas(): Record<string, Schema> {
  const interval: Schema = {
    type: 'array',
    minItems: 2,
    maxItems: 2,
    items: { type: 'string', format: 'date-time', nullable: true },
  };
  return {
    Extent: {
      type: 'object',
      properties: {
        spatial: {
          type: 'object',
          properties: {
            bbox: { type: 'array', minItems: 1, items: BBOX_SCHEMA },
            crs: { type: 'string' },
          },
        },
        temporal: {
          type: 'object',
          properties: {
            interval: { type: 'array', minItems: 1, items: interval },
            trs: { type: 'string' },
          },
        },
      },
    },
    Catalog: {
      type: 'object',
      description: 'A record collection (OGC API – Records catalog).',
      required: ['id', 'type', 'links'],
      properties: {
        id: { type: 'string' },
        type: { type: 'string', enum: ['Collection'] },
        itemType: { type: 'string', enum: ['record'] },
        title: { type: 'string' },
        description: { type: 'string' },
        keywords: { type: 'array', items: { type: 'string' } },
        license: { type: 'string' },
        crs: { type: 'array', items: { type: 'string' } },
        extent: ref('schemas', 'Extent'),
        defaultSortOrder: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field'],
            properties: {
              field: { type: 'string' },
              direction: { type: 'string', enum: ['asc', 'desc'] },
            },
          },
        },
        links: LINKS,
      },
    },
    Catalogs: {
      type: 'object',
      required: ['collections', 'links'],
      properties: {
        collections: { type: 'array', items: ref('schemas', 'Catalog') },
        links: LINKS,
      },
    },
    Record: {
      type: 'object',
      description: 'An OGC API – Records record (GeoJSON feature).',
      required: ['id', 'type', 'geometry', 'properties'],
      properties: {
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        type: { type: 'string', enum: ['Feature'] },
        conformsTo: { type: 'array', items: { type: 'string' } },
        geometry: NULLABLE_OBJECT,
        bbox: BBOX_SCHEMA,
        time: NULLABLE_OBJECT,
        properties: NULLABLE_OBJECT,
        links: LINKS,
      },
    },
    Facet: {
      type: 'object',
      description:
        'A term facet (values, most frequent first) or a histogram facet (calendar periods or ' +
        'numeric bands in order, each from min, inclusive, to max, exclusive; `more` buckets ' +
        'left out by the bucket count).',
      required: ['type', 'property', 'buckets'],
      properties: {
        type: { type: 'string', enum: ['term', 'histogram'] },
        property: { type: 'string' },
        interval: { type: 'string', enum: [...CALENDAR_INTERVALS] },
        buckets: {
          type: 'array',
          items: {
            type: 'object',
            required: ['value', 'count'],
            properties: {
              value: { type: 'string' },
              min: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'number' }] },
              max: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'number' }] },
              count: { type: 'integer', minimum: 0 },
            },
          },
        },
        more: { type: 'integer', minimum: 0 },
      },
    },
    Records: pageSchema('features', ref('schemas', 'Record'), {
      description: 'A page of records (GeoJSON feature collection).',
      required: ['type', 'features', 'links'],
      properties: {
        timeStamp: { type: 'string', format: 'date-time' },
        facets: { type: 'object', additionalProperties: ref('schemas', 'Facet') },
      },
    }),
    FacetDefinitions: {
      type: 'object',
      required: ['facets'],
      properties: {
        facets: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['type', 'property'],
            properties: {
              type: { type: 'string', enum: ['term', 'histogram'] },
              property: { type: 'string' },
              title: { type: 'string' },
              sortedBy: { type: 'string' },
              minOccurs: { type: 'integer' },
              bucketType: { type: 'string', enum: ['fixedInterval'] },
              interval: { type: 'string' },
              intervals: { type: 'array', items: { type: 'string' } },
              ranges: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['key'],
                  properties: {
                    key: { type: 'string' },
                    min: { type: 'number' },
                    max: { type: 'number' },
                  },
                },
              },
            },
          },
        },
        defaultBucketCount: { type: 'integer', minimum: 1 },
        links: LINKS,
      },
    },
  };
}

const TAG = 'OGC API – Records';

/** The items parameters: the parser's list, in its order, then the queryables. */
function itemsParameters(): (Parameter | Reference)[] {
  return [
    parameterRef('collectionId'),
    ...ITEMS_PARAMETER_NAMES.map((name) => parameterRef(ITEMS_PARAMETER_COMPONENTS[name])),
    ...queryableParameterNames().map((name) =>
      listParameter(
        name,
        `Equality on the queryable ${name} (commas separate alternatives); see …/queryables.`,
      ),
    ),
  ];
}

/**
 * A read of one catalogue document that takes only `f` (JSON or HTML); under the collection,
 * it also has the collection in its path (and a 404 for any other).
 */
function documentRead(
  summary: string,
  schema: string,
  { mediaType, underCollection = false }: { mediaType?: string; underCollection?: boolean } = {},
): PathItem {
  const f = parameterRef('fJsonHtml');
  return {
    get: readOperation(
      summary,
      TAG,
      underCollection ? [parameterRef('collectionId'), f] : [f],
      { ...jsonContent(schema, mediaType), ...HTML_CONTENT },
      { notFound: underCollection },
    ),
  };
}

/**
 * The OGC API – Records paths. The served document adds the write operations on the items
 * and on one record; the validation document has the reads only.
 */
export function buildRecordsPaths(purpose: DocumentPurpose): Paths {
  const queryableNames = QUERYABLES.filter((q) => q.type !== 'geometry')
    .map((q) => q.name)
    .join(', ');
  const itemsDescription =
    'Searches the catalogue. Every parameter is ANDed with the others. Besides the parameters ' +
    `listed, any queryable or alias of one can be given as \`name=value\` (equality; commas separate alternatives): ${queryableNames}. ` +
    'Any other parameter is refused with 400.';
  const itemsContent = { ...jsonContent('Records', GEOJSON), ...HTML_CONTENT, ...DCAT_CONTENT };
  const searchBody: OpenAPIV3.RequestBodyObject = {
    required: true,
    description:
      'A CQL2 JSON filter expression, or (as STAC clients send it) an object with `filter` ' +
      'and optionally `filter-lang` (cql2-json by default, or cql2-text) and `filter-crs`.',
    content: objectContent('application/json', 'application/query-cql-json'),
  };
  const postDescription = `${itemsDescription} The body is a CQL2 JSON filter, ANDed with the query parameters (which must then not include filter).`;
  const search = readOperation(
    'Search records with a CQL2 JSON filter',
    TAG,
    itemsParameters(),
    itemsContent,
    {
      description: postDescription,
      notFound: true,
      contentCrs: true,
      allowUnknownQueryParameters: true,
      requestBody: searchBody,
    },
  );
  const record = readOperation(
    'One record',
    TAG,
    [
      parameterRef('collectionId'),
      parameterRef('recordId'),
      ...PRESENTATION_PARAMETER_NAMES.map((name) => parameterRef(ITEMS_PARAMETER_COMPONENTS[name])),
      formatParameter(
        RECORD_FORMATS,
        'Output format: `xml` gives the stored source document when it was XML (ISO 19139, ' +
          'ISO 19115-3, csw:Record), else a CSW 3.0 csw:Record (full); `ttl`, `rdf` and `dcat` ' +
          'its DCAT-AP 3 / GeoDCAT-AP 3 description (Turtle, RDF/XML, JSON-LD); `jsonld` its ' +
          'schema.org description (JSON-LD: a Dataset, a DataCatalog for a series, a WebAPI for a ' +
          'service); `stac` a STAC Item.',
      ),
    ],
    {
      ...jsonContent('Record', GEOJSON),
      ...HTML_CONTENT,
      ...textContent(XML, 'application/vnd.iso.19139+xml'),
      ...DCAT_CONTENT,
    },
    { notFound: true, contentCrs: true },
  );
  return {
    '/': documentRead('Landing page', 'LandingPage'),
    '/openapi': {
      get: readOperation(
        'This API definition (OpenAPI 3.0; HTML through Swagger UI)',
        TAG,
        [parameterRef('fJsonHtml')],
        { ...objectContent(OPENAPI_MEDIA_TYPE), ...HTML_CONTENT },
      ),
    },
    '/conformance': documentRead('Conformance declaration', 'ConformanceDeclaration'),
    '/collections': documentRead('The record collections (the catalogue)', 'Catalogs'),
    '/collections/{collectionId}': {
      get: readOperation(
        'The catalogue collection',
        TAG,
        [
          parameterRef('collectionId'),
          formatParameter(
            COLLECTION_FORMATS,
            'Output format; `stac` gives the collection as a STAC Collection.',
          ),
        ],
        { ...jsonContent('Catalog'), ...HTML_CONTENT },
        { notFound: true },
      ),
    },
    '/collections/{collectionId}/queryables': documentRead(
      'Queryables of the catalogue (JSON Schema 2020-12)',
      'JsonSchemaDocument',
      { mediaType: SCHEMA_JSON, underCollection: true },
    ),
    '/collections/{collectionId}/sortables': documentRead(
      'Sortables of the catalogue (JSON Schema 2020-12)',
      'JsonSchemaDocument',
      { mediaType: SCHEMA_JSON, underCollection: true },
    ),
    '/collections/{collectionId}/facets': documentRead(
      'Facets the items endpoint can count (Records Part 2)',
      'FacetDefinitions',
      { mediaType: FACETS_JSON, underCollection: true },
    ),
    '/collections/{collectionId}/items': {
      get: readOperation('Search records', TAG, itemsParameters(), itemsContent, {
        description: itemsDescription,
        notFound: true,
        contentCrs: true,
        allowUnknownQueryParameters: true,
      }),
      post: purpose === 'served' ? createRecordsOperation(search) : search,
    },
    '/collections/{collectionId}/items/{recordId}': {
      get: record,
      ...(purpose === 'served'
        ? recordWriteOperations([parameterRef('collectionId'), parameterRef('recordId')])
        : {}),
    },
  };
}
