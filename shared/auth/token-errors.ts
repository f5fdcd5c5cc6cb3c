/**
 * Typed errors of the identity provider's token endpoint (token exchange, refresh,
 * client credentials). Each carries the provider's HTTP status, OAuth `error` and
 * `error_description`, and whether trying again later can help (`retryable`).
 *
 * The classification follows Keycloak 26.x standard token exchange v2 (its refusals are pinned
 * by test/integration/keycloak/ and described in docs/decisions/auth.md); anything unrecognised is a plain
 * TokenEndpointError with the same fields. Messages never contain a token.
 */
import { CairnError } from '../errors/index.js';

export interface ProviderErrorDetails {
  /** HTTP status the provider answered with. */
  providerStatus: number;
  /** The OAuth `error` code (e.g. invalid_request, invalid_client, access_denied). */
  oauthError: string;
  /** The provider's `error_description`, verbatim (may be empty). */
  errorDescription: string;
}

/** The token endpoint refused a request. Not exposed to API clients (rendered as a 500). */
export class TokenEndpointError extends CairnError implements ProviderErrorDetails {
  readonly providerStatus: number;
  readonly oauthError: string;
  readonly errorDescription: string;
  /** Whether the same request may succeed later (true only for provider-side failures). */
  readonly retryable: boolean;

  constructor(details: ProviderErrorDetails, code = 'TOKEN_ENDPOINT_ERROR', status = 502) {
    super(
      code,
      status,
      `Token endpoint refused the request: HTTP ${details.providerStatus} ${details.oauthError}` +
        (details.errorDescription ? ` (${details.errorDescription})` : ''),
      status < 500,
    );
    this.providerStatus = details.providerStatus;
    this.oauthError = details.oauthError;
    this.errorDescription = details.errorDescription;
    this.retryable = details.providerStatus >= 500;
  }
}

/** 400 invalid_request "Standard token exchange is not enabled for the requested client". */
export class ExchangeNotEnabledError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_NOT_ENABLED');
  }
}

/** 400 invalid_client "Public client is not allowed to exchange token". */
export class PublicClientExchangeError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_PUBLIC_CLIENT');
  }
}

/** 400 invalid_request "Parameter 'requested_subject' (or requested_issuer, subject_issuer) is not supported…". */
export class UnsupportedExchangeParameterError extends TokenEndpointError {
  /** The refused parameter, e.g. `requested_subject` (impersonation). */
  readonly parameter: string;

  constructor(details: ProviderErrorDetails, parameter: string) {
    super(details, 'TOKEN_EXCHANGE_PARAMETER_UNSUPPORTED');
    this.parameter = parameter;
  }
}

/** 400 invalid_request: subject_token / subject_token_type missing, or not an access token. */
export class MalformedExchangeRequestError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_MALFORMED');
  }
}

/** 400 invalid_request "Invalid token": the subject token is expired, revoked, foreign or its session ended. */
export class InvalidSubjectTokenError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'SUBJECT_TOKEN_INVALID', 401);
  }
}

/** 400 invalid_request "requested_token_type unsupported" (e.g. refresh tokens not allowed for this client). */
export class RequestedTokenTypeUnsupportedError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'REQUESTED_TOKEN_TYPE_UNSUPPORTED');
  }
}

/** 400 invalid_client "Audience not found": an `audience` names no client. */
export class AudienceNotFoundError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_AUDIENCE_NOT_FOUND');
  }
}

/** 400 invalid_client "Client disabled": an `audience` client is disabled. */
export class AudienceClientDisabledError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_AUDIENCE_DISABLED');
  }
}

/** 403 access_denied "Client is not within the token audience": the subject token was not issued for us. */
export class ClientNotInAudienceError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_CLIENT_NOT_IN_AUDIENCE');
  }
}

/** 400 invalid_request "Requested audience not available: a,b": no scope of ours adds them. */
export class AudienceNotAvailableError extends TokenEndpointError {
  /** The audiences the provider named as unavailable. */
  readonly audiences: string[];

  constructor(details: ProviderErrorDetails, audiences: string[]) {
    super(details, 'TOKEN_EXCHANGE_AUDIENCE_NOT_AVAILABLE');
    this.audiences = audiences;
  }
}

/** 400 invalid_scope "Invalid scopes: …": a requested scope is not linked to the requesting client. */
export class InvalidScopeError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'INVALID_SCOPE');
  }
}

/** 400 invalid_scope "Missing consents for Token Exchange in client …". */
export class ConsentRequiredError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_CONSENT_REQUIRED');
  }
}

/** 400 invalid_request "Refresh token not valid as requested_token_type because creating a new session is needed" (offline- or transient-session subject token). */
export class RefreshTokenNotAllowedError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_REFRESH_NOT_ALLOWED');
  }
}

