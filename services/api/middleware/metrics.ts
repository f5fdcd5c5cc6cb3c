/**
 * Request metrics for the API: each answered request is counted by method, route template
 * (never the raw path, so label values stay few) and status, and timed. Also the /metrics
 * endpoint, unauthenticated as Prometheus expects (METRICS_ENABLED=false turns both off).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiMetrics } from '../../../shared/metrics/api-metrics.js';

/** The route label of requests no route answered (static files, redirects, 404s). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template that answered a request: the OpenAPI path when the request matched the
 * OpenAPI document (Records, STAC: `/catalogue/collections/{collectionId}/items`, the same
 * whether the validator refused it or a route answered), else the Express route. Express
 * restores `baseUrl` when an error leaves a router, so the mount path is read from the
 * original URL instead: its segments before as many as the route path has. An answer served
 * by the result cache (result-cache.ts) counts under the route template that made it.
 */
export function routeTemplate(request: Request): string {
  // An answer from the result cache counts under the route that made it.
  const cachedRoute: unknown = request.res?.locals.cachedRoute;
  if (typeof cachedRoute === 'string') return cachedRoute;
  const openApiRoute = (request as Request & { openapi?: { openApiRoute?: string } }).openapi
    ?.openApiRoute;
  if (typeof openApiRoute === 'string') return openApiRoute;
  const routePath = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath !== 'string') return UNMATCHED_ROUTE;
  const routeSegments = routePath.split('/').filter(Boolean);
  // Wildcards and optional groups do not map one-to-one onto URL segments.
  if (routeSegments.some((segment) => /[*{(]/.test(segment))) return request.baseUrl + routePath;
  const [path = ''] = request.originalUrl.split('?');
  const segments = path.split('/').filter(Boolean);
  const mount = segments.slice(0, Math.max(0, segments.length - routeSegments.length));
  return `/${[...mount, ...routeSegments].join('/')}`;
}

/** Counts and times every request once its response is sent. */
export function recordRequestMetrics(metrics: ApiMetrics): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const route = routeTemplate(request);
      const method = request.method;
      metrics.requests.inc({ method, route, status: String(response.statusCode) });
      metrics.requestDuration.observe(
        { method, route },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}

/** GET /metrics: the Prometheus text format. */
export function serveApiMetrics(metrics: ApiMetrics): RequestHandler {
  return async (_request: Request, response: Response) => {
    response
      .type(metrics.registry.contentType)
      .setHeader('Cache-Control', 'no-store')
      .send(await metrics.registry.metrics());
  };
}
