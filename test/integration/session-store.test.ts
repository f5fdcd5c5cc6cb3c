/**
 * The admin sign-in stores: one contract, run on the in-process store and on the Redis store
 * of scaled mode (a real Redis). Two Redis stores over two connections stand for two API
 * processes: what one adds, the other reads, replaces and takes.
 */
import { expect } from 'chai';
import { RedisExpiringStore } from '../../shared/auth/redis-session-store.js';
import { ExpiringStore, type SessionStore } from '../../shared/auth/session-store.js';
import { redisUnderPrefix, requireRedis } from './worker/worker-support.js';

interface Value {
  user: string;
  n: number;
}

interface Clock {
  now: number;
}

type MakeStore = (clock: Clock, maxEntries: number) => SessionStore<Value>;

function describeContract(name: string, make: () => Promise<MakeStore>): void {
  describe(`admin sign-in store contract: ${name}`, () => {
    let makeStore: MakeStore;
    const clock: Clock = { now: 0 };

    before(async () => {
      makeStore = await make();
    });

    // Redis expires entries at absolute times: the clock starts at the real time of each test
    // (not when the file was loaded, minutes earlier in a long suite).
    beforeEach(() => {
      clock.now = Date.now();
    });

    it('reads back what it adds, under 256-bit random ids, and nothing for unknown ids', async () => {
      const store = makeStore(clock, 100);
      const id = await store.add({ user: 'alice', n: 1 }, clock.now + 60_000);
      expect(id).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(await store.get(id)).to.deep.equal({ user: 'alice', n: 1 });
      expect(await store.get(undefined)).to.equal(undefined);
      expect(await store.get('x'.repeat(43))).to.equal(undefined);
      expect(await store.get('not an id')).to.equal(undefined);
    });

    it('hands an entry out once with take, and forgets deleted ones', async () => {
      const store = makeStore(clock, 100);
      const id = await store.add({ user: 'bob', n: 2 }, clock.now + 60_000);
      expect(await store.take(id)).to.deep.equal({ user: 'bob', n: 2 });
      expect(await store.take(id)).to.equal(undefined);
      const other = await store.add({ user: 'bob', n: 3 }, clock.now + 60_000);
      await store.delete(other);
      expect(await store.get(other)).to.equal(undefined);
    });

    it('replaces a live entry, and does not bring back a deleted one', async () => {
      const store = makeStore(clock, 100);
      const id = await store.add({ user: 'carol', n: 1 }, clock.now + 60_000);
      await store.replace(id, { user: 'carol', n: 2 });
      expect(await store.get(id)).to.deep.equal({ user: 'carol', n: 2 });
      await store.delete(id);
      await store.replace(id, { user: 'carol', n: 3 });
      expect(await store.get(id)).to.equal(undefined);
    });

    it('keeps at most maxEntries, dropping those that expire first', async () => {
      const store = makeStore(clock, 3);
      const ids: string[] = [];
      for (let n = 0; n < 5; n += 1)
        ids.push(await store.add({ user: 'flood', n }, clock.now + 60_000 + n));
      const values = await Promise.all(ids.map((id) => store.get(id)));
      expect(values.map((value) => value?.n)).to.deep.equal([undefined, undefined, 2, 3, 4]);
    });
  });
}

describeContract('in this process (embedded mode)', async () => {
  return (clock, maxEntries) => new ExpiringStore<Value>({ maxEntries, now: () => clock.now });
});

describe('admin sign-in stores in Redis (scaled mode)', function () {
  this.timeout(30_000);
  const { prefix, connect, cleanUp } = redisUnderPrefix('sessions');
  let stores = 0;

  after(cleanUp);

  describeContract('Redis', async () => {
    await requireRedis();
    const redis = connect();
    return (clock, maxEntries) =>
      new RedisExpiringStore<Value>(redis, {
        prefix: `${prefix}:contract-${(stores += 1)}`,
        maxEntries,
        now: () => clock.now,
      });
  });

  it('shares entries between two processes’ connections', async () => {
    await requireRedis();
    const options = { prefix: `${prefix}:shared`, maxEntries: 100 };
    const one = new RedisExpiringStore<Value>(connect(), options);
    const two = new RedisExpiringStore<Value>(connect(), options);
    const id = await one.add({ user: 'alice', n: 1 }, Date.now() + 60_000);
    expect(await two.get(id)).to.deep.equal({ user: 'alice', n: 1 });
    await two.replace(id, { user: 'alice', n: 2 });
    expect(await one.take(id)).to.deep.equal({ user: 'alice', n: 2 });
    expect(await two.get(id)).to.equal(undefined);
  });

  it('lets Redis expire an entry at its expiry time', async () => {
    await requireRedis();
    const redis = connect();
    const store = new RedisExpiringStore<Value>(redis, {
      prefix: `${prefix}:expiry`,
      maxEntries: 100,
    });
    // The expiry time Redis holds is the entry's own, to the millisecond (PEXPIRETIME, Redis 7):
    // no sleep, so a slow machine cannot make the entry expire before it is read.
    const expiresAt = Date.now() + 60_000;
    const id = await store.add({ user: 'dave', n: 1 }, expiresAt);
    expect(await store.get(id)).to.deep.equal({ user: 'dave', n: 1 });
    expect(await redis.call('PEXPIRETIME', `${prefix}:expiry:${id}`)).to.equal(expiresAt);
    // And Redis does expire it: an entry due in 100 ms is gone once that time has passed, and
    // not before (polled, within a generous bound).
    const soonAt = Date.now() + 100;
    const soon = await store.add({ user: 'erin', n: 1 }, soonAt);
    expect(await redis.call('PEXPIRETIME', `${prefix}:expiry:${soon}`)).to.equal(soonAt);
    const deadline = Date.now() + 10_000;
    while ((await store.get(soon)) !== undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.now()).to.be.at.least(soonAt);
    expect(await store.get(soon)).to.equal(undefined);
    expect(await redis.exists(`${prefix}:expiry:${soon}`)).to.equal(0);
  });
});
