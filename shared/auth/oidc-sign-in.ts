/**
 * Browser sign-in with the OpenID Connect authorization code flow and PKCE (S256), through
 * openid-client against the configured issuer and a public client. This module only speaks to
 * the provider: it builds the authorization and end-session URLs, redeems the code (checking
 * state, nonce, `iss` and the ID token) and refreshes access tokens. Where the tokens are kept
 * and how a request is authorized is the API's business (services/api/middleware/admin-session).
 *
 * Failures are typed: a refused or forged callback is a SignInFailedError (400), a refused
 * refresh a SessionEndedError, an unreachable provider an AuthProviderUnavailableError (503).
 * No error message carries a code, a token or the PKCE verifier.
 */
import * as oidc from 'openid-client';
import { AuthProviderUnavailableError } from './errors.js';
import { SessionEndedError, SignInFailedError } from './sign-in-errors.js';

/** What the server remembers between sending a browser to the provider and its return. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The redirect URI sent in the authorization request (the token request repeats it). */
  redirectUri: string;
  /** Where to send the browser after signing in: a path under /catalogue/admin. */
  returnTo: string;
}

/** The tokens of a signed-in browser, held server-side. */
export interface SessionTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  idToken?: string | undefined;
  /** When the access token expires, in ms since the epoch. */
  accessExpiresAt: number;
  /** Who signed in, for the page header and the log (preferred_username, name or sub). */
  userName: string;
  subject?: string | undefined;
}

export interface OidcSignInOptions {
  issuer: string;
  clientId: string;
  /** Seconds to wait for the provider on each request. */
  timeoutSeconds?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

/** Provider errors that mean "the provider is unreachable or broken", not "you were refused". */
const UNAVAILABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
]);

/** The code flow with PKCE against one issuer and one public client (see the module comment). */
export class OidcSignIn {
  private configuration: Promise<oidc.Configuration> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: OidcSignInOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts a sign-in: the provider URL to send the browser to, and what to remember. */
  async begin(
    redirectUri: string,
    returnTo: string,
  ): Promise<{ url: string; pending: PendingSignIn }> {
    const configuration = await this.discover();
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      redirectUri,
      returnTo,
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /**
   * Redeems the authorization response (the callback's query string) for tokens, checking
   * state, `iss`, PKCE (at the provider), the ID token and its nonce.
   */
  async complete(query: URLSearchParams, pending: PendingSignIn): Promise<SessionTokens> {
    const configuration = await this.discover();
    const callback = new URL(pending.redirectUri);
    callback.search = query.toString();
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      return this.toSessionTokens(tokens);
    } catch (error) {
      throw translate(error, (description, cause) => new SignInFailedError(description, { cause }));
    }
  }

  /** New tokens for a session; SessionEndedError when the provider refuses the refresh token. */
  async refresh(current: SessionTokens): Promise<SessionTokens> {
    if (!current.refreshToken) throw new SessionEndedError('the access token expired');
    const configuration = await this.discover();
    try {
      const tokens = await oidc.refreshTokenGrant(configuration, current.refreshToken);
      const next = this.toSessionTokens(tokens, current);
      return { ...next, refreshToken: next.refreshToken ?? current.refreshToken };
    } catch (error) {
      throw translate(error, (description, cause) => new SessionEndedError(description, { cause }));
    }
  }

  /**
   * The provider's end-session URL (RP-initiated logout) with the ID token as hint, or
   * undefined when the provider has no end-session endpoint.
   */
  async endSessionUrl(
    idToken: string | undefined,
    postLogoutRedirectUri: string,
  ): Promise<string | undefined> {
    const configuration = await this.discover();
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    const parameters: Record<string, string> = { post_logout_redirect_uri: postLogoutRedirectUri };
    if (idToken) parameters.id_token_hint = idToken;
    return oidc.buildEndSessionUrl(configuration, parameters).href;
  }

  /** Discovers the provider once (again after a failure), allowing http only for http issuers. */
  private discover(): Promise<oidc.Configuration> {
    this.configuration ??= oidc
      .discovery(new URL(this.options.issuer), this.options.clientId, undefined, oidc.None(), {
        execute:
          new URL(this.options.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        timeout: this.options.timeoutSeconds ?? 10,
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new AuthProviderUnavailableError(
          'The identity provider cannot be reached for sign-in',
          { cause: error },
        );
      });
    return this.configuration;
  }

  private toSessionTokens(
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
    previous?: SessionTokens,
  ): SessionTokens {
    const claims = tokens.claims();
    const name = [claims?.preferred_username, claims?.name, claims?.sub].find(
      (value): value is string => typeof value === 'string' && value !== '',
    );
    return {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      idToken: tokens.id_token ?? previous?.idToken,
      accessExpiresAt: this.now() + (tokens.expiresIn() ?? 60) * 1000,
      userName: name ?? previous?.userName ?? 'unknown user',
      subject: claims?.sub ?? previous?.subject,
    };
  }
}

/**
 * Sorts a provider or validation failure: unreachable provider → 503; a refusal or a response
 * that does not validate → the caller's error (with the provider's `error` code, never its
 * tokens); anything else is a bug and passes unchanged.
 */
function translate(
  error: unknown,
  refusal: (description: string, cause: unknown) => Error,
): unknown {
  if (error instanceof oidc.ResponseBodyError) {
    if (error.status >= 500)
      return new AuthProviderUnavailableError('The identity provider failed', { cause: error });
    return refusal(`the provider refused (${error.error})`, error);
  }
  if (error instanceof oidc.AuthorizationResponseError)
    return refusal(`the provider answered "${error.error}"`, error);
  if (error instanceof oidc.ClientError) {
    if (error.code && UNAVAILABLE_CODES.has(error.code))
      return new AuthProviderUnavailableError('The identity provider cannot be reached', {
        cause: error,
      });
    return refusal(`the provider's response did not validate (${error.message})`, error);
  }
  if (error instanceof TypeError && error.message === 'fetch failed')
    return new AuthProviderUnavailableError('The identity provider cannot be reached', {
      cause: error,
    });
  return error;
}
