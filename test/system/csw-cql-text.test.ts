/**
 * CSW constraints in CQL_TEXT (OGC CQL) over HTTP, on the OGC CITE Dublin Core records: every
 * case in CSW 3.0 and 2.0.2, by GET (KVP CONSTRAINT) and POST (csw:CqlText), must select
 * exactly the records the case names — read off the sample files, not off another query.
 * Comparison, LIKE/ILIKE, BETWEEN/IN/IS NULL, BBOX and the spatial functions, BEFORE/AFTER/
 * DURING, AND/OR/NOT and csw:AnyText; bad CQL is an InvalidParameterValue ExceptionReport
 * located at the constraint, in the request's version. Runs on SQLite and on the engines.
 */
import { expect } from 'chai';
import { createCiteAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  cswGet,
  cswPost,
  exceptionOf,
  getRecords202,
  getRecords30,
  NS,
  searchResultsOf,
} from '../support/csw-client.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import type { TestApp } from '../support/test-app.js';

const DCMI = 'http://purl.org/dc/dcmitype/';

/** The CITE records by the first block of their UUID (what each one holds, for the cases). */
const CITE = {
  // Image, "Lorem ipsum", subject Tourism--Greece
  '19887a8a': 'urn:uuid:19887a8a-f6b0-4a63-ae56-7fba0e17801f',
  // Service, no title, box lat 60.042–68.41 lon 13.754–17.92
  '1ef30a8b': 'urn:uuid:1ef30a8b-876d-4828-9246-c37ab4510bbd',
  // Text, "Maecenas enim"
  '66ae76b7': 'urn:uuid:66ae76b7-54ba-489b-a582-0f0633d96493',
  // Service, "Ut facilisis justo ut lacus", subject Vegetation
  '6a3de50b': 'urn:uuid:6a3de50b-fa66-4b58-a0e6-ca146fdd18d4',
  // Text, "Aliquam fermentum purus quis arcu", date 2006-05-12
  '784e2afd': 'urn:uuid:784e2afd-a9fd-44a6-9a92-a3848371c8ec',
  // Image, "Vestibulum massa purus"
  '829babb0': 'urn:uuid:829babb0-b2f1-49e1-8cd5-7b489fe71a1e',
  // Dataset, no title
  '88247b56': 'urn:uuid:88247b56-4cbc-4df9-9860-db3f8042e357',
  // Dataset, "Mauris sed neque", date 2006-03-26, box lat 47.595–51.217 lon -4.097–0.889
  '94bc9c83': 'urn:uuid:94bc9c83-97f6-4b40-9eb8-a8e8787a5c63',
  // Dataset, "Ñunç elementum", date 2005-10-24, box lat 44.792–51.126 lon -6.171–-2.228
  '9a669547': 'urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc',
  // Image, "Lorem ipsum dolor sit amet"
  a06af396: 'urn:uuid:a06af396-3105-442d-8b40-22b57a90d2f2',
  // Service, no title
  ab42a8c4: 'urn:uuid:ab42a8c4-95e8-4630-bf79-33e59241605a',
  // Text, "Fuscé vitae ligulä", date 2003-05-09, subject Land titles
  e9330592: 'urn:uuid:e9330592-0932-474b-be34-c3a3bb67c7db',
} as const;
type Short = keyof typeof CITE;
const ALL = Object.keys(CITE) as Short[];
const except = (...excluded: Short[]): Short[] => ALL.filter((id) => !excluded.includes(id));

interface Case {
  title: string;
  cql: string;
  expected: Short[];
}

