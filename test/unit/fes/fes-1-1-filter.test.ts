import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { parseFesFilter } from '../../../shared/query/fes/index.js';
import { parseXml } from '../../../shared/xml/index.js';
import { casei, expectError, fes11, lit, op, prop } from './fes-helpers.js';
import { defined } from '../../support/defined.js';

const comparison = (name: string, property: string, value: string, attributes = ''): string =>
  fes11(`<ogc:${name}${attributes}>
    <ogc:PropertyName>${property}</ogc:PropertyName>
    <ogc:Literal>${value}</ogc:Literal>
  </ogc:${name}>`);

describe('FES 1.1 (ogc:Filter, CSW 2.0.2)', () => {
  describe('binary comparisons', () => {
    const cases: Array<[string, string]> = [
      ['PropertyIsEqualTo', '='],
      ['PropertyIsNotEqualTo', '<>'],
      ['PropertyIsLessThan', '<'],
      ['PropertyIsGreaterThan', '>'],
      ['PropertyIsLessThanOrEqualTo', '<='],
      ['PropertyIsGreaterThanOrEqualTo', '>='],
    ];
    for (const [element, name] of cases) {
      it(`${element} → ${name} with the property name as written and a string literal`, () => {
        expect(parseFesFilter(comparison(element, 'dc:title', 'Lorem ipsum'))).to.deep.equal(
          op(name, prop('dc:title'), lit('Lorem ipsum')),
        );
      });
    }

    it('keeps literals as strings for unregistered or text properties', () => {
      expect(
        parseFesFilter(comparison('PropertyIsEqualTo', 'dc:identifier', '0042')),
      ).to.deep.equal(op('=', prop('dc:identifier'), lit('0042')));
      expect(parseFesFilter(comparison('PropertyIsEqualTo', 'my:thing', '12'))).to.deep.equal(
        op('=', prop('my:thing'), lit('12')),
      );
    });

    it('types literals as numbers against numeric queryables (eo:cloudCover, apiso:CloudCover)', () => {
      expect(
        parseFesFilter(comparison('PropertyIsLessThan', 'apiso:CloudCover', ' 12.5 ')),
      ).to.deep.equal(op('<', prop('apiso:CloudCover'), lit(12.5)));
      expect(
        parseFesFilter(comparison('PropertyIsEqualTo', 'eo:orbitNumber', '1e3')),
      ).to.deep.equal(op('=', prop('eo:orbitNumber'), lit(1000)));
    });

    it('types the literal even when it comes first', () => {
      const xml = fes11(`<ogc:PropertyIsLessThan>
        <ogc:Literal>30</ogc:Literal><ogc:PropertyName>eo:cloudCover</ogc:PropertyName>
      </ogc:PropertyIsLessThan>`);
      expect(parseFesFilter(xml)).to.deep.equal(op('<', lit(30), prop('eo:cloudCover')));
    });

    it('refuses a non-numeric literal against a numeric queryable', () => {
      expectError(
        () => parseFesFilter(comparison('PropertyIsEqualTo', 'eo:cloudCover', 'cloudy')),
        FilterError,
        '"cloudy" is not a number',
        'eo:cloudCover',
      );
    });

    it('types literals as DATE / TIMESTAMP against datetime queryables (apiso:Modified)', () => {
      expect(
        parseFesFilter(
          comparison('PropertyIsGreaterThanOrEqualTo', 'apiso:Modified', '2004-03-01'),
        ),
      ).to.deep.equal(op('>=', prop('apiso:Modified'), { kind: 'date', value: '2004-03-01' }));
      expect(
        parseFesFilter(
          comparison('PropertyIsLessThan', 'dct:modified', '2004-03-01T12:00:00+02:00'),
        ),
      ).to.deep.equal(
        op('<', prop('dct:modified'), { kind: 'timestamp', value: '2004-03-01T10:00:00Z' }),
      );
      // Not a date: left as text for the backend to compare.
      expect(
        parseFesFilter(comparison('PropertyIsEqualTo', 'apiso:Modified', '2004')),
      ).to.deep.equal(op('=', prop('apiso:Modified'), lit('2004')));
    });

    it('matchCase="false" wraps both sides in CASEI', () => {
      expect(
        parseFesFilter(
          comparison('PropertyIsEqualTo', 'dc:title', 'Maecenas', ' matchCase="false"'),
        ),
      ).to.deep.equal(op('=', casei(prop('dc:title')), casei(lit('Maecenas'))));
    });

    it('matchCase="true" (and "1") is the default exact comparison', () => {
      const expected = op('<>', prop('dc:title'), lit('Maecenas'));
      expect(
        parseFesFilter(
          comparison('PropertyIsNotEqualTo', 'dc:title', 'Maecenas', ' matchCase="true"'),
        ),
      ).to.deep.equal(expected);
      expect(
        parseFesFilter(
          comparison('PropertyIsNotEqualTo', 'dc:title', 'Maecenas', ' matchCase="1"'),
        ),
      ).to.deep.equal(expected);
    });

    it('ignores matchCase="false" for numeric and date comparisons', () => {
      expect(
        parseFesFilter(comparison('PropertyIsEqualTo', 'eo:cloudCover', '5', ' matchCase="false"')),
      ).to.deep.equal(op('=', prop('eo:cloudCover'), lit(5)));
      expect(
        parseFesFilter(
          comparison('PropertyIsEqualTo', 'apiso:Modified', '2004-03-01', ' matchCase="false"'),
        ),
      ).to.deep.equal(op('=', prop('apiso:Modified'), { kind: 'date', value: '2004-03-01' }));
    });

    it('refuses a matchCase that is not a boolean', () => {
      expectError(
        () =>
          parseFesFilter(comparison('PropertyIsEqualTo', 'dc:title', 'x', ' matchCase="maybe"')),
        FilterError,
        'matchCase="maybe"',
      );
    });

    it('refuses a comparison with one operand or three', () => {
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:PropertyIsEqualTo><ogc:PropertyName>dc:title</ogc:PropertyName></ogc:PropertyIsEqualTo>',
            ),
          ),
        FilterError,
        'ogc:PropertyIsEqualTo',
        'exactly 2',
      );
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:PropertyIsEqualTo><ogc:PropertyName>a</ogc:PropertyName><ogc:Literal>1</ogc:Literal><ogc:Literal>2</ogc:Literal></ogc:PropertyIsEqualTo>',
            ),
          ),
        FilterError,
        'exactly 2',
      );
    });

    it('keeps an empty Literal as the empty string', () => {
      expect(parseFesFilter(comparison('PropertyIsEqualTo', 'dc:title', ''))).to.deep.equal(
        op('=', prop('dc:title'), lit('')),
      );
    });

    it('refuses an empty PropertyName', () => {
      expectError(
        () => parseFesFilter(comparison('PropertyIsEqualTo', '  ', 'x')),
        FilterError,
        'ogc:PropertyName',
        'empty',
      );
    });
  });

  describe('PropertyIsLike', () => {
    const like = (pattern: string, attributes: string): string =>
      fes11(`<ogc:PropertyIsLike ${attributes}>
        <ogc:PropertyName>csw:AnyText</ogc:PropertyName>
        <ogc:Literal>${pattern}</ogc:Literal>
      </ogc:PropertyIsLike>`);

    it('translates OWSLib-style wildCard="*" singleChar="?" escapeChar="\\"', () => {
      expect(
        parseFesFilter(like('*sea?surface*', 'wildCard="*" singleChar="?" escapeChar="\\"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('%sea_surface%')));
    });

    it('keeps CQL2-native % and _ when the request uses them (pycsw / CITE style)', () => {
      expect(
        parseFesFilter(like('%Lorem%', 'wildCard="%" singleChar="_" escapeChar="\\"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('%Lorem%')));
    });

    it('escapes literal % and _ that are not the request wildcards', () => {
      expect(
        parseFesFilter(like('100%_done*', 'wildCard="*" singleChar="#" escapeChar="!"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('100\\%\\_done%')));
    });

    it('turns escaped wildcards, single chars and escapes into literals', () => {
      expect(
        parseFesFilter(like('a!*b!#c!!d*', 'wildCard="*" singleChar="#" escapeChar="!"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('a*b#c!d%')));
      // A backslash that is the request's escape protects a backslash too.
      expect(
        parseFesFilter(like('C:\\\\temp\\*', 'wildCard="*" singleChar="?" escapeChar="\\"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('C:\\\\temp*')));
    });

    it('escapes a literal backslash when the escape is another character', () => {
      expect(
        parseFesFilter(like('a\\b*', 'wildCard="*" singleChar="?" escapeChar="!"')),
      ).to.deep.equal(op('like', prop('csw:AnyText'), lit('a\\\\b%')));
    });

    it('accepts the FES 1.0 attribute name escape', () => {
      expect(parseFesFilter(like('x!*', 'wildCard="*" singleChar="." escape="!"'))).to.deep.equal(
        op('like', prop('csw:AnyText'), lit('x*')),
      );
    });

    it('defaults missing attributes to the CQL2 characters', () => {
      expect(parseFesFilter(like('a%b_', ''))).to.deep.equal(
        op('like', prop('csw:AnyText'), lit('a%b_')),
      );
    });

    it('honours matchCase="false" with CASEI on both sides', () => {
      expect(
        parseFesFilter(
          like('*Water*', 'wildCard="*" singleChar="?" escapeChar="\\" matchCase="false"'),
        ),
      ).to.deep.equal(op('like', casei(prop('csw:AnyText')), casei(lit('%Water%'))));
    });

    it('refuses ambiguous characters and a non-literal pattern', () => {
      expectError(
        () => parseFesFilter(like('a', 'wildCard="*" singleChar="*" escapeChar="\\"')),
        FilterError,
        'must differ',
      );
      expectError(
        () => parseFesFilter(like('a', 'wildCard="*" singleChar="?" escapeChar="*"')),
        FilterError,
        'escapeChar',
      );
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><ogc:PropertyName>a</ogc:PropertyName><ogc:PropertyName>b</ogc:PropertyName></ogc:PropertyIsLike>',
            ),
          ),
        FilterError,
        'text Literal',
      );
    });
  });

  describe('PropertyIsNull and PropertyIsBetween', () => {
    it('PropertyIsNull → isNull', () => {
      const xml = fes11(
        '<ogc:PropertyIsNull><ogc:PropertyName>dc:format</ogc:PropertyName></ogc:PropertyIsNull>',
      );
      expect(parseFesFilter(xml)).to.deep.equal(op('isNull', prop('dc:format')));
    });

    it('PropertyIsBetween on a numeric queryable → BETWEEN with numbers', () => {
      const xml = fes11(`<ogc:PropertyIsBetween>
        <ogc:PropertyName>eo:cloudCover</ogc:PropertyName>
        <ogc:LowerBoundary><ogc:Literal>10</ogc:Literal></ogc:LowerBoundary>
        <ogc:UpperBoundary><ogc:Literal>20.5</ogc:Literal></ogc:UpperBoundary>
      </ogc:PropertyIsBetween>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('between', prop('eo:cloudCover'), lit(10), lit(20.5)),
      );
    });

    it('PropertyIsBetween on dates or text → >= AND <=', () => {
      const xml = fes11(`<ogc:PropertyIsBetween>
        <ogc:PropertyName>apiso:Modified</ogc:PropertyName>
        <ogc:LowerBoundary><ogc:Literal>2004-01-01</ogc:Literal></ogc:LowerBoundary>
        <ogc:UpperBoundary><ogc:Literal>2005-12-31T23:59:59Z</ogc:Literal></ogc:UpperBoundary>
      </ogc:PropertyIsBetween>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          'and',
          op('>=', prop('apiso:Modified'), { kind: 'date', value: '2004-01-01' }),
          op('<=', prop('apiso:Modified'), { kind: 'timestamp', value: '2005-12-31T23:59:59Z' }),
        ),
      );
      const text = fes11(`<ogc:PropertyIsBetween>
        <ogc:PropertyName>dc:title</ogc:PropertyName>
        <ogc:LowerBoundary><ogc:Literal>A</ogc:Literal></ogc:LowerBoundary>
        <ogc:UpperBoundary><ogc:Literal>M</ogc:Literal></ogc:UpperBoundary>
      </ogc:PropertyIsBetween>`);
      expect(parseFesFilter(text)).to.deep.equal(
        op('and', op('>=', prop('dc:title'), lit('A')), op('<=', prop('dc:title'), lit('M'))),
      );
    });

    it('refuses a PropertyIsBetween without both boundaries', () => {
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:PropertyIsBetween><ogc:PropertyName>a</ogc:PropertyName><ogc:LowerBoundary><ogc:Literal>1</ogc:Literal></ogc:LowerBoundary></ogc:PropertyIsBetween>',
            ),
          ),
        FilterError,
        'LowerBoundary and an UpperBoundary',
      );
    });
  });

  describe('logical operators', () => {
    it('And / Or / Not nest (OWSLib GetRecords style)', () => {
      const xml = fes11(`<ogc:And>
        <ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\">
          <ogc:PropertyName>apiso:AnyText</ogc:PropertyName><ogc:Literal>*sea_surface_temperature*</ogc:Literal>
        </ogc:PropertyIsLike>
        <ogc:Or>
          <ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>dataset</ogc:Literal></ogc:PropertyIsEqualTo>
          <ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>series</ogc:Literal></ogc:PropertyIsEqualTo>
        </ogc:Or>
        <ogc:Not>
          <ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\">
            <ogc:PropertyName>apiso:AnyText</ogc:PropertyName><ogc:Literal>*GRIB-2*</ogc:Literal>
          </ogc:PropertyIsLike>
        </ogc:Not>
      </ogc:And>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          'and',
          op('like', prop('apiso:AnyText'), lit('%sea\\_surface\\_temperature%')),
          op(
            'or',
            op('=', prop('dc:type'), lit('dataset')),
            op('=', prop('dc:type'), lit('series')),
          ),
          op('not', op('like', prop('apiso:AnyText'), lit('%GRIB-2%'))),
        ),
      );
    });

    it('unwraps an And / Or with a single predicate', () => {
      const xml = fes11(
        '<ogc:Or><ogc:PropertyIsNull><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsNull></ogc:Or>',
      );
      expect(parseFesFilter(xml)).to.deep.equal(op('isNull', prop('a')));
    });

    it('refuses an empty And and a Not with two predicates', () => {
      expectError(
        () => parseFesFilter(fes11('<ogc:And/>')),
        FilterError,
        'ogc:And',
        'no predicates',
      );
      const two = '<ogc:PropertyIsNull><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsNull>';
      expectError(
        () => parseFesFilter(fes11(`<ogc:Not>${two}${two}</ogc:Not>`)),
        FilterError,
        'exactly one predicate',
      );
    });

    it('refuses two top-level predicates without And / Or', () => {
      const one = '<ogc:PropertyIsNull><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsNull>';
      expectError(() => parseFesFilter(fes11(one + one)), FilterError, 'combine predicates');
    });

    it('refuses an empty Filter', () => {
      expectError(() => parseFesFilter(fes11('')), FilterError, 'empty');
    });
  });

  describe('identifiers', () => {
    it('ogc:FeatureId elements → id IN (…)', () => {
      const xml = fes11('<ogc:FeatureId fid="urn:uuid:19887a8a"/><ogc:FeatureId fid=" r2 "/>');
      expect(parseFesFilter(xml)).to.deep.equal(
        op('in', prop('id'), { kind: 'array', items: [lit('urn:uuid:19887a8a'), lit('r2')] }),
      );
    });

    it('ogc:GmlObjectId with gml:id → id IN (…)', () => {
      const xml = fes11('<ogc:GmlObjectId gml:id="rec-1"/>');
      expect(parseFesFilter(xml)).to.deep.equal(
        op('in', prop('id'), { kind: 'array', items: [lit('rec-1')] }),
      );
    });

    it('refuses an identifier without its attribute and fes:ResourceId in a 1.1 filter', () => {
      expectError(() => parseFesFilter(fes11('<ogc:FeatureId/>')), FilterError, 'ogc:FeatureId');
      expectError(
        () => parseFesFilter(fes11('<ogc:ResourceId rid="x"/>')),
        FilterError,
        'ResourceId',
        'only in FES 2.0',
      );
    });
  });

  describe('spatial operators', () => {
    const polygon = `<gml:Polygon srsName="urn:ogc:def:crs:EPSG::4326">
      <gml:exterior><gml:LinearRing>
        <gml:posList>47 -5 55 -5 55 20 47 20 47 -5</gml:posList>
      </gml:LinearRing></gml:exterior>
    </gml:Polygon>`;
    const polygonLiteral: Expression = {
      kind: 'geometry',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-5, 47],
            [-5, 55],
            [20, 55],
            [20, 47],
            [-5, 47],
          ],
        ],
      },
    };

    it('BBOX over an Envelope in EPSG:4326 URN order → s_intersects with a lon/lat BBOX', () => {
      const xml = fes11(`<ogc:BBOX>
        <ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
        <gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326">
          <gml:lowerCorner>47 -5</gml:lowerCorner><gml:upperCorner>55 20</gml:upperCorner>
        </gml:Envelope>
      </ogc:BBOX>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('ows:BoundingBox'), { kind: 'bbox', bbox: [-5, 47, 20, 55] }),
      );
    });

    it('BBOX without a PropertyName uses the primary geometry', () => {
      const xml = fes11(`<ogc:BBOX><gml:Envelope>
        <gml:lowerCorner>-5 47</gml:lowerCorner><gml:upperCorner>20 55</gml:upperCorner>
      </gml:Envelope></ogc:BBOX>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('geometry'), { kind: 'bbox', bbox: [-5, 47, 20, 55] }),
      );
    });

    it('BBOX accepts a GML 2 gml:Box with gml:coordinates', () => {
      const xml = fes11(`<ogc:BBOX><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
        <gml:Box srsName="EPSG:4326"><gml:coordinates>-5,47 20,55</gml:coordinates></gml:Box>
      </ogc:BBOX>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('ows:BoundingBox'), { kind: 'bbox', bbox: [-5, 47, 20, 55] }),
      );
    });

    it('refuses a BBOX whose operand is not an envelope', () => {
      expectError(
        () =>
          parseFesFilter(
            fes11(
              `<ogc:BBOX><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>${polygon}</ogc:BBOX>`,
            ),
          ),
        FilterError,
        'needs a gml:Envelope',
      );
    });

    const binary: Array<[string, string]> = [
      ['Intersects', 's_intersects'],
      ['Within', 's_within'],
      ['Contains', 's_contains'],
      ['Disjoint', 's_disjoint'],
      ['Equals', 's_equals'],
      ['Touches', 's_touches'],
      ['Crosses', 's_crosses'],
      ['Overlaps', 's_overlaps'],
    ];
    for (const [element, name] of binary) {
      it(`${element} over a gml:Polygon → ${name}`, () => {
        const xml = fes11(
          `<ogc:${element}><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>${polygon}</ogc:${element}>`,
        );
        expect(parseFesFilter(xml)).to.deep.equal(
          op(name, prop('ows:BoundingBox'), polygonLiteral),
        );
      });
    }

    it('keeps the operand order when the geometry comes first', () => {
      const xml = fes11(
        `<ogc:Within>${polygon}<ogc:PropertyName>ows:BoundingBox</ogc:PropertyName></ogc:Within>`,
      );
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_within', polygonLiteral, prop('ows:BoundingBox')),
      );
    });

    it('Intersects over an Envelope gives a BBOX literal', () => {
      const xml = fes11(`<ogc:Intersects><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
        <gml:Envelope srsName="http://www.opengis.net/def/crs/OGC/1.3/CRS84">
          <gml:lowerCorner>170 -10</gml:lowerCorner><gml:upperCorner>-170 10</gml:upperCorner>
        </gml:Envelope></ogc:Intersects>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('s_intersects', prop('ows:BoundingBox'), { kind: 'bbox', bbox: [170, -10, -170, 10] }),
      );
    });

    it('refuses a text Literal as a spatial operand', () => {
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:Intersects><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName><ogc:Literal>POINT(1 2)</ogc:Literal></ogc:Intersects>',
            ),
          ),
        FilterError,
        'spatial operand',
      );
    });

    it('DWithin with units="m" → s_dwithin(property, geometry, metres, "m")', () => {
      const xml = fes11(`<ogc:DWithin>
        <ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
        <gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>52.1 4.3</gml:pos></gml:Point>
        <ogc:Distance units="m">1500</ogc:Distance>
      </ogc:DWithin>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          's_dwithin',
          prop('ows:BoundingBox'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [4.3, 52.1] } },
          lit(1500),
          lit('m'),
        ),
      );
    });

    it('refuses a distance that overflows when converted to metres', () => {
      const xml = fes11(`<ogc:DWithin>
        <ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
        <gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>52 4</gml:pos></gml:Point>
        <ogc:Distance units="km">1.797693134862316e+305</ogc:Distance>
      </ogc:DWithin>`);
      expect(() => parseFesFilter(xml)).to.throw(FilterError, 'too large a distance');
    });

    it('Beyond converts kilometres, miles, EPSG unit URNs and degrees to metres', () => {
      const beyond = (units: string, distance = '2'): unknown =>
        parseFesFilter(
          fes11(`<ogc:Beyond><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
            <gml:Point><gml:coordinates>4.3,52.1</gml:coordinates></gml:Point>
            <ogc:Distance units="${units}">${distance}</ogc:Distance></ogc:Beyond>`),
        );
      const expected = (metres: number): unknown =>
        op(
          's_beyond',
          prop('ows:BoundingBox'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [4.3, 52.1] } },
          lit(metres),
          lit('m'),
        );
      expect(beyond('km')).to.deep.equal(expected(2000));
      expect(beyond('mi')).to.deep.equal(expected(3218.688));
      expect(beyond('urn:ogc:def:uom:EPSG::9001')).to.deep.equal(expected(2));
      expect(beyond('http://www.opengis.net/def/uom/EPSG/0/9036')).to.deep.equal(expected(2000));
      expect(beyond('deg', '1')).to.deep.equal(expected(111_319.490_793_273_57));
    });

    it('refuses unknown units, negative distances and a missing Distance', () => {
      const dwithin = (distance: string): string =>
        fes11(`<ogc:DWithin><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName>
          <gml:Point><gml:pos>1 2</gml:pos></gml:Point>${distance}</ogc:DWithin>`);
      expectError(
        () => parseFesFilter(dwithin('<ogc:Distance units="furlong">1</ogc:Distance>')),
        FilterError,
        'furlong',
      );
      expectError(
        () => parseFesFilter(dwithin('<ogc:Distance units="m">-1</ogc:Distance>')),
        FilterError,
        'non-negative',
      );
      expectError(
        () => parseFesFilter(dwithin('<ogc:Distance>1</ogc:Distance>')),
        FilterError,
        'units',
      );
      expectError(() => parseFesFilter(dwithin('')), FilterError, 'one Distance');
    });
  });

  describe('expressions', () => {
    it('ogc:Function → an op named after the function', () => {
      const xml = fes11(`<ogc:PropertyIsEqualTo>
        <ogc:Function name="strToLowerCase"><ogc:PropertyName>dc:title</ogc:PropertyName></ogc:Function>
        <ogc:Literal>lorem</ogc:Literal>
      </ogc:PropertyIsEqualTo>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op('=', op('strToLowerCase', prop('dc:title')), lit('lorem')),
      );
    });

    it('refuses a Function without a name or named like an operator', () => {
      const fn = (attributes: string): string =>
        fes11(
          `<ogc:PropertyIsEqualTo><ogc:Function${attributes}/><ogc:Literal>1</ogc:Literal></ogc:PropertyIsEqualTo>`,
        );
      expectError(() => parseFesFilter(fn('')), FilterError, 'name');
      expectError(() => parseFesFilter(fn(' name="in"')), FilterError, 'reserved');
      expectError(() => parseFesFilter(fn(' name="S_Intersects"')), FilterError, 'reserved');
    });

    it('ogc:Add / Sub / Mul / Div → arithmetic ops', () => {
      const xml = fes11(`<ogc:PropertyIsGreaterThan>
        <ogc:Add><ogc:PropertyName>a</ogc:PropertyName><ogc:Mul><ogc:Literal>2</ogc:Literal><ogc:PropertyName>b</ogc:PropertyName></ogc:Mul></ogc:Add>
        <ogc:Div><ogc:Sub><ogc:Literal>10</ogc:Literal><ogc:Literal>4</ogc:Literal></ogc:Sub><ogc:Literal>3</ogc:Literal></ogc:Div>
      </ogc:PropertyIsGreaterThan>`);
      expect(parseFesFilter(xml)).to.deep.equal(
        op(
          '>',
          op('+', prop('a'), op('*', lit('2'), prop('b'))),
          op('/', op('-', lit('10'), lit('4')), lit('3')),
        ),
      );
    });
  });

  describe('inputs', () => {
    it('takes an element already parsed by shared/xml (a csw:GetRecords Constraint/Filter)', () => {
      const request = parseXml(`<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"
          xmlns:ogc="http://www.opengis.net/ogc" service="CSW" version="2.0.2" resultType="results">
        <csw:Query typeNames="csw:Record">
          <csw:ElementSetName>full</csw:ElementSetName>
          <csw:Constraint version="1.1.0">
            <ogc:Filter>
              <ogc:PropertyIsEqualTo>
                <ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>Lorem ipsum</ogc:Literal>
              </ogc:PropertyIsEqualTo>
            </ogc:Filter>
          </csw:Constraint>
        </csw:Query>
      </csw:GetRecords>`);
      const constraint = defined(request.root.children[0]?.children[1], 'the Constraint');
      const expected = op('=', prop('dc:title'), lit('Lorem ipsum'));
      expect(parseFesFilter(defined(constraint.children[0], 'the Filter'), '1.1')).to.deep.equal(
        expected,
      );
      expect(parseFesFilter(constraint, '1.1')).to.deep.equal(expected);
    });

    it('reads any prefix, or the default namespace', () => {
      const xml = `<Filter xmlns="http://www.opengis.net/ogc"><PropertyIsEqualTo>
        <PropertyName>dc:title</PropertyName><Literal>x</Literal></PropertyIsEqualTo></Filter>`;
      expect(parseFesFilter(xml)).to.deep.equal(op('=', prop('dc:title'), lit('x')));
      const other = `<f:Filter xmlns:f="http://www.opengis.net/ogc"><f:PropertyIsNull>
        <f:PropertyName>x</f:PropertyName></f:PropertyIsNull></f:Filter>`;
      expect(parseFesFilter(other)).to.deep.equal(op('isNull', prop('x')));
    });

    it('reads an unqualified KVP constraint as the announced version', () => {
      const xml =
        '<Filter><PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><PropertyName>dc:title</PropertyName><Literal>*a*</Literal></PropertyIsLike></Filter>';
      expect(parseFesFilter(xml, '1.1')).to.deep.equal(op('like', prop('dc:title'), lit('%a%')));
      expect(parseFesFilter(xml)).to.deep.equal(op('like', prop('dc:title'), lit('%a%')));
    });

    it('refuses a FES 1.1 filter when FES 2.0 was announced', () => {
      expectError(
        () => parseFesFilter(fes11('<ogc:FeatureId fid="a"/>'), '2.0'),
        FilterError,
        'Expected a FES 2.0 filter',
      );
    });

    it('refuses a root that is not a Filter, and a Constraint holding CqlText', () => {
      expectError(
        () => parseFesFilter('<ogc:Query xmlns:ogc="http://www.opengis.net/ogc"/>'),
        FilterError,
        'Expected a Filter element',
        'ogc:Query',
      );
      const constraint = parseXml(
        '<csw:Constraint xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" version="1.1.0"><csw:CqlText>dc:title like \'%a%\'</csw:CqlText></csw:Constraint>',
      ).root;
      expectError(() => parseFesFilter(constraint), FilterError, 'CqlText');
    });
  });
});
