/**
 * The OpenAPI document tells clients the truth about every operation's query parameters: for
 * the Records and STAC reads, the parameters documented are exactly those the parser accepts,
 * each one's bounds (minimum, maximum) and enum are the parser's, and an undocumented one is
 * refused; for CSW (whose KVP names are case-insensitive and unknown names ignored) every
 * documented parameter is one the parser reads and every enum value is one it accepts; the
 * admin job log's page bounds are its parser's. GDAL reads `filter-lang`'s enum to decide
 * whether to send filters to the server, and the parameter list to know which properties it
 * may filter on, so drift here silently costs clients.
 */
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import { CairnError } from '../../shared/errors/index.js';
import {
  buildOpenApiDocument,
  buildValidationDocument,
  queryableParameterNames,
} from '../../services/api/openapi/document.js';
import { parseAdminPaging } from '../../services/api/protocols/admin/routes.js';
import { parseCswKvp, readKvp } from '../../services/api/protocols/csw/parse.js';
import { OAI_VERBS, VERB_ARGUMENTS } from '../../services/api/protocols/oai/model.js';
import { OAI_ARGUMENT_NAMES } from '../../services/api/protocols/oai/openapi.js';
import { parseOaiRequest } from '../../services/api/protocols/oai/parse.js';
import { TEMPLATE_URL_NAMES } from '../../services/api/protocols/opensearch/parse.js';
import {
  FILTER_LANGUAGES,
  ITEMS_PARAMETERS,
  parseFormatOnlyQuery,
  parseItemsPresentation,
  parseItemsQuery,
  parseOutputFormat,
  PRESENTATION_PARAMETER_NAMES,
} from '../../services/api/protocols/records/parse.js';
import {
  COLLECTIONS_PARAMETER_NAMES,
  encodePageToken,
  parseCollectionItemsGet,
  parseCollectionsQuery,
  parseSearchGet,
  SEARCH_PARAMETERS,
  STAC_FILTER_LANGUAGES,
} from '../../services/api/protocols/stac/parse.js';
import { EO_PARAMETERS } from '../../shared/query/opensearch/index.js';
import {
  AGGREGATE_PARAMETER_NAMES,
  parseAggregateRequest,
} from '../../services/api/protocols/stac/aggregate.js';
import { QUERYABLES } from '../../shared/query/queryables.js';
import { defined } from '../support/defined.js';

type Query = Record<string, string>;
type Parameter = {
  name: string;
  in: string;
  schema: {
    type?: string;
    enum?: string[];
    minimum?: number;
    maximum?: number;
    default?: unknown;
    items?: { pattern?: string };
  };
};
type Document = Readonly<Record<string, unknown>>;

const config = loadConfig({ LOG_LEVEL: 'silent', LIMIT_DEFAULT: '12', LIMIT_MAX: '345' });
const options = {
  serverUrl: '/catalogue',
  rootUrl: '/',
  service: config.service,
  version: '0.0.0',
  limits: config.limits,
};
const document = buildOpenApiDocument(options);

/** The query parameters of an operation, with component references resolved. */
function queryParameters(source: Document, path: string, method: string): Parameter[] {
  const paths = source.paths as Record<string, Record<string, { parameters?: unknown[] }>>;
  const components = (source.components as { parameters: Record<string, Parameter> }).parameters;
  const operation = paths[path]?.[method];
  expect(operation, `${method} ${path}`).to.not.equal(undefined);
  return (operation?.parameters ?? [])
    .map((parameter) => {
      const ref = (parameter as { $ref?: string }).$ref;
      return ref ? defined(components[ref.split('/').pop()!], ref) : (parameter as Parameter);
    })
    .filter((parameter) => parameter.in === 'query');
}

/** Runs a parser; returns the error code, or 'ok'. */
function outcome(parse: () => unknown): string {
  try {
    parse();
    return 'ok';
  } catch (error) {
    if (error instanceof CairnError) return error.code;
    throw error;
  }
}

