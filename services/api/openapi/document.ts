/**
 * The OpenAPI 3.0 definition of Cairn: every endpoint under /catalogue (OGC API – Records,
 * STAC item search, CSW 2.0.2/3.0.0 with its OpenSearch mode, the OpenSearch description)
 * and the health endpoints. Served at /catalogue/openapi and used to validate requests.
 * Built from the same registries the parsers use (queryables, facets, EO parameters).
 */
import type { ServiceMetadata } from '../../../shared/config/index.js';
import { EO_PARAMETERS } from '../../../shared/query/opensearch/index.js';
import { QUERYABLES } from '../../../shared/query/queryables.js';
import { FACET_PROPERTIES, FILTER_LANGUAGES, SUPPORTED_CRS } from '../protocols/records/parse.js';

type Schema = Record<string, unknown>;
type Parameter = Record<string, unknown>;
type Operation = Record<string, unknown>;

export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.0';
const GEOJSON = 'application/geo+json';
const HTML = 'text/html';
const XML = 'application/xml';
const SCHEMA_JSON = 'application/schema+json';
const FACETS_JSON = 'application/facets+json';

export interface OpenApiOptions {
  /** Public URL of the catalogue root (…/catalogue), the document's server. */
  serverUrl: string;
  /** Public URL of the deployment root, where /healthz and /readyz live. */
  rootUrl: string;
  service: Pick<ServiceMetadata, 'title' | 'description' | 'contact' | 'license'>;
  version: string;
  /** Page sizes (`limit` default and maximum); the configured LIMIT_DEFAULT and LIMIT_MAX. */
  limits?: { defaultLimit: number; maxLimit: number };
}

/** Page sizes when the caller does not say (the configuration's defaults). */
const DEFAULT_LIMITS = { defaultLimit: 10, maxLimit: 1000 };

const ref = (kind: 'schemas' | 'parameters' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

const stringList = (description: string, extra: Schema = {}): Parameter => ({
  in: 'query',
  required: false,
  description,
  style: 'form',
  explode: false,
  schema: { type: 'array', items: { type: 'string', ...extra } },
});

const queryString = (name: string, description: string, schema: Schema = {}): Parameter => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', ...schema },
});

const formatParameter = (formats: string[], description: string): Parameter => ({
  name: 'f',
  in: 'query',
  required: false,
  description: `${description} Without f, the Accept header decides (text/html → HTML, JSON types → JSON); the default is JSON.`,
  schema: { type: 'string', enum: formats },
});

/**
 * The registered queryables that are query parameters of the items endpoint (`name=value`
 * equality) beside the parameters it has anyway; clients such as GDAL read this list to know
 * which properties they may filter on at the server.
 */
export function queryableParameterNames(): string[] {
  const own = new Set(['type', 'externalIds']);
  return QUERYABLES.filter((q) => q.type !== 'geometry' && !own.has(q.name)).map((q) => q.name);
}

