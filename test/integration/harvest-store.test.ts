/**
 * The harvest source store: one contract, run on the embedded SQLite store and on the Redis
 * store of scaled mode (a real Redis). Two Redis stores over two connections stand for the API
 * and the worker: what one registers, the other runs and records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  parseHarvestSource,
  RedisHarvestStore,
  SourceExistsError,
  type HarvestRunSummary,
  type HarvestStore,
} from '../../shared/harvest/index.js';
import { SqliteHarvestStore } from '../../shared/search/open-stores.js';
import { redisUnderPrefix, requireRedis } from './worker/worker-support.js';

const source = (id: string, url = `https://catalogue.example.org/${id}/csw`) =>
  parseHarvestSource({ id, protocol: 'csw', url });

function run(status: HarvestRunSummary['status'], startedAt: string): HarvestRunSummary {
  return {
    mode: 'full',
    status,
    startedAt,
    finishedAt: startedAt,
    read: 3,
    written: 2,
    deleted: 0,
    rejected: 1,
    ...(status === 'failed' ? { error: 'unreachable' } : {}),
  };
}

function describeContract(name: string, open: () => Promise<HarvestStore>): void {
  describe(`harvest store contract: ${name}`, () => {
    let store: HarvestStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    it('registers a source once, lists and reads it; a second create is a 409', async () => {
      const created = await store.create(source('alpha'));
      expect(created).to.deep.include({ recordCount: 0 });
      expect(created.definition.url).to.equal('https://catalogue.example.org/alpha/csw');
      await store.create(source('beta'));
      const error = await store.create(source('alpha')).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(SourceExistsError);
      expect((await store.list()).map((stored) => stored.definition.id)).to.deep.equal([
        'alpha',
        'beta',
      ]);
      expect(await store.get('gamma')).to.equal(null);
    });

    it('records runs: a completed one moves the incremental start, a failed one keeps it', async () => {
      await store.create(source('alpha'));
      await store.recordRun('alpha', run('completed', '2026-01-01T00:00:00.000Z'));
      await store.recordRun('alpha', run('failed', '2026-01-02T00:00:00.000Z'));
      const stored = await store.get('alpha');
      expect(stored?.lastSuccessStartedAt).to.equal('2026-01-01T00:00:00.000Z');
      expect(stored?.lastRun).to.deep.include({ status: 'failed', error: 'unreachable' });
      await store.recordRun('nobody', run('completed', '2026-01-03T00:00:00.000Z'));
      expect(await store.get('nobody')).to.equal(null);
    });

    it('keeps the incremental start through a put of the same source, forgets it for another URL', async () => {
      await store.create(source('alpha'));
      await store.recordRun('alpha', run('completed', '2026-01-01T00:00:00.000Z'));
      const same = await store.put(source('alpha'));
      expect(same.created).to.equal(false);
      expect(same.source.lastSuccessStartedAt).to.equal('2026-01-01T00:00:00.000Z');
      const moved = await store.put(source('alpha', 'https://elsewhere.example.org/csw'));
      expect(moved.source.lastSuccessStartedAt).to.equal(undefined);
      expect(moved.source.definition.url).to.equal('https://elsewhere.example.org/csw');
      expect((await store.put(source('delta'))).created).to.equal(true);
    });

    it('tracks ownership: owned ids, shared records, removal, and the count per source', async () => {
      await store.create(source('alpha'));
      await store.create(source('beta'));
      const many = Array.from({ length: 2500 }, (_, index) => `record-${index}`);
      await store.addOwned('alpha', many);
      await store.addOwned('beta', ['record-7', 'record-2400', 'beta-only']);
      expect((await store.ownedIds('alpha')).size).to.equal(2500);
      expect((await store.get('alpha'))?.recordCount).to.equal(2500);
      expect([...(await store.ownedElsewhere('alpha', many))].sort()).to.deep.equal([
        'record-2400',
        'record-7',
      ]);
      await store.removeOwned('alpha', many.slice(0, 2000));
      expect((await store.ownedIds('alpha')).size).to.equal(500);
      expect(await store.remove('beta')).to.equal(true);
      expect(await store.remove('beta')).to.equal(false);
      expect(await store.ownedElsewhere('alpha', many)).to.deep.equal(new Set());
      expect(await store.ownedIds('beta')).to.deep.equal(new Set());
    });
  });
}

describe('harvest stores', function () {
  this.timeout(30_000);
  const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-store-'));
  const { prefix, connect, cleanUp } = redisUnderPrefix('harvest-store');
  let files = 0;
  let prefixes = 0;

  after(async () => {
    await cleanUp();
    rmSync(directory, { recursive: true, force: true });
  });

  describeContract('SQLite (embedded mode)', async () => {
    return new SqliteHarvestStore(join(directory, `ingest-log-${(files += 1)}.sqlite`));
  });

  describeContract('Redis (scaled mode)', async () => {
    await requireRedis();
    return new RedisHarvestStore(connect(), `${prefix}:contract-${(prefixes += 1)}`);
  });

  it('shares sources between the API’s and the worker’s connections', async () => {
    await requireRedis();
    const api = new RedisHarvestStore(connect(), `${prefix}:shared`);
    const worker = new RedisHarvestStore(connect(), `${prefix}:shared`);
    await api.create(source('alpha'));
    await worker.addOwned('alpha', ['one', 'two']);
    await worker.recordRun('alpha', run('completed', '2026-02-01T00:00:00.000Z'));
    expect(await api.get('alpha')).to.deep.include({
      recordCount: 2,
      lastSuccessStartedAt: '2026-02-01T00:00:00.000Z',
    });
  });
});
