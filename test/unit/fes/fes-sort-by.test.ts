import { expect } from 'chai';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import { parseFesSortBy } from '../../../shared/query/fes/index.js';
import { parseXml } from '../../../shared/xml/index.js';
import { expectError } from './fes-helpers.js';
import { defined } from '../../support/defined.js';

describe('FES SortBy', () => {
  it('reads ogc:SortBy (CSW 2.0.2) with PropertyName and SortOrder', () => {
    const xml = `<ogc:SortBy xmlns:ogc="http://www.opengis.net/ogc">
      <ogc:SortProperty><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>ASC</ogc:SortOrder></ogc:SortProperty>
      <ogc:SortProperty><ogc:PropertyName>dct:modified</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder></ogc:SortProperty>
    </ogc:SortBy>`;
    expect(parseFesSortBy(xml)).to.deep.equal([
      { field: 'dc:title', direction: 'asc' },
      { field: 'dct:modified', direction: 'desc' },
    ]);
  });

  it('reads fes:SortBy (CSW 3.0) with ValueReference; SortOrder defaults to ASC', () => {
    const request = parseXml(`<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0"
        xmlns:fes="http://www.opengis.net/fes/2.0"><csw:Query typeNames="csw:Record">
      <fes:SortBy><fes:SortProperty><fes:ValueReference>apiso:Title</fes:ValueReference></fes:SortProperty></fes:SortBy>
    </csw:Query></csw:GetRecords>`);
    const sortBy = defined(request.root.children[0]?.children[0], 'the SortBy');
    expect(parseFesSortBy(sortBy)).to.deep.equal([{ field: 'apiso:Title', direction: 'asc' }]);
  });

  it('accepts lower-case sort orders', () => {
    const xml = `<SortBy xmlns="http://www.opengis.net/fes/2.0"><SortProperty>
      <ValueReference>dc:date</ValueReference><SortOrder>desc</SortOrder></SortProperty></SortBy>`;
    expect(parseFesSortBy(xml)).to.deep.equal([{ field: 'dc:date', direction: 'desc' }]);
  });

  it('refuses bad orders, missing names, unknown elements and empty SortBy', () => {
    const wrap = (inner: string): string =>
      `<ogc:SortBy xmlns:ogc="http://www.opengis.net/ogc">${inner}</ogc:SortBy>`;
    expectError(
      () =>
        parseFesSortBy(
          wrap(
            '<ogc:SortProperty><ogc:PropertyName>a</ogc:PropertyName><ogc:SortOrder>UP</ogc:SortOrder></ogc:SortProperty>',
          ),
        ),
      InvalidParameterError,
      '"UP"',
    );
    expectError(
      () =>
        parseFesSortBy(
          wrap('<ogc:SortProperty><ogc:SortOrder>ASC</ogc:SortOrder></ogc:SortProperty>'),
        ),
      InvalidParameterError,
      'PropertyName',
    );
    expectError(
      () =>
        parseFesSortBy(
          wrap(
            '<ogc:SortProperty><ogc:PropertyName>a</ogc:PropertyName><ogc:PropertyName>b</ogc:PropertyName></ogc:SortProperty>',
          ),
        ),
      InvalidParameterError,
      'exactly one',
    );
    expectError(
      () => parseFesSortBy(wrap('<ogc:SortKey/>')),
      InvalidParameterError,
      '"ogc:SortKey"',
    );
    expectError(() => parseFesSortBy(wrap('')), InvalidParameterError, 'no SortProperty');
    expectError(
      () => parseFesSortBy('<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"/>'),
      InvalidParameterError,
      'Expected a SortBy',
    );
  });
});
