/**
 * A client for the identity provider's token endpoint, for outbound calls:
 *
 * - `exchange`: RFC 8693 token exchange (Keycloak standard token exchange v2) of a user's access
 *   token for one toward a downstream `audience` list and/or `scope`, optionally with a refresh
 *   token (same session);
 * - `refresh`: the `refresh_token` grant, e.g. for the offline token the job manager holds;
 * - `clientCredentials`: machine-to-machine tokens with a minimal scope.
 *
 * Results are cached until shortly before they expire, keyed by a SHA-256 hash of the request
 * (never the raw token); identical concurrent requests share one call. Only network failures
 * are retried (bounded, exponential backoff with jitter); every refusal becomes a typed error
 * from ./token-errors.ts. Tokens are never logged: log lines carry the grant, client id, HTTP
 * status and a short hash prefix only.
 *
 * Retrying a refresh after a lost response can meet "Stale token" when the provider rotates
 * refresh tokens (Keycloak `revokeRefreshToken`); that arrives as InvalidGrantError.
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import {
  classifyTokenEndpointError,
  SubjectTokenExpiredError,
  TokenEndpointError,
  TokenEndpointUnavailableError,
  TokenRequestRefusedError,
} from './token-errors.js';

export const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
export const TOKEN_TYPE_REFRESH = 'urn:ietf:params:oauth:token-type:refresh_token';

/** A token response. Printing it (inspect, JSON) shows no token values. */
export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: string;
  /** `expires_in` as returned, in seconds. */
  readonly expiresIn: number;
  /** When the access token expires, milliseconds since the epoch (local clock at receipt). */
  readonly expiresAt: number;
  readonly refreshToken?: string | undefined;
  readonly refreshExpiresIn?: number | undefined;
  readonly issuedTokenType?: string | undefined;
  readonly scope?: string | undefined;
  readonly idToken?: string | undefined;
}

export interface ExchangeRequest {
  /**
   * The user's access token (the subject). Refused locally when its `exp` has passed by more
   * than the clock tolerance (the provider decides within it).
   */
  subjectToken: string;
  /** Downstream client ids; the result's `aud` is narrowed to these (each sent as `audience`). */
  audience?: readonly string[];
  /** Scopes of the requesting client to add (optional scopes, e.g. one that adds an audience). */
  scope?: readonly string[];
  /** Also request a refresh token bound to the subject token's session. */
  requestRefreshToken?: boolean;
}

export interface TokenClientOptions {
  tokenEndpoint: string;
  clientId: string;
  /** Absent for a public client (only `client_id` is sent; the provider refuses exchange). */
  clientSecret?: string | undefined;
  /** How the secret is sent; default HTTP Basic. */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Per-attempt timeout; default 10 s. */
  timeoutMs?: number;
  /** Retries after network errors; default 2 (3 attempts). */
  maxRetries?: number;
  /** First backoff delay; doubled per retry, plus jitter; default 200 ms. */
  retryDelayMs?: number;
  /**
   * A subject token is refused locally only once its `exp` lies this many seconds in the past:
   * the same tolerance the API's verifier allows (AUTH_CLOCK_TOLERANCE_SECONDS, default
   * DEFAULT_CLOCK_TOLERANCE_SECONDS), so a token the API accepts is never refused here.
   */
  clockToleranceSeconds?: number;
  /** Cached tokens are reused until this many seconds before they expire; default 30. */
  expirySkewSeconds?: number;
  maxCacheEntries?: number;
  logger?: Logger;
  now?: () => number;
  sleep?: (milliseconds: number) => Promise<void>;
  /** Defaults to Node's global fetch; injectable for tests. */
  fetch?: typeof fetch;
}

type FormValue = string | readonly string[] | undefined;

interface CacheEntry {
  tokens: TokenSet;
  reuseUntil: number;
}

/** Token-endpoint client for one (confidential) client; see the module comment. */
export class TokenClient {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<TokenSet>>();
  private readonly now: () => number;
  private readonly sleep: (milliseconds: number) => Promise<void>;
  private requests = 0;

  constructor(private readonly options: TokenClientOptions) {
    this.now = options.now ?? Date.now;
    this.sleep =
      options.sleep ?? ((milliseconds) => new Promise((done) => setTimeout(done, milliseconds)));
  }

  /** Number of HTTP requests sent (attempts included), for tests and metrics. */
  get requestCount(): number {
    return this.requests;
  }

