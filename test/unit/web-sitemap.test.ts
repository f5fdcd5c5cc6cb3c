/**
 * The pure parts of the web crawlers' protocol module (services/api/protocols/web): the size
 * bound of a sitemap file, the file parameters, lastmod, the XML written and the generated
 * robots.txt.
 */
import { expect } from 'chai';
import { InvalidParameterError, UnknownParameterError } from '../../shared/errors/index.js';
import { presentRobotsTxt } from '../../services/api/protocols/web/robots.js';
import {
  MAX_LOC_LENGTH,
  parseSitemapFileQuery,
  presentLastmod,
  PROTOCOL_MAX_BYTES,
  sitemapFileUrl,
  urlsPerFile,
  writeSitemapFile,
  writeSitemapIndex,
} from '../../services/api/protocols/web/sitemap.js';

describe('sitemaps', () => {
  it('bounds a file so that the longest locations allowed stay under 50 MiB', () => {
    const most = urlsPerFile(50_000);
    expect(most).to.equal(24_812);
    expect(urlsPerFile(7)).to.equal(7);
    const longest = `https://example.org/${'a'.repeat(MAX_LOC_LENGTH - 20)}`;
    expect(longest).to.have.length(MAX_LOC_LENGTH);
    const entries = Array.from({ length: most }, () => ({
      loc: longest,
      lastmod: '2024-01-01T00:00:00.000Z',
    }));
    expect(Buffer.byteLength(writeSitemapFile(entries))).to.be.below(PROTOCOL_MAX_BYTES);
  });

  it('reads the range of a file and refuses anything else', () => {
    expect(parseSitemapFileQuery({})).to.deep.equal({});
    expect(parseSitemapFileQuery({ after: 'a', through: 'b' })).to.deep.equal({
      after: 'a',
      through: 'b',
    });
    expect(() => parseSitemapFileQuery({ page: '2' })).to.throw(UnknownParameterError);
    expect(() => parseSitemapFileQuery({ after: '' })).to.throw(InvalidParameterError);
    expect(() => parseSitemapFileQuery({ after: ['a', 'b'] })).to.throw(InvalidParameterError);
    expect(() => parseSitemapFileQuery({ after: 'b', through: 'a' })).to.throw(
      InvalidParameterError,
    );
  });

  it('addresses a file by its range, its parameters encoded', () => {
    expect(sitemapFileUrl('https://x.org', {})).to.equal(
      'https://x.org/catalogue/sitemap-records.xml',
    );
    expect(sitemapFileUrl('https://x.org', { after: 'a&b c', through: 'z' })).to.equal(
      'https://x.org/catalogue/sitemap-records.xml?after=a%26b+c&through=z',
    );
  });

  it('writes lastmod as a W3C date or UTC timestamp, nothing for an unreadable time', () => {
    expect(presentLastmod('2024-03-01T10:00:00+02:00')).to.equal('2024-03-01T08:00:00.000Z');
    expect(presentLastmod('2024-03-01')).to.equal('2024-03-01');
    expect(presentLastmod('yesterday')).to.equal(undefined);
    expect(presentLastmod(undefined)).to.equal(undefined);
  });

  it('escapes locations and leaves out the ones the protocol does not allow', () => {
    const xml = writeSitemapFile([
      { loc: 'https://x.org/a?f=html&x=<1>' },
      { loc: `https://x.org/${'b'.repeat(2048)}` },
    ]);
    expect(xml).to.include('<loc>https://x.org/a?f=html&amp;x=&lt;1&gt;</loc>');
    expect(xml).to.not.include('bbbb');
    expect(xml).to.include('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"');
    const index = writeSitemapIndex([
      'https://x.org/catalogue/sitemap-records.xml?after=a&through=b',
    ]);
    expect(index).to.include(
      '<loc>https://x.org/catalogue/sitemap-records.xml?after=a&amp;through=b</loc>',
    );
  });
});

describe('robots.txt', () => {
  it('allows record pages, keeps crawlers off searches and names the sitemap index', () => {
    const text = presentRobotsTxt({
      baseUrl: 'https://x.org/geo',
      sitemapUrl: 'https://x.org/geo/catalogue/sitemap.xml',
      readsRequireToken: false,
    });
    expect(text.split('\n')).to.include.members([
      'User-agent: *',
      'Allow: /geo/catalogue/collections/metadata:main/items/',
      'Disallow: /geo/catalogue/collections/metadata:main/items?',
      'Disallow: /geo/catalogue/csw',
      'Sitemap: https://x.org/geo/catalogue/sitemap.xml',
    ]);
  });

  it('disallows everything and names no sitemap when reads need a token', () => {
    expect(
      presentRobotsTxt({ baseUrl: '', sitemapUrl: 'https://x.org/s.xml', readsRequireToken: true }),
    ).to.equal('User-agent: *\nDisallow: /\n');
  });
});