/** Parameters shared by the Records items endpoint (components/parameters). */
function buildParameters(
  limits: OpenApiOptions['limits'] = DEFAULT_LIMITS,
): Record<string, Parameter> {
  return {
    collectionId: {
      name: 'collectionId',
      in: 'path',
      required: true,
      description: 'Identifier of the collection; the catalogue is `metadata:main`.',
      schema: { type: 'string' },
      example: 'metadata:main',
    },
    recordId: {
      name: 'recordId',
      in: 'path',
      required: true,
      description: 'Identifier of a record.',
      schema: { type: 'string' },
    },
    fJsonHtml: formatParameter(['json', 'html'], 'Output format.'),
    bbox: {
      name: 'bbox',
      in: 'query',
      required: false,
      description:
        'Bounding box in CRS84: minLon,minLat,maxLon,maxLat (or six numbers with heights). ' +
        'A west edge greater than the east edge crosses the antimeridian. Records whose footprint ' +
        'intersects the box match; records without a footprint match too.',
      style: 'form',
      explode: false,
      schema: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
    },
    bboxCrs: queryString(
      'bbox-crs',
      `CRS of bbox (OGC API – Features Part 2): ${SUPPORTED_CRS.join(' or ')} ` +
        '(latitude first, as EPSG defines it); CRS84 by default.',
      { format: 'uri-reference' },
    ),
    crs: queryString(
      'crs',
      `CRS of the returned geometries and bboxes (OGC API – Features Part 2): ${SUPPORTED_CRS.join(' or ')} ` +
        '(latitude first); CRS84 by default. The Content-Crs response header names it.',
      { format: 'uri-reference' },
    ),
    properties: {
      name: 'properties',
      ...stringList('Only these properties are returned in each record (comma-separated names).', {
        pattern: '^[A-Za-z_][A-Za-z0-9_.:-]*$',
      }),
    },
    skipGeometry: {
      name: 'skipGeometry',
      in: 'query',
      required: false,
      description: 'true: records are returned with a null geometry.',
      schema: { type: 'boolean', default: false },
    },
    lang: queryString(
      'lang',
      'Preferred language (a language tag); accepted, but records are returned in their own language.',
      { pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$' },
    ),
    datetime: queryString(
      'datetime',
      'An instant or an interval (start/end, open ends as `..` or empty), RFC 3339; dates are ' +
        'accepted too. Records whose temporal extent intersects match; records without one match too.',
    ),
    q: {
      name: 'q',
      ...stringList(
        'Free text. Commas separate alternatives (OR); the words of one alternative must all ' +
          'occur (case-insensitive), searched in title, description, keywords and the other text fields.',
      ),
    },
    ids: {
      name: 'ids',
      ...stringList('Record identifiers; a record matches when its id is one of them.'),
    },
    type: {
      name: 'type',
      ...stringList('Resource types (dataset, series, service …); any of them matches.'),
    },
    externalIds: {
      name: 'externalIds',
      ...stringList('External identifiers as `scheme:value`, `value` or `scheme:`.', {
        pattern: '^([^:]+:)?[^:]*$',
      }),
    },
    limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Records per page; values above the maximum are clamped to it.',
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: limits.maxLimit,
        default: limits.defaultLimit,
      },
    },
    offset: {
      name: 'offset',
      in: 'query',
      required: false,
      description: 'Zero-based index of the first record of the page.',
      schema: { type: 'integer', minimum: 0, default: 0 },
    },
    startindex: {
      name: 'startindex',
      in: 'query',
      required: false,
      description: 'Synonym of offset.',
      schema: { type: 'integer', minimum: 0 },
    },
    sortby: {
      name: 'sortby',
      ...stringList(
        'Sort keys: sortable names (see …/sortables), each prefixed by `-` for descending or ' +
          '`+` (sent as %2B) for ascending order.',
        { pattern: '^\\s*[+-]?\\s*[A-Za-z_].*$' },
      ),
    },
    filter: queryString('filter', 'A CQL2 filter in the encoding filter-lang names.'),
    filterLang: queryString(
      'filter-lang',
      'Encoding of filter: cql2-text (default) or cql2-json; cql-text is the draft name of ' +
        'cql2-text (sent by GDAL up to 3.6). Any other value is refused with 400.',
      { enum: [...FILTER_LANGUAGES], default: 'cql2-text' },
    ),
    filterCrs: queryString('filter-crs', 'CRS of the geometries in filter; only CRS84.', {
      format: 'uri-reference',
    }),
    facets: {
      name: 'facets',
      ...stringList(
        `Facets to count among the matching records: \`property[:bucketCount[:order]]\` with ` +
          `property one of ${FACET_PROPERTIES.join(', ')} and order count_desc (default), ` +
          'count_asc, value_asc or value_desc.',
        { pattern: '^[A-Za-z_:.-]+(:\\d*(:[a-z_]+)?)?$' },
      ),
    },
  };
}

