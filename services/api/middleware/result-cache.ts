/**
 * Strong ETags, 304 answers and a cache of whole answers for the public reads (GET and HEAD
 * under /catalogue but /catalogue/admin), in front of every protocol's routes.
 *
 * Every 200 answer sent in one piece gets a strong ETag (a hash of its body), and a request
 * whose If-None-Match names it gets 304 without a body. With a catalogue generation
 * (shared/search/catalogue-generation.ts), answers are also kept by request key and served
 * again only while the generation they were made at is still current: the generation is read
 * before anything else, and every write advances it after it is searchable and before it is
 * acknowledged, so a kept answer is never older than an acknowledged write
 * (docs/decisions/result-cache.md). Requests with credentials (Authorization, Cookie) are
 * answered as usual and their answers never kept; neither are answers other than 200, answers
 * marked private or no-store, answers setting a cookie, or answers varying on a header the key
 * does not hold.
 */
import { hash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { CatalogueGeneration } from '../../../shared/search/catalogue-generation.js';
import { answerBytes, type AnswerStore, type StoredAnswer } from './answer-store.js';
import { routeTemplate } from './metrics.js';

/** What the result cache works with. */
export interface ResultCacheOptions {
  /** Where answers are kept; undefined: answers are tagged and compared, never kept. */
  store: AnswerStore | undefined;
  /** The catalogue generation; undefined: nothing is kept. */
  generation: CatalogueGeneration | undefined;
}

/** The request headers an answer may depend on, all in the key (and the only Vary allowed). */
const KEYED_HEADERS = ['accept', 'accept-language'] as const;

/** Response headers never kept: they belong to one response. */
const UNKEPT_HEADERS = new Set([
  'server-timing',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'etag',
]);

/** Whether a path is one of the public reads the cache sees (decoded, any case). */
export function isCachedPath(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path).toLowerCase();
  } catch {
    return false;
  }
  return /^\/catalogue(\/|$)/.test(decoded) && !/^\/catalogue\/+admin(\/|$)/.test(decoded);
}

/** Whether the request carries credentials: its answer may be personal. */
function hasCredentials(request: Request): boolean {
  return request.headers.authorization !== undefined || request.headers.cookie !== undefined;
}

/**
 * The key of a request: its public base URL (links embed it), path, query parameters ordered
 * by name (repeated names keep their order) and the headers negotiation reads.
 */
export function requestKey(request: Request): string {
  const url = request.originalUrl;
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const parameters =
    mark < 0
      ? []
      : url
          .slice(mark + 1)
          .split('&')
          .filter((pair) => pair !== '');
  const name = (pair: string): string => {
    const equals = pair.indexOf('=');
    return equals < 0 ? pair : pair.slice(0, equals);
  };
  parameters.sort((a, b) => {
    const [left, right] = [name(a), name(b)];
    return left < right ? -1 : left > right ? 1 : 0;
  });
  const headers = KEYED_HEADERS.map((header) => request.headers[header] ?? '');
  return JSON.stringify([request.publicBaseUrl, path, parameters, headers]);
}

/** The strong ETag of a body: a hash of its bytes, quoted. */
export function strongEtag(body: Buffer): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** Whether If-None-Match names the ETag (weak comparison, as RFC 9110 asks for it). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .includes(etag);
}

/** The Server-Timing header: whether the cache answered, and the time spent here. */
function serverTiming(outcome: 'hit' | 'miss' | 'bypass', started: bigint): string {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return `cache;desc=${outcome}, app;dur=${ms.toFixed(3)}`;
}

/** Turns the response into a 304: no body, and no headers describing one. */
function sendNotModified(response: Response, end: () => void): void {
  response.statusCode = 304;
  for (const header of ['content-type', 'content-length', 'content-encoding'])
    response.removeHeader(header);
  end();
}

/** Answers from a kept answer: its headers, its ETag, and its body or 304. */
function sendStored(
  request: Request,
  response: Response,
  answer: StoredAnswer,
  started: bigint,
): void {
  for (const [name, value] of answer.headers) response.setHeader(name, value);
  response.setHeader('ETag', answer.etag);
  response.locals.cachedRoute = answer.route;
  response.setHeader('Server-Timing', serverTiming('hit', started));
  if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) {
    sendNotModified(response, () => response.end());
    return;
  }
  response.statusCode = 200;
  if (request.method === 'HEAD') response.end();
  else response.end(answer.body);
}

