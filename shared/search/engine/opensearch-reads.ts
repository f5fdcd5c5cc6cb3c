/**
 * The OpenSearch reads every search request makes (`_search`, `_count`, `_doc`), sent over
 * `node:http(s)` with a keep-alive agent instead of through the client's transport.
 *
 * Why: @opensearch-project/opensearch (2.x and 3.x, `Transport.request`) gives every result
 * object a `warnings` getter made from a new closure. Each result so gets a hidden class of its
 * own, and V8's young-generation collector keeps such maps (and through the getter's closure
 * the whole request: the parsed answer, the API request and response waiting on it) alive until
 * the next full collection. Measured on the API at concurrency 1, STAC datetime search: every
 * scavenge copied and then promoted about 1.7 MB, took 3-5 ms, and the old space grew by about
 * 20 MB a second, emptied by a 50 ms mark-compact every 10 s. The same calls over `node:http`
 * copy a few KB and take 0.2-0.6 ms (docs/decisions.md, "Garbage the young collector kept").
 * The Elasticsearch client does not do this and keeps its own transport.
 *
 * Failures are the client's own error classes with the client's rules, so `classifyClientError`
 * reads them as before: a status of 400 or more is a `ResponseError` carrying the engine's
 * answer; a refused or broken connection a `ConnectionError`; no answer within the request
 * timeout a `TimeoutError`. Connection errors, timeouts and 502/503/504 are retried at once up
 * to `maxRetries` times, as the client does.
 */
import http from 'node:http';
import https from 'node:https';
import { errors, Serializer, type ApiResponse } from '@opensearch-project/opensearch';
import type { JsonObject } from './engine-adapter.js';

export interface OpenSearchReadsOptions {
  url: string;
  requestTimeout: number;
  maxRetries: number;
}

/** One answer of the engine: its status and its parsed JSON body. */
interface EngineAnswer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

const RETRIED_STATUSES = new Set([502, 503, 504]);

export class OpenSearchReads {
  private readonly agent: http.Agent;
  private readonly send: typeof http.request;
  private readonly host: string;
  private readonly port: string;
  private readonly prefix: string;
  private readonly headers: Record<string, string>;
  private readonly serializer = new Serializer();

  constructor(private readonly options: OpenSearchReadsOptions) {
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
    this.headers = { accept: 'application/json', 'content-type': 'application/json' };
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
  ): Promise<unknown> {
    const target = index === undefined ? '' : `/${encodeURIComponent(index)}`;
    const query = filterPath ? `?filter_path=${encodeURIComponent(filterPath.join(','))}` : '';
    return (await this.call('POST', `${target}/_search${query}`, body)).body;
  }

  /** `POST /{index}/_count`. */
  async count(index: string, query?: JsonObject): Promise<number> {
    const answer = await this.call(
      'POST',
      `/${encodeURIComponent(index)}/_count`,
      query ? { query } : undefined,
    );
    return (answer.body as { count: number }).count;
  }

  /** `GET /{index}/_doc/{id}` with the given source fields; null when there is no such id. */
  async getSource(index: string, id: string, includes: string[]): Promise<JsonObject | null> {
    const path =
      `/${encodeURIComponent(index)}/_doc/${encodeURIComponent(id)}` +
      `?_source_includes=${encodeURIComponent(includes.join(','))}`;
    const answer = await this.call('GET', path, undefined, 404);
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
    body: JsonObject | undefined,
    allowedStatus?: number,
  ): Promise<EngineAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 0; ; attempt += 1) {
      const mayRetry = attempt < this.options.maxRetries;
      let answer: EngineAnswer;
      try {
        answer = await this.once(method, this.prefix + path, payload);
      } catch (error) {
        // As the client: a failed connection or a timeout is retried, an unreadable answer not.
        const transient =
          error instanceof errors.ConnectionError || error instanceof errors.TimeoutError;
        if (transient && mayRetry) continue;
        throw error;
      }
      if (RETRIED_STATUSES.has(answer.statusCode) && mayRetry) continue;
      if (answer.statusCode >= 400 && answer.statusCode !== allowedStatus) {
        // All of the answer that the client's error and classifyClientError read.
        const { statusCode, headers, body: answerBody } = answer;
        throw new errors.ResponseError({ statusCode, headers, body: answerBody } as ApiResponse);
      }
      return answer;
    }
  }

  private once(method: string, path: string, payload: string | undefined): Promise<EngineAnswer> {
    return new Promise((resolve, reject) => {
      const headers =
        payload === undefined
          ? this.headers
          : Object.assign({}, this.headers, {
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
      request.setTimeout(this.options.requestTimeout, () => {
        request.destroy(new errors.TimeoutError('Request timed out', {} as ApiResponse));
      });
      request.on('error', (error) => {
        reject(
          error instanceof errors.TimeoutError ? error : new errors.ConnectionError(error.message),
        );
      });
      request.on('response', (response) => {
        response.setEncoding('utf8');
        let text = '';
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('error', (error) => reject(new errors.ConnectionError(error.message)));
        response.on('end', () => {
          const json = text !== '' && /json/.test(response.headers['content-type'] ?? '');
          try {
            // The client's own parser: it refuses answers that would poison a prototype.
            const body = json ? this.serializer.deserialize(text) : text;
            resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body });
          } catch (error) {
            reject(error);
          }
        });
      });
      request.end(payload);
    });
  }
}