/** Response schemas (components/schemas). */
function buildSchemas(): Record<string, Schema> {
  const link: Schema = {
    type: 'object',
    required: ['href'],
    properties: {
      href: { type: 'string' },
      rel: { type: 'string' },
      type: { type: 'string' },
      title: { type: 'string' },
      hreflang: { type: 'string' },
      method: { type: 'string' },
    },
  };
  const links = { type: 'array', items: ref('schemas', 'Link') };
  return {
    Link: link,
    Exception: {
      type: 'object',
      description: 'An error: a stable code and a description naming the parameter at fault.',
      required: ['code', 'description'],
      properties: { code: { type: 'string' }, description: { type: 'string' } },
      additionalProperties: false,
    },
    LandingPage: {
      type: 'object',
      required: ['links'],
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        conformsTo: { type: 'array', items: { type: 'string' } },
        links,
      },
    },
    ConformanceDeclaration: {
      type: 'object',
      required: ['conformsTo'],
      properties: { conformsTo: { type: 'array', items: { type: 'string' } } },
    },
    Extent: {
      type: 'object',
      properties: {
        spatial: {
          type: 'object',
          properties: {
            bbox: {
              type: 'array',
              minItems: 1,
              items: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
            },
            crs: { type: 'string' },
          },
        },
        temporal: {
          type: 'object',
          properties: {
            interval: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'array',
                minItems: 2,
                maxItems: 2,
                items: { type: 'string', format: 'date-time', nullable: true },
              },
            },
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
        links,
      },
    },
    Catalogs: {
      type: 'object',
      required: ['collections', 'links'],
      properties: { collections: { type: 'array', items: ref('schemas', 'Catalog') }, links },
    },
    Record: {
      type: 'object',
      description: 'An OGC API – Records record (GeoJSON feature).',
      required: ['id', 'type', 'geometry', 'properties'],
      properties: {
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        type: { type: 'string', enum: ['Feature'] },
        conformsTo: { type: 'array', items: { type: 'string' } },
        geometry: { type: 'object', nullable: true },
        bbox: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
        time: { type: 'object', nullable: true },
        properties: { type: 'object', nullable: true },
        links,
      },
    },
    Facet: {
      type: 'object',
      required: ['type', 'property', 'buckets'],
      properties: {
        type: { type: 'string', enum: ['term'] },
        property: { type: 'string' },
        buckets: {
          type: 'array',
          items: {
            type: 'object',
            required: ['value', 'count'],
            properties: { value: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    Records: {
      type: 'object',
      description: 'A page of records (GeoJSON feature collection).',
      required: ['type', 'features', 'links'],
      properties: {
        type: { type: 'string', enum: ['FeatureCollection'] },
        numberMatched: { type: 'integer', minimum: 0 },
        numberReturned: { type: 'integer', minimum: 0 },
        timeStamp: { type: 'string', format: 'date-time' },
        features: { type: 'array', items: ref('schemas', 'Record') },
        facets: { type: 'object', additionalProperties: ref('schemas', 'Facet') },
        links,
      },
    },
    JsonSchemaDocument: {
      type: 'object',
      description: 'A queryables or sortables document (JSON Schema 2020-12).',
      required: ['$schema', '$id', 'type', 'properties'],
      properties: {
        $schema: { type: 'string' },
        $id: { type: 'string' },
        type: { type: 'string', enum: ['object'] },
        title: { type: 'string' },
        description: { type: 'string' },
        properties: { type: 'object', additionalProperties: { type: 'object' } },
        additionalProperties: { type: 'boolean' },
      },
    },
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
              type: { type: 'string', enum: ['term'] },
              property: { type: 'string' },
              title: { type: 'string' },
              sortedBy: { type: 'string' },
              minOccurs: { type: 'integer' },
            },
          },
        },
        defaultBucketCount: { type: 'integer', minimum: 1 },
        links,
      },
    },
    StacItemCollection: {
      type: 'object',
      required: ['type', 'features'],
      properties: {
        type: { type: 'string', enum: ['FeatureCollection'] },
        features: { type: 'array', items: { type: 'object' } },
        numberMatched: { type: 'integer', minimum: 0 },
        numberReturned: { type: 'integer', minimum: 0 },
        links,
      },
    },
    StacCollection: {
      type: 'object',
      description: 'A STAC Collection 1.0.',
      required: ['type', 'stac_version', 'id', 'description', 'license', 'extent', 'links'],
      properties: {
        type: { type: 'string', enum: ['Collection'] },
        stac_version: { type: 'string' },
        id: { type: 'string' },
        description: { type: 'string' },
        license: { type: 'string' },
        extent: { type: 'object' },
        links,
      },
    },
    StacCollections: {
      type: 'object',
      required: ['collections', 'links'],
      properties: {
        collections: { type: 'array', items: ref('schemas', 'StacCollection') },
        numberMatched: { type: 'integer', minimum: 0 },
        numberReturned: { type: 'integer', minimum: 0 },
        links,
      },
    },
    StacItem: {
      type: 'object',
      description: 'A STAC Item 1.0 (GeoJSON feature).',
      required: ['type', 'stac_version', 'id', 'geometry', 'properties', 'links', 'assets'],
      properties: {
        type: { type: 'string', enum: ['Feature'] },
        stac_version: { type: 'string' },
        id: { type: 'string' },
        geometry: { type: 'object', nullable: true },
        properties: { type: 'object' },
        assets: { type: 'object' },
        links,
      },
    },
    StacSearch: {
      type: 'object',
      description: 'A STAC API item search (POST body).',
      properties: {
        bbox: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
        intersects: { type: 'object', description: 'A GeoJSON geometry.' },
        datetime: { type: 'string' },
        ids: {
          oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
        },
        collections: {
          oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
        },
        limit: { type: 'integer', minimum: 1 },
        q: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
        filter: { description: 'CQL2 JSON (an object) or CQL2 text (a string).' },
        'filter-lang': { type: 'string', enum: ['cql2-text', 'cql2-json'] },
        'filter-crs': { type: 'string' },
        sortby: { description: 'A list of {field, direction}, or sortby text.' },
        fields: { description: 'Fields extension: {include, exclude} or field text.' },
        token: { type: 'string' },
      },
    },
  };
}

const json = (schema: string, type = 'application/json') => ({
  [type]: { schema: ref('schemas', schema) },
});
const htmlContent = { [HTML]: { schema: { type: 'string' } } };
const xmlContent = { [XML]: { schema: { type: 'string' } } };

/** The standard error responses (components/responses). */
function buildResponses(): Record<string, unknown> {
  const error = (description: string) => ({
    description,
    content: { ...json('Exception'), ...htmlContent },
  });
  return {
    BadRequest: error(
      'A parameter is unknown, repeated, malformed or out of range; the description names it.',
    ),
    NotFound: error('No such resource.'),
    ServerError: error('An internal error (details are logged, never shown).'),
    Unavailable: error('The search backend is unavailable; retry after the Retry-After delay.'),
  };
}