const CASES: Case[] = [
  // Comparison.
  {
    title: 'equality on dc:type',
    cql: `dc:type = '${DCMI}Image'`,
    expected: ['19887a8a', '829babb0', 'a06af396'],
  },
  {
    title: 'inequality (<> and !=)',
    cql: `dc:type <> '${DCMI}Image' AND dc:type != '${DCMI}Text'`,
    expected: ['1ef30a8b', '6a3de50b', '88247b56', '94bc9c83', '9a669547', 'ab42a8c4'],
  },
  {
    title: 'dc:date >= a quoted date',
    cql: "dc:date >= '2005-01-01'",
    expected: ['784e2afd', '94bc9c83', '9a669547'],
  },
  { title: 'dc:date < a bare date', cql: 'dc:date < 2005-01-01', expected: ['e9330592'] },
  {
    title: 'BETWEEN on text',
    cql: "dc:title BETWEEN 'M' AND 'Mz'",
    expected: ['66ae76b7', '94bc9c83'],
  },
  {
    title: 'IN a list',
    cql: `dc:type IN ('${DCMI}Service', '${DCMI}Dataset')`,
    expected: ['1ef30a8b', '6a3de50b', 'ab42a8c4', '88247b56', '94bc9c83', '9a669547'],
  },
  {
    title: 'IS NULL',
    cql: 'dc:title IS NULL',
    expected: ['1ef30a8b', '88247b56', 'ab42a8c4'],
  },
  {
    title: 'list-valued dc:subject compares by membership',
    cql: "dc:subject = 'Vegetation'",
    expected: ['6a3de50b'],
  },
  // Text.
  { title: 'LIKE', cql: "dc:title LIKE 'Lorem%'", expected: ['19887a8a', 'a06af396'] },
  { title: 'LIKE with _', cql: "dc:title LIKE 'Lorem ipsu_'", expected: ['19887a8a'] },
  { title: 'ILIKE', cql: "dc:title ILIKE 'lOREM%'", expected: ['19887a8a', 'a06af396'] },
  {
    title: 'NOT LIKE (records without a title are unknown, not selected)',
    cql: "dc:title NOT LIKE 'Lorem%'",
    expected: except('19887a8a', 'a06af396', '1ef30a8b', '88247b56', 'ab42a8c4'),
  },
  {
    title: 'csw:AnyText LIKE as accent-insensitive free text',
    cql: "csw:AnyText LIKE '%fusce%'",
    expected: ['e9330592'],
  },
  // Spatial.
  {
    title: 'classic BBOX (longitude first)',
    cql: 'BBOX(ows:BoundingBox, -6.17, 44.79, 17.92, 68.41)',
    expected: ['1ef30a8b', '94bc9c83', '9a669547'],
  },
  {
    title: "BBOX with 'urn:ogc:def:crs:EPSG::4326' (latitude first)",
    cql: "BBOX(ows:BoundingBox, 55, 10, 70, 20, 'urn:ogc:def:crs:EPSG::4326')",
    expected: ['1ef30a8b'],
  },
  {
    title: 'INTERSECTS a WKT polygon',
    cql: 'INTERSECTS(ows:BoundingBox, POLYGON((-3 45, 2 45, 2 52, -3 52, -3 45)))',
    expected: ['94bc9c83', '9a669547'],
  },
  {
    title: 'WITHIN a WKT polygon',
    cql: 'WITHIN(apiso:BoundingBox, POLYGON((-5 47, 1 47, 1 52, -5 52, -5 47)))',
    expected: ['94bc9c83'],
  },
  {
    title: 'DISJOINT (records without a box are unknown, not selected)',
    cql: 'DISJOINT(ows:BoundingBox, POLYGON((10 55, 20 55, 20 70, 10 70, 10 55)))',
    expected: ['94bc9c83', '9a669547'],
  },
  // Temporal.
  {
    title: 'DURING a period',
    cql: 'dc:date DURING 2006-01-01T00:00:00Z/2006-12-31T23:59:59Z',
    expected: ['784e2afd', '94bc9c83'],
  },
  {
    title: 'DURING a start and a duration',
    cql: 'dc:date DURING 2006-03-01T00:00:00Z/P1M',
    expected: ['94bc9c83'],
  },
  {
    title: 'AFTER an instant',
    cql: 'dc:date AFTER 2006-01-01T00:00:00Z',
    expected: ['784e2afd', '94bc9c83'],
  },
  {
    title: 'BEFORE an instant',
    cql: 'dc:date BEFORE 2005-01-01T00:00:00Z',
    expected: ['e9330592'],
  },
  {
    title: 'BEFORE OR DURING a period',
    cql: "dc:date BEFORE OR DURING '2005-01-01T00:00:00Z/2005-12-31T23:59:59Z'",
    expected: ['9a669547', 'e9330592'],
  },
  // Logic.
  {
    title: 'AND',
    cql: `dc:type = '${DCMI}Image' AND dc:title LIKE 'Lorem%'`,
    expected: ['19887a8a', 'a06af396'],
  },
  {
    title: 'OR',
    cql: `dc:type = '${DCMI}Image' OR dc:title LIKE 'Fusc%'`,
    expected: ['19887a8a', '829babb0', 'a06af396', 'e9330592'],
  },
  {
    title: 'NOT over a parenthesised OR',
    cql: `NOT (dc:type = '${DCMI}Image' OR dc:type = '${DCMI}Text')`,
    expected: ['1ef30a8b', '6a3de50b', 'ab42a8c4', '88247b56', '94bc9c83', '9a669547'],
  },
  {
    title: 'AND binds tighter than OR; spatial, temporal and text mixed',
    cql: `dc:type = '${DCMI}Dataset' AND BBOX(ows:BoundingBox, -10, 40, 20, 70) OR dc:subject = 'Land titles' AND dc:date BEFORE 2004-01-01T00:00:00Z`,
    expected: ['94bc9c83', '9a669547', 'e9330592'],
  },
  {
    title: 'AnyText ANDed with other predicates',
    cql: `csw:AnyText LIKE '%lorem%' AND NOT dc:type = '${DCMI}Image'`,
    expected: ['88247b56', '94bc9c83', 'ab42a8c4'],
  },
];

