/**
 * Grammar-aware generators of requests for the fuzz suites: mostly valid bbox, datetime,
 * sortby, CQL2, FES and CSW requests with random corruption, used both against the parsers
 * directly (test/unit/fuzz) and over HTTP (test/system/fuzz-http.test.ts).
 */
import fc from 'fast-check';
import { printCql2Json, printCql2Text } from '../../shared/query/cql2/index.js';
import { filterExpressionOfDepth, mutateJson, tokenSoup } from '../unit/cql2/cql2-arbitraries.js';
import { HOSTILE_VALUES, mutateString, mutateXml } from './fuzz-mutations.js';
import { defined } from './defined.js';

/** A value from a grammar, corrupted now and then: mutated, or replaced by a hostile value. */
export function corrupted(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 3, arbitrary: valid.chain(mutateString) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
  );
}

const coordinate = fc.oneof(
  fc.integer({ min: -200, max: 200 }),
  fc.double({ min: -200, max: 200, noNaN: true }),
  fc.constantFrom(-180, 180, -90, 90, 0, -0, 1e-9),
);

const longitude = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: -180, max: 180, noNaN: true }) },
  { weight: 1, arbitrary: coordinate },
);
const latitude = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: -90, max: 90, noNaN: true }) },
  { weight: 1, arbitrary: coordinate },
);

/** bbox values: 4 or 6 numbers (sometimes 3, 5 or 8), mostly in range, south and north in any order. */
export const bboxText = corrupted(
  fc
    .oneof(
      {
        weight: 4,
        arbitrary: fc.tuple(longitude, latitude, longitude, latitude).map((box) => box as number[]),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(longitude, latitude, coordinate, longitude, latitude, coordinate)
          .map((box) => box as number[]),
      },
      { weight: 1, arbitrary: fc.array(coordinate, { minLength: 3, maxLength: 8 }) },
    )
    .chain((numbers) =>
      fc.constantFrom(',', ', ', ' ,').map((separator) => numbers.map(String).join(separator)),
    ),
);

const instant = fc
  .tuple(
    fc.integer({ min: 0, max: 10_000 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.option(
      fc.tuple(
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 61 }),
        fc.constantFrom('Z', '+02:00', '-14:00', '+99:99', '', '.123Z', '.5+01:00', 'z'),
      ),
    ),
  )
  .map(([year, month, day, time]) => {
    const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
    const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    if (!time) return date;
    const [hour, minute, second, zone] = time;
    return `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}${zone}`;
  });

/** datetime values: instants and intervals with open ends, near-valid dates and times. */
export const datetimeText = corrupted(
  fc.oneof(
    instant,
    fc
      .tuple(
        fc.oneof(instant, fc.constantFrom('..', '')),
        fc.oneof(instant, fc.constantFrom('..', '')),
      )
      .map(([a, b]) => `${a}/${b}`),
  ),
);

/** Queryable names, a few aliases and some that do not exist. */
export const PROPERTY_NAMES = [
  'id',
  'title',
  'description',
  'type',
  'keywords',
  'updated',
  'created',
  'datetime',
  'start_datetime',
  'end_datetime',
  'cloudCover',
  'eo:cloud_cover',
  'platform',
  'geometry',
  'license',
  'nope',
  'properties.title',
  '',
];

