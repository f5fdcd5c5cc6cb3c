import { expect } from 'chai';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { toOwsException } from '../../../services/api/protocols/csw/csw-errors.js';
import { toCairnError } from '../../../shared/errors/index.js';
import {
  andText,
  isAnyTextName,
  parseConstraint,
  parseKvpSortBy,
  resolveDomainProperty,
  splitCswFilter,
  stripRecordPath,
} from '../../../services/api/protocols/csw/parse-constraint.js';

const prop = (name: string): Expression => ({ kind: 'property', name });
const lit = (value: string | number): Expression => ({ kind: 'literal', value });
const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });

const OGC = 'xmlns:ogc="http://www.opengis.net/ogc"';
const FES = 'xmlns:fes="http://www.opengis.net/fes/2.0"';

function like11(property: string, pattern: string): string {
  return `<ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><ogc:PropertyName>${property}</ogc:PropertyName><ogc:Literal>${pattern}</ogc:Literal></ogc:PropertyIsLike>`;
}

function expectCswError(action: () => unknown, code: string, locator: string): void {
  try {
    action();
  } catch (error) {
    const exception = toOwsException(toCairnError(error));
    expect(exception.exceptionCode, String(error)).to.equal(code);
    expect(exception.locator, String(error)).to.equal(locator);
    return;
  }
  expect.fail('expected a CswError');
}

