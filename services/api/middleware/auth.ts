/**
 * Route protection. `requireAuth({role?, scope?})` demands a verified bearer token (and, when
 * given, the role or the scope); `readAccess` is open unless AUTH_READS_REQUIRE_TOKEN is set;
 * `writeAccess` is requireAuth with the configured write role or scope.
 *
 * Deny by default: with no identity provider configured, every protected route answers 503
 * AUTH_NOT_CONFIGURED (the server cannot check anybody, which a client cannot fix by sending a
 * different token, so it is not a 401) and is never open. Public reads never look at a token, so
 * they keep working when the provider is down.
 *
 * The error renderer must copy `error.challenge` into `WWW-Authenticate`: install
 * `authChallengeHeaders` before the final renderer, or call `applyAuthChallenge` in it.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthConfig } from '../../../shared/config/index.js';
import {
  AuthNotConfiguredError,
  ForbiddenError,
  isChallengeError,
  UnauthorizedError,
} from '../../../shared/auth/errors.js';
import {
  createTokenVerifier,
  extractBearerToken,
  type TokenVerifier,
  type VerifiedToken,
} from '../../../shared/auth/verify.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The verified bearer token, set by requireAuth (and by readAccess when reads need one). */
    auth?: VerifiedToken;
  }
}

/** What a protected route needs beyond a valid token: the role, or the scope (either suffices). */
export interface AuthRequirement {
  role?: string | undefined;
  scope?: string | undefined;
}

export interface AuthMiddleware {
  /** A valid token with the role or the scope (when given); see AuthRequirement. */
  requireAuth(requirement?: AuthRequirement): RequestHandler;
  /** Open, or requireAuth() when reads require a token. */
  readAccess: RequestHandler;
  /** requireAuth with the configured write role / write scope. */
  writeAccess: RequestHandler;
  /** The verifier in use; undefined when authentication is not configured. */
  verifier?: TokenVerifier | undefined;
}

/** Builds the auth middleware from configuration (a verifier may be injected for tests). */
export function createAuthMiddleware(
  config: AuthConfig,
  options: { verifier?: TokenVerifier } = {},
): AuthMiddleware {
  const verifier =
    options.verifier ?? (config.provider ? createTokenVerifier(config.provider) : undefined);

  const requireAuth = (requirement: AuthRequirement = {}): RequestHandler => {
    return (request: Request, _response: Response, next: NextFunction): void => {
      if (!verifier) return next(new AuthNotConfiguredError());
      authenticate(verifier, request)
        .then((token) => {
          checkRequirement(token, requirement);
          request.auth = token;
          next();
        })
        .catch(next);
    };
  };

  const open: RequestHandler = (_request, _response, next) => next();
  return {
    requireAuth,
    readAccess: config.readsRequireToken ? requireAuth() : open,
    writeAccess: requireAuth({ role: config.writeRole, scope: config.writeScope }),
    verifier,
  };
}

async function authenticate(verifier: TokenVerifier, request: Request): Promise<VerifiedToken> {
  const token = extractBearerToken(request.headers.authorization);
  if (!token) throw new UnauthorizedError();
  return verifier.verify(token);
}

/** Throws ForbiddenError unless the token holds the role (client or realm) or the scope. */
export function checkRequirement(token: VerifiedToken, requirement: AuthRequirement): void {
  const { role, scope } = requirement;
  if (!role && !scope) return;
  if (role && (token.clientRoles.includes(role) || token.realmRoles.includes(role))) return;
  if (scope && token.scopes.includes(scope)) return;
  const needs = [role && `role "${role}"`, scope && `scope "${scope}"`]
    .filter(Boolean)
    .join(' or ');
  throw new ForbiddenError(`This operation requires the ${needs}`, scope);
}

/** Sets `WWW-Authenticate` on the response when the error carries a Bearer challenge. */
export function applyAuthChallenge(error: unknown, response: Response): void {
  if (isChallengeError(error) && !response.headersSent)
    response.setHeader('WWW-Authenticate', error.challenge);
}

/** Error middleware: adds the challenge header, then passes the error to the next renderer. */
export function authChallengeHeaders(
  error: unknown,
  _request: Request,
  response: Response,
  next: NextFunction,
): void {
  applyAuthChallenge(error, response);
  next(error);
}