/** 400 invalid_request "Scope offline_access not allowed for token exchange". */
export class OfflineAccessNotAllowedError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'TOKEN_EXCHANGE_OFFLINE_ACCESS_NOT_ALLOWED');
  }
}

/** 401 invalid_client / unauthorized_client "Invalid client or Invalid client credentials". */
export class ClientAuthenticationError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'CLIENT_AUTHENTICATION_FAILED');
  }
}

/** unauthorized_client: the client may not use this grant (no service account, no direct grants…). */
export class UnauthorizedClientError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'UNAUTHORIZED_CLIENT');
  }
}

/** invalid_grant: refresh token (or credentials) rejected: session ended, other client, stale… */
export class InvalidGrantError extends TokenEndpointError {
  constructor(details: ProviderErrorDetails) {
    super(details, 'INVALID_GRANT', 401);
  }
}

/** The token endpoint could not be reached (network errors, after bounded retries). */
export class TokenEndpointUnavailableError extends CairnError {
  readonly retryable = true;

  constructor(message: string, cause: unknown) {
    super('TOKEN_ENDPOINT_UNAVAILABLE', 503, message, true, { retryAfter: 5, cause });
  }
}

/** Refused locally, before any request: the subject token's `exp` has passed. */
export class SubjectTokenExpiredError extends CairnError {
  readonly retryable = false;
  /** The token's `exp`, seconds since the epoch. */
  readonly expiredAt: number;

  constructor(expiredAt: number) {
    super(
      'SUBJECT_TOKEN_EXPIRED',
      401,
      `The subject token expired at ${new Date(expiredAt * 1000).toISOString()}; obtain a fresh token before exchanging it`,
      true,
    );
    this.expiredAt = expiredAt;
  }
}

/** Refused locally: a request the helper will not send (see its message). */
export class TokenRequestRefusedError extends CairnError {
  readonly retryable = false;

  constructor(message: string) {
    super('TOKEN_REQUEST_REFUSED', 500, message, false);
  }
}

/** Builds the error from the details and the pattern's first capture group ('' without one). */
type Builder = (details: ProviderErrorDetails, captured: string) => TokenEndpointError;

/** error code (or '*') + description pattern → class; first match wins. */
const CLASSIFICATION: ReadonlyArray<[string, RegExp, Builder]> = [
  [
    'invalid_request',
    /^Parameter '([a-z_]+)' is not supported for standard token exchange/,
    (d, parameter) => new UnsupportedExchangeParameterError(d, parameter),
  ],
  [
    'invalid_request',
    /^Standard token exchange is not enabled/,
    (d) => new ExchangeNotEnabledError(d),
  ],
  [
    'invalid_request',
    /^Parameter 'subject_token(_type)?' (required|supports access tokens only)/,
    (d) => new MalformedExchangeRequestError(d),
  ],
  ['invalid_request', /^Invalid token$/, (d) => new InvalidSubjectTokenError(d)],
  [
    'invalid_request',
    /^requested_token_type unsupported/,
    (d) => new RequestedTokenTypeUnsupportedError(d),
  ],
  [
    'invalid_request',
    /^Refresh token not valid as requested_token_type/,
    (d) => new RefreshTokenNotAllowedError(d),
  ],
  [
    'invalid_request',
    /^Scope offline_access not allowed for token exchange/,
    (d) => new OfflineAccessNotAllowedError(d),
  ],
  [
    'invalid_request',
    /^Requested audience not available: ?(.*)$/,
    (d, audiences) =>
      new AudienceNotAvailableError(
        d,
        audiences
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
  ],
  ['invalid_client', /^Public client is not allowed/, (d) => new PublicClientExchangeError(d)],
  ['invalid_client', /^Audience not found/, (d) => new AudienceNotFoundError(d)],
  ['invalid_client', /^Client disabled/, (d) => new AudienceClientDisabledError(d)],
  [
    'access_denied',
    /^Client is not within the token audience/,
    (d) => new ClientNotInAudienceError(d),
  ],
  ['invalid_scope', /^Missing consents/, (d) => new ConsentRequiredError(d)],
  ['invalid_scope', /.*/, (d) => new InvalidScopeError(d)],
  ['invalid_client', /.*/, (d) => new ClientAuthenticationError(d)],
  [
    'unauthorized_client',
    /^Invalid client or Invalid client credentials/,
    (d) => new ClientAuthenticationError(d),
  ],
  ['unauthorized_client', /.*/, (d) => new UnauthorizedClientError(d)],
  ['invalid_grant', /.*/, (d) => new InvalidGrantError(d)],
];

/** Turns a token-endpoint error response into the most specific typed error. */
export function classifyTokenEndpointError(details: ProviderErrorDetails): TokenEndpointError {
  for (const [code, pattern, build] of CLASSIFICATION) {
    if (code !== details.oauthError) continue;
    const match = pattern.exec(details.errorDescription);
    if (match) return build(details, match[1] ?? '');
  }
  return new TokenEndpointError(details);
}