const errors = {
  '400': ref('responses', 'BadRequest'),
  '500': ref('responses', 'ServerError'),
  '503': ref('responses', 'Unavailable'),
};

function get(
  summary: string,
  tag: string,
  parameters: unknown[],
  content: Record<string, unknown>,
  extra: Operation = {},
): Operation {
  return {
    summary,
    tags: [tag],
    parameters,
    responses: { '200': { description: summary, content }, ...errors },
    ...extra,
  };
}

const P = (name: string) => ref('parameters', name);

/** The OGC API – Records paths. */
function buildRecordsPaths(): Record<string, unknown> {
  const tag = 'OGC API – Records';
  const itemsParameters = [
    P('collectionId'),
    P('fJsonHtml'),
    P('q'),
    P('bbox'),
    P('bboxCrs'),
    P('datetime'),
    P('ids'),
    P('type'),
    P('externalIds'),
    P('limit'),
    P('offset'),
    P('startindex'),
    P('sortby'),
    P('filter'),
    P('filterLang'),
    P('filterCrs'),
    P('facets'),
    P('crs'),
    P('properties'),
    P('skipGeometry'),
    P('lang'),
    ...queryableParameterNames().map((name) => ({
      name,
      ...stringList(
        `Equality on the queryable ${name} (commas separate alternatives); see …/queryables.`,
      ),
    })),
  ];
  const queryableNames = QUERYABLES.filter((q) => q.type !== 'geometry')
    .map((q) => q.name)
    .join(', ');
  const itemsDescription =
    'Searches the catalogue. Every parameter is ANDed with the others. Besides the parameters ' +
    `listed, any queryable or alias of one can be given as \`name=value\` (equality; commas separate alternatives): ${queryableNames}. ` +
    'Any other parameter is refused with 400.';
  const itemsContent = { ...json('Records', GEOJSON), ...htmlContent };
  return {
    '/': {
      get: get('Landing page', tag, [P('fJsonHtml')], {
        ...json('LandingPage'),
        ...htmlContent,
      }),
    },
    '/openapi': {
      get: get(
        'This API definition (OpenAPI 3.0; HTML through Swagger UI)',
        tag,
        [P('fJsonHtml')],
        {
          [OPENAPI_MEDIA_TYPE]: { schema: { type: 'object' } },
          ...htmlContent,
        },
      ),
    },
    '/conformance': {
      get: get('Conformance declaration', tag, [P('fJsonHtml')], {
        ...json('ConformanceDeclaration'),
        ...htmlContent,
      }),
    },
    '/collections': {
      get: get('The record collections (the catalogue)', tag, [P('fJsonHtml')], {
        ...json('Catalogs'),
        ...htmlContent,
      }),
    },
    '/collections/{collectionId}': {
      get: {
        ...get(
          'The catalogue collection',
          tag,
          [
            P('collectionId'),
            formatParameter(
              ['json', 'html', 'stac'],
              'Output format; `stac` gives the collection as a STAC Collection.',
            ),
          ],
          { ...json('Catalog'), ...htmlContent },
        ),
        responses: {
          '200': {
            description: 'The catalogue collection',
            content: { ...json('Catalog'), ...htmlContent },
          },
          '404': ref('responses', 'NotFound'),
          ...errors,
        },
      },
    },
    '/collections/{collectionId}/queryables': {
      get: withNotFound(
        get(
          'Queryables of the catalogue (JSON Schema 2020-12)',
          tag,
          [P('collectionId'), P('fJsonHtml')],
          { ...json('JsonSchemaDocument', SCHEMA_JSON), ...htmlContent },
        ),
      ),
    },
    '/collections/{collectionId}/sortables': {
      get: withNotFound(
        get(
          'Sortables of the catalogue (JSON Schema 2020-12)',
          tag,
          [P('collectionId'), P('fJsonHtml')],
          { ...json('JsonSchemaDocument', SCHEMA_JSON), ...htmlContent },
        ),
      ),
    },
    '/collections/{collectionId}/facets': {
      get: withNotFound(
        get(
          'Facets the items endpoint can count (Records Part 2)',
          tag,
          [P('collectionId'), P('fJsonHtml')],
          {
            ...json('FacetDefinitions', FACETS_JSON),
            ...htmlContent,
          },
        ),
      ),
    },
    '/collections/{collectionId}/items': {
      get: withContentCrs(
        withNotFound(
          get('Search records', tag, itemsParameters, itemsContent, {
            description: itemsDescription,
            'x-eov-allow-unknown-query-parameters': true,
          }),
        ),
      ),
      post: withContentCrs(
        withNotFound({
          ...get('Search records with a CQL2 JSON filter', tag, itemsParameters, itemsContent, {
            description: `${itemsDescription} The body is a CQL2 JSON filter, ANDed with the query parameters (which must then not include filter).`,
            'x-eov-allow-unknown-query-parameters': true,
          }),
          requestBody: {
            required: true,
            description:
              'A CQL2 JSON filter expression, or (as STAC clients send it) an object with `filter` ' +
              'and optionally `filter-lang` (cql2-json by default, or cql2-text) and `filter-crs`.',
            content: {
              'application/json': { schema: { type: 'object' } },
              'application/query-cql-json': { schema: { type: 'object' } },
            },
          },
        }),
      ),
    },
    '/collections/{collectionId}/items/{recordId}': {
      get: withContentCrs(
        withNotFound(
          get(
            'One record',
            tag,
            [
              P('collectionId'),
              P('recordId'),
              P('crs'),
              P('properties'),
              P('skipGeometry'),
              P('lang'),
              formatParameter(
                ['json', 'html', 'xml', 'stac'],
                'Output format: `xml` gives the stored source document when it was XML (ISO 19139, ' +
                  'ISO 19115-3, csw:Record), else a CSW 3.0 csw:Record (full); `stac` a STAC Item.',
              ),
            ],
            {
              ...json('Record', GEOJSON),
              ...htmlContent,
              ...xmlContent,
              'application/vnd.iso.19139+xml': { schema: { type: 'string' } },
            },
          ),
        ),
      ),
    },
  };
}

