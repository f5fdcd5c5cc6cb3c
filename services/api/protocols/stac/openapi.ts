/**
 * The STAC API part of the OpenAPI document: item search (GET and POST), the queryables, the
 * STAC API root with its Collections and their items. The search parameters are the parser's
 * list (SEARCH_PARAMETER_NAMES, a type-checked mapping below), the POST body schema has the
 * same members, and the filter languages are the parser's.
 */
import { CALENDAR_INTERVALS, MAX_GRID_PRECISION } from '../../../../shared/search/aggregations.js';
import { AGGREGATIONS } from './aggregate.js';
import {
  COLLECTIONS_PARAMETER_NAMES,
  SEARCH_PARAMETER_NAMES,
  STAC_FILTER_LANGUAGES,
  type SearchParameterName,
} from './parse.js';
import {
  BBOX_SCHEMA,
  GEOJSON,
  integerParameter,
  jsonContent,
  LINKS,
  listParameter,
  pageSchema,
  pathParameter,
  readOperation,
  ref,
  SCHEMA_JSON,
  stringParameter,
  type Parameter,
  type Paths,
  type Reference,
  type Schema,
} from '../../common/openapi.js';

const TAG = 'STAC API';

/**
 * The Records parameters (components/parameters, built in protocols/records/openapi.ts) that
 * the item search shares; referenced by name, as the Records folder imports this one.
 */
type RecordsParameter = 'bbox' | 'limit' | 'filter' | 'filterCrs';

/** A reference to one of the Records parameters the item search shares. */
const parameterRef = (name: RecordsParameter): Reference => ref('parameters', name);

/** The encodings of the STAC API documents (`f`): JSON only. */
export const STAC_FORMATS: readonly string[] = ['json'];

/** A string, or a list of strings (POST bodies accept either for ids and collections). */
const STRING_OR_LIST: Schema = {
  oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
};

/** The GET parameter of each search member; references are the Records parameters. */
function searchParameter(name: SearchParameterName): Parameter | Reference {
  switch (name) {
    case 'bbox':
      return parameterRef('bbox');
    case 'intersects':
      return stringParameter(
        'intersects',
        'A GeoJSON geometry (as JSON text); not together with bbox.',
      );
    case 'datetime':
      return stringParameter(
        'datetime',
        'An RFC 3339 instant or interval (start/end, open ends as `..`); an item without a ' +
          'time extent never matches.',
      );
    case 'ids':
      return listParameter('ids', 'Item identifiers.');
    case 'collections':
      return listParameter('collections', 'Parent collection identifiers.');
    case 'limit':
      return parameterRef('limit');
    case 'q':
      return stringParameter('q', 'Free text (Free-text extension); commas separate alternatives.');
    case 'filter':
      return parameterRef('filter');
    case 'filter-lang':
      return stringParameter(
        'filter-lang',
        `Encoding of filter: ${STAC_FILTER_LANGUAGES.join(' (default) or ')}.`,
        { enum: [...STAC_FILTER_LANGUAGES], default: STAC_FILTER_LANGUAGES[0] },
      );
    case 'filter-crs':
      return parameterRef('filterCrs');
    case 'sortby':
      return stringParameter(
        'sortby',
        'Sort extension: fields (the sortable core queryables and properties learned from the ' +
          'records), `-` prefix for descending.',
      );
    case 'fields':
      return stringParameter(
        'fields',
        'Fields extension: include and (`-` prefixed) exclude paths.',
      );
    case 'token':
      return stringParameter('token', 'Paging token from a next link.');
  }
}

