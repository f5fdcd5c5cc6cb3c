/**
 * Errors of inbound authentication and authorization. Each carries the RFC 6750 challenge the
 * response must send in `WWW-Authenticate`; the API's error renderer writes it (see
 * services/api/middleware/auth.ts). Descriptions never contain the token or its claims' values.
 */
import { CairnError, type CairnErrorOptions } from '../errors/index.js';

/** The realm name sent in every Bearer challenge. */
export const AUTH_REALM = 'cairn';

/** Builds an RFC 6750 `WWW-Authenticate` value: `Bearer realm="cairn"[, error=…, …]`. */
export function buildBearerChallenge(
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request',
  description?: string,
  scope?: string,
): string {
  const parts = [`realm="${AUTH_REALM}"`];
  if (error) parts.push(`error="${error}"`);
  if (error && description) parts.push(`error_description="${quoteSafe(description)}"`);
  if (scope) parts.push(`scope="${quoteSafe(scope)}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** RFC 6750 §3: error_description uses %x20-21 / %x23-5B / %x5D-7E (no `"` nor `\`). */
function quoteSafe(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 200);
}

/** Errors that carry a `WWW-Authenticate` challenge for the response. */
export interface ChallengeError {
  readonly challenge: string;
}

/** No token (challenge without error), or a token that is not acceptable (401 invalid_token). */
export class UnauthorizedError extends CairnError implements ChallengeError {
  readonly challenge: string;

  /** `description` absent: the request carried no token at all. */
  constructor(description?: string, options: CairnErrorOptions = {}) {
    super(
      'UNAUTHORIZED',
      401,
      description ? `Invalid bearer token: ${description}` : 'A bearer token is required',
      true,
      options,
    );
    this.challenge = description
      ? buildBearerChallenge('invalid_token', description)
      : buildBearerChallenge();
  }
}

/** A valid token without the role or scope the route needs (403 insufficient_scope). */
export class ForbiddenError extends CairnError implements ChallengeError {
  readonly challenge: string;

  constructor(description: string, requiredScope?: string) {
    super('FORBIDDEN', 403, description, true);
    this.challenge = buildBearerChallenge('insufficient_scope', description, requiredScope);
  }
}

/** The catalogue has no identity provider configured, so protected routes stay closed. */
export class AuthNotConfiguredError extends CairnError {
  constructor() {
    super(
      'AUTH_NOT_CONFIGURED',
      503,
      'Authentication is not configured on this server; protected endpoints are unavailable',
      true,
    );
  }
}

/** The provider's key set cannot be fetched, so no token can be checked (503, never accepted). */
export class AuthProviderUnavailableError extends CairnError {
  constructor(message: string, options: CairnErrorOptions = {}) {
    super('AUTH_PROVIDER_UNAVAILABLE', 503, message, true, { retryAfter: 5, ...options });
  }
}

/** True for errors whose response must carry a `WWW-Authenticate` header. */
export function isChallengeError(error: unknown): error is CairnError & ChallengeError {
  return (
    error instanceof CairnError && typeof (error as Partial<ChallengeError>).challenge === 'string'
  );
}
