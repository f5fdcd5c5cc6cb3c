/**
 * One SearchScope per request (shared/search/search-scope.ts): the client's key for the
 * expensive lane's per-client limit, and the deadline and abort signal every backend call of the
 * request shares. The key is the request's address as Express sees it (`request.ip`: the peer's
 * address, or with TRUST_PROXY the address the proxy in front of the API saw, see app.ts). When
 * the client goes away before its answer (or the answer is sent while a call of the request
 * still runs), the scope is aborted: the engine requests still running for it are closed,
 * which cancels them, and its lane place is given back.
 */
import type { NextFunction, Request, Response } from 'express';
import { ServiceUnavailableError } from '../../../shared/errors/index.js';
import type { CatalogueGeneration } from '../../../shared/search/catalogue-generation.js';
import { SearchScope } from '../../../shared/search/search-scope.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's search scope: pass it in the options of every backend call. */
    searchScope: SearchScope;
  }
}

/**
 * Milliseconds of the time budget kept back for rendering and sending the answer once the
 * deadline fires: measured from the client, a refinement stopped at its deadline answered 15-25
 * ms after the budget (docs/decisions/hostile-load.md).
 */
const ANSWER_RESERVE_MS = 50;

/**
 * Sets `request.searchScope`, and aborts it when the connection closes before the answer. The
 * scope reads the catalogue generation (if any) once, when first asked.
 */
export function searchScope(
  generation: CatalogueGeneration | undefined,
): (request: Request, response: Response, next: NextFunction) => void {
  const readGeneration = generation && (() => generation.current());
  return (request, response, next) => {
    // The deadline counts from the request's arrival: parsing and the door's checks are in it.
    const scope = new SearchScope({
      client: request.ip,
      startedAt: Date.now(),
      reserveMs: ANSWER_RESERVE_MS,
      readGeneration,
    });
    request.searchScope = scope;
    // Whatever of the request still runs once it is over (a facet count beside a page refused
    // with an error) stops too: nobody waits for it, and its lane place is given back.
    response.once('close', () => {
      scope.abort(
        new ServiceUnavailableError(
          response.writableFinished
            ? 'The request was answered'
            : 'The client closed the connection',
        ),
      );
    });
    next();
  };
}