/** Whether an answer may be kept for every client asking the same: not personal, keyed. */
function isShareable(response: Response): boolean {
  if (response.getHeader('set-cookie') !== undefined) return false;
  const cacheControl = String(response.getHeader('cache-control') ?? '').toLowerCase();
  if (/(^|[\s,])(no-store|private)\b/.test(cacheControl)) return false;
  const vary = String(response.getHeader('vary') ?? '').toLowerCase();
  return vary
    .split(',')
    .map((name) => name.trim())
    .every((name) => name === '' || (KEYED_HEADERS as readonly string[]).includes(name));
}

/** Where a request's answer is kept, when it may be. */
interface Keeping {
  store: AnswerStore;
  key: string;
  generation: string;
}

type EndCallback = () => void;

/** A chunk as bytes. */
function toBuffer(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (chunk === undefined || chunk === null) return undefined;
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  return undefined;
}

/**
 * Watches the route's answer: an answer sent in one piece (res.send, res.json) gets its ETag
 * and Server-Timing before its headers go out, becomes a 304 when If-None-Match names it, and
 * is kept when `keeping` says where and it may be shared. Answers written in several pieces
 * pass untouched.
 */
function watchAnswer(
  request: Request,
  response: Response,
  started: bigint,
  keeping: Keeping | undefined,
): void {
  const headersBefore = new Set(response.getHeaderNames());
  const write = response.write;
  const end = response.end;
  let streamed = false;
  response.write = function (this: Response, ...args: unknown[]): boolean {
    streamed = true;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Response['write'];
  response.end = function (this: Response, ...args: unknown[]): Response {
    const original = (): Response => (end as (...a: unknown[]) => Response).apply(this, args);
    if (streamed || response.headersSent || response.statusCode !== 200) return original();
    let [chunk, encoding, callback] = args;
    if (typeof chunk === 'function') [chunk, encoding, callback] = [undefined, undefined, chunk];
    else if (typeof encoding === 'function') [encoding, callback] = [undefined, encoding];
    const body = toBuffer(chunk, encoding);
    // HEAD answers have no body to hash; a kept GET answer serves them.
    if (body === undefined) return original();
    const done = callback as EndCallback | undefined;
    const etag = strongEtag(body);
    response.setHeader('ETag', etag);
    const kept = keeping && request.method === 'GET' && isShareable(response);
    response.setHeader('Server-Timing', serverTiming(kept ? 'miss' : 'bypass', started));
    if (kept && keeping.store.accepts(body.length)) {
      const headers = response
        .getHeaderNames()
        .filter((name) => !headersBefore.has(name) && !UNKEPT_HEADERS.has(name))
        .map((name): StoredAnswer['headers'][number] => [name, response.getHeader(name)!]);
      keeping.store.set(keeping.key, {
        generation: keeping.generation,
        storedAt: Date.now(),
        headers,
        body,
        etag,
        route: routeTemplate(request),
        bytes: answerBytes(keeping.key, body, headers),
      });
    }
    const ended = end as (...a: unknown[]) => Response;
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      sendNotModified(response, () => ended.call(this, done));
      return this;
    }
    return ended.call(this, body, done);
  } as Response['end'];
}

/** Builds the middleware (see the file's comment). */
export function resultCache(options: ResultCacheOptions): RequestHandler {
  const { store, generation } = options;
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !isCachedPath(request.path)) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    let keeping: Keeping | undefined;
    if (store && generation && !hasCredentials(request)) {
      // Read through the request's scope, once: a refined search keys its survivors by it too.
      const current = await (request.searchScope?.generation() ?? generation.current());
      if (current !== undefined) {
        const key = requestKey(request);
        const answer = store.get(key, current);
        if (answer) {
          sendStored(request, response, answer, started);
          return;
        }
        keeping = { store, key, generation: current };
      }
    }
    watchAnswer(request, response, started, keeping);
    next();
  };
}
