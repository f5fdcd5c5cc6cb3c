/**
 * The API's HTTP server with its defences against slow and idle clients: a client must send
 * its headers within HTTP_HEADERS_TIMEOUT_MS and its whole request within
 * HTTP_REQUEST_TIMEOUT_MS (else 408 and the connection is closed), and an idle keep-alive
 * connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS. Node checks the first two on a timer;
 * its interval is derived from them so that a short timeout is enforced promptly.
 */
import {
  createServer,
  IncomingMessage,
  ServerResponse,
  type Server,
  type ServerOptions,
} from 'node:http';
import type { Express, Request, Response } from 'express';
import type { Config } from '../../shared/config/index.js';

/** Room for headers besides the URL: Node's header limit stays above URL_LIMIT_BYTES. */
const HEADER_ROOM_BYTES = 8 * 1024;
/** Node's own default header limit, never lowered. */
const NODE_DEFAULT_HEADER_BYTES = 16 * 1024;

/** The request and response classes of an app's server (appPrototypeClasses). */
type AppClasses = Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>;

const adopted = new WeakMap<Express, AppClasses>();

/**
 * Request and response classes whose prototypes are the app's own `app.request` and
 * `app.response`, for the server to create its requests and responses with.
 *
 * Express otherwise changes the prototype of every request and response it handles
 * (`Object.setPrototypeOf` in `app.handle`). V8 gives each such object a map of its own, which
 * its young-generation collector keeps alive, and with it everything the request reaches, until
 * the next full collection: every request's objects were copied and then promoted. Measured on a
 * bare Express app: each scavenge copied 2.9-3.9 MB and took 3-8 ms; with these classes it
 * copies under 1 KB in 0.3-0.4 ms, and the app answers a third more requests a second
 * (docs/decisions/garbage-the-young-collector-kept.md). Express's own swap then finds
 * the prototype already in place and changes nothing. Servers created by others for the same app
 * (supertest) still work: Express swaps their objects' prototypes to these, as before.
 */
export function appPrototypeClasses(app: Express): AppClasses {
  const known = adopted.get(app);
  if (known) return known;
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  for (const [own, ours] of [
    [app.request, AppRequest.prototype],
    [app.response, AppResponse.prototype],
  ] as const) {
    // Express's prototypes (its request and response methods), and what the app put on its
    // own (`app`).
    Object.setPrototypeOf(ours, Object.getPrototypeOf(own) as object | null);
    Object.defineProperties(ours, Object.getOwnPropertyDescriptors(own));
  }
  app.request = AppRequest.prototype as unknown as Request;
  app.response = AppResponse.prototype as unknown as Response;
  const classes: AppClasses = {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse as AppClasses['ServerResponse'],
  };
  adopted.set(app, classes);
  return classes;
}

/** Creates (without listening) the HTTP server for an app, with the configured timeouts. */
export function createHttpServer(
  app: Express,
  config: Pick<Readonly<Config>, 'http' | 'limits'>,
): Server {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.http;
  const server = createServer(
    {
      ...appPrototypeClasses(app),
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
