/**
 * Per-request context: a request id (honouring a well-formed X-Request-Id), a child logger,
 * the public base URL for links, and one access-log line per response.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../../../shared/config/index.js';
import type { Logger } from '../../../shared/logging/index.js';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
    /** Public base URL of this deployment, without a trailing slash. */
    publicBaseUrl: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

function firstHeaderValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
}

/** Derives the public base URL from configuration or, behind a proxy, X-Forwarded-* headers. */
export function resolveBaseUrl(
  request: Request,
  config: Pick<Config, 'publicBaseUrl' | 'trustProxy'>,
): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const forwardedProto = config.trustProxy
    ? firstHeaderValue(request.headers['x-forwarded-proto'])
    : undefined;
  const forwardedHost = config.trustProxy
    ? firstHeaderValue(request.headers['x-forwarded-host'])
    : undefined;
  // The connection's own scheme otherwise (request.protocol would read X-Forwarded-Proto again
  // under Express's `trust proxy`, whatever it holds).
  const ownProto = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : ownProto;
  const candidate = forwardedHost ?? request.headers.host ?? 'localhost';
  const host = HOST.test(candidate) ? candidate : 'localhost';
  return `${proto}://${host}`;
}

/** Builds the middleware that sets request id, logger and base URL and logs each response. */
export function requestContext(
  config: Pick<Config, 'publicBaseUrl' | 'trustProxy'>,
  logger: Logger,
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const incoming = firstHeaderValue(request.headers['x-request-id']);
    request.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    request.log = logger.child({ requestId: request.id });
    request.publicBaseUrl = resolveBaseUrl(request, config);
    response.setHeader('X-Request-Id', request.id);
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const status = response.statusCode;
      const level = status >= 500 ? 'error' : 'info';
      // winston formats (redacts, stamps, serialises) a line before its transports drop it by
      // level: below the configured level the access line is not built at all.
      if (!request.log.isLevelEnabled(level)) return;
      request.log.log(level, 'request', {
        method: request.method,
        // The full path: request.path is relative to the router that answered (CSW's is "/").
        path: request.originalUrl.split('?')[0],
        status,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