/** sortby values: signed property names, comma-separated. */
export const sortbyText = corrupted(
  fc
    .array(fc.tuple(fc.constantFrom('', '+', '-', ' '), fc.constantFrom(...PROPERTY_NAMES)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((keys) => keys.map(([sign, name]) => sign + name).join(',')),
);

const pool = fc.sample(filterExpressionOfDepth(2), { numRuns: 120, seed: 20_260_512 });

/** CQL2 text filters: valid trees, mutated, and token soups. */
export const cql2Text = fc.oneof(
  { weight: 3, arbitrary: corrupted(fc.constantFrom(...pool.map(printCql2Text))) },
  { weight: 1, arbitrary: tokenSoup },
);

/** CQL2 JSON filters: valid trees, mutated, and random JSON. */
export const cql2Json: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...pool.map(printCql2Json)) },
  { weight: 3, arbitrary: fc.constantFrom(...pool.map(printCql2Json)).chain(mutateJson) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const integerText = corrupted(
  fc.oneof(
    fc.integer({ min: -5, max: 2_000 }).map(String),
    fc.constantFrom('0', '1', '10', '1e3', '9007199254740993', '+5', ' 5', '5.5', '0x10'),
  ),
);

/** Query parameters of OGC API – Records `…/items`, as a list of [name, value] pairs. */
export const recordsItemsQuery: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constant('q'),
      corrupted(fc.constantFrom('climate', 'sea ice,glacier', 'ocean', 'é')),
    ),
    fc.tuple(fc.constant('bbox'), bboxText),
    fc.tuple(fc.constant('datetime'), datetimeText),
    fc.tuple(fc.constantFrom('limit', 'offset'), integerText),
    fc.tuple(fc.constant('sortby'), sortbyText),
    fc.tuple(fc.constant('filter'), cql2Text),
    fc.tuple(fc.constant('filter-lang'), corrupted(fc.constantFrom('cql2-text', 'cql2-json'))),
    fc.tuple(
      fc.constant('filter'),
      cql2Json.map((value) => JSON.stringify(value) ?? 'null'),
    ),
    fc.tuple(
      fc.constantFrom('type', 'keywords', 'ids', 'facets', 'f', 'filter-crs'),
      corrupted(fc.constantFrom('dataset', 'a,b', 'json', 'type,keywords:5')),
    ),
    fc.tuple(
      fc.constantFrom('unknown', 'Limit', 'bbox-crs', '__proto__', 'constructor'),
      fc.constantFrom('1', ''),
    ),
  ),
  { maxLength: 5 },
);

/** STAC API GET /search parameters. */
export const stacSearchQuery: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(fc.constant('bbox'), bboxText),
    fc.tuple(fc.constant('datetime'), datetimeText),
    fc.tuple(fc.constant('limit'), integerText),
    fc.tuple(
      fc.constantFrom('ids', 'collections'),
      corrupted(fc.constantFrom('metadata:main', 'a,b', '')),
    ),
    fc.tuple(fc.constant('sortby'), sortbyText),
    fc.tuple(
      fc.constant('fields'),
      corrupted(fc.constantFrom('id,-properties', '+properties.title', '-')),
    ),
    fc.tuple(fc.constant('filter'), cql2Text),
    fc.tuple(fc.constant('filter-lang'), corrupted(fc.constantFrom('cql2-text', 'cql2-json'))),
    fc.tuple(
      fc.constant('intersects'),
      corrupted(
        fc.constantFrom(
          '{"type":"Point","coordinates":[1,2]}',
          '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}',
        ),
      ),
    ),
    fc.tuple(fc.constant('token'), corrupted(fc.constantFrom('eyJvZmZzZXQiOjEwfQ', 'x'))),
  ),
  { maxLength: 5 },
);

const geometryJson = fc.constantFrom<unknown>(
  { type: 'Point', coordinates: [4, 52] },
  {
    type: 'Polygon',
    coordinates: [
      [
        [0, 0],
        [10, 0],
        [10, 10],
        [0, 10],
        [0, 0],
      ],
    ],
  },
  {
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [170, -10],
          [-170, -10],
          [-170, 10],
          [170, 10],
          [170, -10],
        ],
      ],
    ],
  },
  {
    type: 'LineString',
    coordinates: [
      [0, 0],
      [1e300, 1],
    ],
  },
  {
    type: 'Polygon',
    coordinates: [
      [
        [0, 0],
        [1, 1],
      ],
    ],
  },
  { type: 'GeometryCollection', geometries: [] },
);

