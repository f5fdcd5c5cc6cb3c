/**
 * The JWKS endpoint failing, against a real HTTP key-set server on loopback and
 * the verifier built from the configuration: after a failed fetch, requests fail fast (503 with
 * Retry-After) without asking the provider again until the cool-down has passed, then the keys
 * are fetched and tokens accepted; an oversized key set is refused after at most the configured
 * number of bytes, without reading the rest.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { AuthProviderUnavailableError } from '../../../shared/auth/errors.js';
import { createTokenVerifier } from '../../../shared/auth/verify.js';
import { loadConfig } from '../../../shared/config/index.js';

const ISSUER = 'https://id.example.org/realms/cairn';
const CLIENT_ID = 'cairn-catalogue';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const JWK = { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };

function token(): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'k1' })}.${b64({
    iss: ISSUER,
    azp: CLIENT_ID,
    typ: 'Bearer',
    iat: now,
    exp: now + 300,
  })}`;
  return `${input}.${sign('sha256', Buffer.from(input), rsa.privateKey).toString('base64url')}`;
}

interface KeySetServer {
  url: string;
  mode: 'ok' | 'fail' | 'huge';
  hits: number;
  /** Bytes of the huge key set written before the client went away. */
  hugeBytesWritten: number;
  close(): Promise<void>;
}

const HUGE_BYTES = 200 * 1024 * 1024;

async function writeHuge(response: ServerResponse, state: KeySetServer): Promise<void> {
  response.setHeader('content-type', 'application/json');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  response.write('{"keys":[],"padding":"');
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  while (!closed && state.hugeBytesWritten < HUGE_BYTES) {
    state.hugeBytesWritten += chunk.byteLength;
    if (!response.write(chunk))
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
  }
  if (!closed) response.end('"}');
}

async function startKeySetServer(): Promise<KeySetServer> {
  const state: KeySetServer = {
    url: '',
    mode: 'ok',
    hits: 0,
    hugeBytesWritten: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((_request, response) => {
    state.hits += 1;
    if (state.mode === 'fail') {
      response.statusCode = 500;
      response.end('down');
      return;
    }
    if (state.mode === 'huge') {
      void writeHuge(response, state);
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [JWK] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

function verifierFor(keySet: KeySetServer, extra: Record<string, string> = {}, now?: () => number) {
  const { auth } = loadConfig({
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT_ID,
    AUTH_JWKS_URL: keySet.url,
    ...extra,
  });
  if (!auth.provider) throw new Error('no provider configured');
  return createTokenVerifier(auth.provider, now ? { now } : {});
}

async function unavailable(promise: Promise<unknown>): Promise<AuthProviderUnavailableError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AuthProviderUnavailableError);
    return error as AuthProviderUnavailableError;
  }
  throw new Error('the token was accepted');
}

describe('JWKS endpoint failures: back-off and size cap (real HTTP key-set server)', function () {
  this.timeout(30000);
  let keySet: KeySetServer;
  beforeEach(async () => {
    keySet = await startKeySetServer();
  });
  afterEach(async () => keySet?.close());

  it('after a failed fetch, 200 requests fail fast with one fetch, then the keys are fetched again', async () => {
    keySet.mode = 'fail';
    // The verifier's clock is the test's: the 200 refusals happen within the cool-down however
    // slowly the machine runs them, and the cool-down ends when the test moves the clock.
    let clock = Date.now();
    const verifier = verifierFor(keySet, { AUTH_JWKS_FAILURE_COOLDOWN_SECONDS: '2' }, () => clock);
    const signed = token();
    const first = await unavailable(verifier.verify(signed));
    expect(first.status).to.equal(503);
    // Failing fast means failing without asking the key-set server: still one fetch after 200
    // refusals within the cool-down (a wall-clock bound here timed the machine, not the verifier).
    for (let index = 0; index < 200; index += 1) {
      const error = await unavailable(verifier.verify(signed));
      expect(error.status).to.equal(503);
      expect(error.retryAfter).to.equal(2);
    }
    expect(keySet.hits).to.equal(1, 'one fetch for 201 refusals');

    keySet.mode = 'ok';
    // A millisecond before the end of the cool-down: still refused, still not asked.
    clock += 1999;
    expect((await unavailable(verifier.verify(token()))).retryAfter).to.equal(1);
    expect(keySet.hits).to.equal(1);
    clock += 1;
    const verified = await verifier.verify(token());
    expect(verified.authorizedParty).to.equal(CLIENT_ID);
    expect(keySet.hits).to.equal(2);
  });

  it('concurrent requests during the cool-down cause no fetch either', async () => {
    keySet.mode = 'fail';
    const verifier = verifierFor(keySet);
    await unavailable(verifier.verify(token()));
    await Promise.all(Array.from({ length: 200 }, () => unavailable(verifier.verify(token()))));
    expect(keySet.hits).to.equal(1);
  });

  it('with the back-off off (0), every request that needs the keys asks again', async () => {
    keySet.mode = 'fail';
    const verifier = verifierFor(keySet, { AUTH_JWKS_FAILURE_COOLDOWN_SECONDS: '0' });
    for (let index = 0; index < 3; index += 1) await unavailable(verifier.verify(token()));
    expect(keySet.hits).to.equal(3);
  });

  it('a 200 MB key set is refused after the cap (1 MiB by default) without reading the rest', async () => {
    keySet.mode = 'huge';
    const verifier = verifierFor(keySet);
    const rss = process.memoryUsage().rss;
    const error = await unavailable(verifier.verify(token()));
    expect(error.status).to.equal(503);
    // Give the server a moment to notice the closed connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(keySet.hugeBytesWritten).to.be.below(32 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss).to.be.below(100 * 1024 * 1024);
  });
});
