/**
 * What the admin-page sign-in tests share: bringing the running Keycloak's sign-in clients in
 * line with the realm fixture (so no restart is needed after the fixture changed), a small
 * cookie jar, and a driver for Keycloak's login form over plain HTTP.
 */
import { readFileSync } from 'node:fs';
import { KEYCLOAK_URL, REALM } from '../integration/keycloak/keycloak-support.js';
import { defined } from './defined.js';

const FIXTURE = new URL('../fixtures/keycloak/cairn-test-realm.json', import.meta.url);
/** The realm clients the admin-page tests sign in with. */
export const SIGN_IN_CLIENTS = ['cairn-web', 'cairn-web-short-tokens'] as const;

interface ClientRepresentation {
  id?: string;
  clientId: string;
  redirectUris?: string[];
  attributes?: Record<string, string>;
  [key: string]: unknown;
}

async function adminToken(): Promise<string> {
  const response = await fetch(`${KEYCLOAK_URL}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username: process.env.KEYCLOAK_ADMIN_USERNAME ?? 'admin',
      password: process.env.KEYCLOAK_ADMIN_PASSWORD ?? 'admin',
    }),
  });
  if (!response.ok)
    throw new Error(`Keycloak admin sign-in failed: HTTP ${response.status} (KEYCLOAK_ADMIN_*)`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * Creates the fixture's sign-in clients (or the given fixture clients) in the running realm
 * when missing, and adds the fixture's redirect URIs and attributes to them when they lack
 * some. Idempotent; changes nothing other tests rely on (it only adds).
 */
export async function syncSignInClients(
  clientIds: readonly string[] = SIGN_IN_CLIENTS,
): Promise<void> {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { clients: ClientRepresentation[] };
  const token = await adminToken();
  const admin = `${KEYCLOAK_URL}/admin/realms/${REALM}/clients`;
  const call = async (url: string, method = 'GET', body?: unknown): Promise<Response> => {
    const response = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`Keycloak admin ${method} ${url}: HTTP ${response.status}`);
    return response;
  };
  for (const clientId of clientIds) {
    const wanted = fixture.clients.find((client) => client.clientId === clientId);
    if (!wanted) throw new Error(`client ${clientId} is not in the realm fixture`);
    const search = `${admin}?clientId=${encodeURIComponent(clientId)}`;
    const [existing] = (await (await call(search)).json()) as ClientRepresentation[];
    if (!existing) {
      await call(admin, 'POST', wanted);
      continue;
    }
    const redirectUris = [
      ...new Set([...(existing.redirectUris ?? []), ...(wanted.redirectUris ?? [])]),
    ];
    const attributes = { ...existing.attributes, ...wanted.attributes };
    const unchanged =
      redirectUris.length === (existing.redirectUris ?? []).length &&
      Object.entries(attributes).every(([key, value]) => existing.attributes?.[key] === value);
    if (!unchanged)
      await call(`${admin}/${existing.id}`, 'PUT', { ...existing, redirectUris, attributes });
  }
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  httpOnly: boolean;
  sameSite?: string | undefined;
  secure: boolean;
}

/**
 * Cookies of one loopback host (cookies ignore ports, so Keycloak's and the app's share it,
 * separated by their paths, as in a browser).
 */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Takes the Set-Cookie headers of a response. */
  store(setCookie: string[] | string | undefined | null): void {
    const headers = setCookie === undefined || setCookie === null ? [] : [setCookie].flat();
    for (const header of headers) {
      const [first, ...attributes] = header.split(';').map((part) => part.trim());
      const pair = defined(first, 'the Set-Cookie name=value pair');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      const attribute = (key: string) =>
        attributes
          .find((item) => item.toLowerCase().startsWith(`${key.toLowerCase()}=`))
          ?.split('=')[1];
      const flag = (key: string) => attributes.some((item) => item.toLowerCase() === key);
      const path = attribute('Path') ?? '/';
      const expires = attribute('Expires');
      const expired =
        attribute('Max-Age') === '0' ||
        (expires !== undefined && new Date(expires).getTime() <= Date.now()) ||
        value === '';
      const key = `${name} ${path}`;
      if (expired) this.cookies.delete(key);
      else
        this.cookies.set(key, {
          name,
          value,
          path,
          httpOnly: flag('httponly'),
          secure: flag('secure'),
          sameSite: attribute('SameSite'),
        });
    }
  }

  /** The Cookie header a browser would send to this path. */
  header(path: string): string {
    return [...this.cookies.values()]
      .filter((cookie) => path.startsWith(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  /** One stored cookie, for assertions on its attributes. */
  get(name: string): StoredCookie | undefined {
    return [...this.cookies.values()].find((cookie) => cookie.name === name);
  }
}

/** Reads the Set-Cookie headers of a fetch Response. */
export function setCookiesOf(response: Response): string[] {
  return response.headers.getSetCookie();
}

/** One step at Keycloak: the status, where it redirects, and the page. */
export interface ProviderStep {
  status: number;
  location?: string | undefined;
  html: string;
}

/** A GET at Keycloak with the jar's cookies, without following redirects. */
export async function providerGet(url: string, jar: CookieJar): Promise<ProviderStep> {
  const response = await fetch(url, {
    redirect: 'manual',
    headers: { Cookie: jar.header(new URL(url).pathname) },
  });
  jar.store(setCookiesOf(response));
  return {
    status: response.status,
    location: response.headers.get('location') ?? undefined,
    html: await response.text(),
  };
}

/**
 * Signs a user in at Keycloak's login page (reached at `authorizationUrl`) and returns the
 * redirect back to the application (its callback URL with code and state). When Keycloak
 * still has a session for this jar, it redirects at once without a form.
 */
export async function loginAtProvider(
  authorizationUrl: string,
  jar: CookieJar,
  username: 'alice' | 'bob',
): Promise<string> {
  const page = await providerGet(authorizationUrl, jar);
  if (page.status === 302 && page.location) return page.location;
  const action = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(page.html)?.[1];
  if (page.status !== 200 || !action)
    throw new Error(`no Keycloak login form (HTTP ${page.status}) at ${authorizationUrl}`);
  const target = action.replaceAll('&amp;', '&');
  const response = await fetch(target, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      Cookie: jar.header(new URL(target).pathname),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ username, password: `${username}-password`, credentialId: '' }),
  });
  jar.store(setCookiesOf(response));
  const location = response.headers.get('location');
  if (response.status !== 302 || !location)
    throw new Error(`Keycloak did not accept ${username}'s login (HTTP ${response.status})`);
  return location;
}

/** True when the page is Keycloak's login form (no single sign-on session was reused). */
export function isLoginForm(step: ProviderStep): boolean {
  return step.status === 200 && step.html.includes('id="kc-form-login"');
}