/** The POST body member of each search member. */
function searchMember(name: SearchParameterName): Schema | Reference {
  switch (name) {
    case 'bbox':
      return BBOX_SCHEMA;
    case 'intersects':
      return { type: 'object', description: 'A GeoJSON geometry.' };
    case 'ids':
    case 'collections':
    case 'q':
      return STRING_OR_LIST;
    case 'limit':
      return { type: 'integer', minimum: 1 };
    case 'filter':
      return { description: 'CQL2 JSON (an object) or CQL2 text (a string).' };
    case 'filter-lang':
      return { type: 'string', enum: [...STAC_FILTER_LANGUAGES] };
    case 'sortby':
      return { description: 'A list of {field, direction}, or sortby text.' };
    case 'fields':
      return { description: 'Fields extension: {include, exclude} or field text.' };
    case 'datetime':
    case 'filter-crs':
    case 'token':
      return { type: 'string' };
  }
}

/** The STAC schemas (components/schemas). */
export function buildStacSchemas(): Record<string, Schema> {
  const collectionMembers: Schema['properties'] = {
    type: { type: 'string', enum: ['Collection'] },
    stac_version: { type: 'string' },
    id: { type: 'string' },
    description: { type: 'string' },
    license: { type: 'string' },
    extent: { type: 'object' },
    links: LINKS,
  };
  return {
    StacItemCollection: pageSchema(
      'features',
      { type: 'object' },
      {
        required: ['type', 'features'],
      },
    ),
    StacCollection: {
      type: 'object',
      description: 'A STAC Collection 1.0.',
      required: ['type', 'stac_version', 'id', 'description', 'license', 'extent', 'links'],
      properties: collectionMembers,
    },
    StacCollections: pageSchema('collections', ref('schemas', 'StacCollection')),
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
        links: LINKS,
      },
    },
    AggregationCollection: {
      type: 'object',
      description: 'A STAC API AggregationCollection (Aggregation extension v0.3.0).',
      required: ['type', 'aggregations'],
      properties: {
        type: { type: 'string', enum: ['AggregationCollection'] },
        aggregations: { type: 'array', items: { type: 'object' } },
        links: LINKS,
      },
    },
    StacAggregate: {
      type: 'object',
      description:
        'An aggregate request (POST body): the item search members and the aggregations.',
      properties: {
        ...Object.fromEntries(SEARCH_PARAMETER_NAMES.map((name) => [name, searchMember(name)])),
        aggregations: { type: 'array', items: { type: 'string' } },
        datetime_frequency_interval: { type: 'string', enum: [...CALENDAR_INTERVALS] },
        centroid_geohash_grid_frequency_precision: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_GRID_PRECISION,
        },
      },
    },
    StacSearch: {
      type: 'object',
      description: 'A STAC API item search (POST body).',
      properties: Object.fromEntries(
        SEARCH_PARAMETER_NAMES.map((name) => [name, searchMember(name)]),
      ),
    },
  };
}

