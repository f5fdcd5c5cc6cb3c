/**
 * The one HTTP request function harvesting uses: Node's http/https with the address policy
 * applied where the socket connects (the `lookup` hook sees every address a name resolves to,
 * so a name that resolves to a public address when registered and to a private one later —
 * DNS rebinding — is still refused; the policy judges the address with the port), redirects
 * followed by hand but only within the origin that was asked (a source cannot send the
 * harvester to another host or port, e.g. the search engine beside an allowed catalogue), at
 * most MAX_REDIRECTS, one deadline for the whole request, and a cap on the (decompressed)
 * body. Bodies of error answers are never read.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { AddressPolicy } from './address-policy.js';

/** Redirects followed for one request. */
export const MAX_REDIRECTS = 5;

/** What failed, for the caller to word (never what the source said). */
export type GuardedFetchFailure =
  | { kind: 'refused-address'; host: string; address: string; reason: string }
  | { kind: 'unreachable'; cause: unknown }
  | { kind: 'timeout' }
  | { kind: 'too-many-redirects' }
  | { kind: 'bad-redirect'; location: string }
  | { kind: 'cross-origin-redirect'; origin: string }
  | { kind: 'too-large' }
  | { kind: 'bad-encoding'; encoding: string };

/** A request that did not produce a readable answer; `failure` says why. */
export class GuardedFetchError extends Error {
  constructor(
    readonly url: string,
    readonly failure: GuardedFetchFailure,
  ) {
    super(`${url}: ${failure.kind}`);
    this.name = 'GuardedFetchError';
  }
}

export interface GuardedRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
}

export interface GuardedResponse {
  status: number;
  /** The URL that answered (after redirects). */
  url: string;
  contentType: string;
  /** The body, read only for 2xx answers. */
  body?: Buffer;
}

/** Resolves a host name to every address (dns.lookup with `all`); replaceable in tests. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface GuardedFetchOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  /** Default: the system resolver. Tests replace it to provoke DNS rebinding. */
  resolve?: Resolver | undefined;
  /** Aborts the request (a run's deadline, a cancelled run, a worker shutting down). */
  signal?: AbortSignal | undefined;
}

class RefusedAddress extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${host} resolves to a ${reason} address`);
  }
}

/** The port a URL connects to (its own, else the scheme's default). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** A `lookup` for sockets to `port` that keeps only the addresses the policy allows there. */
export function guardedLookup(
  policy: AddressPolicy,
  resolve: Resolver,
  port: number,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const usable = addresses.filter((entry) => policy.refusal(entry.address, port) === undefined);
      const [chosen] = usable;
      if (chosen === undefined) {
        const first = addresses[0];
        const refused = new RefusedAddress(
          hostname,
          first?.address ?? '',
          first ? (policy.refusal(first.address, port) ?? '') : 'unresolvable',
        );
        return callback(refused, '', 0);
      }
      if (options.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      return callback(null, chosen.address, chosen.family);
    });
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Sends one request, following redirects, under the policy; throws GuardedFetchError. */
export async function guardedFetch(
  url: string,
  request: GuardedRequest,
  options: GuardedFetchOptions,
): Promise<GuardedResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const resolve = options.resolve ?? dnsLookup;
  let current = new URL(url);
  let { method, body } = request;
  const headers = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    const lookup = guardedLookup(options.policy, resolve, portOf(current));
    const response = await send(current, { method, headers, body }, lookup, options, signal, url);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || !location) {
      return await finish(response, current, options, signal, url);
    }
    response.destroy(); // a redirect's body is never read
    if (hop >= MAX_REDIRECTS) throw new GuardedFetchError(url, { kind: 'too-many-redirects' });
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new GuardedFetchError(url, { kind: 'bad-redirect', location: '(not a URL)' });
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new GuardedFetchError(url, { kind: 'bad-redirect', location: next.protocol });
    // Another host, port or scheme is another service: never followed (the allow-list opens
    // addresses and ports for the sources registered there, not for whatever they point to).
    if (next.origin !== current.origin)
      throw new GuardedFetchError(url, { kind: 'cross-origin-redirect', origin: next.origin });
    const status = response.statusCode ?? 0;
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    current = next;
  }
}

function send(
  target: URL,
  request: GuardedRequest,
  lookup: LookupFunction,
  options: GuardedFetchOptions,
  signal: AbortSignal,
  original: string,
): Promise<IncomingMessage> {
  // A literal address never goes through `lookup`: judge it here.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const reason = options.policy.refusal(host, portOf(target));
    if (reason !== undefined)
      return Promise.reject(
        new GuardedFetchError(original, { kind: 'refused-address', host, address: host, reason }),
      );
  }
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = transport.request(target, {
      method: request.method,
      headers: {
        ...request.headers,
        'accept-encoding': 'gzip, deflate, br',
        ...(request.body !== undefined
          ? { 'content-length': String(Buffer.byteLength(request.body)) }
          : {}),
      },
      lookup,
      agent: false,
      signal,
    });
    outgoing.on('response', resolve);
    outgoing.on('error', (error) => reject(describeFailure(error, original, signal)));
    outgoing.end(request.body);
  });
}

function describeFailure(error: unknown, url: string, signal: AbortSignal): unknown {
  if (error instanceof GuardedFetchError) return error;
  if (error instanceof RefusedAddress)
    return new GuardedFetchError(url, {
      kind: 'refused-address',
      host: error.host,
      address: error.address,
      reason: error.reason,
    });
  if (signal.aborted) return abortFailure(url, signal);
  return new GuardedFetchError(url, { kind: 'unreachable', cause: error });
}

/**
 * Why an aborted request stopped: the caller's reason when its own signal ended it (a run's
 * deadline, a cancelled run: passed through unchanged), else the request's own deadline.
 */
function abortFailure(url: string, signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== 'TimeoutError') return reason;
  return new GuardedFetchError(url, { kind: 'timeout' });
}

function decoder(encoding: string): Transform | undefined | 'unknown' {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return 'unknown';
  }
}

async function finish(
  response: IncomingMessage,
  target: URL,
  options: GuardedFetchOptions,
  signal: AbortSignal,
  original: string,
): Promise<GuardedResponse> {
  const status = response.statusCode ?? 0;
  const answer = {
    status,
    url: target.href,
    contentType: String(response.headers['content-type'] ?? ''),
  };
  if (status < 200 || status >= 300) {
    response.destroy();
    return answer;
  }
  const declared = Number(response.headers['content-length'] ?? '0');
  if (declared > options.maxBytes) {
    response.destroy();
    throw new GuardedFetchError(original, { kind: 'too-large' });
  }
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decompress = decoder(encoding);
  if (decompress === 'unknown') {
    response.destroy();
    throw new GuardedFetchError(original, { kind: 'bad-encoding', encoding });
  }
  const stream: Readable = decompress ? response.pipe(decompress) : response;
  if (decompress) response.on('error', (error) => decompress.destroy(error));
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > options.maxBytes) throw new GuardedFetchError(original, { kind: 'too-large' });
      chunks.push(chunk);
    }
  } catch (error) {
    response.destroy();
    if (error instanceof GuardedFetchError) throw error;
    if (signal.aborted) throw abortFailure(original, signal);
    if (decompress) throw new GuardedFetchError(original, { kind: 'bad-encoding', encoding });
    throw new GuardedFetchError(original, { kind: 'unreachable', cause: error });
  }
  return { ...answer, body: Buffer.concat(chunks) };
}