  /** Exchanges a subject access token (RFC 8693) for one toward `audience` / with `scope`. */
  exchange(request: ExchangeRequest): Promise<TokenSet> {
    const claims = decodeUnverifiedClaims(request.subjectToken);
    const tolerance = this.options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    if (typeof claims?.exp === 'number' && (claims.exp + tolerance) * 1000 <= this.now())
      return Promise.reject(new SubjectTokenExpiredError(claims.exp));
    return this.cached({
      grant_type: GRANT_TOKEN_EXCHANGE,
      subject_token: request.subjectToken,
      subject_token_type: TOKEN_TYPE_ACCESS,
      requested_token_type: request.requestRefreshToken ? TOKEN_TYPE_REFRESH : TOKEN_TYPE_ACCESS,
      audience: request.audience?.length ? [...request.audience].sort() : undefined,
      scope: joinScopes(request.scope),
    });
  }

  /**
   * Uses a refresh token (e.g. an offline token) for a new access token, optionally narrowing
   * scope. A refresh token from an audience-narrowed exchange carries the narrowing (`req-aud`),
   * but Keycloak 26.5.6 ignores it and answers with every audience of the scopes again; the
   * refreshed access token is then exchanged once more (our own token, same scopes) for one
   * whose `aud` is the narrowing again. The refresh token returned is the provider's new one.
   */
  async refresh(
    refreshToken: string,
    options: { scope?: readonly string[] } = {},
  ): Promise<TokenSet> {
    const refreshed = await this.cached({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      scope: joinScopes(options.scope),
    });
    const narrowing = toStringList(decodeUnverifiedClaims(refreshToken)?.['req-aud']);
    if (narrowing.length === 0) return refreshed;
    const claims = decodeUnverifiedClaims(refreshed.accessToken);
    const audience = toStringList(claims?.aud);
    if (audience.every((client) => narrowing.includes(client))) return refreshed;
    const scope = typeof claims?.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    const narrowed = await this.exchange({
      subjectToken: refreshed.accessToken,
      audience: narrowing,
      scope,
    });
    return hideTokenValues({
      ...narrowed,
      refreshToken: refreshed.refreshToken,
      refreshExpiresIn: refreshed.refreshExpiresIn,
    });
  }

  /** A machine-to-machine token for this client's service account, with only the listed scopes. */
  clientCredentials(options: { scope?: readonly string[] } = {}): Promise<TokenSet> {
    if (!this.options.clientSecret)
      return Promise.reject(
        new TokenRequestRefusedError('client_credentials needs a confidential client'),
      );
    return this.cached({ grant_type: 'client_credentials', scope: joinScopes(options.scope) });
  }

  /**
   * Sends one token request as given (client authentication added), without caching; errors
   * are classified like the others. For diagnostics and tests (e.g. the provider's answer to
   * `requested_subject`); application code uses the methods above.
   */
  async requestToken(form: Record<string, FormValue>): Promise<TokenSet> {
    const grant = typeof form.grant_type === 'string' ? form.grant_type : 'unknown';
    const hashPrefix = hashRequest(form).slice(0, 12);
    const body = new URLSearchParams();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    };
    const { clientId, clientSecret, authMethod = 'client_secret_basic' } = this.options;
    if (clientSecret && authMethod === 'client_secret_basic') {
      const user = encodeURIComponent(clientId);
      const password = encodeURIComponent(clientSecret);
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    } else {
      body.append('client_id', clientId);
      if (clientSecret) body.append('client_secret', clientSecret);
    }
    for (const [name, value] of Object.entries(form)) {
      if (value === undefined) continue;
      for (const item of typeof value === 'string' ? [value] : value) body.append(name, item);
    }