/** The STAC API paths. */
export function buildStacPaths(): Paths {
  const searchParameters = SEARCH_PARAMETER_NAMES.map(searchParameter);
  const results = jsonContent('StacItemCollection', GEOJSON);
  const collectionId = pathParameter(
    'stacCollectionId',
    'A STAC Collection: `metadata:main` (every record) or a collection record.',
  );
  const itemId = pathParameter('stacItemId', 'An item of the collection.');
  const aggregateParameters = [
    listParameter(
      'aggregations',
      `Aggregations to compute (default: all): ${AGGREGATIONS.map((a) => a.name).join(', ')}.`,
    ),
    stringParameter('datetime_frequency_interval', 'Calendar interval of datetime_frequency.', {
      enum: [...CALENDAR_INTERVALS],
      default: 'month',
    }),
    integerParameter(
      'centroid_geohash_grid_frequency_precision',
      'Geohash length of centroid_geohash_grid_frequency.',
      { minimum: 1, maximum: MAX_GRID_PRECISION, default: 1 },
    ),
  ];
  const f = stringParameter('f', 'Output format (JSON only).', { enum: [...STAC_FORMATS] });
  /** `lang` of a STAC document built from records (the language negotiation). */
  const lang = (what: string) =>
    stringParameter(
      'lang',
      `Language of ${what} (a language tag, RFC 4647 lookup): title, description and ` +
        'keywords in that language where the record has them, else its own. ' +
        'Takes precedence over Accept-Language.',
      { pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$' },
    );
  const collectionsParameters: Record<
    (typeof COLLECTIONS_PARAMETER_NAMES)[number],
    Parameter | Reference
  > = {
    bbox: stringParameter(
      'bbox',
      "Collection Search: collections whose served extent (their items' union, else the " +
        'declared one) has a box meeting this one: 4 or 6 comma-separated numbers.',
    ),
    datetime: stringParameter(
      'datetime',
      'Collection Search: collections whose served temporal extent meets this RFC 3339 ' +
        'instant or interval (open ends as `..`).',
    ),
    limit: parameterRef('limit'),
    offset: integerParameter('offset', 'Position of the first collection (from a next link).', {
      minimum: 0,
    }),
    q: stringParameter('q', 'Free text over the collections; commas separate alternatives.'),
    filter: stringParameter('filter', 'A CQL2 filter on the collection records.'),
    'filter-lang': searchParameter('filter-lang'),
    'filter-crs': parameterRef('filterCrs'),
    sortby: searchParameter('sortby'),
    fields: stringParameter(
      'fields',
      'Fields extension: include and (`-` prefixed) exclude member paths of the collections.',
    ),
    lang: lang('each collection'),
  };
  return {
    '/stac': {
      get: readOperation(
        'STAC API landing page (Collections, Features, item search)',
        TAG,
        [f],
        jsonContent('LandingPage'),
      ),
    },
    '/stac/conformance': {
      get: readOperation(
        'STAC API conformance classes',
        TAG,
        [f],
        jsonContent('ConformanceDeclaration'),
      ),
    },
    '/stac/collections': {
      get: readOperation(
        'STAC Collections: metadata:main, then collection records by id',
        TAG,
        COLLECTIONS_PARAMETER_NAMES.map((name) => collectionsParameters[name]),
        jsonContent('StacCollections'),
      ),
    },
    '/stac/collections/{stacCollectionId}': {
      get: readOperation(
        'One STAC Collection',
        TAG,
        [collectionId, f, lang('the collection; Content-Language names the language served')],
        jsonContent('StacCollection'),
        {
          notFound: true,
        },
      ),
    },
    '/stac/collections/{stacCollectionId}/items': {
      get: readOperation(
        'The items of a STAC Collection (STAC API Features)',
        TAG,
        [collectionId, ...searchParameters],
        results,
        { notFound: true },
      ),
    },
    '/stac/collections/{stacCollectionId}/items/{stacItemId}': {
      get: readOperation(
        'One item of a STAC Collection',
        TAG,
        [collectionId, itemId, f, lang('the item; Content-Language names the language served')],
        jsonContent('StacItem', GEOJSON),
        { notFound: true },
      ),
    },
    '/search': {
      get: readOperation('STAC item search', TAG, searchParameters, results),
      post: readOperation('STAC item search (JSON body)', TAG, [], results, {
        requestBody: {
          required: false,
          content: { 'application/json': { schema: ref('schemas', 'StacSearch') } },
        },
      }),
    },
    '/aggregations': {
      get: readOperation(
        'The aggregations /aggregate offers (STAC API Aggregation)',
        TAG,
        [],
        jsonContent('AggregationCollection'),
      ),
    },
    '/aggregate': {
      get: readOperation(
        'Aggregations over the item search (STAC API Aggregation)',
        TAG,
        [...searchParameters, ...aggregateParameters],
        jsonContent('AggregationCollection'),
      ),
      post: readOperation(
        'Aggregations over the item search (JSON body)',
        TAG,
        [],
        jsonContent('AggregationCollection'),
        {
          requestBody: {
            required: false,
            content: { 'application/json': { schema: ref('schemas', 'StacAggregate') } },
          },
        },
      ),
    },
    '/queryables': {
      get: readOperation(
        'Queryables of the STAC item search (JSON Schema 2019-09)',
        TAG,
        [],
        jsonContent('JsonSchemaDocument', SCHEMA_JSON),
      ),
    },
  };
}