/** STAC API POST /search bodies: valid members, mutated. */
export const stacSearchBody: fc.Arbitrary<unknown> = fc
  .record(
    {
      bbox: fc.array(coordinate, { minLength: 4, maxLength: 6 }),
      datetime: datetimeText,
      intersects: geometryJson,
      ids: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
      collections: fc.constantFrom(['metadata:main'], 'metadata:main', []),
      limit: fc.oneof(fc.integer({ min: -2, max: 2000 }), fc.constant(1.5)),
      sortby: fc.array(
        fc.record({
          field: fc.constantFrom(...PROPERTY_NAMES),
          direction: fc.constantFrom('asc', 'desc', 'up'),
        }),
        { maxLength: 2 },
      ),
      fields: fc.record({
        include: fc.array(fc.constantFrom('id', 'properties.title', '')),
        exclude: fc.array(fc.constantFrom('geometry', 'links')),
      }),
      filter: fc.oneof(cql2Json, cql2Text),
      'filter-lang': fc.constantFrom('cql2-json', 'cql2-text', 'sql'),
      token: fc.constantFrom('eyJvZmZzZXQiOjEwfQ', 'x', ''),
    },
    { requiredKeys: [] },
  )
  // Few members at a time, so that most bodies get past the first invalid member.
  .chain((body) =>
    fc
      .subarray(Object.keys(body), { maxLength: 3 })
      .map((keys) => Object.fromEntries(keys.map((key) => [key, body[key as keyof typeof body]]))),
  )
  .chain((body) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<unknown>(body) },
      { weight: 2, arbitrary: mutateJson(body) },
    ),
  );

const CSW_KVP_VALUES: Record<string, readonly string[]> = {
  service: ['CSW'],
  version: ['2.0.2', '3.0.0'],
  request: [
    'GetCapabilities',
    'GetRecords',
    'GetRecordById',
    'GetDomain',
    'DescribeRecord',
    'GetRepositoryItem',
    'Transaction',
    'Harvest',
  ],
  typeNames: ['csw:Record', 'gmd:MD_Metadata', 'csw:Record,gmd:MD_Metadata', 'x:Y'],
  elementSetName: ['brief', 'summary', 'full'],
  elementName: ['dc:title', 'dc:title,dct:abstract', 'csw:Record/dc:subject'],
  outputSchema: [
    'http://www.opengis.net/cat/csw/2.0.2',
    'http://www.opengis.net/cat/csw/3.0',
    'http://www.isotc211.org/2005/gmd',
    'http://www.w3.org/2005/Atom',
  ],
  outputFormat: ['application/xml', 'application/json', 'application/atom+xml', 'text/html'],
  resultType: ['results', 'hits', 'validate'],
  startPosition: ['1', '5', '0', '-1'],
  maxRecords: ['0', '10', 'unlimited', '100000'],
  constraintLanguage: ['CQL_TEXT', 'FILTER'],
  constraint_language_version: ['1.1.0', '2.0.0'],
  sortBy: ['dc:title:A', 'dc:date:D,dc:title', 'apiso:Modified:X'],
  id: ['urn:uuid:1', 'a,b', ''],
  namespace: ['xmlns(csw=http://www.opengis.net/cat/csw/2.0.2)', 'xmlns(http://x)', 'xmlns('],
  acceptVersions: ['3.0.0,2.0.2', '1.0.0'],
  sections: ['All', 'ServiceIdentification,Filter_Capabilities', 'Bogus'],
  acceptFormats: ['text/xml', 'application/xml'],
  parameterName: ['GetRecords.resultType', 'x.y'],
  valueReference: ['dc:type', 'dc:subject', 'nope'],
  propertyName: ['dc:type'],
  mode: ['opensearch'],
  q: ['climate', 'sea ice'],
  bbox: ['-10,40,20,60', '170,-10,-170,10'],
  recordIds: ['a,b'],
  startIndex: ['1', '0'],
  count: ['5', '-1'],
  lat: ['52'],
  lon: ['4'],
  radius: ['1000', '-5'],
  geometry: ['POINT(4 52)', 'POLYGON((0 0,1 0,1 1,0 0))', 'LINESTRING(0 0)'],
  relation: ['intersects', 'within', 'touches'],
  start: ['2000-01-01', '2020-01-01T00:00:00Z'],
  end: ['2030-01-01'],
  timeRelation: ['during', 'equals', 'before'],
  'eo:cloudCover': ['[0,20]', ']10', '{1,2}', '[5,1]'],
  'eo:platform': ['Sentinel-2A'],
  'eo:orbitNumber': ['12', '[1,2['],
};

/** CQL text constraints (for constraintLanguage=CQL_TEXT). */
const CQL_TEXT = [
  "dc:title LIKE '%sea%'",
  "AnyText = 'climate' AND BBOX(ows:BoundingBox, -10, 40, 20, 60)",
  'dc:date DURING 2000-01-01T00:00:00Z/2010-01-01T00:00:00Z',
  "eo:cloudCover < 20 OR NOT dc:type = 'service'",
  'INTERSECTS(ows:BoundingBox, POLYGON((0 0, 10 0, 10 10, 0 10, 0 0)))',
];