/** A value each documented Records or STAC parameter accepts. */
const SAMPLE_VALUES: Query = {
  f: 'json',
  q: 'water',
  bbox: '0,0,1,1',
  'bbox-crs': 'http://www.opengis.net/def/crs/EPSG/0/4326',
  crs: 'http://www.opengis.net/def/crs/EPSG/0/4326',
  datetime: '2020-01-01T00:00:00Z/..',
  intersects: '{"type":"Point","coordinates":[1,2]}',
  limit: '5',
  offset: '3',
  startindex: '3',
  sortby: '-title',
  filter: "title = 'x'",
  'filter-lang': 'cql2-text',
  'filter-crs': 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  facets: 'type',
  fields: 'id,-geometry',
  token: encodePageToken(3),
  properties: 'title',
  skipGeometry: 'true',
  lang: 'en',
  cloudCover: '10',
  snowCover: '10',
  orbitNumber: '3',
  created: '2020-01-01',
  updated: '2020-01-01',
  start_datetime: '2020-01-01',
  end_datetime: '2020-01-01',
};

/** An operation of the Records or STAC API and the parser that reads its query. */
interface ParsedOperation {
  path: string;
  method: 'get' | 'post';
  /** The names the parser accepts (any other is refused). */
  accepted: readonly string[];
  parse: (query: Query) => unknown;
  /** Sample values of this operation that differ from SAMPLE_VALUES. */
  samples?: Query;
}

const limits = { ...config.limits, query: config.query };

/** The Records items parsers, as the route runs them (`f` offered as JSON or HTML). */
function parseItems(query: Query): void {
  parseOutputFormat(query, undefined, ['json', 'html']);
  parseItemsQuery(query, limits);
  parseItemsPresentation(query);
}

const FORMAT_ONLY_PATHS = [
  '/',
  '/conformance',
  '/collections',
  '/collections/{collectionId}/queryables',
  '/collections/{collectionId}/sortables',
  '/collections/{collectionId}/facets',
];

const FES_FILTER =
  '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo>' +
  '<fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>x</fes:Literal>' +
  '</fes:PropertyIsEqualTo></fes:Filter>';

const OPERATIONS: ParsedOperation[] = [
  {
    path: '/collections/{collectionId}/items',
    method: 'get',
    accepted: [...ITEMS_PARAMETERS, ...queryableParameterNames()],
    parse: parseItems,
  },
  {
    path: '/collections/{collectionId}/items',
    method: 'post',
    accepted: [...ITEMS_PARAMETERS, ...queryableParameterNames()],
    parse: parseItems,
  },
  ...FORMAT_ONLY_PATHS.map((path): ParsedOperation => ({
    path,
    method: 'get',
    accepted: ['f'],
    parse: (query) => {
      parseOutputFormat(query, undefined, ['json', 'html']);
      parseFormatOnlyQuery(query);
    },
  })),
  {
    path: '/search',
    method: 'get',
    accepted: [...SEARCH_PARAMETERS],
    parse: (query) => parseSearchGet(query, limits),
  },
  {
    path: '/stac/collections/{stacCollectionId}/items',
    method: 'get',
    accepted: [...SEARCH_PARAMETERS],
    parse: (query) => parseCollectionItemsGet(query, 'metadata:main', 'metadata:main', limits),
    samples: { collections: 'metadata:main' },
  },
  {
    path: '/stac/collections',
    method: 'get',
    accepted: COLLECTIONS_PARAMETER_NAMES,
    parse: (query) => parseCollectionsQuery(query, limits),
  },
  {
    path: '/aggregate',
    method: 'get',
    accepted: [...SEARCH_PARAMETERS, ...AGGREGATE_PARAMETER_NAMES],
    parse: (query) => parseAggregateRequest(query, 'GET', limits),
    samples: {
      aggregations: 'total_count,datetime_frequency',
      datetime_frequency_interval: 'day',
      centroid_geohash_grid_frequency_precision: '2',
    },
  },
];

