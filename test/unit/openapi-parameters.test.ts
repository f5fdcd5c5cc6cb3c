/**
 * The OpenAPI document tells clients the truth about the Records items endpoint: every query
 * parameter the parser accepts is documented and every documented one is accepted; the bounds
 * (`limit`, `offset`) and enums (`filter-lang`, `f`, `skipGeometry`) are the parser's. GDAL reads
 * `filter-lang`'s enum to decide whether to send filters to the server, and the parameter list
 * to know which properties it may filter on, so drift here silently costs clients.
 */
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/index.js';
import { CairnError } from '../../shared/errors/index.js';
import {
  buildOpenApiDocument,
  buildValidationDocument,
  queryableParameterNames,
} from '../../services/api/openapi/document.js';
import {
  FILTER_LANGUAGES,
  ITEMS_PARAMETERS,
  parseItemsPresentation,
  parseItemsQuery,
  parseOutputFormat,
} from '../../services/api/protocols/records/parse.js';
import { QUERYABLES } from '../../shared/query/queryables.js';

type Parameter = {
  name: string;
  in: string;
  schema: { type?: string; enum?: string[]; minimum?: number; maximum?: number; default?: unknown };
};

const config = loadConfig({ LOG_LEVEL: 'silent', LIMIT_DEFAULT: '12', LIMIT_MAX: '345' });
const options = {
  serverUrl: '/catalogue',
  rootUrl: '/',
  service: config.service,
  version: '0.0.0',
  limits: config.limits,
};

/** The query parameters of an operation, with component references resolved. */
function queryParameters(document: Record<string, unknown>, path: string, method: string) {
  const paths = document.paths as Record<string, Record<string, { parameters: unknown[] }>>;
  const components = (document.components as { parameters: Record<string, Parameter> }).parameters;
  return paths[path][method].parameters
    .map((parameter) => {
      const ref = (parameter as { $ref?: string }).$ref;
      return ref ? components[ref.split('/').pop()!] : (parameter as Parameter);
    })
    .filter((parameter) => parameter.in === 'query');
}

/** Runs the items parsers; returns the error code, or 'ok'. */
function parse(query: Record<string, string>): string {
  try {
    parseOutputFormat(query, undefined, ['json', 'html']);
    parseItemsQuery(query, config.limits);
    parseItemsPresentation(query);
    return 'ok';
  } catch (error) {
    if (error instanceof CairnError) return error.code;
    throw error;
  }
}

/** A value each documented parameter accepts. */
const SAMPLE_VALUES: Record<string, string> = {
  f: 'json',
  q: 'water',
  bbox: '0,0,1,1',
  'bbox-crs': 'http://www.opengis.net/def/crs/EPSG/0/4326',
  crs: 'http://www.opengis.net/def/crs/EPSG/0/4326',
  datetime: '2020-01-01/..',
  limit: '5',
  offset: '3',
  startindex: '3',
  sortby: '-title',
  filter: "title = 'x'",
  'filter-lang': 'cql2-text',
  'filter-crs': 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  facets: 'type',
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

describe('OpenAPI document against the Records items parsers', () => {
  const document = buildOpenApiDocument(options);
  const items = queryParameters(document, '/collections/{collectionId}/items', 'get');
  const byName = new Map(items.map((parameter) => [parameter.name, parameter]));

  it('documents exactly the parameters the parser accepts, queryables included', () => {
    const accepted = [...ITEMS_PARAMETERS, ...queryableParameterNames()].sort();
    expect([...byName.keys()].sort()).to.deep.equal(accepted);
    // Every queryable that is not a geometry is a parameter, and the parser accepts it.
    const queryables = QUERYABLES.filter((q) => q.type !== 'geometry').map((q) => q.name);
    expect(queryables.filter((name) => !byName.has(name))).to.deep.equal([]);
    for (const queryable of QUERYABLES.filter((q) => q.type !== 'geometry')) {
      expect(parse({ [queryable.name]: SAMPLE_VALUES[queryable.name] ?? 'x' })).to.equal(
        'ok',
        queryable.name,
      );
    }
  });

  it('accepts a value for every documented parameter, and refuses an undocumented one', () => {
    for (const name of byName.keys()) {
      expect(parse({ [name]: SAMPLE_VALUES[name] ?? 'x' }), name).to.equal('ok');
    }
    expect(parse({ undocumented: 'x' })).to.equal('UNKNOWN_PARAMETER');
  });

  it('gives limit the configured default and maximum, which the parser clamps to', () => {
    const limit = byName.get('limit')!.schema;
    expect(limit).to.include({ minimum: 1, maximum: 345, default: 12 });
    expect(parseItemsQuery({}, config.limits).limit).to.equal(12);
    expect(parseItemsQuery({ limit: '345' }, config.limits).limit).to.equal(345);
    expect(parseItemsQuery({ limit: '346' }, config.limits).limit).to.equal(345);
    expect(parse({ limit: String(limit.minimum! - 1) })).to.equal('INVALID_PARAMETER');
    expect(byName.get('offset')!.schema.minimum).to.equal(0);
    expect(parse({ offset: '-1' })).to.equal('INVALID_PARAMETER');
  });

  it('leaves the clamping to the parser: the validation document has no limit maximum', () => {
    const validation = buildValidationDocument(options);
    const limit = queryParameters(validation, '/collections/{collectionId}/items', 'get').find(
      (parameter) => parameter.name === 'limit',
    )!;
    expect(limit.schema.maximum).to.equal(undefined);
  });

  it('lists exactly the filter languages the parser reads', () => {
    const languages = byName.get('filter-lang')!.schema.enum!;
    expect(languages).to.deep.equal([...FILTER_LANGUAGES]);
    for (const language of languages) {
      const filter =
        language === 'cql2-json' ? '{"op":"=","args":[{"property":"type"},"x"]}' : "type = 'x'";
      expect(parse({ filter, 'filter-lang': language }), language).to.equal('ok');
    }
    expect(parse({ filter: "type = 'x'", 'filter-lang': 'ecql' })).to.equal('INVALID_PARAMETER');
  });

  it('lists exactly the output formats the parser offers', () => {
    const formats = byName.get('f')!.schema.enum!;
    expect(formats).to.deep.equal(['json', 'html']);
    for (const f of formats) expect(parse({ f }), f).to.equal('ok');
    expect(parse({ f: 'xml' })).to.equal('UNSUPPORTED_FORMAT');
  });

  it('types skipGeometry as the boolean the parser reads', () => {
    expect(byName.get('skipGeometry')!.schema.type).to.equal('boolean');
    expect(parse({ skipGeometry: 'false' })).to.equal('ok');
    expect(parse({ skipGeometry: 'yes' })).to.equal('INVALID_PARAMETER');
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
    ]) {
      expect(paths[path][method].responses['200'].headers, `${method} ${path}`).to.have.property(
        'Content-Crs',
      );
    }
  });

  it('documents the same presentation parameters on one record', () => {
    const record = queryParameters(document, '/collections/{collectionId}/items/{recordId}', 'get');
    expect(record.map((parameter) => parameter.name).sort()).to.deep.equal(
      ['crs', 'f', 'lang', 'properties', 'skipGeometry'].sort(),
    );
  });
});
