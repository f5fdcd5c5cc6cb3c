/**
 * Link building shared by the JSON presenters: a resource offered as JSON and as HTML is
 * linked twice, with `?f=json` and `?f=html`. Pure.
 */
import type { Link as RecordLink } from '../../../shared/records/core-record.js';
import { HTML } from './media-types.js';

/** A link as the JSON documents write it: a record's link, and the HTTP method (STAC search). */
export interface Link extends RecordLink {
  method?: 'GET' | 'POST';
}

/**
 * A resource's two encodings: with `rel` undefined the JSON one is `self` and the HTML one
 * `alternate` (the resource describing itself); with a `rel`, both carry it. The HTML link's
 * title is the JSON one's with " as HTML".
 */
export function jsonAndHtmlLinks(
  href: string,
  type: string,
  title: string,
  rel?: string,
): [Link, Link] {
  return [
    { rel: rel ?? 'self', type, href: `${href}?f=json`, title },
    { rel: rel ?? 'alternate', type: HTML, href: `${href}?f=html`, title: `${title} as HTML` },
  ];
}