describe('OpenAPI document against the Records and STAC parsers', () => {
  for (const operation of OPERATIONS) {
    const label = `${operation.method.toUpperCase()} ${operation.path}`;
    const documented = () => queryParameters(document, operation.path, operation.method);
    const parse = (query: Query) => outcome(() => operation.parse(query));

    describe(label, () => {
      it('documents exactly the parameters the parser accepts', () => {
        const names = documented().map((parameter) => parameter.name);
        expect(new Set(names).size, 'no parameter twice').to.equal(names.length);
        expect([...names].sort()).to.deep.equal([...operation.accepted].sort());
      });

      it('accepts a value for every documented parameter and refuses an undocumented one', () => {
        expect(parse({})).to.equal('ok');
        for (const { name } of documented()) {
          const value = operation.samples?.[name] ?? SAMPLE_VALUES[name] ?? 'x';
          expect(parse({ [name]: value }), name).to.equal('ok');
        }
        expect(parse({ undocumented: 'x' })).to.equal('UNKNOWN_PARAMETER');
      });

      it("gives each enum the parser's values and each integer the parser's minimum", () => {
        for (const { name, schema } of documented()) {
          if (schema.enum && name !== 'f') {
            for (const value of schema.enum) expect(parse({ [name]: value }), name).to.equal('ok');
            expect(parse({ [name]: 'not-a-member' }), name).to.not.equal('ok');
          }
          if (schema.type === 'integer') {
            const minimum = schema.minimum!;
            expect(minimum, `${name} minimum`).to.be.a('number');
            expect(parse({ [name]: String(minimum) }), name).to.equal('ok');
            expect(parse({ [name]: String(minimum - 1) }), name).to.equal('INVALID_PARAMETER');
          }
          if (schema.type === 'boolean') {
            for (const value of ['true', 'false']) {
              expect(parse({ [name]: value }), name).to.equal('ok');
            }
            expect(parse({ [name]: 'yes' }), name).to.equal('INVALID_PARAMETER');
          }
        }
      });
    });
  }

  it('documents every queryable that is not a geometry as an items parameter', () => {
    const names = queryParameters(document, '/collections/{collectionId}/items', 'get').map(
      (parameter) => parameter.name,
    );
    const queryables = QUERYABLES.filter((q) => q.type !== 'geometry').map((q) => q.name);
    expect(queryables.filter((name) => !names.includes(name))).to.deep.equal([]);
  });

  it('gives limit the configured default and maximum, which the parsers clamp to', () => {
    for (const [path, parse] of [
      ['/collections/{collectionId}/items', (query: Query) => parseItemsQuery(query, limits).limit],
      ['/search', (query: Query) => parseSearchGet(query, limits).query.limit],
      ['/stac/collections', (query: Query) => parseCollectionsQuery(query, limits).limit],
    ] as const) {
      const limit = queryParameters(document, path, 'get').find((p) => p.name === 'limit')!;
      expect(limit.schema, path).to.include({ minimum: 1, maximum: 345, default: 12 });
      expect(parse({}), path).to.equal(12);
      expect(parse({ limit: '345' }), path).to.equal(345);
      expect(parse({ limit: '346' }), path).to.equal(345);
    }
  });

  it('leaves the clamping to the parser: the validation document has no limit maximum', () => {
    const validation = buildValidationDocument(options);
    const limit = queryParameters(validation, '/collections/{collectionId}/items', 'get').find(
      (parameter) => parameter.name === 'limit',
    )!;
    expect(limit.schema.maximum).to.equal(undefined);
  });

  it('lists exactly the filter languages each parser reads', () => {
    const items = queryParameters(document, '/collections/{collectionId}/items', 'get');
    expect(items.find((p) => p.name === 'filter-lang')!.schema.enum).to.deep.equal([
      ...FILTER_LANGUAGES,
    ]);
    const search = queryParameters(document, '/search', 'get');
    expect(search.find((p) => p.name === 'filter-lang')!.schema.enum).to.deep.equal([
      ...STAC_FILTER_LANGUAGES,
    ]);
    for (const language of FILTER_LANGUAGES) {
      const filter =
        language === 'cql2-json' ? '{"op":"=","args":[{"property":"type"},"x"]}' : "type = 'x'";
      expect(
        outcome(() => parseItems({ filter, 'filter-lang': language })),
        language,
      ).to.equal('ok');
    }
    expect(outcome(() => parseItems({ filter: "type = 'x'", 'filter-lang': 'ecql' }))).to.equal(
      'INVALID_PARAMETER',
    );
  });

  it('names in sortby exactly the sortable queryables', () => {
    const sortby = queryParameters(document, '/collections/{collectionId}/items', 'get').find(
      (p) => p.name === 'sortby',
    ) as Parameter & { description: string };
    const listed = [...sortby.description.matchAll(/`([A-Za-z_]\w*)`/g)].map((match) => match[1]);
    expect([...listed].sort()).to.deep.equal(
      QUERYABLES.filter((q) => q.sortable)
        .map((q) => q.name)
        .sort(),
    );
    for (const name of listed) {
      expect(
        outcome(() => parseItems({ sortby: `-${name}` })),
        name,
      ).to.equal('ok');
    }
    for (const queryable of QUERYABLES.filter((q) => !q.sortable)) {
      expect(
        outcome(() => parseItems({ sortby: queryable.name })),
        queryable.name,
      ).to.equal('INVALID_PARAMETER');
    }
  });

  it("takes the properties and lang patterns from the parser's", () => {
    const items = queryParameters(document, '/collections/{collectionId}/items', 'get');
    const pattern = new RegExp(items.find((p) => p.name === 'properties')!.schema.items!.pattern!);
    for (const name of ['title', 'a'.repeat(128), 'a'.repeat(129), '1abc', 'dc:title']) {
      const parsed = outcome(() => parseItemsPresentation({ properties: name }));
      expect(parsed === 'ok', name).to.equal(pattern.test(name));
    }
  });

  it('documents the Content-Crs header the items and record responses carry', () => {
    const paths = document.paths as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
    >;
    for (const [path, method] of [
      ['/collections/{collectionId}/items', 'get'],
      ['/collections/{collectionId}/items', 'post'],
      ['/collections/{collectionId}/items/{recordId}', 'get'],
    ] satisfies [string, string][]) {
      expect(
        paths[path]?.[method]?.responses['200']?.headers,
        `${method} ${path}`,
      ).to.have.property('Content-Crs');
    }
  });

  it('documents the presentation parameters the parser reads on one record', () => {
    const record = queryParameters(document, '/collections/{collectionId}/items/{recordId}', 'get');
    expect(record.map((parameter) => parameter.name).sort()).to.deep.equal(
      ['f', ...PRESENTATION_PARAMETER_NAMES].sort(),
    );
    for (const parameter of record.filter((p) => p.name !== 'f')) {
      const value = SAMPLE_VALUES[parameter.name];
      expect(
        outcome(() => parseItemsPresentation({ [parameter.name]: value })),
        value,
      ).to.equal('ok');
    }
  });

  it('says a record without a footprint or a time extent never matches bbox or datetime', () => {
    const items = queryParameters(document, '/collections/{collectionId}/items', 'get');
    const describe = (name: string) =>
      (items.find((p) => p.name === name) as Parameter & { description: string }).description;
    expect(describe('bbox')).to.match(/without a footprint never matches/);
    expect(describe('datetime')).to.match(/without a temporal extent never matches/);
    expect(JSON.stringify(document)).to.not.match(/match too/);
  });
});

