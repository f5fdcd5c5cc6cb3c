import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { translateLikePattern } from '../../../shared/query/fes/index.js';
import { expectError } from './fes-helpers.js';

const owslib = { wildCard: '*', singleChar: '?', escapeChar: '\\' };
const geoserver = { wildCard: '*', singleChar: '.', escapeChar: '!' };

describe('translateLikePattern', () => {
  it('maps the request wildcards to % and _', () => {
    expect(translateLikePattern('*land?', owslib)).to.equal('%land_');
    expect(translateLikePattern('a.b*', geoserver)).to.equal('a_b%');
  });

  it('escapes literal %, _ and backslash', () => {
    expect(translateLikePattern('50%_off', geoserver)).to.equal('50\\%\\_off');
    expect(translateLikePattern('C:\\dir', geoserver)).to.equal('C:\\\\dir');
  });

  it('turns escaped markers into literals, escaping them again when CQL2 needs it', () => {
    expect(translateLikePattern('!*!.!!', geoserver)).to.equal('*.!');
    expect(translateLikePattern('\\*\\?\\\\', owslib)).to.equal('*?\\\\');
    expect(
      translateLikePattern('#%#_', { wildCard: '%', singleChar: '_', escapeChar: '#' }),
    ).to.equal('\\%\\_');
  });

  it('keeps a trailing escape as a literal character', () => {
    expect(translateLikePattern('abc!', geoserver)).to.equal('abc!');
    expect(translateLikePattern('abc\\', owslib)).to.equal('abc\\\\');
  });

  it('supports multi-character markers, longest first', () => {
    expect(
      translateLikePattern('a**b*c', { wildCard: '**', singleChar: '*', escapeChar: '' }),
    ).to.equal('a%b_c');
    expect(
      translateLikePattern('x\\**y', { wildCard: '**', singleChar: '*', escapeChar: '\\' }),
    ).to.equal('x**y');
  });

  it('handles characters outside the BMP as single characters', () => {
    expect(translateLikePattern('𝔸?', owslib)).to.equal('𝔸_');
  });

  it('refuses empty or clashing markers', () => {
    expectError(
      () => translateLikePattern('a', { wildCard: '', singleChar: '?', escapeChar: '\\' }),
      FilterError,
      'wildCard',
    );
    expectError(
      () => translateLikePattern('a', { wildCard: '*', singleChar: '', escapeChar: '\\' }),
      FilterError,
      'singleChar',
    );
    expectError(
      () => translateLikePattern('a', { wildCard: '*', singleChar: '*', escapeChar: '\\' }),
      FilterError,
      'must differ',
    );
    expectError(
      () => translateLikePattern('a', { wildCard: '*', singleChar: '?', escapeChar: '?' }),
      FilterError,
      'escapeChar',
    );
  });
});
