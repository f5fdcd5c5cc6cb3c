/**
 * Content negotiation (services/api/common/negotiation.ts): Express's ranking of the Accept
 * header — quality, then specificity, then the header's order, then the order offered — with
 * each caller's default when nothing offered is acceptable.
 */
import { expect } from 'chai';
import { negotiateFormat, preferredMediaType } from '../../services/api/common/negotiation.js';
import { UnsupportedFormatError } from '../../shared/errors/index.js';

const OFFERED = ['application/json', 'text/html', 'application/xml'];

describe('content negotiation', () => {
  it('ranks by quality, then specificity, then order', () => {
    expect(preferredMediaType('text/html;q=0.5, application/json', OFFERED)).to.equal(
      'application/json',
    );
    expect(preferredMediaType('*/*;q=0.9, text/*', OFFERED)).to.equal('text/html');
    expect(preferredMediaType('application/xml, application/json', OFFERED)).to.equal(
      'application/xml',
    );
    // A browser's header: HTML first; a wildcard gives the first offered.
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(preferredMediaType(browser, OFFERED)).to.equal('text/html');
    expect(preferredMediaType('*/*', OFFERED)).to.equal('application/json');
    expect(preferredMediaType('TEXT/HTML', OFFERED)).to.equal('text/html');
  });

  it('has no preference without a header, or when nothing offered is acceptable', () => {
    expect(preferredMediaType(undefined, OFFERED)).to.equal(undefined);
    expect(preferredMediaType('  ', OFFERED)).to.equal(undefined);
    expect(preferredMediaType('image/png', OFFERED)).to.equal(undefined);
    expect(preferredMediaType('text/html;q=0, application/*;q=0', OFFERED)).to.equal(undefined);
    expect(preferredMediaType('not a media type', OFFERED)).to.equal(undefined);
  });

  it('maps the ranking onto f values, JSON by default, and refuses an Accept that takes none', () => {
    expect(negotiateFormat('text/html', ['json', 'html'])).to.equal('html');
    expect(negotiateFormat('application/xhtml+xml', ['json', 'html'])).to.equal('html');
    expect(negotiateFormat('application/geo+json, text/html', ['json', 'html'])).to.equal('json');
    expect(negotiateFormat('text/xml', ['json', 'html', 'xml'])).to.equal('xml');
    expect(() => negotiateFormat('text/xml', ['json', 'html'])).to.throw(
      UnsupportedFormatError,
      /offered: .*f=json, f=html/,
    );
    expect(negotiateFormat(undefined, ['json', 'html'])).to.equal('json');
    expect(negotiateFormat('text/html;q=0, */*', ['json', 'html'])).to.equal('json');
  });
});
