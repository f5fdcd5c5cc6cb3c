import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { parseFesFilter } from '../../../shared/query/fes/index.js';
import { casei, expectError, fes20, lit, op, prop } from './fes-helpers.js';

const period = (begin: string, end: string): string => `<gml:TimePeriod gml:id="TP1">
  <gml:beginPosition>${begin}</gml:beginPosition><gml:endPosition>${end}</gml:endPosition>
</gml:TimePeriod>`;
const instant = (value: string): string =>
  `<gml:TimeInstant gml:id="TI1"><gml:timePosition>${value}</gml:timePosition></gml:TimeInstant>`;
const temporal = (element: string, operand: string, property = 'apiso:TempExtent_begin'): string =>
  fes20(
    `<fes:${element}><fes:ValueReference>${property}</fes:ValueReference>${operand}</fes:${element}>`,
  );

const interval = (start: Expression, end: Expression): Expression => ({
  kind: 'interval',
  start,
  end,
});
const ts = (value: string): Expression => ({ kind: 'timestamp', value });
const date = (value: string): Expression => ({ kind: 'date', value });

describe('FES 2.0 (fes:Filter, CSW 3.0)', () => {
  describe('comparisons and ValueReference', () => {
    it('PropertyIsEqualTo with ValueReference (CITE ets-cat30 style)', () => {
      const xml = fes20(`<fes:PropertyIsEqualTo>
        <fes:ValueReference>dc:type</fes:ValueReference><fes:Literal>http://purl.org/dc/dcmitype/Image</fes:Literal>
      </fes:PropertyIsEqualTo>`);
      expect(parseFesFilter(xml, '2.0')).to.deep.equal(
        op('=', prop('dc:type'), lit('http://purl.org/dc/dcmitype/Image')),
      );
    });

    const cases: Array<[string, string]> = [
      ['PropertyIsNotEqualTo', '<>'],
      ['PropertyIsLessThan', '<'],
      ['PropertyIsGreaterThan', '>'],
      ['PropertyIsLessThanOrEqualTo', '<='],
      ['PropertyIsGreaterThanOrEqualTo', '>='],
    ];
    for (const [element, name] of cases) {
      it(`${element} → ${name}, with matchCase="false" → CASEI`, () => {
        const xml = fes20(`<fes:${element} matchCase="false" matchAction="Any">
          <fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>Lorem</fes:Literal>
        </fes:${element}>`);
        expect(parseFesFilter(xml)).to.deep.equal(
          op(name, casei(prop('dc:title')), casei(lit('Lorem'))),
        );
      });
    }

    it('refuses an unknown matchAction', () => {
      const xml = fes20(`<fes:PropertyIsEqualTo matchAction="Some">
        <fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>x</fes:Literal>
      </fes:PropertyIsEqualTo>`);
      expectError(() => parseFesFilter(xml), FilterError, 'matchAction="Some"');
    });

    it('PropertyIsLike with escapeChar and matchCase', () => {
      const xml =
        fes20(`<fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="\\" matchCase="false">
        <fes:ValueReference>csw:AnyText</fes:ValueReference><fes:Literal>*fuscé.land\\.*</fes:Literal>
      </fes:PropertyIsLike>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('like', casei(prop('csw:AnyText')), casei(lit('%fuscé_land.%'))),
      );
    });

    it('PropertyIsNull and PropertyIsNil → isNull', () => {
      expect(
        parseFesFilter(
          fes20(
            '<fes:PropertyIsNull><fes:ValueReference>dc:rights</fes:ValueReference></fes:PropertyIsNull>',
          ),
        ),
      ).to.deep.equal(op('isNull', prop('dc:rights')));
      expect(
        parseFesFilter(
          fes20(
            '<fes:PropertyIsNil nilReason="missing"><fes:ValueReference>dc:rights</fes:ValueReference></fes:PropertyIsNil>',
          ),
        ),
      ).to.deep.equal(op('isNull', prop('dc:rights')));
    });

    it('PropertyIsBetween with a numeric queryable', () => {
      const xml = fes20(`<fes:PropertyIsBetween>
        <fes:ValueReference>eo:snowCover</fes:ValueReference>
        <fes:LowerBoundary><fes:Literal>0</fes:Literal></fes:LowerBoundary>
        <fes:UpperBoundary><fes:Literal>15</fes:Literal></fes:UpperBoundary>
      </fes:PropertyIsBetween>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('between', prop('eo:snowCover'), lit(0), lit(15)),
      );
    });

    it('fes:Function with nested arguments', () => {
      const xml = fes20(`<fes:PropertyIsEqualTo>
        <fes:Function name="substring"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>0</fes:Literal><fes:Literal>5</fes:Literal></fes:Function>
        <fes:Literal>Lorem</fes:Literal>
      </fes:PropertyIsEqualTo>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('=', op('substring', prop('dc:title'), lit('0'), lit('5')), lit('Lorem')),
      );
    });

    it('refuses FES 1.1 arithmetic inside a FES 2.0 filter', () => {
      const xml = fes20(`<fes:PropertyIsEqualTo>
        <fes:Add><fes:Literal>1</fes:Literal><fes:Literal>2</fes:Literal></fes:Add><fes:Literal>3</fes:Literal>
      </fes:PropertyIsEqualTo>`);
      expectError(() => parseFesFilter(xml), FilterError, 'fes:Add', 'only in FES 1.1');
    });
  });

  describe('logic and identifiers', () => {
    it('ResourceId elements → id IN (…), also inside Or (allowed in FES 2.0)', () => {
      expect(
        parseFesFilter(
          fes20(
            '<fes:ResourceId rid="urn:uuid:a06af396-3105-442d-8b40-22b57a90d2f2"/><fes:ResourceId rid="urn:uuid:829babb0"/>',
          ),
        ),
      ).to.deep.equal(
        op('in', prop('id'), {
          kind: 'array',
          items: [lit('urn:uuid:a06af396-3105-442d-8b40-22b57a90d2f2'), lit('urn:uuid:829babb0')],
        }),
      );
      const mixed = fes20(`<fes:Or>
        <fes:ResourceId rid="a"/><fes:ResourceId rid="b"/>
        <fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>t</fes:Literal></fes:PropertyIsEqualTo>
        <fes:ResourceId rid="c"/>
      </fes:Or>`);
      expect(parseFesFilter(mixed)).to.deep.equal(
        op(
          'or',
          op('in', prop('id'), { kind: 'array', items: [lit('a'), lit('b')] }),
          op('=', prop('dc:title'), lit('t')),
          op('in', prop('id'), { kind: 'array', items: [lit('c')] }),
        ),
      );
    });

    it('refuses ogc:FeatureId written in the fes namespace', () => {
      expectError(
        () => parseFesFilter(fes20('<fes:FeatureId fid="a"/>')),
        FilterError,
        'fes:FeatureId',
        'only in FES 1.1',
      );
    });

    it('And / Not with ValueReference', () => {
      const xml = fes20(`<fes:And>
        <fes:Not><fes:PropertyIsNull><fes:ValueReference>dc:subject</fes:ValueReference></fes:PropertyIsNull></fes:Not>
        <fes:PropertyIsLessThan><fes:ValueReference>eo:cloudCover</fes:ValueReference><fes:Literal>10</fes:Literal></fes:PropertyIsLessThan>
      </fes:And>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          'and',
          op('not', op('isNull', prop('dc:subject'))),
          op('<', prop('eo:cloudCover'), lit(10)),
        ),
      );
    });
  });

  describe('spatial operators over GML 3.2', () => {
    it('BBOX with an EPSG:4326 HTTP URI envelope (lat/lon) → lon/lat BBOX', () => {
      const xml = fes20(`<fes:BBOX>
        <fes:ValueReference>ows:BoundingBox</fes:ValueReference>
        <gml:Envelope srsName="http://www.opengis.net/def/crs/EPSG/0/4326">
          <gml:lowerCorner>44.79 -6.17</gml:lowerCorner><gml:upperCorner>68.41 17.92</gml:upperCorner>
        </gml:Envelope>
      </fes:BBOX>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('ows:BoundingBox'), {
          kind: 'bbox',
          bbox: [-6.17, 44.79, 17.92, 68.41],
        }),
      );
    });

    it('Intersects with a gml:Polygon inside a fes:Literal', () => {
      const xml = fes20(`<fes:Intersects>
        <fes:ValueReference>ows:BoundingBox</fes:ValueReference>
        <fes:Literal><gml:Polygon gml:id="P1" srsName="urn:ogc:def:crs:OGC:1.3:CRS84">
          <gml:exterior><gml:LinearRing><gml:posList>0 0 10 0 10 10 0 10 0 0</gml:posList></gml:LinearRing></gml:exterior>
        </gml:Polygon></fes:Literal>
      </fes:Intersects>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('ows:BoundingBox'), {
          kind: 'geometry',
          geometry: {
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
        }),
      );
    });

    it('DWithin with fes:Distance uom', () => {
      const xml = fes20(`<fes:DWithin>
        <fes:ValueReference>ows:BoundingBox</fes:ValueReference>
        <gml:Point gml:id="P1" srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>-33.9 18.4</gml:pos></gml:Point>
        <fes:Distance uom="km">25</fes:Distance>
      </fes:DWithin>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          's_dwithin',
          prop('ows:BoundingBox'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [18.4, -33.9] } },
          lit(25000),
          lit('m'),
        ),
      );
    });
  });

  describe('temporal operators', () => {
    const p = period('2006-03-26T00:00:00Z', '2006-12-31T23:59:59.500Z');
    const pLiteral = interval(ts('2006-03-26T00:00:00Z'), ts('2006-12-31T23:59:59.5Z'));
    const periodCases: Array<[string, string]> = [
      ['Begins', 't_starts'],
      ['BegunBy', 't_startedBy'],
      ['TContains', 't_contains'],
      ['During', 't_during'],
      ['EndedBy', 't_finishedBy'],
      ['Ends', 't_finishes'],
      ['TEquals', 't_equals'],
      ['Meets', 't_meets'],
      ['MetBy', 't_metBy'],
      ['TOverlaps', 't_overlaps'],
      ['OverlappedBy', 't_overlappedBy'],
      ['AnyInteracts', 't_intersects'],
      ['After', 't_after'],
      ['Before', 't_before'],
    ];
    for (const [element, name] of periodCases) {
      it(`${element} over a gml:TimePeriod → ${name} with an INTERVAL`, () => {
        expect(parseFesFilter(temporal(element, p))).to.deep.equal(
          op(name, prop('apiso:TempExtent_begin'), pLiteral),
        );
      });
    }

    const instantCases: Array<[string, string]> = [
      ['After', 't_after'],
      ['Before', 't_before'],
      ['TEquals', 't_equals'],
      ['AnyInteracts', 't_intersects'],
    ];
    for (const [element, name] of instantCases) {
      it(`${element} over a gml:TimeInstant → ${name} with a TIMESTAMP`, () => {
        expect(
          parseFesFilter(temporal(element, instant('2006-05-01T12:30:00+02:00'), 'dct:modified')),
        ).to.deep.equal(op(name, prop('dct:modified'), ts('2006-05-01T10:30:00Z')));
      });
    }

    it('a date-only time position stays a DATE; no zone means UTC', () => {
      expect(parseFesFilter(temporal('After', instant('2006-05-01')))).to.deep.equal(
        op('t_after', prop('apiso:TempExtent_begin'), date('2006-05-01')),
      );
      expect(parseFesFilter(temporal('Before', instant('2006-05-01T08:00:00')))).to.deep.equal(
        op('t_before', prop('apiso:TempExtent_begin'), ts('2006-05-01T08:00:00Z')),
      );
    });

    it('an unknown end (indeterminatePosition="unknown") is open', () => {
      const open = `<gml:TimePeriod gml:id="TP"><gml:beginPosition>2010-01-01</gml:beginPosition>
        <gml:endPosition indeterminatePosition="unknown"/></gml:TimePeriod>`;
      expect(parseFesFilter(temporal('During', open))).to.deep.equal(
        op('t_during', prop('apiso:TempExtent_begin'), interval(date('2010-01-01'), lit('..'))),
      );
    });

    it('reads begin/end TimeInstant forms of a TimePeriod', () => {
      const nested = `<gml:TimePeriod gml:id="TP">
        <gml:begin><gml:TimeInstant gml:id="b"><gml:timePosition>2001-01-01</gml:timePosition></gml:TimeInstant></gml:begin>
        <gml:end><gml:TimeInstant gml:id="e"><gml:timePosition>2002-01-01</gml:timePosition></gml:TimeInstant></gml:end>
      </gml:TimePeriod>`;
      expect(parseFesFilter(temporal('AnyInteracts', nested))).to.deep.equal(
        op(
          't_intersects',
          prop('apiso:TempExtent_begin'),
          interval(date('2001-01-01'), date('2002-01-01')),
        ),
      );
    });

    it('accepts a GML 3.1.1 TimeInstant, and a time string in a fes:Literal', () => {
      const gml311 = `<gml31:TimeInstant xmlns:gml31="http://www.opengis.net/gml"><gml31:timePosition>2001-01-01T00:00:00Z</gml31:timePosition></gml31:TimeInstant>`;
      expect(parseFesFilter(temporal('After', gml311))).to.deep.equal(
        op('t_after', prop('apiso:TempExtent_begin'), ts('2001-01-01T00:00:00Z')),
      );
      expect(
        parseFesFilter(temporal('Before', '<fes:Literal>2001-01-01T00:00:00Z</fes:Literal>')),
      ).to.deep.equal(op('t_before', prop('apiso:TempExtent_begin'), ts('2001-01-01T00:00:00Z')));
    });

    it('refuses instants for interval-only operators, bad times and reversed periods', () => {
      expectError(
        () => parseFesFilter(temporal('During', instant('2006-05-01'))),
        FilterError,
        'gml:TimePeriod',
      );
      expectError(
        () => parseFesFilter(temporal('After', instant('yesterday'))),
        FilterError,
        '"yesterday"',
      );
      expectError(
        () => parseFesFilter(temporal('After', instant('2006-02-30'))),
        FilterError,
        '2006-02-30',
      );
      expectError(
        () => parseFesFilter(temporal('During', period('2007-01-01', '2006-01-01'))),
        FilterError,
        'begins after it ends',
      );
      expectError(
        () =>
          parseFesFilter(
            temporal(
              'After',
              '<gml:TimeInstant><gml:timePosition indeterminatePosition="now"/></gml:TimeInstant>',
            ),
          ),
        FilterError,
        'indeterminatePosition "now"',
      );
      expectError(
        () => parseFesFilter(temporal('After', '<fes:Literal>not a time</fes:Literal>')),
        FilterError,
        '"not a time"',
      );
    });

    it('refuses temporal operators in a FES 1.1 filter', () => {
      const xml = `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml">
        <ogc:During><ogc:PropertyName>a</ogc:PropertyName>${period('2001-01-01', '2002-01-01')}</ogc:During></ogc:Filter>`;
      expectError(() => parseFesFilter(xml), FilterError, 'ogc:During', 'only in FES 2.0');
    });
  });
});