describe('CSW constraints', () => {
  describe('csw:AnyText', () => {
    it('recognises AnyText in every spelling', () => {
      for (const name of [
        'csw:AnyText',
        'csw30:AnyText',
        'apiso:AnyText',
        'AnyText',
        '/csw:Record/csw:AnyText',
      ]) {
        expect(isAnyTextName(name), name).to.equal(true);
      }
      expect(isAnyTextName('dc:title')).to.equal(false);
    });

    it('turns a lone PropertyIsLike into free-text words, wildcards removed', () => {
      const parts = parseConstraint({
        language: 'FILTER',
        xml: `<ogc:Filter ${OGC}>${like11('csw:AnyText', '*Fuscé land*')}</ogc:Filter>`,
      });
      expect(parts).to.deep.equal({ text: [['Fuscé', 'land']] });
    });

    it('ANDs conjunct AnyText predicates into one term and keeps the other predicates as filter', () => {
      const parts = parseConstraint({
        language: 'FILTER',
        xml: `<ogc:Filter ${OGC}><ogc:And>${like11('csw:AnyText', '*lorem*')}${like11('csw:AnyText', '*ipsum*')}
          <ogc:PropertyIsEqualTo><ogc:PropertyName>dc:type</ogc:PropertyName><ogc:Literal>x</ogc:Literal></ogc:PropertyIsEqualTo>
        </ogc:And></ogc:Filter>`,
      });
      expect(parts.text).to.deep.equal([['lorem', 'ipsum']]);
      expect(parts.filter).to.deep.equal(op('=', prop('dc:type'), lit('x')));
    });

    it('makes ORed AnyText predicates alternative terms', () => {
      const parts = splitCswFilter(
        op('or', op('like', prop('csw:AnyText'), lit('%a%')), op('=', prop('AnyText'), lit('b c'))),
      );
      expect(parts).to.deep.equal({ text: [['a'], ['b', 'c']] });
    });

    it('matches everything for a pattern with no word', () => {
      expect(splitCswFilter(op('like', prop('csw:AnyText'), lit('%')))).to.deep.equal({});
    });

    it('reads AnyText under NOT or ORed with other predicates as title/abstract/keyword matches', () => {
      const parts = splitCswFilter(op('not', op('like', prop('csw:AnyText'), lit('%lorem%'))));
      expect(parts.text).to.equal(undefined);
      const text = JSON.stringify(parts.filter);
      expect(text)
        .to.include('"title"')
        .and.to.include('"description"')
        .and.to.include('a_contains');
      expect(text).to.include('%lorem%');
    });

    it('refuses other comparisons on AnyText', () => {
      expectCswError(
        () => splitCswFilter(op('<', prop('csw:AnyText'), lit('a'))),
        'InvalidParameterValue',
        'Constraint',
      );
    });

    it('ANDs free text with another free-text condition as a cross product', () => {
      expect(andText([['a'], ['b']], [['c']])).to.deep.equal([
        ['a', 'c'],
        ['b', 'c'],
      ]);
      expect(andText(undefined, [['c']])).to.deep.equal([['c']]);
    });
  });

  describe('property names', () => {
    it('strips a minimal XPath and keeps exact registry aliases', () => {
      expect(stripRecordPath('/csw:Record/dc:title')).to.equal('dc:title');
      expect(stripRecordPath('csw30:Record/dc:title')).to.equal('dc:title');
      const parts = splitCswFilter(op('=', prop('/csw:Record/dc:title'), lit('x')));
      expect(parts.filter).to.deep.equal(op('=', prop('dc:title'), lit('x')));
    });

    it('maps a case-variant spelling to the canonical name', () => {
      const parts = splitCswFilter(op('=', prop('DC:TITLE'), lit('x')));
      expect(parts.filter).to.deep.equal(op('=', prop('title'), lit('x')));
    });

    it('reads dc:date as the time extent and types its literals', () => {
      const parts = splitCswFilter(op('>=', prop('dc:date'), lit('2005-01-01')));
      expect(parts.filter).to.deep.equal(
        op('>=', prop('datetime'), { kind: 'date', value: '2005-01-01' }),
      );
    });

    it('refuses a prefixed name that is no queryable', () => {
      expectCswError(
        () => splitCswFilter(op('=', prop('dc:nonsense'), lit('x'))),
        'InvalidParameterValue',
        'Constraint',
      );
    });

    it('keeps unprefixed names as record properties', () => {
      expect(splitCswFilter(op('=', prop('custom'), lit('x'))).filter).to.deep.equal(
        op('=', prop('custom'), lit('x')),
      );
    });
  });

  describe('list-valued queryables', () => {
    it('reads = and <> on dc:subject as membership', () => {
      const array = { kind: 'array', items: [lit('Land titles')] } as Expression;
      expect(splitCswFilter(op('=', prop('dc:subject'), lit('Land titles'))).filter).to.deep.equal(
        op('a_contains', prop('dc:subject'), array),
      );
      expect(splitCswFilter(op('<>', prop('dc:subject'), lit('Land titles'))).filter).to.deep.equal(
        op('not', op('a_contains', prop('dc:subject'), array)),
      );
    });

    it('answers OptionNotSupported for LIKE and case-insensitive comparison on lists', () => {
      expectCswError(
        () => splitCswFilter(op('like', prop('dc:subject'), lit('%x%'))),
        'OptionNotSupported',
        'Constraint',
      );
      expectCswError(
        () => splitCswFilter(op('=', op('casei', prop('dc:subject')), op('casei', lit('x')))),
        'OptionNotSupported',
        'Constraint',
      );
    });
  });

  describe('FILTER versions', () => {
    it('reads a FES 2.0 filter whatever version the Constraint announces (OWSLib sends 1.1.0)', () => {
      const parts = parseConstraint({
        language: 'FILTER',
        version: '1.1.0',
        xml: `<fes:Filter ${FES}><fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>x</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>`,
      });
      expect(parts.filter).to.deep.equal(op('=', prop('dc:title'), lit('x')));
    });

    it('reads an unqualified filter as the announced version', () => {
      expectCswError(
        () =>
          parseConstraint({
            language: 'FILTER',
            version: '1.1.0',
            xml: '<Filter><ResourceId rid="a"/></Filter>',
          }),
        'InvalidParameterValue',
        'Constraint',
      );
      const parts = parseConstraint({
        language: 'FILTER',
        version: '2.0.0',
        xml: '<Filter><ResourceId rid="a"/></Filter>',
      });
      expect(parts.filter).to.not.equal(undefined);
    });

    it('answers InvalidParameterValue/Constraint for XML that is not usable, DOCTYPE included', () => {
      expectCswError(
        () => parseConstraint({ language: 'FILTER', xml: '<ogc:Filter' }),
        'InvalidParameterValue',
        'Constraint',
      );
      expectCswError(
        () =>
          parseConstraint({
            language: 'FILTER',
            xml: '<!DOCTYPE x [<!ENTITY a "b">]><Filter/>',
          }),
        'InvalidParameterValue',
        'Constraint',
      );
    });
  });

  describe('CQL_TEXT', () => {
    it('reads comparisons, LIKE and AND/OR with CSW names', () => {
      const parts = parseConstraint({
        language: 'CQL_TEXT',
        text: "dc:title LIKE 'Lor%' AND dc:type = 'http://purl.org/dc/dcmitype/Image'",
      });
      expect(parts.filter).to.deep.equal(
        op(
          'and',
          op('like', prop('dc:title'), lit('Lor%')),
          op('=', prop('dc:type'), lit('http://purl.org/dc/dcmitype/Image')),
        ),
      );
    });

    it('reads classic BBOX(property, x1, y1, x2, y2), and BBOX inside a string stays text', () => {
      const parts = parseConstraint({
        language: 'CQL_TEXT',
        text: "BBOX(ows:BoundingBox, -10, 40, 10, 60) AND dc:title = 'BBOX(a,1,2,3,4)'",
      });
      expect(parts.filter).to.deep.equal(
        op(
          'and',
          op('s_intersects', prop('ows:BoundingBox'), { kind: 'bbox', bbox: [-10, 40, 10, 60] }),
          op('=', prop('dc:title'), lit('BBOX(a,1,2,3,4)')),
        ),
      );
    });

    it('gives the same parts as the equivalent FES filter (names, dates, membership)', () => {
      const cql = parseConstraint({
        language: 'CQL_TEXT',
        text: "dc:date >= '2005-01-01' AND dc:subject = 'Vegetation' AND csw:AnyText LIKE '%lorem%'",
      });
      const fes = parseConstraint({
        language: 'FILTER',
        xml: `<ogc:Filter ${OGC}><ogc:And><ogc:PropertyIsGreaterThanOrEqualTo><ogc:PropertyName>dc:date</ogc:PropertyName><ogc:Literal>2005-01-01</ogc:Literal></ogc:PropertyIsGreaterThanOrEqualTo><ogc:PropertyIsEqualTo><ogc:PropertyName>dc:subject</ogc:PropertyName><ogc:Literal>Vegetation</ogc:Literal></ogc:PropertyIsEqualTo>${like11('csw:AnyText', '*lorem*')}</ogc:And></ogc:Filter>`,
      });
      expect(cql).to.deep.equal(fes);
      expect(cql.text).to.deep.equal([['lorem']]);
    });

    it('reads temporal predicates on dc:date as the time extent', () => {
      const parts = parseConstraint({
        language: 'CQL_TEXT',
        text: 'dc:date DURING 2006-01-01/2006-12-31 OR dc:date BEFORE 2000-01-01T00:00:00Z',
      });
      expect(parts.filter).to.deep.equal(
        op(
          'or',
          op('t_during', prop('datetime'), {
            kind: 'interval',
            start: { kind: 'date', value: '2006-01-01' },
            end: { kind: 'date', value: '2006-12-31' },
          }),
          op('t_before', prop('datetime'), { kind: 'timestamp', value: '2000-01-01T00:00:00Z' }),
        ),
      );
    });

    it('maps classic spatial function names to the CQL2 operators', () => {
      const parts = parseConstraint({
        language: 'CQL_TEXT',
        text: 'INTERSECTS(ows:BoundingBox, POLYGON((0 0, 1 0, 1 1, 0 1, 0 0)))',
      });
      expect((parts.filter as { op: string }).op).to.equal('s_intersects');
    });

    it('reads AnyText in CQL as free text', () => {
      expect(
        parseConstraint({ language: 'CQL_TEXT', text: "csw:AnyText LIKE '%lorem%'" }),
      ).to.deep.equal({
        text: [['lorem']],
      });
    });

    it('answers InvalidParameterValue/Constraint for a syntax error, naming its position once', () => {
      expectCswError(
        () => parseConstraint({ language: 'CQL_TEXT', text: 'dc:title LIKE' }),
        'InvalidParameterValue',
        'Constraint',
      );
      expect(() => parseConstraint({ language: 'CQL_TEXT', text: 'dc:title LIKE' })).to.throw(
        /^Invalid CQL text at line 1, column 14: /,
      );
    });
  });

  describe('sortBy (KVP)', () => {
    it('reads name:A|D (and ASC/DESC) lists into canonical sort keys', () => {
      expect(parseKvpSortBy('dc:title:D,dct:modified:A,dc:identifier')).to.deep.equal([
        { field: 'title', direction: 'desc' },
        { field: 'updated', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ]);
      expect(parseKvpSortBy('apiso:Title:DESC')).to.deep.equal([
        { field: 'title', direction: 'desc' },
      ]);
    });

    it('refuses unknown or unsortable properties with InvalidParameterValue/SortBy', () => {
      expectCswError(() => parseKvpSortBy('dc:nonsense:A'), 'InvalidParameterValue', 'SortBy');
      expectCswError(() => parseKvpSortBy('dct:abstract:A'), 'InvalidParameterValue', 'SortBy');
    });
  });

  describe('GetDomain properties', () => {
    it('resolves CSW names to backend fields', () => {
      expect(resolveDomainProperty('dc:type')).to.equal('type');
      expect(resolveDomainProperty('dc:subject')).to.equal('keywords');
      expect(resolveDomainProperty('/csw:Record/dc:title')).to.equal('title');
      expect(resolveDomainProperty('custom')).to.equal('custom');
    });

    it('refuses AnyText, geometries and unknown prefixed names', () => {
      for (const name of ['csw:AnyText', 'ows:BoundingBox', 'dc:nonsense']) {
        expectCswError(
          () => resolveDomainProperty(name),
          'InvalidParameterValue',
          'valueReference',
        );
      }
    });
  });
});
