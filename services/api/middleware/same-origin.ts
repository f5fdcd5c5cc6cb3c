/**
 * The guard of every state-changing form of the admin HTML pages (sign-out today): the browser
 * must say the form came from the catalogue's own pages. Browsers name where a request comes
 * from in `Sec-Fetch-Site` and `Origin` (every POST), which a page of another site cannot set;
 * a request from another site — or from a sandboxed or opaque context (`Origin: null`) — is a
 * 403 and changes nothing, whatever cookies it carries. A request naming neither (not sent by a
 * browser, so it carries no one's cookies against their will) is judged by its `Referer` when
 * present, else let through. The SameSite=Lax cookies already keep cross-site POSTs from
 * carrying the session; this check does not rely on that (a sibling site is "same-site").
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { CrossSiteRequestError } from '../../../shared/auth/sign-in-errors.js';

/** `Sec-Fetch-Site` values of a request the catalogue's own pages (or the user) started. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/** The origin of a URL, or undefined when it is not one. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Why the request is refused as coming from another site, or undefined when it may proceed.
 * `own`: the catalogue's origins (its public base URL, the sign-in redirect base).
 */
export function crossSiteRefusal(request: Request, own: readonly string[]): string | undefined {
  const site = request.get('sec-fetch-site');
  if (site !== undefined && !OWN_FETCH_SITES.has(site.toLowerCase()))
    return `this form was sent from another site (Sec-Fetch-Site: ${site})`;
  const origin = request.get('origin');
  if (origin !== undefined) {
    if (!own.includes(origin)) return 'this form was sent from another origin';
    return undefined;
  }
  const referer = request.get('referer');
  if (site === undefined && referer !== undefined) {
    const from = originOf(referer);
    if (from === undefined || !own.includes(from)) return 'this form was sent from another origin';
  }
  return undefined;
}

/**
 * Middleware for a state-changing admin form: 403 (CrossSiteRequestError, rendered by the
 * router's error page) unless the request comes from `origins(request)`.
 */
export function requireSameOrigin(origins: (request: Request) => string[]): RequestHandler {
  return function sameOriginCheck(request: Request, _response: Response, next: NextFunction) {
    const refusal = crossSiteRefusal(
      request,
      origins(request).flatMap((url) => originOf(url) ?? []),
    );
    if (refusal === undefined) return next();
    request.log.warn('admin form refused', { reason: refusal, origin: request.get('origin') });
    next(new CrossSiteRequestError(refusal));
  };
}