describe('OpenAPI document against the CSW and OpenSearch parser', () => {
  const CONTEXT = { defaultLimit: 10, maxLimit: 50, maxBytes: 1_000_000 };
  const parse = (query: Query) => parseCswKvp(readKvp(query), CONTEXT);
  const documented = () => queryParameters(document, '/csw', 'get');

  const CSW = { service: 'CSW' };
  const CAPABILITIES = { ...CSW, request: 'GetCapabilities' };
  const RECORDS = { ...CSW, version: '3.0.0', request: 'GetRecords', typeNames: 'csw:Record' };
  const BY_ID = { ...CSW, version: '3.0.0', request: 'GetRecordById', id: 'a' };
  const DOMAIN = { ...CSW, version: '3.0.0', request: 'GetDomain', parameterName: 'x' };
  const DESCRIBE = { ...CSW, version: '2.0.2', request: 'DescribeRecord' };

  const UNQUALIFIED_FILTER =
    '<Filter><PropertyIsEqualTo><PropertyName>dc:title</PropertyName>' +
    '<Literal>x</Literal></PropertyIsEqualTo></Filter>';

  /** Documented parameters CSW accepts and ignores (no distributed search, no update sequence). */
  const IGNORED = ['updateSequence', 'DistributedSearch', 'hopCount'];

  /**
   * For each documented name: a request without it, a value the parser reads, and the locator
   * of the refusal when it is not the name itself.
   */
  const READ_BY: Record<string, [Query, string, string?]> = {
    service: [CAPABILITIES, 'WFS'],
    version: [RECORDS, '1.0.0'],
    request: [{ ...RECORDS, id: 'a' }, 'GetRecordById'],
    acceptVersions: [CAPABILITIES, '2.0.2'],
    sections: [CAPABILITIES, 'ServiceIdentification'],
    acceptFormats: [CAPABILITIES, 'image/png'],
    mode: [CAPABILITIES, 'opensearch'],
    namespace: [RECORDS, 'bogus'],
    typeNames: [RECORDS, 'bogus:Record'],
    // Refused naming typeNames (the locator GetRecords uses).
    typeName: [DESCRIBE, 'bogus:Record', 'typeNames'],
    schemaLanguage: [DESCRIBE, 'bogus'],
    ElementSetName: [RECORDS, 'brief'],
    ElementName: [RECORDS, 'dc:title'],
    outputFormat: [RECORDS, 'application/json'],
    outputSchema: [RECORDS, 'http://www.isotc211.org/2005/gmd'],
    startPosition: [RECORDS, '5'],
    maxRecords: [RECORDS, '3'],
    resultType: [RECORDS, 'hits'],
    CONSTRAINTLANGUAGE: [RECORDS, 'bogus'],
    Constraint: [{ ...RECORDS, CONSTRAINTLANGUAGE: 'CQL_TEXT' }, "dc:title = 'x'"],
    constraint_language_version: [
      { ...RECORDS, CONSTRAINTLANGUAGE: 'FILTER', Constraint: UNQUALIFIED_FILTER },
      '9.9.9',
    ],
    SortBy: [RECORDS, 'dc:title:D'],
    ResponseHandler: [RECORDS, 'http://example.org/'],
    requestId: [RECORDS, 'r1'],
    id: [BY_ID, 'b'],
    parameterName: [DOMAIN, 'GetRecords.ElementSetName'],
    valueReference: [DOMAIN, 'dc:title'],
    PropertyName: [{ ...DOMAIN, version: '2.0.2' }, 'dc:title'],
    q: [RECORDS, 'water'],
    bbox: [RECORDS, '0,0,1,1'],
    recordIds: [RECORDS, 'a'],
    time: [RECORDS, '2020-01-01/2020-02-01'],
    start: [RECORDS, '2020-01-01'],
    end: [RECORDS, '2020-02-01'],
    stop: [RECORDS, '2020-02-01'],
    timeRelation: [{ ...RECORDS, start: '2020-01-01' }, 'during'],
    geometry: [RECORDS, 'POINT(1 2)'],
    lat: [{ ...RECORDS, lat: '1', lon: '2' }, '3'],
    lon: [{ ...RECORDS, lat: '1', lon: '2' }, '3'],
    radius: [{ ...RECORDS, lat: '1', lon: '2' }, '1000'],
    relation: [{ ...RECORDS, bbox: '0,0,1,1' }, 'within'],
    startIndex: [RECORDS, '4'],
    startPage: [RECORDS, '2'],
    count: [RECORDS, '3'],
    ...Object.fromEntries(
      EO_PARAMETERS.map(({ parameter, type }): [string, [Query, string, string?]] => [
        parameter,
        [RECORDS, type === 'datetime' ? '2020-01-01' : type === 'text' ? 'x' : '10'],
      ]),
    ),
  };

  /** A parsed request, less the echo of every parameter given (for OpenSearch paging links). */
  const summary = (query: Query): string =>
    JSON.stringify(parse(query), (key, value: unknown) =>
      key === 'openSearch' && typeof value === 'object' && value !== null
        ? (value as { parameters: unknown }).parameters
        : value,
    );

  /**
   * True when the parser reads the parameter: the request it parses differs, or it refuses
   * the value naming the parameter.
   */
  function reads(base: Query, name: string, value: string, locator = name): boolean {
    let without: string;
    try {
      without = summary(base);
    } catch (error) {
      throw new Error(`the base request of ${name} fails: ${(error as Error).message}`);
    }
    try {
      return summary({ ...base, [name]: value }) !== without;
    } catch (error) {
      const named = error instanceof CairnError ? error.locator : undefined;
      return named?.toLowerCase() === locator.toLowerCase();
    }
  }

  it('documents each parameter once, and only parameters the parser reads', () => {
    const names = documented().map((parameter) => parameter.name);
    expect(new Set(names.map((name) => name.toLowerCase())).size).to.equal(names.length);
    const unclassified = names.filter((name) => !READ_BY[name] && !IGNORED.includes(name));
    expect(unclassified, 'no sample').to.deep.equal([]);
    expect(reads(RECORDS, 'undocumented', 'x'), 'an unknown name is ignored').to.equal(false);
    const unread = names.filter((name) => {
      const sample = READ_BY[name];
      return sample !== undefined && !reads(sample[0], name, sample[1], sample[2]);
    });
    expect(unread, 'documented but not read').to.deep.equal([]);
    // Accepted as OWS clients send them, and ignored: a parser that starts reading one (and
    // so may refuse a value) must move it to READ_BY.
    for (const name of IGNORED) {
      expect(names, name).to.include(name);
      expect(reads(RECORDS, name, 'x'), name).to.equal(false);
    }
  });

  it('documents every parameter the OpenSearch description tells clients to send', () => {
    const names = documented().map((parameter) => parameter.name);
    const templates = Object.values(TEMPLATE_URL_NAMES);
    expect(templates.filter((name) => !names.includes(name))).to.deep.equal([]);
  });

  it('documents every OpenSearch EO parameter', () => {
    const names = documented().map((parameter) => parameter.name);
    const eo = EO_PARAMETERS.map((entry) => entry.parameter);
    expect(names.filter((name) => name.startsWith('eo:'))).to.deep.equal(eo);
  });

  it('lists in each enum the values the parser accepts', () => {
    const enums = documented().filter((parameter) => parameter.schema.enum);
    expect(enums.map((parameter) => parameter.name)).to.include.members([
      'version',
      'request',
      'ElementSetName',
      'resultType',
      'CONSTRAINTLANGUAGE',
      'mode',
      'timeRelation',
      'relation',
    ]);
    const needs: Record<string, Query> = {
      request: { id: 'a', parameterName: 'x', version: '2.0.2' },
      mode: CAPABILITIES,
      service: CAPABILITIES,
      CONSTRAINTLANGUAGE: { Constraint: "dc:title = 'x'" },
      timeRelation: { start: '2020-01-01' },
      relation: { bbox: '0,0,1,1' },
    };
    for (const { name, schema } of enums) {
      const base = { ...RECORDS, ...needs[name] };
      for (const value of schema.enum!) {
        const query: Query = { ...base, [name]: value };
        if (name === 'CONSTRAINTLANGUAGE' && value === 'FILTER') query.Constraint = FES_FILTER;
        expect(
          outcome(() => parse(query)),
          `${name}=${value}`,
        ).to.not.match(/PARAMETER|ERROR/);
      }
      let refusal: CairnError | undefined;
      try {
        parse({ ...base, [name]: 'not-a-member' });
      } catch (error) {
        refusal = error as CairnError;
      }
      expect(refusal?.locator?.toLowerCase(), `${name}=not-a-member`).to.equal(name.toLowerCase());
    }
  });
});