const FES_11 = (body: string): string =>
  `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml">${body}</ogc:Filter>`;
const FES_20 = (body: string): string =>
  `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2">${body}</fes:Filter>`;

const FES_11_BODIES = [
  '<ogc:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\"><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>%sea%</ogc:Literal></ogc:PropertyIsLike>',
  '<ogc:And><ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>dataset</ogc:Literal></ogc:PropertyIsEqualTo><ogc:BBOX><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName><gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>40 -10</gml:lowerCorner><gml:upperCorner>60 20</gml:upperCorner></gml:Envelope></ogc:BBOX></ogc:And>',
  '<ogc:Not><ogc:PropertyIsBetween><ogc:PropertyName>eo:cloudCover</ogc:PropertyName><ogc:LowerBoundary><ogc:Literal>10</ogc:Literal></ogc:LowerBoundary><ogc:UpperBoundary><ogc:Literal>30</ogc:Literal></ogc:UpperBoundary></ogc:PropertyIsBetween></ogc:Not>',
  '<ogc:DWithin><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName><gml:Point><gml:pos>52 4</gml:pos></gml:Point><ogc:Distance units="km">100</ogc:Distance></ogc:DWithin>',
];
const FES_20_BODIES = [
  '<fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\\"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>%sea%</fes:Literal></fes:PropertyIsLike>',
  '<fes:Or><fes:During><fes:ValueReference>dc:date</fes:ValueReference><gml:TimePeriod gml:id="p"><gml:beginPosition>2000-01-01</gml:beginPosition><gml:endPosition>2010-01-01</gml:endPosition></gml:TimePeriod></fes:During><fes:ResourceId rid="urn:uuid:1"/></fes:Or>',
  '<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference><gml:Polygon gml:id="g"><gml:exterior><gml:LinearRing><gml:posList>0 0 0 10 10 10 0 0</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></fes:Intersects>',
];

/** FES filters (1.1 and 2.0), as used in CSW KVP `constraint` and inside POST requests. */
export const FES_FILTERS = [...FES_11_BODIES.map(FES_11), ...FES_20_BODIES.map(FES_20)];

/** What each operation needs, so that most generated requests get past the first checks. */
const REQUIRED_KVP: Record<string, [string, string][]> = {
  GetRecords: [
    ['typeNames', 'csw:Record'],
    ['elementSetName', 'summary'],
    ['resultType', 'results'],
  ],
  GetRecordById: [['id', 'urn:uuid:1']],
  GetRepositoryItem: [['id', 'urn:uuid:1']],
  GetDomain: [['parameterName', 'GetRecords.resultType']],
};

/** A CSW KVP request: mostly known parameters with plausible values, names in random case. */
export const cswKvpQuery: fc.Arbitrary<[string, string][]> = fc
  .tuple(
    fc.constantFrom('2.0.2', '3.0.0'),
    fc.constantFrom(
      'GetRecords',
      'GetRecords',
      'GetRecordById',
      'GetCapabilities',
      'GetDomain',
      'DescribeRecord',
      'GetRepositoryItem',
    ),
    fc.array(
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .constantFrom(...Object.keys(CSW_KVP_VALUES))
            .chain((name) =>
              fc.tuple(
                fc.constant(name),
                corrupted(fc.constantFrom(...defined(CSW_KVP_VALUES[name], `values of ${name}`))),
              ),
            ),
        },
        {
          weight: 3,
          arbitrary: fc
            .tuple(
              fc.boolean(),
              corrupted(fc.constantFrom(...CQL_TEXT)),
              corrupted(fc.constantFrom(...FES_FILTERS)),
            )
            .map(([cql, text, xml]) => ['constraint', cql ? text : xml] as [string, string]),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
        },
      ),
      { maxLength: 6 },
    ),
    fc.boolean(),
  )
  .map(([version, request, extra, upper]) => {
    const base: [string, string][] = [
      ['service', 'CSW'],
      ['version', version],
      ['request', request],
      ...(REQUIRED_KVP[request] ?? []),
    ];
    // Later pairs override earlier ones of the same name (a repeated name is an error).
    const names = new Set(extra.map(([name]) => name.toLowerCase()));
    const constraint = extra.find(([name]) => name === 'constraint');
    if (constraint && !names.has('constraintlanguage')) {
      const xml = constraint[1].trimStart().startsWith('<');
      base.push(['constraintLanguage', xml ? 'FILTER' : 'CQL_TEXT']);
      if (xml)
        base.push([
          'constraint_language_version',
          constraint[1].includes('fes/2.0') ? '2.0.0' : '1.1.0',
        ]);
    }
    const all = [...base.filter(([name]) => !names.has(name.toLowerCase())), ...extra];
    return upper ? all.map(([name, value]) => [name.toUpperCase(), value]) : all;
  });