    const { status, text } = await this.send(body, headers, grant, hashPrefix);
    this.options.logger?.debug('token endpoint answered', {
      grant,
      clientId,
      status,
      request: hashPrefix,
    });
    const json = parseJson(text);
    if (status < 200 || status >= 300) {
      throw classifyTokenEndpointError({
        providerStatus: status,
        oauthError: typeof json?.error === 'string' ? json.error : 'invalid_response',
        errorDescription:
          typeof json?.error_description === 'string' ? json.error_description.slice(0, 500) : '',
      });
    }
    return this.toTokenSet(json, status);
  }

  /** Forgets every cached token (e.g. after a user logged out). */
  clearCache(): void {
    this.cache.clear();
  }

  private cached(form: Record<string, FormValue>): Promise<TokenSet> {
    const key = hashRequest({
      ...form,
      endpoint: this.options.tokenEndpoint,
      client: this.options.clientId,
    });
    const hit = this.cache.get(key);
    if (hit && hit.reuseUntil > this.now()) return Promise.resolve(hit.tokens);
    if (hit) this.cache.delete(key);
    const running = this.inflight.get(key);
    if (running) return running;
    const call = this.requestToken(form)
      .then((tokens) => {
        this.remember(key, tokens);
        return tokens;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, call);
    return call;
  }

  private remember(key: string, tokens: TokenSet): void {
    const skew = (this.options.expirySkewSeconds ?? 30) * 1000;
    const reuseUntil = tokens.expiresAt - skew;
    if (!(tokens.expiresIn > 0) || reuseUntil <= this.now()) return;
    const limit = this.options.maxCacheEntries ?? 500;
    const now = this.now();
    for (const [cachedKey, entry] of this.cache) {
      if (entry.reuseUntil <= now) this.cache.delete(cachedKey);
    }
    while (this.cache.size >= limit) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    this.cache.set(key, { tokens, reuseUntil });
  }

  private async send(
    body: URLSearchParams,
    headers: Record<string, string>,
    grant: string,
    hashPrefix: string,
  ): Promise<{ status: number; text: string }> {
    const maxRetries = this.options.maxRetries ?? 2;
    const baseDelay = this.options.retryDelayMs ?? 200;
    for (let attempt = 0; ; attempt += 1) {
      this.requests += 1;
      try {
        const response = await (this.options.fetch ?? fetch)(this.options.tokenEndpoint, {
          method: 'POST',
          headers,
          body,
          redirect: 'error',
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
        return { status: response.status, text: await response.text() };
      } catch (error) {
        if (attempt >= maxRetries) {
          this.options.logger?.warn('token endpoint unreachable', {
            grant,
            request: hashPrefix,
            attempts: attempt + 1,
            reason: describeNetworkError(error),
          });
          throw new TokenEndpointUnavailableError(
            `The identity provider's token endpoint cannot be reached (${describeNetworkError(error)})`,
            error,
          );
        }
        const delay = baseDelay * 2 ** attempt + Math.floor(Math.random() * baseDelay);
        await this.sleep(delay);
      }
    }
  }

  private toTokenSet(json: Record<string, unknown> | undefined, status: number): TokenSet {
    if (typeof json?.access_token !== 'string')
      throw new TokenEndpointError({
        providerStatus: status,
        oauthError: 'invalid_response',
        errorDescription: 'token response has no access_token',
      });
    const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : 0;
    const tokens: TokenSet = {
      accessToken: json.access_token,
      tokenType: typeof json.token_type === 'string' ? json.token_type : 'Bearer',
      expiresIn,
      expiresAt: this.now() + expiresIn * 1000,
      refreshToken: typeof json.refresh_token === 'string' ? json.refresh_token : undefined,
      refreshExpiresIn:
        typeof json.refresh_expires_in === 'number' ? json.refresh_expires_in : undefined,
      issuedTokenType:
        typeof json.issued_token_type === 'string' ? json.issued_token_type : undefined,
      scope: typeof json.scope === 'string' ? json.scope : undefined,
      idToken: typeof json.id_token === 'string' ? json.id_token : undefined,
    };
    return hideTokenValues(tokens);
  }
}

/** Creates the worker's token client from configuration (undefined when exchange is not configured). */
export function createTokenClient(
  tokenEndpoint: string,
  credentials: { clientId: string; clientSecret: string } | undefined,
  options: Omit<TokenClientOptions, 'tokenEndpoint' | 'clientId' | 'clientSecret'> = {},
): TokenClient | undefined {
  return credentials ? new TokenClient({ tokenEndpoint, ...credentials, ...options }) : undefined;
}

/**
 * Reads a JWT's payload WITHOUT verifying it, for client-side decisions only (e.g. not sending
 * an expired subject token). Undefined when the value is not a JWT.
 */
export function decodeUnverifiedClaims(token: string): Record<string, unknown> | undefined {
  const [, body, ...rest] = token.split('.');
  if (body === undefined || rest.length !== 1) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A claim that is a string or a list of strings, as a list. */
function toStringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function joinScopes(scopes: readonly string[] | undefined): string | undefined {
  return scopes?.length ? [...new Set(scopes)].sort().join(' ') : undefined;
}

/** A stable SHA-256 over the request; the only form in which a token reaches a cache key or log. */
function hashRequest(form: Record<string, FormValue>): string {
  const entries = Object.entries(form)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timed out';
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (cause && typeof cause.code === 'string') return cause.code;
    return error.name;
  }
  return 'network error';
}

const REDACTED = '[REDACTED]';

/** Makes inspect() and JSON.stringify() of a token set print no token values. */
function hideTokenValues(tokens: TokenSet): TokenSet {
  const printable = (): Record<string, unknown> => ({
    ...tokens,
    accessToken: REDACTED,
    refreshToken: tokens.refreshToken && REDACTED,
    idToken: tokens.idToken && REDACTED,
  });
  Object.defineProperties(tokens, {
    toJSON: { value: printable, enumerable: false },
    [inspect.custom]: { value: () => printable(), enumerable: false },
  });
  return Object.freeze(tokens);
}
