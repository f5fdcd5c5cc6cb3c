/**
 * HTTP helpers for the fuzz and limits suites: the test app listening on a real loopback port
 * (so requests go through Node's HTTP parser as a client's would), a request function that
 * fails on a hang instead of waiting forever, and checks that an answer is a success or a
 * client error in the protocol's own format — never a 5xx.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** The longest a fuzzed request may take before the suite calls it a hang. */
const HANG_MS = 20_000;

export interface Listening {
  server: Server;
  baseUrl: string;
  close: () => Promise<void>;
}

/** Serves an app (or a server built for it) on 127.0.0.1 at a free port. */
export async function listen(target: Express | Server): Promise<Listening> {
  const server = target instanceof Server ? target : createServer(target);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends one request; a request that does not finish within HANG_MS fails the test. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_MS) });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

/**
 * Percent-encodes every byte of the UTF-8 form of a text except unreserved characters, as a
 * form would; unlike encodeURIComponent it never throws (a lone surrogate becomes U+FFFD).
 */
export function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-_.~]/.test(character)
      ? character
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** Builds a query string from pairs, percent-encoding names and values. */
export function queryString(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  return `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}`;
}

function describeAnswer(request: string, answer: Answer): string {
  return `${request} → ${answer.status} ${answer.contentType}: ${answer.body.slice(0, 300)}`;
}

/**
 * OGC API – Records / STAC: a 2xx/3xx, or a 4xx with a `{code, description}` JSON body. Returns
 * the outcome label for the tally.
 */
export function checkJsonAnswer(request: string, answer: Answer): string {
  if (answer.status >= 500) throw new Error(describeAnswer(request, answer));
  if (answer.status < 400) return String(answer.status);
  let error: { code?: unknown; description?: unknown };
  try {
    error = JSON.parse(answer.body) as typeof error;
  } catch {
    throw new Error(`not a JSON error: ${describeAnswer(request, answer)}`);
  }
  if (
    !/json/.test(answer.contentType) ||
    typeof error.code !== 'string' ||
    typeof error.description !== 'string'
  )
    throw new Error(`not a {code, description} error: ${describeAnswer(request, answer)}`);
  return `${answer.status} ${error.code}`;
}

/** CSW / OpenSearch: a 2xx, or an ows:ExceptionReport with a 4xx (501 for what CSW calls not supported). */
export function checkCswAnswer(request: string, answer: Answer): string {
  const code = /exceptionCode="([^"]+)"/.exec(answer.body)?.[1];
  const notSupported =
    answer.status === 501 && (code === 'OperationNotSupported' || code === 'OptionNotSupported');
  if (answer.status >= 500 && !notSupported) throw new Error(describeAnswer(request, answer));
  if (answer.status < 400) return String(answer.status);
  if (
    !/xml/.test(answer.contentType) ||
    !answer.body.includes('ExceptionReport') ||
    code === undefined
  )
    throw new Error(`not an ows:ExceptionReport: ${describeAnswer(request, answer)}`);
  return `${answer.status} ${code}`;
}
