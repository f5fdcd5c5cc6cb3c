/**
 * Reading GeoJSON feature pages (OGC API – Records items, STAC API search): the features, the
 * reported total and the `next` link (GET href, or STAC's POST link with a body).
 */
import { HarvestSourceError } from '../source-client.js';

export type JsonObject = Record<string, unknown>;

/** A STAC / Records `next` link, resolved against the page's URL. */
export interface NextLink {
  href: string;
  method: 'GET' | 'POST';
  body?: JsonObject | undefined;
  merge: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The features of a FeatureCollection page. */
export function featuresOf(url: string, page: JsonObject): JsonObject[] {
  const features = page.features;
  if (!Array.isArray(features) || !features.every(isObject))
    throw new HarvestSourceError(`${url} did not answer a FeatureCollection`, true);
  return features;
}

/** The id of a feature (records and items have string ids). */
export function featureId(url: string, feature: JsonObject): string {
  if (typeof feature.id === 'string' && feature.id !== '') return feature.id;
  throw new HarvestSourceError(`${url}: a feature has no string id`, true);
}

/** The total a page reports (Records/STAC `numberMatched`, or STAC's older `context.matched`). */
export function matchedOf(page: JsonObject): number | undefined {
  if (typeof page.numberMatched === 'number') return page.numberMatched;
  const context = page.context;
  if (isObject(context) && typeof context.matched === 'number') return context.matched;
  return undefined;
}

/** The page's `next` link, or undefined on the last page. */
export function nextLinkOf(url: string, page: JsonObject): NextLink | undefined {
  const links = Array.isArray(page.links) ? page.links.filter(isObject) : [];
  const next = links.find((link) => link.rel === 'next' && typeof link.href === 'string');
  if (!next) return undefined;
  let href: string;
  try {
    href = new URL(String(next.href), url).href;
  } catch {
    throw new HarvestSourceError(`${url}: the next link is not a URL`, true);
  }
  if (!/^https?:$/.test(new URL(href).protocol))
    throw new HarvestSourceError(`${url}: the next link is not an http(s) URL`, true);
  const method = String(next.method ?? 'GET').toUpperCase() === 'POST' ? 'POST' : 'GET';
  return {
    href,
    method,
    body: isObject(next.body) ? next.body : undefined,
    merge: next.merge === true,
  };
}