const CSW_20 =
  'xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml"';
const CSW_30 =
  'xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"';

/** CSW POST requests in both versions, every operation, filters of every family. */
export const CSW_XML_REQUESTS: readonly string[] = [
  `<csw:GetCapabilities ${CSW_20} service="CSW"><ows:AcceptVersions xmlns:ows="http://www.opengis.net/ows"><ows:Version>2.0.2</ows:Version></ows:AcceptVersions></csw:GetCapabilities>`,
  `<csw:GetCapabilities ${CSW_30} service="CSW"/>`,
  `<csw:DescribeRecord ${CSW_20} service="CSW" version="2.0.2"><csw:TypeName>csw:Record</csw:TypeName></csw:DescribeRecord>`,
  ...FES_11_BODIES.map(
    (body) =>
      `<?xml version="1.0" encoding="UTF-8"?><csw:GetRecords ${CSW_20} service="CSW" version="2.0.2" resultType="results" startPosition="1" maxRecords="5" outputSchema="http://www.opengis.net/cat/csw/2.0.2"><csw:Query typeNames="csw:Record"><csw:ElementSetName>summary</csw:ElementSetName><csw:Constraint version="1.1.0"><ogc:Filter>${body}</ogc:Filter></csw:Constraint><ogc:SortBy><ogc:SortProperty><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder></ogc:SortProperty></ogc:SortBy></csw:Query></csw:GetRecords>`,
  ),
  ...FES_20_BODIES.map(
    (body) =>
      `<csw:GetRecords ${CSW_30} service="CSW" version="3.0.0" startPosition="1" maxRecords="5"><csw:Query typeNames="csw:Record"><csw:ElementName>dc:title</csw:ElementName><csw:Constraint version="2.0.0"><fes:Filter>${body}</fes:Filter></csw:Constraint></csw:Query></csw:GetRecords>`,
  ),
  `<csw:GetRecords ${CSW_20} service="CSW" version="2.0.2" resultType="hits"><csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName><csw:Constraint version="1.1.0"><csw:CqlText>${CQL_TEXT[1]}</csw:CqlText></csw:Constraint></csw:Query></csw:GetRecords>`,
  `<csw:GetRecordById ${CSW_20} service="CSW" version="2.0.2" outputSchema="http://www.isotc211.org/2005/gmd"><csw:Id>urn:uuid:1</csw:Id><csw:Id>b</csw:Id><csw:ElementSetName>full</csw:ElementSetName></csw:GetRecordById>`,
  `<csw:GetRecordById ${CSW_30} service="CSW" version="3.0.0"><csw:Id>urn:uuid:1</csw:Id></csw:GetRecordById>`,
  `<csw:GetDomain ${CSW_20} service="CSW" version="2.0.2"><csw:PropertyName>dc:type</csw:PropertyName></csw:GetDomain>`,
  `<csw:GetDomain ${CSW_30} service="CSW" version="3.0.0"><csw:ValueReference>dc:subject</csw:ValueReference></csw:GetDomain>`,
];

/** CSW POST bodies: the requests above mutated structurally, and the unmutated ones. */
export function cswXmlRequest(
  requests: readonly string[] = CSW_XML_REQUESTS,
): fc.Arbitrary<string> {
  const mutators = requests.map(mutateXml);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...requests) },
    {
      weight: 5,
      arbitrary: fc
        .nat({ max: mutators.length - 1 })
        .chain((i) => defined(mutators[i], `mutator ${i}`)),
    },
  );
}
