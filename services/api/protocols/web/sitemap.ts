/**
 * Sitemaps (sitemaps.org protocol 0.9) of the catalogue: the index and its files as XML, the
 * ranges of record ids each file covers, and the parameters that address a file. Pure.
 *
 * A file covers the records after one id (exclusive) through another (inclusive), in id order,
 * the order every backend pages in without walking the records before a page; its URL carries
 * both ids, so serving a deep file costs what the first costs (see sitemap-walk.ts).
 */
import { InvalidParameterError, UnknownParameterError } from '../../../../shared/errors/index.js';
import { parseTimeValue } from '../../../../shared/records/time.js';
import { createDocument, serialise } from '../../../../shared/records/writers/xml/xml-builder.js';
import { catalogueUrl } from '../../common/urls.js';

/** The namespace of sitemap files and sitemap indexes. */
export const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** The protocol's bounds: URLs per file, and bytes per file uncompressed (50 MiB). */
export const PROTOCOL_MAX_URLS = 50_000;
export const PROTOCOL_MAX_BYTES = 50 * 1024 * 1024;
/** A `<loc>` must be shorter than 2,048 characters. */
export const MAX_LOC_LENGTH = 2047;
/** The bytes a `<url>` entry adds besides its location: the tags and the longest lastmod. */
const ENTRY_OVERHEAD = '<url><loc></loc><lastmod>0000-00-00T00:00:00.000Z</lastmod></url>\n'.length;
/** Bytes of the file's declaration and root element. */
const FILE_OVERHEAD = 200;

/** The sitemap index, relative to the catalogue root. */
export const SITEMAP_INDEX_PATH = '/sitemap.xml';
/** The sitemap files, relative to the catalogue root (beside the index: see sitemapFileUrl). */
export const SITEMAP_FILE_PATH = '/sitemap-records.xml';
/** The parameters of a sitemap file: the ids its range starts after and ends at. */
export const SITEMAP_FILE_PARAMETERS = ['after', 'through'] as const;

/**
 * The records of one sitemap file, in id order: those after `after` (from the first record when
 * absent) through `through` (to the last record when absent).
 */
export interface IdRange {
  after?: string | undefined;
  through?: string | undefined;
}

/** One URL of a sitemap file: a record page and when its record was last updated. */
export interface SitemapEntry {
  loc: string;
  lastmod?: string | undefined;
}

/**
 * How many URLs a file may hold: the configured number, but never so many that a file of the
 * longest locations the protocol allows (2,047 characters, ASCII as record page URLs are)
 * would pass 50 MiB.
 */
export function urlsPerFile(configured: number): number {
  const bySize = Math.floor(
    (PROTOCOL_MAX_BYTES - FILE_OVERHEAD) / (MAX_LOC_LENGTH + ENTRY_OVERHEAD),
  );
  return Math.max(1, Math.min(configured, PROTOCOL_MAX_URLS, bySize));
}

/** The index URL, for a public base URL. */
export function sitemapIndexUrl(baseUrl: string): string {
  return `${catalogueUrl(baseUrl)}${SITEMAP_INDEX_PATH}`;
}

/**
 * The URL of the sitemap file of a range. It lies in the catalogue's root folder, as the
 * protocol requires of a file listing pages below that folder.
 */
export function sitemapFileUrl(baseUrl: string, range: IdRange): string {
  const parameters = new URLSearchParams();
  if (range.after !== undefined) parameters.set('after', range.after);
  if (range.through !== undefined) parameters.set('through', range.through);
  const query = parameters.toString();
  return `${catalogueUrl(baseUrl)}${SITEMAP_FILE_PATH}${query === '' ? '' : `?${query}`}`;
}

/**
 * Reads the range a sitemap file is asked for: `after` and `through`, each at most once and not
 * empty, `through` not before `after`; any other parameter is refused.
 */
export function parseSitemapFileQuery(query: Record<string, unknown>): IdRange {
  const range: IdRange = {};
  for (const [name, value] of Object.entries(query)) {
    if (name !== 'after' && name !== 'through') throw new UnknownParameterError(name);
    if (typeof value !== 'string') {
      throw new InvalidParameterError(name, `Parameter "${name}" must be given once`);
    }
    if (value === '') throw new InvalidParameterError(name, `${name} must name a record id`);
    range[name] = value;
  }
  if (range.after !== undefined && range.through !== undefined && range.through <= range.after) {
    throw new InvalidParameterError('through', 'through must come after "after" in id order');
  }
  return range;
}

/**
 * The W3C Datetime of a record's update time for `lastmod`: the date of a date-only value, the
 * UTC timestamp of any other; undefined when the record gives no readable time.
 */
export function presentLastmod(updated: string | undefined): string | undefined {
  if (updated === undefined) return undefined;
  const span = parseTimeValue(updated);
  if (!span) return undefined;
  return span.dateOnly ? span.start.slice(0, 10) : span.start;
}

/** The sitemap index listing the sitemap files' URLs. */
export function writeSitemapIndex(fileUrls: readonly string[]): string {
  const document = createDocument();
  const index = document.ele(SITEMAP_NAMESPACE, 'sitemapindex');
  for (const url of fileUrls)
    index.ele(SITEMAP_NAMESPACE, 'sitemap').ele(SITEMAP_NAMESPACE, 'loc').txt(url);
  return serialise(document);
}

/**
 * A sitemap file of record pages. Entries whose location is 2,048 characters or longer are
 * left out: the protocol does not allow them (only a record id of well over a thousand
 * characters makes one).
 */
export function writeSitemapFile(entries: Iterable<SitemapEntry>): string {
  const document = createDocument();
  const urlset = document.ele(SITEMAP_NAMESPACE, 'urlset');
  for (const entry of entries) {
    if (entry.loc.length > MAX_LOC_LENGTH) continue;
    const url = urlset.ele(SITEMAP_NAMESPACE, 'url');
    url.ele(SITEMAP_NAMESPACE, 'loc').txt(entry.loc);
    if (entry.lastmod !== undefined) url.ele(SITEMAP_NAMESPACE, 'lastmod').txt(entry.lastmod);
  }
  // Not indented: the size bound (urlsPerFile) counts no white space between entries.
  return serialise(document, { prettyPrint: false });
}
