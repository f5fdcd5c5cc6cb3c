/**
 * Content negotiation for every protocol: one ranking of the Accept header, Express's
 * `req.accepts()` (quality, then specificity, then the header's order, then the order offered),
 * applied to a header passed in as text so that the parse functions using it stay pure.
 */
import express, { type Request } from 'express';

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

/**
 * The encoding among `offered` the Accept header ranks best, else the first offered (JSON
 * when nothing offered is acceptable, or there is no Accept header).
 */
export function negotiateFormat<T extends OutputFormat>(
  accept: string | undefined,
  offered: readonly T[],
): T {
  const chosen = preferredMediaType(
    accept,
    offered.flatMap((format) => FORMAT_MEDIA_TYPES[format]),
  );
  const [fallback] = offered;
  if (fallback === undefined) throw new Error('negotiateFormat: no format offered');
  return offered.find((format) => FORMAT_MEDIA_TYPES[format].includes(chosen ?? '')) ?? fallback;
}
