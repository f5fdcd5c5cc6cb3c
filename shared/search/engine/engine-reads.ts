/**
 * The reads every search request makes (`_search`, `_msearch`, `_count`, `_doc`), sent to
 * Elasticsearch or OpenSearch over `node:http(s)` with a keep-alive agent instead of through the
 * client's transport. Both engines answer these the same way.
 *
 * Why, for OpenSearch: @opensearch-project/opensearch (2.x and 3.x, `Transport.request`) gives every result
 * object a `warnings` getter made from a new closure. Each result so gets a hidden class of its
 * own, and V8's young-generation collector keeps such maps (and through the getter's closure
 * the whole request: the parsed answer, the API request and response waiting on it) alive until
 * the next full collection. Measured on the API at concurrency 1, STAC datetime search: every
 * scavenge copied and then promoted about 1.7 MB, took 3-5 ms, and the old space grew by about
 * 20 MB a second, emptied by a 50 ms mark-compact every 10 s. The same calls over `node:http`
 * copy a few KB and take 0.2-0.6 ms (docs/decisions/garbage-the-young-collector-kept.md).
 *
 * Why, for Elasticsearch: @elastic/elasticsearch does not keep answers alive so, but its
 * request path (splitting parameters from the body, the transport's diagnostics, product
 * check, serialiser and undici pool) cost more CPU per search than these calls
 * (docs/decisions/less-cpu-per-answer.md).
 *
 * Failures are named and shaped as the clients' own, so `classifyClientError` reads them as it
 * reads the clients': a status of 400 or more is a `ResponseError` carrying the engine's answer
 * in `meta`; a refused or broken connection a `ConnectionError`; no answer within the request
 * timeout a `TimeoutError`. Connection errors, timeouts and 502/503/504 are retried up to
 * `maxRetries` times, as the clients do (after `retryDelayMs(attempt)` when given).
 */
import http from 'node:http';
import https from 'node:https';
import { EngineAbortError, type EngineCallLimits, type JsonObject } from './engine-adapter.js';

export interface EngineReadsOptions {
  url: string;
  requestTimeout: number;
  maxRetries: number;
  /**
   * Send a search's deadline as `cancel_after_time_interval` too (OpenSearch; Elasticsearch
   * refuses the parameter).
   */
  cancelAfterTimeInterval?: boolean;
  /** The wait before retry `attempt` (1, 2 …); none when absent. */
  retryDelayMs?: (attempt: number) => number;
}

/** The engine's answer with a status of 400 or more (named as the clients name it). */
export class EngineResponseError extends Error {
  override readonly name = 'ResponseError';
  readonly meta: { statusCode: number; headers: http.IncomingHttpHeaders; body: unknown };

  constructor(statusCode: number, headers: http.IncomingHttpHeaders, body: unknown) {
    const type = (body as { error?: { type?: string } } | undefined)?.error?.type;
    super(`the engine answered ${statusCode}${type ? ` (${type})` : ''}`);
    this.meta = { statusCode, headers, body };
  }

  get statusCode(): number {
    return this.meta.statusCode;
  }
}

/** No connection to the engine, or one that broke (named as the clients name it). */
export class EngineConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

/** No answer within the request timeout (named as the clients name it). */
export class EngineTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  /** The timeout was the rest of the request's deadline: not retried, there is no time left. */
  deadline = false;
}

/**
 * Text that may hold a `__proto__` or `constructor` key: either name, or an escaped printable
 * ASCII character (`\u0020`–`\u007f`), with which a key can spell either name. The engines
 * escape only control characters, so an answer of records rarely matches.
 */
const MAY_POISON = /__proto__|constructor|\\u00[2-7]/;

/**
 * Parses an engine answer. Refuses one with a `__proto__` key, or a `constructor` key holding
 * a `prototype` (keys that a later merge would read as a prototype), as the clients' parser
 * (secure-json-parse) does; the keys are looked for only when the text may hold them.
 */
export function parseEngineJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (MAY_POISON.test(text)) refusePoison(value);
  return value;
}

function refusePoison(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Object.prototype.hasOwnProperty.call(item, '__proto__')) {
      throw new SyntaxError('the engine answered with a forbidden __proto__ key');
    }
    const constructorValue = (item as Record<string, unknown>).constructor;
    if (
      Object.prototype.hasOwnProperty.call(item, 'constructor') &&
      constructorValue !== null &&
      typeof constructorValue === 'object' &&
      Object.prototype.hasOwnProperty.call(constructorValue, 'prototype')
    ) {
      throw new SyntaxError('the engine answered with a forbidden constructor.prototype key');
    }
    for (const key of Object.keys(item)) pending.push((item as Record<string, unknown>)[key]);
  }
}

