/**
 * Outbound HTTP to a harvest source: bounded time and size, the source's authentication
 * (none, client credentials with a minimal scope, or a token exchanged for one whose only
 * audience is the source), and one error type that says whether trying again may help.
 * Tokens never reach a log or an error message.
 */
import { CairnError } from '../errors/index.js';
import { TokenEndpointError, TokenEndpointUnavailableError } from '../auth/token-errors.js';
import type { TokenClient } from '../auth/token-exchange.js';
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
  readonly sourceStatus?: number;

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
  tokens?: TokenClient;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Largest accepted response body. */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** Reads a response body, refusing it once it grows past `maxBytes`. */
async function readLimited(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes)
    throw new HarvestSourceError(`${url} answered more than ${maxBytes} bytes`, true);
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes)
      throw new HarvestSourceError(`${url} answered more than ${maxBytes} bytes`, true);
    chunks.push(chunk);
  }
  try {
    return decodeDocument(Buffer.concat(chunks), {
      charset: charsetOf(response.headers.get('content-type')),
    });
  } catch (error) {
    if (error instanceof XmlParseError)
      throw new HarvestSourceError(`${url}: ${error.message}`, true);
    throw error;
  }
}

/** The first line of a refusal's body, short, for the error message (never headers). */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
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
        const token = await tokens.clientCredentials({ scope: auth.scope });
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

  /** Sends one request; 2xx answers come back, anything else is a HarvestSourceError. */
  async request(url: string, request: SourceRequest = {}): Promise<SourceResponse> {
    const headers: Record<string, string> = { accept: request.accept ?? '*/*' };
    if (request.contentType) headers['content-type'] = request.contentType;
    const authorization = await this.authorization();
    if (authorization) headers.authorization = authorization;
    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method ?? 'GET',
        headers,
        body: request.body,
        redirect: 'follow',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new HarvestSourceError(`${url} could not be reached`, false, { cause: error });
    }
    const text = await readLimited(response, this.options.maxBytes ?? DEFAULT_MAX_BYTES, url);
    if (!response.ok) {
      const permanent = response.status >= 400 && response.status < 500 && response.status !== 429;
      throw new HarvestSourceError(
        `${url} answered HTTP ${response.status}${text ? `: ${excerpt(text)}` : ''}`,
        permanent,
        { sourceStatus: response.status },
      );
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
    };
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
