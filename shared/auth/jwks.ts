/**
 * The identity provider's signing keys, fetched from its JWKS and cached. Only `use: sig` keys
 * (or keys without `use`) are kept: Keycloak also publishes an RSA-OAEP encryption key.
 *
 * - Keys are trusted for `cacheMs` after a fetch; after that the next token causes a fetch.
 * - A token whose `kid` is not in the cache causes one re-fetch (key rotation), at most once per
 *   `refetchCooldownMs`; within the cooldown the kid is simply unknown.
 * - Concurrent fetches are merged into one request.
 * - When a fetch that is needed fails, `getKey` throws AuthProviderUnavailableError (503): a
 *   token is never accepted with a key that could not be (re)confirmed.
 * - After a failed fetch, no new fetch is made for `failureCooldownMs`: requests that need one
 *   get the 503 at once (Retry-After: the rest of the cool-down), so a failing provider is not
 *   asked again for every request.
 * - The key set response is read up to `maxBytes` (createJwksFetcher); a larger one is a failure.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import { AuthProviderUnavailableError } from './errors.js';

/** One verification key from the provider's key set. */
export interface SigningKeyRecord {
  kid?: string | undefined;
  /** The JWK's `alg`, when the key set names one. */
  alg?: string | undefined;
  key: KeyObject;
}

/** Finds the verification key for a token header; the verifier depends only on this. */
export interface SigningKeyResolver {
  /** The key for `kid` (and `alg`), undefined when unknown; throws when the key set is unavailable. */
  getKey(kid: string, alg: string): Promise<SigningKeyRecord | undefined>;
}

export interface JwksKeyStoreOptions {
  /** Fetches and parses the key set; throws on any failure. */
  fetchKeys: () => Promise<SigningKeyRecord[]>;
  cacheMs: number;
  refetchCooldownMs: number;
  /** Least time between a failed fetch and the next attempt (default 0: no back-off). */
  failureCooldownMs?: number;
  now?: (() => number) | undefined;
}

/** The caching, rotation-aware key store described in this module's comment. */
export class JwksKeyStore implements SigningKeyResolver {
  private keys: SigningKeyRecord[] | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<SigningKeyRecord[]> | undefined;
  private fetches = 0;
  private readonly now: () => number;

  constructor(private readonly options: JwksKeyStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  /** How many times the key set has been requested from the provider (for tests and metrics). */
  get fetchCount(): number {
    return this.fetches;
  }

  async getKey(kid: string, alg: string): Promise<SigningKeyRecord | undefined> {
    const age = this.now() - this.fetchedAt;
    if (this.keys && age < this.options.cacheMs) {
      const cached = findKey(this.keys, kid, alg);
      if (cached || age < this.options.refetchCooldownMs) return cached;
    }
    this.checkBackOff();
    return findKey(await this.refresh(), kid, alg);
  }

  /** Fails fast while the cool-down after a failed fetch runs (no request to the provider). */
  private checkBackOff(): void {
    const remaining = this.failedAt + (this.options.failureCooldownMs ?? 0) - this.now();
    if (remaining <= 0 || this.inflight) return;
    throw new AuthProviderUnavailableError(
      "The identity provider's signing keys could not be fetched a moment ago; try again later",
      { retryAfter: Math.max(1, Math.ceil(remaining / 1000)) },
    );
  }

  private refresh(): Promise<SigningKeyRecord[]> {
    this.inflight ??= this.fetchOnce().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchOnce(): Promise<SigningKeyRecord[]> {
    this.fetches += 1;
    try {
      const keys = await this.options.fetchKeys();
      this.keys = keys;
      this.fetchedAt = this.now();
      return keys;
    } catch (error) {
      this.failedAt = this.now();
      // Cached keys keep their original age: once stale they are never used again until a
      // fetch succeeds, so an unreachable key set can delay acceptance but never cause it.
      throw new AuthProviderUnavailableError(
        "The identity provider's signing keys cannot be fetched; try again later",
        { cause: error },
      );
    }
  }
}

function findKey(keys: SigningKeyRecord[], kid: string, alg: string): SigningKeyRecord | undefined {
  return keys.find((key) => key.kid === kid && (key.alg === undefined || key.alg === alg));
}

/** Largest key set accepted by default (Keycloak's is a few KB). */
export const DEFAULT_JWKS_MAX_BYTES = 1024 * 1024;

/** Reads a response body as text, failing once it grows past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (Number(response.headers.get('content-length') ?? '0') > maxBytes)
    throw new Error(`JWKS document larger than ${maxBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body)
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new Error(`JWKS document larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  return Buffer.concat(chunks).toString('utf8');
}

/** Fetches a JWKS over HTTP(S) with Node's fetch and returns its signature keys. */
export function createJwksFetcher(
  jwksUrl: string,
  timeoutMs = 5000,
  maxBytes = DEFAULT_JWKS_MAX_BYTES,
): () => Promise<SigningKeyRecord[]> {
  const client = new JwksClient({
    jwksUri: jwksUrl,
    cache: false,
    rateLimit: false,
    fetcher: async (uri: string) => {
      const response = await fetch(uri, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`JWKS endpoint answered HTTP ${response.status}`);
      }
      const body = JSON.parse(await readCapped(response, maxBytes)) as { keys?: unknown };
      if (!Array.isArray(body?.keys)) throw new Error('JWKS document has no "keys" array');
      return { keys: body.keys };
    },
  });
  return async () => {
    const keys = await client.getSigningKeys();
    return keys.map((signingKey) => ({
      kid: signingKey.kid || undefined,
      alg: signingKey.alg || undefined,
      key: createPublicKey(signingKey.getPublicKey()),
    }));
  };
}
