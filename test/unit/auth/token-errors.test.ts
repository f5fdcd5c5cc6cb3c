/**
 * Classification of token-endpoint refusals: every case of the reference's failure tables maps
 * to its typed error, keeping the provider's status, error and description.
 */
import { expect } from 'chai';
import {
  AudienceClientDisabledError,
  AudienceNotAvailableError,
  AudienceNotFoundError,
  classifyTokenEndpointError,
  ClientAuthenticationError,
  ClientNotInAudienceError,
  ConsentRequiredError,
  ExchangeNotEnabledError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidSubjectTokenError,
  MalformedExchangeRequestError,
  OfflineAccessNotAllowedError,
  PublicClientExchangeError,
  RefreshTokenNotAllowedError,
  RequestedTokenTypeUnsupportedError,
  TokenEndpointError,
  UnauthorizedClientError,
  UnsupportedExchangeParameterError,
} from '../../../shared/auth/token-errors.js';

type ErrorClass = abstract new (...args: never[]) => TokenEndpointError;

const CASES: Array<[number, string, string, ErrorClass]> = [
  [
    400,
    'invalid_request',
    "Parameter 'requested_subject' is not supported for standard token exchange",
    UnsupportedExchangeParameterError,
  ],
  [
    400,
    'invalid_request',
    "Parameter 'requested_issuer' is not supported for standard token exchange",
    UnsupportedExchangeParameterError,
  ],
  [
    400,
    'invalid_request',
    "Parameter 'subject_issuer' is not supported for standard token exchange",
    UnsupportedExchangeParameterError,
  ],
  [
    400,
    'invalid_request',
    'Standard token exchange is not enabled for the requested client',
    ExchangeNotEnabledError,
  ],
  [
    400,
    'invalid_request',
    "Parameter 'subject_token' required for standard token exchange",
    MalformedExchangeRequestError,
  ],
  [
    400,
    'invalid_request',
    "Parameter 'subject_token_type' required for standard token exchange",
    MalformedExchangeRequestError,
  ],
  [
    400,
    'invalid_request',
    "Parameter 'subject_token' supports access tokens only",
    MalformedExchangeRequestError,
  ],
  [400, 'invalid_request', 'Invalid token', InvalidSubjectTokenError],
  [400, 'invalid_request', 'requested_token_type unsupported', RequestedTokenTypeUnsupportedError],
  [400, 'invalid_client', 'Audience not found', AudienceNotFoundError],
  [
    400,
    'invalid_client',
    'Public client is not allowed to exchange token',
    PublicClientExchangeError,
  ],
  [400, 'invalid_client', 'Client disabled', AudienceClientDisabledError],
  [403, 'access_denied', 'Client is not within the token audience', ClientNotInAudienceError],
  [400, 'invalid_scope', 'Invalid scopes: reports', InvalidScopeError],
  [
    400,
    'invalid_request',
    'Refresh token not valid as requested_token_type because creating a new session is needed',
    RefreshTokenNotAllowedError,
  ],
  [
    400,
    'invalid_request',
    'Scope offline_access not allowed for token exchange',
    OfflineAccessNotAllowedError,
  ],
  [
    400,
    'invalid_scope',
    'Missing consents for Token Exchange in client cairn-worker',
    ConsentRequiredError,
  ],
  [400, 'invalid_request', 'Requested audience not available: a,b', AudienceNotAvailableError],
  [
    401,
    'invalid_client',
    'Invalid client or Invalid client credentials',
    ClientAuthenticationError,
  ],
  [
    401,
    'unauthorized_client',
    'Invalid client or Invalid client credentials',
    ClientAuthenticationError,
  ],
  [
    401,
    'unauthorized_client',
    'Client not enabled to retrieve service account',
    UnauthorizedClientError,
  ],
  [
    400,
    'unauthorized_client',
    'Client not allowed for direct access grants',
    UnauthorizedClientError,
  ],
  [400, 'invalid_grant', 'Offline session not active', InvalidGrantError],
  [
    400,
    'invalid_grant',
    "Invalid refresh token. Token client and authorized client don't match",
    InvalidGrantError,
  ],
];

describe('auth/token-errors: classifyTokenEndpointError', () => {
  for (const [status, oauthError, description, type] of CASES) {
    it(`${status} ${oauthError} "${description}" → ${type.name}`, () => {
      const error = classifyTokenEndpointError({
        providerStatus: status,
        oauthError,
        errorDescription: description,
      });
      expect(error).to.be.instanceOf(type);
      expect(error.providerStatus).to.equal(status);
      expect(error.oauthError).to.equal(oauthError);
      expect(error.errorDescription).to.equal(description);
      expect(error.retryable).to.equal(false);
      expect(error.code).to.match(/^[A-Z_]+$/);
    });
  }

  it('names the refused parameter and the unavailable audiences', () => {
    const parameter = classifyTokenEndpointError({
      providerStatus: 400,
      oauthError: 'invalid_request',
      errorDescription:
        "Parameter 'requested_subject' is not supported for standard token exchange",
    }) as UnsupportedExchangeParameterError;
    expect(parameter.parameter).to.equal('requested_subject');
    const audience = classifyTokenEndpointError({
      providerStatus: 400,
      oauthError: 'invalid_request',
      errorDescription: 'Requested audience not available: cairn-downstream, cairn-reports',
    }) as AudienceNotAvailableError;
    expect(audience.audiences).to.deep.equal(['cairn-downstream', 'cairn-reports']);
  });

  it('keeps unknown answers as a plain TokenEndpointError; 5xx are retryable and not exposed', () => {
    const unknown = classifyTokenEndpointError({
      providerStatus: 400,
      oauthError: 'unsupported_grant_type',
      errorDescription: 'Unsupported grant_type',
    });
    expect(unknown.constructor).to.equal(TokenEndpointError);
    const server = classifyTokenEndpointError({
      providerStatus: 503,
      oauthError: 'invalid_response',
      errorDescription: '',
    });
    expect(server.retryable).to.equal(true);
    expect(server.expose).to.equal(false);
  });
});
