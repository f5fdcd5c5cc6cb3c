/**
 * Shared set-up for the real-Keycloak suite: where Keycloak is (KEYCLOAK_URL, default
 * http://127.0.0.1:8180), the clients and users of the cairn-test realm
 * (test/fixtures/keycloak/cairn-test-realm.json), and helpers that obtain user tokens through
 * the project's own TokenClient. When Keycloak is not reachable the suite FAILS with a message
 * saying how to start it; it never skips.
 */
import { decodeUnverifiedClaims, TokenClient } from '../../../shared/auth/token-exchange.js';

export const KEYCLOAK_URL = (process.env.KEYCLOAK_URL ?? 'http://127.0.0.1:8180').replace(
  /\/+$/,
  '',
);
export const REALM = 'cairn-test';
export const ISSUER = `${KEYCLOAK_URL}/realms/${REALM}`;
export const TOKEN_ENDPOINT = `${ISSUER}/protocol/openid-connect/token`;
export const JWKS_URL = `${ISSUER}/protocol/openid-connect/certs`;

/** Client ids of the test realm. */
export const CLIENT = {
  catalogue: 'cairn-catalogue',
  downstream: 'cairn-downstream',
  worker: 'cairn-worker',
  exporter: 'cairn-exporter',
  reports: 'cairn-reports',
  web: 'cairn-web',
  webShortLived: 'cairn-web-short-lived',
  webExchange: 'cairn-web-exchange',
  noRefresh: 'cairn-no-refresh',
} as const;

/** Test-only secrets, as in the realm fixture. */
const SECRET: Partial<Record<string, string>> = {
  [CLIENT.worker]: 'cairn-worker-test-secret',
  [CLIENT.exporter]: 'cairn-exporter-test-secret',
  [CLIENT.reports]: 'cairn-reports-test-secret',
  [CLIENT.noRefresh]: 'cairn-no-refresh-test-secret',
};

/** A TokenClient for a realm client (confidential when the fixture gives it a secret). */
export function clientFor(
  clientId: string,
  secret = SECRET[clientId],
  options: Partial<ConstructorParameters<typeof TokenClient>[0]> = {},
): TokenClient {
  return new TokenClient({
    tokenEndpoint: TOKEN_ENDPOINT,
    clientId,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    maxRetries: 0,
    ...options,
  });
}

/** Fails (never skips) with instructions when the test realm is not served. */
export async function requireKeycloak(): Promise<void> {
  const url = `${ISSUER}/.well-known/openid-configuration`;
  let problem: string;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (response.ok) {
      const issuer = ((await response.json()) as { issuer?: string }).issuer;
      if (issuer === ISSUER) return;
      problem = `it reports issuer ${issuer}, expected ${ISSUER} (start Keycloak with a pinned --hostname)`;
    } else {
      problem = `HTTP ${response.status} (is the ${REALM} realm imported from test/fixtures/keycloak?)`;
    }
  } catch (error) {
    problem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  throw new Error(
    `Keycloak is not usable at ${url}: ${problem}. ` +
      'Start it with `bash scripts/services.sh start keycloak` and `source ~/.cache/cairn/run/env.sh` ' +
      '(or set KEYCLOAK_URL). This suite needs the real provider and does not skip.',
  );
}

/** A user's access token from a public client via the password grant (test realm only). */
export async function userTokens(
  username: 'alice' | 'bob',
  options: { clientId?: string; scope?: string[] } = {},
): Promise<{
  accessToken: string;
  refreshToken?: string | undefined;
  idToken?: string | undefined;
}> {
  const client = clientFor(options.clientId ?? CLIENT.web);
  return client.requestToken({
    grant_type: 'password',
    username,
    password: `${username}-password`,
    scope: options.scope?.join(' '),
  });
}

/** The (unverified) claims of a token, for assertions. */
export function claimsOf(token: string): Record<string, unknown> {
  const claims = decodeUnverifiedClaims(token);
  if (!claims) throw new Error('not a JWT');
  return claims;
}

/** `aud` as a sorted list (Keycloak writes a string when there is one audience). */
export function audienceOf(token: string): string[] {
  const aud = claimsOf(token).aud;
  return (typeof aud === 'string' ? [aud] : Array.isArray(aud) ? (aud as string[]) : []).sort();
}

/** `scope` as a sorted list. */
export function scopesOf(token: string): string[] {
  const scope = claimsOf(token).scope;
  return typeof scope === 'string' ? scope.split(' ').filter(Boolean).sort() : [];
}

/** Waits until the token's `exp` has passed (plus a margin). */
export async function waitUntilExpired(token: string, marginMs = 300): Promise<void> {
  const exp = claimsOf(token).exp as number;
  const wait = exp * 1000 + marginMs - Date.now();
  if (wait > 0) await new Promise((done) => setTimeout(done, wait));
}

/** A loopback port nothing listens on (bound, then released): a real connection refusal. */
export async function closedLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}
