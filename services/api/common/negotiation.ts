/**
 * Content negotiation for every protocol: one ranking of the Accept header, Express's
 * `req.accepts()` (quality, then specificity, then the header's order, then the order offered),
 * applied to a header passed in as text so that the parse functions using it stay pure.
 */
import express, { type Request } from 'express';
import { UnsupportedFormatError } from '../../../shared/errors/index.js';

/** A request that has only an Accept header, for Express's `accepts()`. */
function acceptingOnly(accept: string): Request {
  return Object.create(express.request, { headers: { value: { accept } } }) as Request;
}

/**
 * The offered media type the Accept header ranks best, or undefined when there is no Accept
 * header (or it is blank) or it accepts none of `offered`. Each caller keeps its own default.
 */
export function preferredMediaType(
  accept: string | undefined,
  offered: readonly string[],
): string | undefined {
  if (accept === undefined || accept.trim() === '') return undefined;
  const chosen = acceptingOnly(accept).accepts([...offered]);
  return chosen === false ? undefined : chosen;
}

/**
 * The encodings the JSON/HTML endpoints offer (`f` values); `ttl`, `rdf` and `dcat` are the
 * DCAT-AP description of records in Turtle, RDF/XML and JSON-LD, `jsonld` their schema.org
 * description (JSON-LD) for web search engines.
 */
export type OutputFormat = 'json' | 'html' | 'xml' | 'ttl' | 'rdf' | 'dcat' | 'jsonld';

/** Media types that select each encoding through the Accept header. */
export const FORMAT_MEDIA_TYPES: Readonly<Record<OutputFormat, readonly string[]>> = {
  json: [
    'application/json',
    'application/geo+json',
    'application/schema+json',
    'application/ogc-catalog+json',
    'application/vnd.oai.openapi+json',
    'application/facets+json',
  ],
  html: ['text/html', 'application/xhtml+xml'],
  xml: ['application/xml', 'text/xml'],
  ttl: ['text/turtle'],
  rdf: ['application/rdf+xml'],
  // Only by `f=dcat`: application/ld+json alone does not say which vocabulary is wanted.
  dcat: [],
  // schema.org JSON-LD, for web search engines (records and pages of records).
  jsonld: ['application/ld+json'],
};

/** True when the request names an Accept header with something in it. */
function hasAccept(accept: string | undefined): accept is string {
  return accept !== undefined && accept.trim() !== '';
}

/**
 * The 406 of an Accept header that accepts none of `offered` (media types), naming them, and the
 * `f` values when the resource has them.
 */
function notAcceptable(
  accept: string,
  offered: readonly string[],
  formats?: readonly string[],
): UnsupportedFormatError {
  const byF = formats && formats.length > 0 ? ` (or f=${formats.join(', f=')})` : '';
  return new UnsupportedFormatError(
    `Nothing this resource offers is acceptable to "Accept: ${accept}"; offered: ${offered.join(', ')}${byF}`,
    406,
    { locator: 'Accept' },
  );
}

/**
 * The offered media type the Accept header ranks best; the first offered when there is no
 * Accept header (or it is blank). An Accept header that accepts none of them is a 406 naming
 * them: for resources served in one representation only, whatever `f` says.
 */
export function acceptableMediaType(
  accept: string | undefined,
  offered: readonly string[],
): string {
  const [fallback] = offered;
  if (fallback === undefined) throw new Error('acceptableMediaType: no media type offered');
  if (!hasAccept(accept)) return fallback;
  const chosen = preferredMediaType(accept, offered);
  if (chosen === undefined) throw notAcceptable(accept, offered);
  return chosen;
}

/**
 * The encoding among `offered` the Accept header ranks best, else the first offered (JSON) when
 * there is no Accept header (or it is blank; one accepting any type gets it too). One that accepts none of
 * them is a 406 naming their media types and `f` values: every endpoint that negotiates reads
 * the header here, so they all answer alike.
 */
export function negotiateFormat<T extends OutputFormat>(
  accept: string | undefined,
  offered: readonly T[],
): T {
  const [fallback] = offered;
  if (fallback === undefined) throw new Error('negotiateFormat: no format offered');
  if (!hasAccept(accept)) return fallback;
  const mediaTypes = offered.flatMap((format) => FORMAT_MEDIA_TYPES[format]);
  const chosen = preferredMediaType(accept, mediaTypes);
  if (chosen === undefined) throw notAcceptable(accept, mediaTypes, offered);
  return offered.find((format) => FORMAT_MEDIA_TYPES[format].includes(chosen)) ?? fallback;
}