describe('OpenAPI document against the OAI-PMH parser', () => {
  it('documents the verb with the verbs the parser accepts, and every argument a verb takes', () => {
    const operation = (
      document.paths as Record<string, Record<string, { parameters: Parameter[] }>>
    )['/oai']?.get;
    const parameters = defined(operation, 'GET /oai').parameters;
    expect(parameters.map((parameter) => parameter.name)).to.deep.equal([
      'verb',
      ...OAI_ARGUMENT_NAMES,
    ]);
    expect(parameters[0]?.schema.enum).to.deep.equal([...OAI_VERBS]);
    const codeOf = (args: Record<string, string>): string | undefined => {
      try {
        parseOaiRequest(args);
        return undefined;
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    for (const verb of OAI_VERBS) expect(codeOf({ verb }), verb).to.not.equal('badVerb');
    expect(codeOf({ verb: 'Nothing' })).to.equal('badVerb');
    for (const name of OAI_ARGUMENT_NAMES) {
      const verb = OAI_VERBS.find((candidate) => {
        const { required, optional } = VERB_ARGUMENTS[candidate];
        return required.includes(name) || optional.includes(name);
      });
      expect(verb, name).to.not.equal(undefined);
    }
  });
});

describe('OpenAPI document against the admin job log parser', () => {
  it("gives limit and offset the parser's bounds and defaults", () => {
    const parameters = queryParameters(document, '/admin/jobs', 'get');
    expect(parameters.map((p) => p.name)).to.deep.equal(['limit', 'offset']);
    const read = (query: Query) => outcome(() => parseAdminPaging(query));
    for (const { name, schema } of parameters) {
      expect(parseAdminPaging({})[name as 'limit' | 'offset'], name).to.equal(schema.default);
      expect(read({ [name]: String(schema.minimum) }), name).to.equal('ok');
      expect(read({ [name]: String(schema.minimum! - 1) }), name).to.equal('INVALID_PARAMETER');
      if (schema.maximum !== undefined) {
        expect(read({ [name]: String(schema.maximum) }), name).to.equal('ok');
        expect(read({ [name]: String(schema.maximum + 1) }), name).to.equal('INVALID_PARAMETER');
      }
    }
    expect(queryParameters(document, '/admin/jobs', 'get')[0]?.schema.maximum).to.be.a('number');
  });
});

describe('OpenAPI document assembly', () => {
  /** Every object in a document, with its JSON path. */
  function* objects(value: unknown, path = '#'): Generator<[string, object]> {
    if (typeof value !== 'object' || value === null) return;
    yield [path, value];
    for (const [key, member] of Object.entries(value)) yield* objects(member, `${path}/${key}`);
  }

  it('is frozen through and through: nothing changes after construction', () => {
    for (const source of [document, buildValidationDocument(options)]) {
      const thawed = [...objects(source)].filter(([, value]) => !Object.isFrozen(value));
      expect(thawed.map(([path]) => path)).to.deep.equal([]);
    }
    expect(() => {
      (document.paths as Record<string, unknown>)['/new'] = {};
    }).to.throw(TypeError);
  });

  it('is assembled once per deployment URL and shared, never rebuilt per request', () => {
    expect(buildOpenApiDocument({ ...options })).to.equal(document);
    const other = buildOpenApiDocument({ ...options, serverUrl: 'http://127.0.0.1:9/catalogue' });
    expect(other).to.not.equal(document);
    expect((other.servers as { url: string }[])[0]?.url).to.equal('http://127.0.0.1:9/catalogue');
    expect(buildValidationDocument(options)).to.not.equal(document);
    expect(buildValidationDocument(options)).to.equal(buildValidationDocument({ ...options }));
  });

  it('lets every query parameter carry reserved characters and be empty', () => {
    const parameters = [...objects(document)]
      .map(([, value]) => value as { in?: unknown; name?: unknown })
      .filter((value) => value.in === 'query' && typeof value.name === 'string');
    expect(parameters.length).to.be.greaterThan(100);
    for (const parameter of parameters) {
      expect(parameter, String(parameter.name)).to.include({
        allowReserved: true,
        allowEmptyValue: true,
      });
    }
  });

  it('validates the Records and STAC reads only, and serves every endpoint', () => {
    const validation = buildValidationDocument(options);
    type Paths = Record<string, Record<string, { requestBody?: { content: object } }>>;
    const served = document.paths as Paths;
    const validated = validation.paths as Paths;
    expect(Object.keys(served).filter((path) => !(path in validated))).to.deep.equal([
      '/csw',
      '/opensearch',
      '/oai',
      '/healthz',
      '/readyz',
      '/admin/ingest',
      '/admin/jobs',
      '/admin/jobs/{jobId}',
      '/admin/jobs/{jobId}/failures',
      '/robots.txt',
      '/sitemap.xml',
      '/sitemap-records.xml',
    ]);
    const record = '/collections/{collectionId}/items/{recordId}';
    expect(Object.keys(defined(served[record], record))).to.deep.equal(['get', 'put', 'delete']);
    expect(Object.keys(defined(validated[record], record))).to.deep.equal(['get']);
    const items = '/collections/{collectionId}/items';
    expect(
      Object.keys(defined(validated[items]?.post, `POST ${items}`).requestBody!.content),
    ).to.deep.equal(['application/json', 'application/query-cql-json']);
    expect(
      Object.keys(defined(served[items]?.post, `POST ${items}`).requestBody!.content),
    ).to.include.members(['application/geo+json', 'application/xml']);
  });
});