/** A CQL text as the content of an XML element. */
function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function postBody(version: '2.0.2' | '3.0.0', cql: string): string {
  const namespace = version === '2.0.2' ? NS.csw202 : NS.csw30;
  const resultType = version === '2.0.2' ? ' resultType="results"' : '';
  return `<csw:GetRecords xmlns:csw="${namespace}" service="CSW" version="${version}"${resultType} maxRecords="50">
    <csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName>
    <csw:Constraint version="1.1.0"><csw:CqlText>${xmlEscape(cql)}</csw:CqlText></csw:Constraint>
    </csw:Query></csw:GetRecords>`;
}

const TRANSPORTS = [
  { name: '3.0 GET', version: '3.0.0', post: false },
  { name: '2.0.2 GET', version: '2.0.2', post: false },
  { name: '3.0 POST', version: '3.0.0', post: true },
  { name: '2.0.2 POST', version: '2.0.2', post: true },
] as const;

function describeCqlText(backend: SuiteBackend): void {
  describe(`CSW CQL_TEXT constraints over HTTP on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    const documents: Record<
      Extract<CswSchema, 'csw-2.0.2' | 'csw-3.0'>,
      { name: string; xml: string }[]
    > = {
      'csw-2.0.2': [],
      'csw-3.0': [],
    };

    before(async function () {
      test = await createCiteAppOn(backend);
    });
    after(async () => {
      await test?.close();
    });

    const send = (transport: (typeof TRANSPORTS)[number], cql: string) => {
      if (transport.post) return cswPost(test.app, postBody(transport.version, cql));
      const kvp = { constraintLanguage: 'CQL_TEXT', constraint: cql, maxRecords: '50' };
      return cswGet(
        test.app,
        transport.version === '3.0.0' ? getRecords30(kvp) : getRecords202(kvp),
      );
    };

    for (const item of CASES) {
      it(`${item.title}: ${item.cql}`, async () => {
        const expected = item.expected.map((id) => CITE[id]).sort();
        for (const transport of TRANSPORTS) {
          const response = await send(transport, item.cql);
          expect(response.status, `${transport.name}: ${response.text}`).to.equal(200);
          const results = searchResultsOf(response.text);
          expect([...results.ids].sort(), transport.name).to.deep.equal(expected);
          expect(results.matched, transport.name).to.equal(expected.length);
          documents[transport.version === '2.0.2' ? 'csw-2.0.2' : 'csw-3.0'].push({
            name: `${transport.name} ${item.cql}`,
            xml: response.text,
          });
        }
      });
    }

    it('is ANDed with the 3.0 q and bbox shortcuts', async () => {
      const response = await cswGet(
        test.app,
        getRecords30({
          q: 'purus',
          bbox: '-10,40,20,70',
          constraintLanguage: 'CQL_TEXT',
          constraint: `dc:type = '${DCMI}Dataset'`,
        }),
      ).expect(200);
      expect(searchResultsOf(response.text).ids).to.deep.equal([]);
      const wider = await cswGet(
        test.app,
        getRecords30({ q: 'purus', constraintLanguage: 'CQL_TEXT', constraint: 'INCLUDE' }),
      ).expect(200);
      expect(searchResultsOf(wider.text).ids.sort()).to.deep.equal(
        [CITE['784e2afd'], CITE['829babb0']].sort(),
      );
    });

    describe('bad CQL is an InvalidParameterValue at the constraint, in the request version', () => {
      const BAD: { title: string; cql: string; code: string; text: RegExp }[] = [
        {
          title: 'a syntax error',
          cql: "dc:title LIKE 'x' AND",
          code: 'InvalidParameterValue',
          text: /^Invalid CQL text at line 1, column 22: /,
        },
        {
          title: 'an unclosed string',
          cql: "dc:title = 'x",
          code: 'InvalidParameterValue',
          text: /not closed/,
        },
        {
          title: 'a name that is no queryable',
          cql: "dc:colour = 'red'",
          code: 'InvalidParameterValue',
          text: /"dc:colour" is not a queryable/,
        },
        {
          title: 'a period that ends before it starts',
          cql: 'dc:date DURING 2006-12-31T00:00:00Z/2006-01-01T00:00:00Z',
          code: 'InvalidParameterValue',
          text: /ends before it starts/,
        },
        {
          title: 'a BBOX in a CRS other than WGS 84',
          cql: "BBOX(ows:BoundingBox, 0, 0, 10, 10, 'EPSG:3857')",
          code: 'InvalidParameterValue',
          text: /EPSG:3857/,
        },
        {
          title: 'AnyText with an operator other than = or LIKE',
          cql: "csw:AnyText < 'x'",
          code: 'InvalidParameterValue',
          text: /csw:AnyText/,
        },
        {
          title: 'LIKE on the list-valued dc:subject (OptionNotSupported)',
          cql: "dc:subject LIKE 'Veg%'",
          code: 'OptionNotSupported',
          text: /dc:subject|keywords/,
        },
      ];
      for (const item of BAD) {
        it(`${item.title}: ${item.cql}`, async () => {
          for (const transport of TRANSPORTS) {
            const response = await send(transport, item.cql);
            const status = item.code === 'OptionNotSupported' ? 501 : 400;
            expect(response.status, `${transport.name}: ${response.text}`).to.equal(status);
            const report = exceptionOf(response.text);
            expect(report, transport.name).to.include({
              code: item.code,
              locator: 'Constraint',
              version: transport.version,
              ns: transport.version === '2.0.2' ? NS.ows : NS.ows20,
            });
            expect(report.text, transport.name).to.match(item.text);
            documents[transport.version === '2.0.2' ? 'csw-2.0.2' : 'csw-3.0'].push({
              name: `${transport.name} ${item.cql}`,
              xml: response.text,
            });
          }
        });
      }
    });

    describe('schema validation', () => {
      before(function () {
        requireXmllint();
      });
      for (const schema of ['csw-2.0.2', 'csw-3.0'] as const) {
        it(`every ${schema} response of this suite validates`, () => {
          expect(documents[schema].length).to.be.greaterThan(20);
          const invalid = validateCsw(schema, documents[schema]).filter((result) => !result.valid);
          expect(invalid, JSON.stringify(invalid, null, 1)).to.deep.equal([]);
        });
      }
    });
  });
}

for (const backend of suiteBackends()) describeCqlText(backend);
