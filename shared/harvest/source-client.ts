/**
 * Outbound HTTP to a harvest source: only to addresses the policy allows (guarded-fetch.ts),
 * bounded time and size, the source's authentication
 * (none, client credentials with a minimal scope, or a token exchanged for one whose only
 * audience is the source), and one error type that says whether trying again may help.
 * Tokens never reach a log or an error message.
 */
import { CairnError } from '../errors/index.js';
import { TokenEndpointError, TokenEndpointUnavailableError } from '../auth/token-errors.js';
import type { TokenClient } from '../auth/token-exchange.js';
import { AddressPolicy } from './address-policy.js';
import {
  guardedFetch,
  GuardedFetchError,
  MAX_REDIRECTS,
  type GuardedResponse,
  type Resolver,
} from './guarded-fetch.js';
import { charsetOf, decodeDocument, XmlParseError } from '../xml/index.js';
import type { SourceAuth } from './harvest-source.js';

/**
 * A source (or the identity provider it needs) failed. `permanent` failures (the source
 * refused the request, answered something unreadable, auth cannot be obtained) are not
 * retried; the others (unreachable, 5xx, timeouts) are.
 */
export class HarvestSourceError extends CairnError {
  readonly permanent: boolean;
  /** The source's HTTP status, when it answered with an error. */
  readonly sourceStatus?: number | undefined;

  constructor(
    message: string,
    permanent: boolean,
    options: { cause?: unknown; sourceStatus?: number } = {},
  ) {
    super('HARVEST_SOURCE_ERROR', 502, message, true, { cause: options.cause });
    this.permanent = permanent;
    this.sourceStatus = options.sourceStatus;
  }
}

export interface SourceResponse {
  status: number;
  contentType: string;
  text: string;
}

export interface SourceRequest {
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  accept?: string;
}

export interface SourceClientOptions {
  auth: SourceAuth;
  /** The catalogue's confidential client at the identity provider (needed for auth). */
  tokens?: TokenClient | undefined;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Largest accepted response body. */
  maxBytes?: number;
  /** Which addresses may be reached; default: public addresses only. */
  policy?: AddressPolicy;
  /** The host-name resolver (tests replace it to provoke DNS rebinding). */
  resolve?: Resolver;
  /** The signal each request is sent with (the run's deadlines, shared/harvest/run-deadlines). */
  signal?: () => AbortSignal | undefined;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_POLICY = new AddressPolicy();

/** The client-facing sentence for a request that failed before a usable answer. */
function describeFetchFailure(error: GuardedFetchError, maxBytes: number): HarvestSourceError {
  const { url, failure } = error;
  switch (failure.kind) {
    case 'refused-address':
      return new HarvestSourceError(
        `${url} was not requested: ${failure.host === failure.address ? failure.host : `${failure.host} resolves to ${failure.address}, which`} is not a public address (${failure.reason}); harvesting reaches such addresses only when HARVEST_ALLOWED_ADDRESSES names them (and their port)`,
        true,
      );
    case 'timeout':
      return new HarvestSourceError(`${url} did not answer in time`, false);
    case 'too-many-redirects':
      return new HarvestSourceError(`${url} redirected more than ${MAX_REDIRECTS} times`, true);
    case 'bad-redirect':
      return new HarvestSourceError(
        `${url} redirected to something that is not an http(s) URL (${failure.location})`,
        true,
      );
    case 'cross-origin-redirect':
      return new HarvestSourceError(
        `${url} redirected to another origin (${failure.origin}), which is not followed; register the address it redirects to instead`,
        true,
      );
    case 'too-large':
      return new HarvestSourceError(`${url} answered more than ${maxBytes} bytes`, true);
    case 'bad-encoding':
      return new HarvestSourceError(
        `${url} answered a body whose content encoding (${failure.encoding || 'identity'}) cannot be read`,
        true,
      );
    case 'unreachable':
      return new HarvestSourceError(`${url} could not be reached`, false, {
        cause: failure.cause,
      });
  }
}

export class SourceClient {
  constructor(private readonly options: SourceClientOptions) {}

  /** The Authorization header value for the source, or undefined when it needs none. */
  async authorization(): Promise<string | undefined> {
    const { auth, tokens } = this.options;
    if (auth.type === 'none') return undefined;
    if (!tokens)
      throw new HarvestSourceError(
        `the source needs ${auth.type} authentication, but no client credentials are configured (AUTH_EXCHANGE_CLIENT_ID / AUTH_EXCHANGE_CLIENT_SECRET)`,
        true,
      );
    try {
      if (auth.type === 'client-credentials') {
        const token = await tokens.clientCredentials(
          auth.scope === undefined ? {} : { scope: auth.scope },
        );
        return `Bearer ${token.accessToken}`;
      }
      // Our own service-account token, exchanged for one whose only audience is the source.
      const own = await tokens.clientCredentials();
      const exchanged = await tokens.exchange({
        subjectToken: own.accessToken,
        audience: [auth.audience],
      });
      return `Bearer ${exchanged.accessToken}`;
    } catch (error) {
      if (error instanceof TokenEndpointUnavailableError)
        throw new HarvestSourceError(`the identity provider is unreachable`, false, {
          cause: error,
        });
      if (error instanceof TokenEndpointError)
        throw new HarvestSourceError(
          `no token for the source: ${error.message}`,
          !error.retryable,
          { cause: error },
        );
      throw error;
    }
  }

  /**
   * Sends one request under the address policy; 2xx answers come back, anything else is a
   * HarvestSourceError that says what failed and never what the source answered.
   */
  async request(url: string, request: SourceRequest = {}): Promise<SourceResponse> {
    const headers: Record<string, string> = { accept: request.accept ?? '*/*' };
    if (request.contentType) headers['content-type'] = request.contentType;
    const authorization = await this.authorization();
    if (authorization) headers.authorization = authorization;
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_BYTES;
    let response: GuardedResponse;
    try {
      response = await guardedFetch(
        url,
        { method: request.method ?? 'GET', headers, body: request.body },
        {
          policy: this.options.policy ?? DEFAULT_POLICY,
          timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          maxBytes,
          resolve: this.options.resolve,
          signal: this.options.signal?.(),
        },
      );
    } catch (error) {
      if (error instanceof GuardedFetchError) throw describeFetchFailure(error, maxBytes);
      throw error;
    }
    if (response.status < 200 || response.status >= 300) {
      const { status } = response;
      const permanent = status >= 400 && status < 500 && status !== 429;
      throw new HarvestSourceError(`${url} answered HTTP ${status}`, permanent, {
        sourceStatus: status,
      });
    }
    let text: string;
    try {
      // XML in the encoding it declares (shared/xml/decode.ts), anything else as UTF-8.
      const charset = charsetOf(response.contentType);
      text = decodeDocument(
        response.body ?? Buffer.alloc(0),
        charset === undefined ? {} : { charset },
      );
    } catch (error) {
      if (error instanceof XmlParseError)
        throw new HarvestSourceError(`${url}: ${error.message}`, true);
      throw error;
    }
    return { status: response.status, contentType: response.contentType, text };
  }

  /** Sends a request and reads a JSON object from the answer. */
  async json(url: string, request: SourceRequest = {}): Promise<Record<string, unknown>> {
    const response = await this.request(url, {
      accept: 'application/geo+json, application/json',
      ...request,
    });
    try {
      const value: unknown = JSON.parse(response.text);
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // reported below
    }
    throw new HarvestSourceError(`${url} did not answer a JSON object`, true);
  }
}