/** Adds the Content-Crs header (OGC API – Features Part 2) to an operation's 200 response. */
function withContentCrs(operation: Operation): Operation {
  const responses = operation.responses as Record<string, Record<string, unknown>>;
  const header = {
    description: 'The CRS of the geometries and bboxes in the response (JSON), as `<uri>`.',
    schema: { type: 'string' },
  };
  return {
    ...operation,
    responses: { ...responses, '200': { ...responses['200'], headers: { 'Content-Crs': header } } },
  };
}

function withNotFound(operation: Operation): Operation {
  const responses = operation.responses as Record<string, unknown>;
  return { ...operation, responses: { ...responses, '404': ref('responses', 'NotFound') } };
}

/** The STAC API paths. */
function buildStacPaths(): Record<string, unknown> {
  const tag = 'STAC API';
  const list = (name: string, description: string) => ({ name, ...stringList(description) });
  const searchParameters = [
    P('bbox'),
    queryString('intersects', 'A GeoJSON geometry (as JSON text); not together with bbox.'),
    queryString('datetime', 'An RFC 3339 instant or interval (start/end, open ends as `..`).'),
    list('ids', 'Item identifiers.'),
    list('collections', 'Parent collection identifiers.'),
    P('limit'),
    queryString('q', 'Free text (Free-text extension); commas separate alternatives.'),
    P('filter'),
    queryString('filter-lang', 'Encoding of filter: cql2-text (default) or cql2-json.', {
      enum: ['cql2-text', 'cql2-json'],
      default: 'cql2-text',
    }),
    P('filterCrs'),
    queryString('sortby', 'Sort extension: fields, `-` prefix for descending.'),
    queryString('fields', 'Fields extension: include and (`-` prefixed) exclude paths.'),
    queryString('token', 'Paging token from a next link.'),
  ];
  const results = { ...json('StacItemCollection', GEOJSON) };
  const collectionId = {
    name: 'stacCollectionId',
    in: 'path',
    required: true,
    description: 'A STAC Collection: `metadata:main` (every record) or a collection record.',
    schema: { type: 'string' },
  };
  const itemId = {
    name: 'stacItemId',
    in: 'path',
    required: true,
    description: 'An item of the collection.',
    schema: { type: 'string' },
  };
  const fJson = {
    name: 'f',
    in: 'query',
    required: false,
    description: 'Output format (JSON only).',
    schema: { type: 'string', enum: ['json'] },
  };
  return {
    '/stac': {
      get: get('STAC API landing page (Collections, Features, item search)', tag, [fJson], {
        ...json('LandingPage'),
      }),
    },
    '/stac/conformance': {
      get: get('STAC API conformance classes', tag, [fJson], {
        ...json('ConformanceDeclaration'),
      }),
    },
    '/stac/collections': {
      get: get(
        'STAC Collections: metadata:main, then collection records by id',
        tag,
        [
          P('limit'),
          {
            name: 'offset',
            in: 'query',
            required: false,
            description: 'Position of the first collection (from a next link).',
            schema: { type: 'integer', minimum: 0 },
          },
        ],
        { ...json('StacCollections') },
      ),
    },
    '/stac/collections/{stacCollectionId}': {
      get: withNotFound(
        get('One STAC Collection', tag, [collectionId, fJson], { ...json('StacCollection') }),
      ),
    },
    '/stac/collections/{stacCollectionId}/items': {
      get: withNotFound(
        get(
          'The items of a STAC Collection (STAC API Features)',
          tag,
          [collectionId, ...searchParameters],
          results,
        ),
      ),
    },
    '/stac/collections/{stacCollectionId}/items/{stacItemId}': {
      get: withNotFound(
        get('One item of a STAC Collection', tag, [collectionId, itemId, fJson], {
          ...json('StacItem', GEOJSON),
        }),
      ),
    },
    '/search': {
      get: get('STAC item search', tag, searchParameters, results),
      post: {
        ...get('STAC item search (JSON body)', tag, [], results),
        requestBody: {
          required: false,
          content: { 'application/json': { schema: ref('schemas', 'StacSearch') } },
        },
      },
    },
    '/queryables': {
      get: get('Queryables of the STAC item search (JSON Schema 2019-09)', tag, [], {
        ...json('JsonSchemaDocument', SCHEMA_JSON),
      }),
    },
  };
}

