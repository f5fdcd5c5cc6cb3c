import { expect } from 'chai';
import { CairnError, FilterError, InvalidParameterError } from '../../../shared/errors/index.js';
import {
  parseFesFilter,
  parseFesSortBy,
  parseFesVersion,
} from '../../../shared/query/fes/index.js';
import { XmlParseError } from '../../../shared/xml/index.js';
import { expectError, fes11, fes20 } from './fes-helpers.js';

describe('FES error handling', () => {
  describe('unknown and misplaced elements', () => {
    it('names an unknown operator', () => {
      expectError(
        () =>
          parseFesFilter(
            fes11(
              '<ogc:PropertyIsSimilarTo><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsSimilarTo>',
            ),
          ),
        FilterError,
        '"ogc:PropertyIsSimilarTo"',
        'http://www.opengis.net/ogc',
      );
    });

    it('names an unknown expression element', () => {
      expectError(
        () =>
          parseFesFilter(
            fes20(
              '<fes:PropertyIsEqualTo><fes:PropertyNom>a</fes:PropertyNom><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo>',
            ),
          ),
        FilterError,
        '"fes:PropertyNom"',
        'expression',
      );
    });

    it('names an element from a foreign namespace', () => {
      expectError(
        () => parseFesFilter(fes11('<x:PropertyIsEqualTo xmlns:x="urn:example"/>')),
        FilterError,
        '"x:PropertyIsEqualTo" (urn:example)',
      );
    });

    it('names an element of the other FES version mixed into a filter', () => {
      expectError(
        () =>
          parseFesFilter(
            `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:ogc="http://www.opengis.net/ogc">
              <ogc:PropertyIsNull><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsNull></fes:Filter>`,
          ),
        FilterError,
        '"ogc:PropertyIsNull"',
        'that is FES 1.1',
      );
    });

    it('names an unsupported GML geometry and an unknown element inside a Literal', () => {
      expectError(
        () =>
          parseFesFilter(
            fes20(
              '<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference><gml:Curve/></fes:Intersects>',
            ),
          ),
        FilterError,
        '"gml:Curve"',
      );
      expectError(
        () =>
          parseFesFilter(
            fes20(
              '<fes:PropertyIsEqualTo><fes:ValueReference>a</fes:ValueReference><fes:Literal><b>1</b></fes:Literal></fes:PropertyIsEqualTo>',
            ),
          ),
        FilterError,
        '"b"',
        'fes:Literal',
      );
    });

    it('names elements called like Object.prototype members (constructor, toString)', () => {
      for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
        expectError(
          () =>
            parseFesFilter(
              fes11(
                `<ogc:${name}><ogc:PropertyName>a</ogc:PropertyName><ogc:Literal>1</ogc:Literal></ogc:${name}>`,
              ),
            ),
          FilterError,
          'Unsupported element',
          `"ogc:${name}"`,
        );
      }
    });

    it('refuses a root in no FES namespace', () => {
      expectError(
        () => parseFesFilter('<Filter xmlns="urn:example"/>'),
        FilterError,
        'not in a Filter Encoding namespace',
      );
    });
  });

  describe('malformed and hostile XML (rejected by shared/xml)', () => {
    const cases: Array<[string, string, string]> = [
      ['not XML', 'dc:title = 1', 'malformed'],
      ['unclosed element', fes11('<ogc:PropertyIsNull>'), 'malformed'],
      ['undeclared prefix', '<ogc:Filter><ogc:And/></ogc:Filter>', 'malformed'],
      ['empty text', '', 'malformed'],
      [
        'DOCTYPE with entities (billion laughs)',
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><ogc:Filter xmlns:ogc="http://www.opengis.net/ogc">&lol2;</ogc:Filter>',
        'entity-declaration',
      ],
      [
        'external entity (XXE)',
        '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsEqualTo><ogc:PropertyName>a</ogc:PropertyName><ogc:Literal>&xxe;</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>',
        'external-reference',
      ],
      ['plain DOCTYPE', '<!DOCTYPE Filter><Filter xmlns="http://www.opengis.net/ogc"/>', 'doctype'],
    ];
    for (const [name, xml, reason] of cases) {
      it(`${name} → FilterError caused by an XmlParseError (${reason})`, () => {
        const error = expectError(() => parseFesFilter(xml), FilterError, 'Filter rejected');
        expect(error.cause).to.be.instanceOf(XmlParseError);
        expect((error.cause as XmlParseError).reason).to.equal(reason);
        expect((error as FilterError).status).to.equal(400);
      });
    }

    it('applies the caller’s XML limits', () => {
      const error = expectError(
        () =>
          parseFesFilter(fes11('<ogc:And><ogc:Or><ogc:Not/></ogc:Or></ogc:And>'), undefined, {
            xmlLimits: { maxDepth: 3 },
          }),
        FilterError,
      );
      expect((error.cause as XmlParseError).reason).to.equal('too-deep');
      const large = expectError(
        () => parseFesFilter(fes11(''), undefined, { xmlLimits: { maxBytes: 20 } }),
        FilterError,
      );
      expect((large.cause as XmlParseError).reason).to.equal('too-large');
    });

    it('SortBy: malformed XML is an InvalidParameterError located at SortBy', () => {
      const error = expectError(() => parseFesSortBy('<SortBy>'), InvalidParameterError);
      expect((error as CairnError).locator).to.equal('SortBy');
    });
  });

  describe('parseFesVersion', () => {
    it('maps CSW constraint versions to FES versions', () => {
      expect(parseFesVersion('1.1.0')).to.equal('1.1');
      expect(parseFesVersion('1.0.0')).to.equal('1.1');
      expect(parseFesVersion('2.0.0')).to.equal('2.0');
      expect(parseFesVersion(' 2.0.2 ')).to.equal('2.0');
      const error = expectError(() => parseFesVersion('3.0'), InvalidParameterError, '"3.0"');
      expect((error as CairnError).locator).to.equal('constraint_language_version');
    });
  });
});