/** One answer of the engine: its status and its parsed JSON body. */
interface EngineAnswer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** How one call is sent and read. */
interface CallOptions {
  /** An error status answered as a value rather than thrown (404 for a missing document). */
  allowedStatus?: number | undefined;
  contentType?: string;
  limits?: EngineCallLimits;
  /** Resolve a successful answer as its text, unparsed. */
  text?: boolean;
}

const RETRIED_STATUSES = new Set([502, 503, 504]);

/** How long after a search's deadline OpenSearch cancels it by itself. */
const CANCEL_AFTER_GRACE_MS = 200;

const JSON_TYPE = 'application/json';
/** The body type of `_msearch`: one JSON object per line. */
export const NDJSON = 'application/x-ndjson';

/** The body of an `_msearch` of one index: a header line and a search line per search. */
export function msearchLines(index: string, bodies: readonly JsonObject[]): string {
  const header = JSON.stringify({ index });
  let lines = '';
  for (const body of bodies) lines += `${header}\n${JSON.stringify(body)}\n`;
  return lines;
}

export class EngineReads {
  private readonly agent: http.Agent;
  private readonly send: typeof http.request;
  private readonly host: string;
  private readonly port: string;
  private readonly prefix: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: EngineReadsOptions) {
    const url = new URL(options.url);
    const secure = url.protocol === 'https:';
    this.send = secure ? https.request : http.request;
    this.agent = new (secure ? https.Agent : http.Agent)({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: 256,
      maxFreeSockets: 256,
      scheduling: 'lifo',
    });
    this.host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.headers = { accept: JSON_TYPE };
    if (url.username || url.password) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
  }

  /**
   * `POST /{index}/_search` (`/_search` without an index: the body names a point in time), with
   * `filter_path` when given.
   */
  async search(
    index: string | undefined,
    body: JsonObject,
    filterPath?: string[],
    limits: EngineCallLimits = {},
  ): Promise<unknown> {
    return (
      await this.call('POST', this.searchPath(index, filterPath, limits), body, {
        contentType: JSON_TYPE,
        limits,
      })
    ).body;
  }

  /**
   * The same search, answered as the engine's JSON text, unparsed: for a caller that hands a
   * large answer to a worker thread to parse. An answer with an error status is parsed and
   * thrown as `search` throws it.
   */
  async searchText(
    index: string | undefined,
    body: JsonObject,
    limits: EngineCallLimits = {},
  ): Promise<string> {
    const answer = await this.call('POST', this.searchPath(index, undefined, limits), body, {
      contentType: JSON_TYPE,
      limits,
      text: true,
    });
    return answer.body as string;
  }

  /** The path and parameters of a search. */
  private searchPath(
    index: string | undefined,
    filterPath: string[] | undefined,
    limits: EngineCallLimits,
  ): string {
    const target = index === undefined ? '' : `/${encodeURIComponent(index)}`;
    const parameters: string[] = [];
    if (filterPath) parameters.push(`filter_path=${encodeURIComponent(filterPath.join(','))}`);
    if (limits.timeoutMs !== undefined && this.options.cancelAfterTimeInterval) {
      // OpenSearch: the coordinating node cancels the search and its shard tasks at this time,
      // whatever happens to the connection; a little after the deadline, which closes the
      // connection first, so that the request fails as the deadline's.
      const cancelAfter = Math.ceil(limits.timeoutMs) + CANCEL_AFTER_GRACE_MS;
      parameters.push(`cancel_after_time_interval=${cancelAfter}ms`);
    }
    const query = parameters.length > 0 ? `?${parameters.join('&')}` : '';
    return `${target}/_search${query}`;
  }

  /**
   * `POST /{index}/_msearch`: several searches of one index in one round trip, run side by side
   * by the engine. Each answer is the search's own; one the engine refused is thrown as that
   * search alone would have been (a `ResponseError` with the item's status and error), the first
   * such in request order.
   */
  async msearch(
    index: string,
    bodies: readonly JsonObject[],
    limits: EngineCallLimits = {},
  ): Promise<unknown[]> {
    const answer = await this.call('POST', '/_msearch', msearchLines(index, bodies), {
      contentType: NDJSON,
      limits,
    });
    const responses = (answer.body as { responses?: unknown }).responses;
    if (!Array.isArray(responses) || responses.length !== bodies.length) {
      throw new EngineResponseError(502, answer.headers, {
        error: {
          type: 'msearch_answer_mismatch',
          reason: 'the engine answered a different number of searches',
        },
      });
    }
    for (const response of responses as { error?: unknown; status?: number }[]) {
      if (response.error !== undefined) {
        throw new EngineResponseError(response.status ?? 500, answer.headers, {
          error: response.error,
          status: response.status,
        });
      }
    }
    return responses as unknown[];
  }

  /** `POST /{index}/_count`. */
  async count(index: string, query?: JsonObject, limits: EngineCallLimits = {}): Promise<number> {
    const answer = await this.call(
      'POST',
      `/${encodeURIComponent(index)}/_count`,
      query ? { query } : undefined,
      { contentType: JSON_TYPE, limits },
    );
    return (answer.body as { count: number }).count;
  }

  /** `GET /{index}/_doc/{id}` with the given source fields; null when there is no such id. */
  async getSource(index: string, id: string, includes: string[]): Promise<JsonObject | null> {
    const path =
      `/${encodeURIComponent(index)}/_doc/${encodeURIComponent(id)}` +
      `?_source_includes=${encodeURIComponent(includes.join(','))}`;
    const answer = await this.call('GET', path, undefined, { allowedStatus: 404 });
    const body = answer.body as { found?: boolean; _source?: JsonObject };
    return body.found ? (body._source ?? {}) : null;
  }

  close(): void {
    this.agent.destroy();
  }

  /** Sends a request, retrying as the client does; throws the client's error classes. */
  private async call(
    method: string,
    path: string,
    body: JsonObject | string | undefined,
    options: CallOptions = {},
  ): Promise<EngineAnswer> {
    const { allowedStatus, contentType = JSON_TYPE, limits = {}, text = false } = options;
    const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
    for (let attempt = 0; ; attempt += 1) {
      const mayRetry = attempt < this.options.maxRetries && !limits.signal?.aborted;
      if (attempt > 0 && this.options.retryDelayMs) {
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs!(attempt)));
      }
      let answer: EngineAnswer;
      try {
        answer = await this.once(method, this.prefix + path, payload, contentType, limits, text);
      } catch (error) {
        // As the client: a failed connection or a timeout is retried, an unreadable answer not;
        // nor is a request closed by its deadline or its abort signal.
        const transient =
          error instanceof EngineConnectionError ||
          (error instanceof EngineTimeoutError && !error.deadline);
        if (transient && mayRetry) continue;
        throw error;
      }
      if (RETRIED_STATUSES.has(answer.statusCode) && mayRetry) continue;
      if (answer.statusCode >= 400 && answer.statusCode !== allowedStatus) {
        throw new EngineResponseError(answer.statusCode, answer.headers, answer.body);
      }
      return answer;
    }
  }

  private once(
    method: string,
    path: string,
    payload: string | undefined,
    contentType: string,
    limits: EngineCallLimits,
    text: boolean,
  ): Promise<EngineAnswer> {
    const { signal, timeoutMs } = limits;
    if (signal?.aborted) return Promise.reject(new EngineAbortError(signal.reason));
    return new Promise<EngineAnswer>((resolve, reject) => {
      const headers =
        payload === undefined
          ? this.headers
          : Object.assign({}, this.headers, {
              'content-type': contentType,
              'content-length': String(Buffer.byteLength(payload)),
            });
      const request = this.send({
        host: this.host,
        port: this.port,
        method,
        path,
        headers,
        agent: this.agent,
      });
      request.setNoDelay(true);
      // The rest of the request's deadline, when it ends before the client's own timeout.
      const byDeadline = timeoutMs !== undefined && timeoutMs < this.options.requestTimeout;
      request.setTimeout(byDeadline ? Math.max(1, timeoutMs) : this.options.requestTimeout, () => {
        const timedOut = new EngineTimeoutError('Request timed out');
        timedOut.deadline = byDeadline;
        request.destroy(timedOut);
      });
      // Closing the connection is what makes the engine cancel the search.
      const abort = (): void => {
        request.destroy(new EngineAbortError(signal?.reason));
      };
      signal?.addEventListener('abort', abort, { once: true });
      request.once('close', () => signal?.removeEventListener('abort', abort));
      request.on('error', (error) => {
        reject(
          error instanceof EngineTimeoutError || error instanceof EngineAbortError
            ? error
            : new EngineConnectionError(error.message),
        );
      });
      request.on('response', (response) => {
        response.setEncoding('utf8');
        let content = '';
        response.on('data', (chunk: string) => {
          content += chunk;
        });
        response.on('error', (error) =>
          reject(
            signal?.aborted
              ? new EngineAbortError(signal.reason)
              : new EngineConnectionError(error.message),
          ),
        );
        response.on('end', () => {
          const statusCode = response.statusCode ?? 0;
          const json = content !== '' && /json/.test(response.headers['content-type'] ?? '');
          // Asked for the text, a successful answer stays text; an error is read as usual.
          const parse = json && !(text && statusCode < 300);
          try {
            const body = parse ? parseEngineJson(content) : content;
            resolve({ statusCode, headers: response.headers, body });
          } catch (error) {
            reject(error);
          }
        });
      });
      request.end(payload);
    });
  }
}
