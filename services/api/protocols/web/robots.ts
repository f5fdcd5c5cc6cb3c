/**
 * The generated /robots.txt (RFC 9309): what crawlers may fetch and where the sitemap index
 * is. Pure.
 */
import { catalogueUrl, collectionUrl } from '../../common/urls.js';

/** What the generated robots.txt depends on. */
export interface RobotsOptions {
  /** The deployment's public base URL (the sitemap line must be absolute). */
  baseUrl: string;
  /** The sitemap index URL, when sitemaps are served. */
  sitemapUrl?: string | undefined;
  /** Reads need a token (AUTH_READS_REQUIRE_TOKEN): crawlers can read nothing. */
  readsRequireToken: boolean;
}

/**
 * The path of a URL from the host's root, as robots.txt rules name paths (they include the
 * base URL's own path when the catalogue is served below the root).
 */
function pathOf(url: string): string {
  return URL.canParse(url) ? new URL(url).pathname : url;
}

/**
 * The robots.txt text. Record pages are allowed; searches (their parameter combinations are
 * endless), CSW, OpenSearch and the admin pages are not, so a crawler spends its visits on the
 * records the sitemap lists. A catalogue whose reads need a token disallows everything and
 * names no sitemap.
 */
export function presentRobotsTxt(options: RobotsOptions): string {
  const { baseUrl } = options;
  const root = pathOf(catalogueUrl(baseUrl));
  const items = `${pathOf(collectionUrl(baseUrl))}/items`;
  const lines = ['User-agent: *'];
  if (options.readsRequireToken) {
    lines.push('Disallow: /');
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    `Allow: ${items}/`,
    `Disallow: ${items}?`,
    `Disallow: ${root}/search`,
    `Disallow: ${root}/csw`,
    `Disallow: ${root}/opensearch`,
    `Disallow: ${root}/admin`,
  );
  if (options.sitemapUrl) lines.push('', `Sitemap: ${options.sitemapUrl}`);
  return `${lines.join('\n')}\n`;
}
