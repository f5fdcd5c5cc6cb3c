/**
 * JwksKeyStore: caching, rotation (one rate-limited re-fetch for an unknown kid), merged
 * concurrent fetches and the never-accept rule when the key set cannot be fetched. The key set
 * is produced in memory and time is a fake clock (no I/O).
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { AuthProviderUnavailableError } from '../../../shared/auth/errors.js';
import { JwksKeyStore, type SigningKeyRecord } from '../../../shared/auth/jwks.js';

const publicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
const record = (kid: string, alg = 'ES256'): SigningKeyRecord => ({ kid, alg, key: publicKey });

function setUp(initial: SigningKeyRecord[]) {
  const state = { keys: initial, fail: false, calls: 0, clock: 0 };
  const store = new JwksKeyStore({
    fetchKeys: async () => {
      state.calls += 1;
      if (state.fail) throw new Error('ECONNREFUSED');
      return state.keys;
    },
    cacheMs: 600_000,
    refetchCooldownMs: 30_000,
    now: () => state.clock,
  });
  return { state, store };
}

describe('auth/jwks: JwksKeyStore', () => {
  it('fetches once and serves known kids from the cache', async () => {
    const { state, store } = setUp([record('a')]);
    expect(await store.getKey('a', 'ES256')).to.include({ kid: 'a' });
    state.clock += 10_000;
    expect(await store.getKey('a', 'ES256')).to.include({ kid: 'a' });
    expect(state.calls).to.equal(1);
    expect(store.fetchCount).to.equal(1);
  });

  it('matches alg when the key names one', async () => {
    const { store } = setUp([record('a', 'RS256')]);
    expect(await store.getKey('a', 'ES256')).to.equal(undefined);
  });

  it('an unknown kid after the cooldown re-fetches once (rotation) and finds the new key', async () => {
    const { state, store } = setUp([record('old')]);
    await store.getKey('old', 'ES256');
    state.keys = [record('old'), record('new')];
    state.clock += 30_000;
    expect(await store.getKey('new', 'ES256')).to.include({ kid: 'new' });
    expect(state.calls).to.equal(2);
  });

  it('an unknown kid within the cooldown does not fetch', async () => {
    const { state, store } = setUp([record('a')]);
    await store.getKey('a', 'ES256');
    state.clock += 29_000;
    for (const kid of ['x', 'y', 'z']) expect(await store.getKey(kid, 'ES256')).to.equal(undefined);
    expect(state.calls).to.equal(1);
  });

  it('a flood of unknown kids causes at most one fetch per cooldown', async () => {
    const { state, store } = setUp([record('a')]);
    await store.getKey('a', 'ES256');
    for (let second = 0; second < 120; second += 1) {
      state.clock += 1000;
      await store.getKey(`random-${second}`, 'ES256');
    }
    expect(state.calls).to.equal(1 + 4);
  });

  it('merges concurrent fetches into one', async () => {
    const { state, store } = setUp([record('a')]);
    await Promise.all([1, 2, 3, 4].map(() => store.getKey('a', 'ES256')));
    expect(state.calls).to.equal(1);
  });

  it('re-fetches once the cache age is reached', async () => {
    const { state, store } = setUp([record('a')]);
    await store.getKey('a', 'ES256');
    state.clock += 600_000;
    await store.getKey('a', 'ES256');
    expect(state.calls).to.equal(2);
  });

  it('throws 503 when the first fetch fails', async () => {
    const { state, store } = setUp([record('a')]);
    state.fail = true;
    try {
      await store.getKey('a', 'ES256');
      expect.fail('no error');
    } catch (error) {
      expect(error).to.be.instanceOf(AuthProviderUnavailableError);
      expect((error as AuthProviderUnavailableError).status).to.equal(503);
      expect((error as Error).message).not.to.contain('ECONNREFUSED');
    }
  });

  it('never accepts with stale keys when the re-fetch fails, and recovers afterwards', async () => {
    const { state, store } = setUp([record('a')]);
    await store.getKey('a', 'ES256');
    state.clock += 600_000;
    state.fail = true;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await store.getKey('a', 'ES256');
        expect.fail('stale key accepted');
      } catch (error) {
        expect(error).to.be.instanceOf(AuthProviderUnavailableError);
      }
    }
    state.fail = false;
    expect(await store.getKey('a', 'ES256')).to.include({ kid: 'a' });
  });

  it('an unknown kid whose re-fetch fails is a 503, and fresh known keys keep working', async () => {
    const { state, store } = setUp([record('a')]);
    await store.getKey('a', 'ES256');
    state.clock += 31_000;
    state.fail = true;
    try {
      await store.getKey('unknown', 'ES256');
      expect.fail('no error');
    } catch (error) {
      expect(error).to.be.instanceOf(AuthProviderUnavailableError);
    }
    expect(await store.getKey('a', 'ES256')).to.include({ kid: 'a' });
  });

  it('after a failed fetch, fails fast without fetching until the cool-down has passed', async () => {
    const state = { fail: true, calls: 0, clock: 0 };
    const store = new JwksKeyStore({
      fetchKeys: async () => {
        state.calls += 1;
        if (state.fail) throw new Error('ECONNREFUSED');
        return [record('a')];
      },
      cacheMs: 600_000,
      refetchCooldownMs: 30_000,
      failureCooldownMs: 5_000,
      now: () => state.clock,
    });
    const retryAfters: (number | undefined)[] = [];
    for (const step of [0, 1_000, 2_500, 1_400]) {
      state.clock += step;
      try {
        await store.getKey('a', 'ES256');
        expect.fail('no error');
      } catch (error) {
        expect(error).to.be.instanceOf(AuthProviderUnavailableError);
        retryAfters.push((error as AuthProviderUnavailableError).retryAfter);
      }
    }
    expect(state.calls).to.equal(1);
    expect(retryAfters).to.deep.equal([5, 4, 2, 1]);
    state.fail = false;
    state.clock += 100; // 5 s after the failure
    expect(await store.getKey('a', 'ES256')).to.include({ kid: 'a' });
    expect(state.calls).to.equal(2);
  });
});
