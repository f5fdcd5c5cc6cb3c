/**
 * Issue 47, without I/O: the sealed sign-in state cookie (what opens, what does not) and the
 * same-origin check of the admin pages' forms — including a walk over the admin HTML router
 * that fails on any state-changing route registered without the check.
 */
import { expect } from 'chai';
import type { Request } from 'express';
import { loadConfig } from '../../../shared/config/index.js';
import type { PendingSignIn } from '../../../shared/auth/oidc-sign-in.js';
import { processSecret, SignInStateSealer } from '../../../shared/auth/sign-in-state.js';
import { crossSiteRefusal } from '../../../services/api/middleware/same-origin.js';
import type { AuthMiddleware } from '../../../services/api/middleware/auth.js';
import { createAdminHtmlRouter } from '../../../services/api/protocols/admin/html-routes.js';
import { defined } from '../../support/defined.js';

const PENDING: PendingSignIn = {
  state: 's'.repeat(43),
  nonce: 'n'.repeat(43),
  codeVerifier: 'v'.repeat(43),
  redirectUri: 'http://127.0.0.1:8000/catalogue/admin/callback',
  returnTo: '/catalogue/admin/jobs?f=html',
};

describe('admin sign-in: the sealed state cookie', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('opens to what was sealed, until its expiry, and hides it', async () => {
    const sealer = new SignInStateSealer(processSecret(), clock);
    const value = await sealer.seal(PENDING, now + 600_000);
    expect(value).to.match(/^[A-Za-z0-9_-]+$/);
    expect(value).to.not.include('sss');
    expect(Buffer.from(value, 'base64url').toString('latin1')).to.not.include('nnnn');
    expect(value.length).to.be.lessThan(1024);
    expect(await sealer.open(value)).to.deep.equal(PENDING);
    expect(await sealer.seal(PENDING, now + 600_000)).to.not.equal(value, 'a fresh IV each time');
    now += 600_000;
    expect(await sealer.open(value), 'expired').to.equal(undefined);
  });

  it('opens nothing altered, truncated, foreign or absent', async () => {
    const secret = processSecret();
    const sealer = new SignInStateSealer(secret, clock);
    const value = await sealer.seal(PENDING, now + 600_000);
    const bytes = Buffer.from(value, 'base64url');
    for (let index = 0; index < bytes.length; index += 7) {
      const altered = Buffer.from(bytes);
      altered[index] = defined(altered[index], `byte ${index}`) ^ 1;
      expect(await sealer.open(altered.toString('base64url')), `byte ${index}`).to.equal(undefined);
    }
    expect(await sealer.open(value.slice(0, -4))).to.equal(undefined);
    expect(await new SignInStateSealer(processSecret(), clock).open(value)).to.equal(undefined);
    // Another process of the same deployment (same secret) opens it.
    expect(await new SignInStateSealer(secret, clock).open(value)).to.deep.equal(PENDING);
    for (const junk of [undefined, '', 'x', '!!!', 'A'.repeat(9000)])
      expect(await sealer.open(junk)).to.equal(undefined);
  });

  it('reads AUTH_WEB_STATE_SECRET (at least 32 characters)', () => {
    const base = {
      AUTH_ISSUER_URL: 'http://127.0.0.1:8180/realms/cairn-test',
      AUTH_CLIENT_ID: 'cairn-catalogue',
      AUTH_WEB_CLIENT_ID: 'cairn-web',
    };
    const secret = 'x'.repeat(32);
    expect(
      loadConfig({ ...base, AUTH_WEB_STATE_SECRET: secret }).auth.signIn?.stateSecret,
    ).to.equal(secret);
    expect(() => loadConfig({ ...base, AUTH_WEB_STATE_SECRET: 'short' })).to.throw(
      /AUTH_WEB_STATE_SECRET: at least 32 characters/,
    );
  });
});

describe('admin forms: the same-origin check', () => {
  const OWN = ['http://127.0.0.1:8000'] as const;
  const post = (headers: Record<string, string>) =>
    ({ get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

  it('lets the catalogue’s own forms through', () => {
    expect(crossSiteRefusal(post({ origin: OWN[0] }), OWN)).to.equal(undefined);
    expect(
      crossSiteRefusal(post({ origin: OWN[0], 'sec-fetch-site': 'same-origin' }), OWN),
    ).to.equal(undefined);
    expect(crossSiteRefusal(post({ referer: `${OWN[0]}/catalogue/admin/jobs` }), OWN)).to.equal(
      undefined,
    );
    // Not sent by a browser: nothing to forge.
    expect(crossSiteRefusal(post({}), OWN)).to.equal(undefined);
  });

  it('refuses another origin, another site, a sibling site and an opaque origin', () => {
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1:8001' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: OWN[0] },
      { referer: 'https://evil.example/page' },
      { referer: 'not a url' },
    ];
    for (const headers of refused)
      expect(crossSiteRefusal(post(headers), OWN), JSON.stringify(headers)).to.be.a('string');
  });

  it('guards every state-changing route of the admin HTML router', () => {
    const config = loadConfig({
      AUTH_ISSUER_URL: 'http://127.0.0.1:8180/realms/cairn-test',
      AUTH_CLIENT_ID: 'cairn-catalogue',
      AUTH_WEB_CLIENT_ID: 'cairn-web',
    });
    const router = createAdminHtmlRouter({
      config,
      auth: {} as AuthMiddleware,
      ingestLog: () => {
        throw new Error('not used');
      },
      queue: () => undefined,
    });
    type Layer = {
      route?: { path: string; methods: Record<string, boolean>; stack: { name: string }[] };
    };
    const routes = (router as unknown as { stack: Layer[] }).stack.flatMap((layer) =>
      layer.route ? [layer.route] : [],
    );
    const changing = routes.filter((route) =>
      Object.keys(route.methods).some((method) => !['get', 'head', 'options'].includes(method)),
    );
    expect(changing.map((route) => route.path)).to.include('/admin/sign-out');
    for (const route of changing)
      expect(route.stack[0]?.name, route.path).to.equal('sameOriginCheck');
  });
});
