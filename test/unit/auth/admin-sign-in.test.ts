/**
 * The admin pages' sign-in pieces without I/O: the AUTH_WEB_* configuration, the expiring
 * session store, the return-path check (no open redirect) and the page helpers.
 */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../shared/config/index.js';
import { ExpiringStore } from '../../../shared/auth/session-store.js';
import { parseReturnTo } from '../../../services/api/protocols/admin/html-routes.js';
import { buildPager, formatDuration } from '../../../services/api/html/admin-pages.js';

const PROVIDER = {
  AUTH_ISSUER_URL: 'http://127.0.0.1:8180/realms/cairn-test',
  AUTH_CLIENT_ID: 'cairn-catalogue',
};

function problemsOf(environment: Record<string, string>): string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('admin sign-in: AUTH_WEB_* configuration', () => {
  it('is off unless AUTH_WEB_CLIENT_ID is set', () => {
    expect(loadConfig(PROVIDER).auth.signIn).to.equal(undefined);
    expect(loadConfig({}).auth).to.not.have.property('signIn');
  });

  it('reads the client, the redirect base (without trailing slash) and the session lifetime', () => {
    const { signIn } = loadConfig({
      ...PROVIDER,
      AUTH_WEB_CLIENT_ID: 'cairn-web',
      AUTH_WEB_REDIRECT_BASE: 'https://catalogue.example.org/prefix/',
      AUTH_WEB_SESSION_TTL_SECONDS: '3600',
    }).auth;
    expect(signIn).to.deep.equal({
      clientId: 'cairn-web',
      redirectBase: 'https://catalogue.example.org/prefix',
      sessionTtlSeconds: 3600,
    });
    expect(loadConfig({ ...PROVIDER, AUTH_WEB_CLIENT_ID: 'cairn-web' }).auth.signIn).to.deep.equal({
      clientId: 'cairn-web',
      redirectBase: undefined,
      sessionTtlSeconds: 28800,
    });
  });

  it('lists every inconsistent or invalid setting', () => {
    expect(problemsOf({ AUTH_WEB_CLIENT_ID: 'cairn-web' }).join('\n')).to.include(
      'AUTH_WEB_CLIENT_ID: needs AUTH_ISSUER_URL and AUTH_CLIENT_ID',
    );
    expect(
      problemsOf({ ...PROVIDER, AUTH_WEB_REDIRECT_BASE: 'http://x.org' }).join('\n'),
    ).to.include('AUTH_WEB_REDIRECT_BASE: needs AUTH_WEB_CLIENT_ID');
    const invalid = problemsOf({
      ...PROVIDER,
      AUTH_WEB_CLIENT_ID: 'cairn-web',
      AUTH_WEB_REDIRECT_BASE: 'not a url',
      AUTH_WEB_SESSION_TTL_SECONDS: '5',
    }).join('\n');
    expect(invalid).to.include('AUTH_WEB_REDIRECT_BASE');
    expect(invalid).to.include('AUTH_WEB_SESSION_TTL_SECONDS');
  });
});

describe('admin sign-in: ExpiringStore', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('gives 256-bit random ids and forgets entries at their expiry', async () => {
    const store = new ExpiringStore<string>({ maxEntries: 10, now: clock });
    const id = await store.add('value', now + 1000);
    expect(id).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(await store.add('other', now + 1000)).to.not.equal(id);
    expect(await store.get(id)).to.equal('value');
    expect(await store.get('unknown')).to.equal(undefined);
    expect(await store.get(undefined)).to.equal(undefined);
    now += 1000;
    expect(await store.get(id)).to.equal(undefined);
  });

  it('hands out an entry once with take', async () => {
    const store = new ExpiringStore<string>({ maxEntries: 10, now: clock });
    const id = await store.add('once', now + 1000);
    expect(await store.take(id)).to.equal('once');
    expect(await store.take(id)).to.equal(undefined);
  });

  it('replaces a live entry and leaves a missing one missing', async () => {
    const store = new ExpiringStore<string>({ maxEntries: 10, now: clock });
    const id = await store.add('first', now + 1000);
    await store.replace(id, 'second');
    expect(await store.get(id)).to.equal('second');
    await store.delete(id);
    await store.replace(id, 'third');
    expect(await store.get(id)).to.equal(undefined);
  });

  it('drops the oldest entries beyond its cap, and expired ones when adding', async () => {
    const store = new ExpiringStore<number>({ maxEntries: 3, now: clock });
    const ids: string[] = [];
    for (const value of [1, 2, 3, 4]) ids.push(await store.add(value, now + 10_000));
    expect(store.size).to.equal(3);
    expect(await store.get(ids[0])).to.equal(undefined);
    expect(await Promise.all(ids.slice(1).map((id) => store.get(id)))).to.deep.equal([2, 3, 4]);
    now += 10_000;
    await store.add(5, now + 10_000);
    expect(store.size).to.equal(1);
  });
});

describe('admin sign-in: return paths', () => {
  it('keeps local admin paths with their query', () => {
    for (const path of [
      '/catalogue/admin',
      '/catalogue/admin/jobs?f=html&limit=5',
      '/catalogue/admin/jobs/3f1e-a%20b/failures?offset=10',
    ])
      expect(parseReturnTo(path)).to.equal(path);
  });

  it('replaces anything that could leave the admin pages with the jobs page', () => {
    for (const value of [
      'https://evil.example/',
      '//evil.example/catalogue/admin',
      '/catalogue/admin//evil.example',
      '/\\evil.example',
      '/catalogue/admin/jobs\\@evil.example',
      '/catalogue/collections',
      '/catalogue/administrator',
      'javascript:alert(1)',
      ['/catalogue/admin/jobs'],
      undefined,
    ])
      expect(parseReturnTo(value), String(value)).to.equal('/catalogue/admin/jobs?f=html');
  });
});

describe('admin pages: helpers', () => {
  it('formats durations for people', () => {
    expect(formatDuration(850)).to.equal('850 ms');
    expect(formatDuration(12_440)).to.equal('12.4 s');
    expect(formatDuration(185_000)).to.equal('3 min 05 s');
    expect(formatDuration(-1)).to.equal('–');
  });

  it('pages: numbers and neighbouring links', () => {
    const href = (offset: number) => `?offset=${offset}`;
    expect(buildPager({ offset: 0, limit: 2, total: 5 }, 2, href)).to.deep.equal({
      first: 1,
      last: 2,
      total: 5,
      prev: undefined,
      next: '?offset=2',
    });
    expect(buildPager({ offset: 4, limit: 2, total: 5 }, 1, href)).to.deep.include({
      first: 5,
      last: 5,
      prev: '?offset=2',
      next: undefined,
    });
    expect(buildPager({ offset: 10, limit: 2, total: 5 }, 0, href)).to.deep.include({
      first: 0,
      prev: '?offset=8',
      next: undefined,
    });
  });
});
