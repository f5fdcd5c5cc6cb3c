/**
 * The API's HTTP server with its defences against slow and idle clients: a client must send
 * its headers within HTTP_HEADERS_TIMEOUT_MS and its whole request within
 * HTTP_REQUEST_TIMEOUT_MS (else 408 and the connection is closed), and an idle keep-alive
 * connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS. Node checks the first two on a timer;
 * its interval is derived from them so that a short timeout is enforced promptly.
 */
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../../shared/config/index.js';

/** Room for headers besides the URL: Node's header limit stays above URL_LIMIT_BYTES. */
const HEADER_ROOM_BYTES = 8 * 1024;
/** Node's own default header limit, never lowered. */
const NODE_DEFAULT_HEADER_BYTES = 16 * 1024;

/** Creates (without listening) the HTTP server for an app, with the configured timeouts. */
export function createHttpServer(
  app: Express,
  config: Pick<Readonly<Config>, 'http' | 'limits'>,
): Server {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.http;
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(headersTimeoutMs, 30_000) / 4),
      // The URL limit answers 414 in the protocol's format only if Node lets the URL through.
      maxHeaderSize: Math.max(
        NODE_DEFAULT_HEADER_BYTES,
        config.limits.urlBytes + HEADER_ROOM_BYTES,
      ),
    },
    app,
  );
  return server;
}
