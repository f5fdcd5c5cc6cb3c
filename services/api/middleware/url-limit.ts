/**
 * Refuses a request whose URL (path and query string) is longer than the configured limit
 * with a 414 in the protocol's own error format. Node's own header-size limit (431, a bare
 * answer) is set above it by the HTTP server (services/api/http-server.ts), so a long query
 * string always reaches this check.
 */
import type { NextFunction, Request, Response } from 'express';
import { InvalidParameterError, UriTooLongError } from '../../../shared/errors/index.js';

/** Builds the middleware for a limit in bytes (UTF-8 length of the request target as sent). */
export function limitUrlLength(maxBytes: number) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const length = Buffer.byteLength(request.originalUrl, 'utf8');
    if (length > maxBytes)
      return next(
        new UriTooLongError(
          `The request URL is ${length} bytes long, more than the limit of ${maxBytes} bytes; send long filters in a POST body`,
        ),
      );
    next();
  };
}

/**
 * Refuses a path with a malformed percent-encoding (`/items/%`) with a 400 naming it, before any
 * router or the request validator decodes it in its own way.
 */
export function refuseMalformedPath(
  request: Request,
  _response: Response,
  next: NextFunction,
): void {
  if (request.path.includes('%')) {
    try {
      decodeURIComponent(request.path);
    } catch {
      return next(
        new InvalidParameterError('path', 'The request path has a malformed percent-encoding'),
      );
    }
  }
  next();
}
