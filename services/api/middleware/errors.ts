/**
 * Error rendering. Handlers throw; this middleware renders CairnErrors in the OGC API
 * `{code, description}` JSON shape and replaces anything unexpected with a generic 500.
 * Protocols with their own error formats (CSW, OpenSearch) install their own renderer.
 */
import type { NextFunction, Request, Response } from 'express';
import {
  CairnError,
  PayloadTooLargeError,
  InvalidParameterError,
  toCairnError,
} from '../../../shared/errors/index.js';

/** Turns errors raised by Express body parsers into project errors. */
export function fromHttpError(error: unknown): CairnError {
  const status = (error as { status?: number; type?: string }).status;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large')
    return new PayloadTooLargeError('Request body is larger than the configured limit');
  if (type === 'entity.parse.failed')
    return new InvalidParameterError('body', 'Request body is not valid JSON');
  // A corrupt compressed body: body-parser passes zlib's stream error on with status 400 but no
  // `type` (Z_DATA_ERROR, Z_BUF_ERROR…; brotli's ERR__ERROR_FORMAT_…).
  const code = (error as { code?: unknown }).code;
  if (status === 400 && typeof code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(code))
    return new InvalidParameterError(
      'body',
      'Request body could not be decompressed: it is not a valid stream for its Content-Encoding',
    );
  // The router's path-parameter decoding: a malformed percent-encoding in the URL path.
  if (error instanceof URIError && status === 400)
    return new InvalidParameterError('path', 'The request path has a malformed percent-encoding');
  if (status && status >= 400 && status < 500 && type)
    return new InvalidParameterError('body', `Request body rejected (${type})`);
  return toCairnError(error);
}

/** Logs a failed request's error with its code and cause. */
export function logRequestFailure(error: CairnError, request: Request): void {
  request.log.error('request failed', {
    code: error.code,
    error: error.message,
    cause: String(error.cause ?? ''),
  });
}

/** Logs an error at the right level and returns what may be shown to the client. */
export function describeForClient(
  error: CairnError,
  request: Request,
): { status: number; code: string; description: string } {
  if (error.status >= 500) logRequestFailure(error, request);
  if (!error.expose)
    return { status: 500, code: 'INTERNAL_ERROR', description: 'An internal error occurred' };
  return { status: error.status, code: error.code, description: error.message };
}

/** Tells a client refused with 503 when to retry, when the error knows. */
export function setRetryAfter(response: Response, error: CairnError, status: number): void {
  if (error.retryAfter && status === 503)
    response.setHeader('Retry-After', String(error.retryAfter));
}

/**
 * An Express error handler (four parameters, as Express requires) that passes on errors once the
 * response has started and renders the rest, as project errors, with `render`.
 */
export function errorRenderer(
  render: (error: CairnError, request: Request, response: Response) => void,
): (error: unknown, request: Request, response: Response, next: NextFunction) => void {
  return (error, request, response, next) => {
    if (response.headersSent) return next(error);
    render(fromHttpError(error), request, response);
  };
}

/** The final OGC API error handler: `{code, description}` JSON with the error's status. */
export const renderJsonError = errorRenderer((cairnError, request, response) => {
  const { status, code, description } = describeForClient(cairnError, request);
  setRetryAfter(response, cairnError, status);
  response.status(status).type('application/json').send(JSON.stringify({ code, description }));
});
