/**
 * Request validation against the OpenAPI document (express-openapi-validator) for the Records
 * and STAC routes. The validator's errors become the project's errors (400 naming the
 * parameter, 404, 405, 415) so the protocol renderers show them as `{code, description}`.
 * CSW, OpenSearch and the health endpoints are left to their own parsers.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import {
  CairnError,
  InvalidParameterError,
  NotFoundError,
  UnknownParameterError,
} from '../../../shared/errors/index.js';
import type { OpenApiDocument } from '../common/openapi.js';

type ValidatorOptions = Parameters<typeof OpenApiValidator.middleware>[0];

interface ValidatorErrorItem {
  path?: string;
  message?: string;
}

interface ValidatorError {
  status?: number;
  message?: string;
  errors?: ValidatorErrorItem[];
}

function isValidatorError(error: unknown): error is ValidatorError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as ValidatorError).status === 'number' &&
    Array.isArray((error as ValidatorError).errors)
  );
}

/** Where an error path points: `/query/limit` → query, limit; `/body/bbox/0` → body, bbox. */
function locate(path: string | undefined): { where: string; name?: string | undefined } {
  const parts = (path ?? '')
    .replace(/^\./, '')
    .split(/[./]/)
    .filter((part) => part !== '');
  return { where: parts[0] ?? 'request', name: parts[1] };
}

function describeValue(value: unknown): string {
  if (value === undefined) return '';
  const text = Array.isArray(value) ? value.join('&') : String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * Errors the route's own parser reports better: a body of another media type (the route says
 * what it needs) and a repeated parameter (the parser says it must be given once). The
 * request goes on to the handler, which refuses it with its own 400.
 */
function isLeftToHandler(error: unknown, request: Request): boolean {
  if (!isValidatorError(error)) return false;
  if (error.status === 415) return true;
  if (error.status !== 400 || !error.errors?.length) return false;
  return error.errors.every((item) => {
    const { where, name } = locate(item.path);
    return where === 'query' && name !== undefined && Array.isArray(request.query[name]);
  });
}

/** Turns an express-openapi-validator error into the project's error for the request. */
export function fromValidatorError(error: ValidatorError, request: Request): CairnError {
  const first = error.errors?.[0] ?? {};
  const message = first.message ?? error.message ?? 'Invalid request';
  const { where, name } = locate(first.path);
  switch (error.status) {
    case 404:
      return new NotFoundError(`No resource at ${request.path}`);
    case 405:
      return new CairnError(
        'METHOD_NOT_ALLOWED',
        405,
        `${request.method} is not allowed on ${request.path}`,
        true,
      );
    case 415:
      return new CairnError(
        'UNSUPPORTED_MEDIA_TYPE',
        415,
        `Unsupported Content-Type "${request.headers['content-type'] ?? ''}": ${message}`,
        true,
        { locator: 'Content-Type' },
      );
  }
  const unknown = /^Unknown query parameter '(.+)'$/.exec(message)?.[1];
  if (unknown !== undefined) return new UnknownParameterError(unknown);
  if (where === 'query' && name !== undefined) {
    const raw = request.query[name];
    return new InvalidParameterError(
      name,
      `Invalid parameter ${name}=${describeValue(raw)}: ${name} ${message}`,
    );
  }
  if (where === 'body') {
    const member = name ?? 'body';
    return new InvalidParameterError(
      member,
      name === undefined
        ? `Invalid request body: ${message}`
        : `Invalid body member "${name}": ${name} ${message}`,
    );
  }
  if (where === 'params' && name !== undefined) {
    return new InvalidParameterError(name, `Invalid path parameter ${name}: ${message}`);
  }
  return new InvalidParameterError(name ?? where, `Invalid request: ${message}`);
}

/**
 * Express 5 computes `request.query` from the URL on every read; the validator pins a coerced
 * copy (numbers, split lists) on the request instead. Handlers must see the query as sent, so
 * the copy taken before validation is put back.
 */
function restoreQuery(request: Request, original: Request['query']): void {
  const own = Object.getOwnPropertyDescriptor(request, 'query');
  if (own === undefined) return;
  if (own.configurable) {
    delete (request as unknown as { query?: unknown }).query;
  } else if (own.writable) {
    (request as unknown as { query: unknown }).query = original;
  }
}

/** Options of the request validator. */
export interface RequestValidatorOptions {
  /**
   * Requests the validator is not run on (undefined: validate): routes whose parse function
   * checks every parameter itself and answers the same 400, and paths the document does not
   * describe (see `unvalidatedRoute` in app.ts). `route` is the document's path template of
   * the request, recorded on it as the validator would (the metrics label requests by it).
   */
  skip?: (request: Request) => { route?: string } | undefined;
}

/**
 * Builds the request-validating middleware for an OpenAPI document (frozen: the validator
 * works on its own deep copy).
 */
export function createRequestValidator(
  document: Readonly<OpenApiDocument>,
  options: RequestValidatorOptions = {},
): RequestHandler[] {
  const { skip } = options;
  const handlers = OpenApiValidator.middleware({
    apiSpec: document as unknown as ValidatorOptions['apiSpec'],
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: false,
    validateSecurity: false,
    validateApiSpec: true,
    ignoreUndocumented: true,
    ignorePaths: /^\/catalogue\/static\//,
  });
  return handlers.map((handler) => (request: Request, response: Response, next: NextFunction) => {
    const skipped = skip?.(request);
    if (skipped !== undefined) {
      if (skipped.route !== undefined) {
        (request as Request & { openapi?: { openApiRoute: string } }).openapi ??= {
          openApiRoute: skipped.route,
        };
      }
      return next();
    }
    const original = request.query;
    handler(request, response, (error?: unknown) => {
      restoreQuery(request, original);
      if (error === undefined || error === null || isLeftToHandler(error, request)) return next();
      next(isValidatorError(error) ? fromValidatorError(error, request) : error);
    });
  });
}