/** The CSW and OpenSearch paths (KVP names are case-insensitive; values are not). */
function buildCswPaths(): Record<string, unknown> {
  const tag = 'CSW and OpenSearch';
  const kvp = (name: string, description: string, schema: Schema = {}): Parameter =>
    queryString(name, description, schema);
  const csw = [
    kvp('service', 'Must be `CSW`.', { enum: ['CSW'] }),
    kvp('version', 'CSW version; default 3.0.0.', { enum: ['2.0.2', '3.0.0'] }),
    kvp('request', 'The operation.', {
      enum: [
        'GetCapabilities',
        'DescribeRecord',
        'GetRecords',
        'GetRecordById',
        'GetRepositoryItem',
        'GetDomain',
      ],
    }),
    kvp('acceptVersions', 'GetCapabilities: versions the client accepts, in preference order.'),
    kvp(
      'sections',
      'GetCapabilities: All, ServiceIdentification, ServiceProvider, OperationsMetadata, Filter_Capabilities (3.0: Languages).',
    ),
    kvp('acceptFormats', 'GetCapabilities: application/xml or text/xml.'),
    kvp('updateSequence', 'GetCapabilities: the capabilities version the client holds.'),
    kvp('mode', 'GetCapabilities: `opensearch` returns the OpenSearch description document.', {
      enum: ['opensearch'],
    }),
    kvp('namespace', 'Namespace bindings as `xmlns(prefix=uri),…`.'),
    kvp('typeNames', 'GetRecords: csw:Record or gmd:MD_Metadata.'),
    kvp('typeName', 'DescribeRecord (2.0.2): the record types to describe.'),
    kvp('schemaLanguage', 'DescribeRecord (2.0.2): XML Schema.'),
    kvp('ElementSetName', 'brief, summary (default) or full; not together with ElementName.', {
      enum: ['brief', 'summary', 'full'],
    }),
    kvp('ElementName', 'GetRecords: the elements to return, comma-separated.'),
    kvp('outputFormat', 'application/xml (default), application/atom+xml (3.0), application/json.'),
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
      'GetRecords: hits, results or validate; default hits in 2.0.2, results in 3.0 (which dropped the parameter; maxRecords=0 counts only).',
      {
        enum: ['hits', 'results', 'validate'],
      },
    ),
    kvp('CONSTRAINTLANGUAGE', 'Language of Constraint: FILTER or CQL_TEXT.', {
      enum: ['FILTER', 'CQL_TEXT'],
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
      'stop',
      'OpenSearch time:end: end of the temporal period (RFC 3339); `end` is accepted too.',
    ),
    kvp('timeRelation', 'OpenSearch time:relation.', {
      enum: ['intersects', 'during', 'disjoint', 'equals'],
    }),
    kvp('geometry', 'OpenSearch geo:geometry: a WKT geometry.'),
    kvp('lat', 'OpenSearch geo:lat: latitude of a circle centre.'),
    kvp('lon', 'OpenSearch geo:lon: longitude of a circle centre.'),
    kvp('radius', 'OpenSearch geo:radius: radius of the circle in metres.'),
    kvp('relation', 'OpenSearch geo:relation.', {
      enum: ['intersects', 'contains', 'disjoint', 'within', 'equals'],
    }),
    kvp('startIndex', 'OpenSearch: one-based index of the first result (as startPosition).'),
    kvp('startPage', 'OpenSearch: one-based page number.'),
    kvp('count', 'OpenSearch: results per page (as maxRecords).'),
    ...EO_PARAMETERS.map(({ parameter, type }) =>
      kvp(
        parameter,
        `OpenSearch EO ${parameter.slice(3)} (${type}${type === 'number' || type === 'integer' || type === 'datetime' ? '; a value, a range [a,b] or a bound' : ''}).`,
      ),
    ),
  ];
  const xmlOrAtom = {
    [XML]: { schema: { type: 'string' } },
    'application/atom+xml': { schema: { type: 'string' } },
    'application/json': { schema: { type: 'object' } },
  };
  const cswErrors = {
    '400': {
      description: 'ows:ExceptionReport (MissingParameterValue, InvalidParameterValue …)',
      content: xmlContent,
    },
    '404': { description: 'ows:ExceptionReport NotFound (CSW 3.0)', content: xmlContent },
    '501': {
      description: 'ows:ExceptionReport OperationNotSupported / OptionNotSupported',
      content: xmlContent,
    },
  };
  return {
    '/csw': {
      get: {
        summary: 'CSW 2.0.2 / 3.0.0 (KVP)',
        description:
          'Catalogue Service for the Web. Parameter names are case-insensitive, values are ' +
          'case-sensitive. Without parameters: the capabilities, or the OpenSearch description ' +
          'when Accept prefers application/opensearchdescription+xml.',
        tags: [tag],
        parameters: csw,
        responses: { '200': { description: 'The CSW response', content: xmlOrAtom }, ...cswErrors },
      },
      post: {
        summary: 'CSW 2.0.2 / 3.0.0 (XML request body, or KVP as a form)',
        tags: [tag],
        requestBody: {
          required: true,
          content: {
            [XML]: { schema: { type: 'string' } },
            'text/xml': { schema: { type: 'string' } },
            'application/x-www-form-urlencoded': { schema: { type: 'object' } },
          },
        },
        responses: { '200': { description: 'The CSW response', content: xmlOrAtom }, ...cswErrors },
      },
    },
    '/opensearch': {
      get: {
        summary: 'OpenSearch description document (templates on /csw)',
        tags: [tag],
        responses: {
          '200': {
            description: 'The OpenSearch description',
            content: { 'application/opensearchdescription+xml': { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}

/**
 * The write and admin endpoints (OGC API – Records transactions, bulk ingest, the ingest job
 * log), which need a bearer token with the write role. They parse their own bodies and are
 * mounted before request validation.
 */
function buildWritePaths(): Record<string, unknown> {
  const tag = 'Writes and admin';
  const security = [{ bearerAuth: [] }];
  const records = {
    'application/geo+json': {
      schema: { type: 'object', description: 'A record (Feature) or several (FeatureCollection).' },
    },
    [XML]: { schema: { type: 'string', description: 'ISO 19139, ISO 19115-3 or csw:Record.' } },
    'application/x-ndjson': { schema: { type: 'string', description: 'One record per line.' } },
  };
  const outcome = { 'application/json': { schema: { type: 'object' } } };
  const denied = {
    '400': ref('responses', 'BadRequest'),
    '401': { description: 'No valid bearer token', content: json('Exception') },
    '403': { description: 'The token lacks the write role', content: json('Exception') },
    '503': ref('responses', 'Unavailable'),
  };
  const written = (status: string, description: string) => ({
    [status]: { description, content: outcome },
    '202': { description: 'Queued (scaled mode): a link to the job', content: outcome },
  });
  const jobId = {
    name: 'jobId',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: 'Identifier of an ingest job.',
  };
  const adminGet = (summary: string, parameters: unknown[]) => ({
    get: {
      summary,
      tags: [tag],
      security,
      parameters,
      responses: { '200': { description: summary, content: outcome }, ...denied },
    },
  });
  return {
    '/collections/{collectionId}/items/{recordId}#write': {
      put: {
        summary: 'Replace (or create) one record',
        tags: [tag],
        security,
        parameters: [P('collectionId'), P('recordId')],
        requestBody: { required: true, content: records },
        responses: {
          ...written('200', 'Replaced'),
          '201': { description: 'Created', content: outcome },
          ...denied,
        },
      },
      delete: {
        summary: 'Delete one record',
        tags: [tag],
        security,
        parameters: [P('collectionId'), P('recordId')],
        responses: {
          '204': { description: 'Deleted' },
          '404': ref('responses', 'NotFound'),
          ...denied,
        },
      },
    },
    '/admin/ingest': {
      post: {
        summary: 'Bulk ingest: create or replace records',
        tags: [tag],
        security,
        requestBody: { required: true, content: records },
        responses: { ...written('200', 'Written, with a per-record summary'), ...denied },
      },
    },
    '/admin/jobs': adminGet('The ingest job log', [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
    ]),
    '/admin/jobs/{jobId}': adminGet('One ingest job', [jobId]),
    '/admin/jobs/{jobId}/failures': adminGet('The records an ingest job refused, with reasons', [
      jobId,
    ]),
  };
}

/** The health endpoints (at the deployment root, not under /catalogue). */
function buildHealthPaths(rootUrl: string): Record<string, unknown> {
  const servers = [{ url: rootUrl || '/' }];
  const status = { 'application/json': { schema: { type: 'object' } } };
  return {
    '/healthz': {
      servers,
      get: {
        summary: 'Liveness',
        tags: ['Operations'],
        responses: { '200': { description: 'The process is up', content: status } },
      },
    },
    '/readyz': {
      servers,
      get: {
        summary: 'Readiness (the search backend answers)',
        tags: ['Operations'],
        responses: {
          '200': {
            description: 'Ready (`degraded` when the job queue is down: writes answer 503)',
            content: status,
          },
          '503': { description: 'The search backend is unavailable', content: status },
        },
      },
    },
  };
}

/**
 * Query values may carry reserved characters unencoded (`/` in intervals, `:` in times and
 * CURIEs, `,` in lists), as clients commonly send them, and may be empty; every query
 * parameter allows both.
 */
function allowReservedCharacters(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(allowReservedCharacters);
  } else if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    if (object.in === 'query' && typeof object.name === 'string') {
      object.allowReserved = true;
      // An empty value is the parsers' to judge (STAC `fields=` is meaningful; `bbox=` is not).
      object.allowEmptyValue = true;
    }
    Object.values(object).forEach(allowReservedCharacters);
  }
}

/** Adds the write operations to the read paths (PUT/DELETE beside GET on a record). */
function mergeWritePaths(paths: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...paths };
  for (const [path, item] of Object.entries(buildWritePaths())) {
    const target = path.replace(/#write$/, '');
    merged[target] = { ...((merged[target] as object | undefined) ?? {}), ...(item as object) };
  }
  const post = (merged['/collections/{collectionId}/items'] as Record<string, Operation>).post;
  const body = post.requestBody as { content: Record<string, unknown>; description: string };
  post.description = `${String(post.description)} With a record as the body (GeoJSON or XML) and a bearer token with the write role, it creates records instead (201, or 202 when queued).`;
  post.requestBody = {
    ...body,
    description: 'A CQL2 JSON filter (search), or records to create.',
    content: {
      ...body.content,
      'application/geo+json': { schema: { type: 'object' } },
      [XML]: { schema: { type: 'string' } },
    },
  };
  return merged;
}

/** Builds the OpenAPI 3.0 document of the whole API. */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const document = buildDocument(options);
  allowReservedCharacters(document);
  return document;
}

function buildDocument(options: OpenApiOptions): Record<string, unknown> {
  const { service } = options;
  return {
    openapi: '3.0.3',
    info: {
      title: service.title,
      description: `${service.description}\n\nOGC API – Records (Part 1, with facets from Part 2), STAC API item search, CSW 2.0.2/3.0.0 and OpenSearch over one set of records.`,
      version: options.version,
      ...(service.contact?.email || service.contact?.url || service.contact?.name
        ? {
            contact: {
              ...(service.contact.name && { name: service.contact.name }),
              ...(service.contact.email && { email: service.contact.email }),
              ...(service.contact.url && { url: service.contact.url }),
            },
          }
        : {}),
      license: { name: service.license },
    },
    servers: [{ url: options.serverUrl, description: 'This catalogue' }],
    tags: [
      {
        name: 'OGC API – Records',
        description: 'Landing page, conformance, the catalogue and its records',
      },
      { name: 'STAC API', description: 'STAC API item search' },
      { name: 'CSW and OpenSearch', description: 'CSW 2.0.2 / 3.0.0 and OpenSearch' },
      { name: 'Writes and admin', description: 'Record transactions, bulk ingest, job log' },
      { name: 'Operations', description: 'Health' },
    ],
    paths: mergeWritePaths({
      ...buildRecordsPaths(),
      ...buildStacPaths(),
      ...buildCswPaths(),
      ...buildHealthPaths(options.rootUrl),
    }),
    components: {
      schemas: buildSchemas(),
      parameters: buildParameters(options.limits),
      responses: buildResponses(),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

/**
 * Paths whose requests the validator leaves to their own parsers: CSW (case-insensitive KVP
 * names), OpenSearch, health, and the write and admin endpoints (mounted before validation).
 */
export const UNVALIDATED_PATHS: readonly string[] = [
  '/csw',
  '/opensearch',
  '/healthz',
  '/readyz',
  '/admin/ingest',
  '/admin/jobs',
  '/admin/jobs/{jobId}',
  '/admin/jobs/{jobId}/failures',
];

/**
 * The document the request validator uses: the read operations only (searches by POST take
 * a CQL2 JSON body; record writes never reach the validator).
 */
export function buildValidationDocument(options: OpenApiOptions): Record<string, unknown> {
  const document = buildOpenApiDocument(options);
  const paths = { ...(document.paths as Record<string, Record<string, Operation>>) };
  for (const path of UNVALIDATED_PATHS) delete paths[path];
  const record = { ...paths['/collections/{collectionId}/items/{recordId}'] };
  delete record.put;
  delete record.delete;
  paths['/collections/{collectionId}/items/{recordId}'] = record;
  const items = paths['/collections/{collectionId}/items'];
  const post = items.post;
  const body = post.requestBody as { content: Record<string, unknown> };
  paths['/collections/{collectionId}/items'] = {
    ...items,
    post: {
      ...post,
      requestBody: {
        ...body,
        content: {
          'application/json': body.content['application/json'],
          'application/query-cql-json': body.content['application/query-cql-json'],
        },
      },
    },
  };
  // A limit above the maximum is clamped (Features /req/core/fc-limit-response-1), not refused.
  const components = document.components as { parameters: Record<string, Parameter> };
  const limit = components.parameters.limit;
  const limitSchema = { ...(limit.schema as Schema) };
  delete limitSchema.maximum;
  const parameters = { ...components.parameters, limit: { ...limit, schema: limitSchema } };
  return { ...document, paths, components: { ...components, parameters } };
}
