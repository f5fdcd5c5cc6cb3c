import { expect } from 'chai';
import { purgeExpiredTombstones } from '../../../shared/search/purge-tombstones.js';

describe('purgeExpiredTombstones', () => {
  const purgeCalls = (): {
    calls: string[];
    purgeTombstones: (before: string) => Promise<number>;
  } => {
    const calls: string[] = [];
    return {
      calls,
      purgeTombstones: async (before: string) => {
        calls.push(before);
        return 3;
      },
    };
  };

  it('removes nothing when no maximum age is configured (tombstones are persistent)', async () => {
    const backend = purgeCalls();
    expect(await purgeExpiredTombstones(backend, undefined)).to.deep.equal({ purged: 0 });
    expect(backend.calls).to.deep.equal([]);
  });

  it('removes the tombstones deleted more than the maximum age ago', async () => {
    const backend = purgeCalls();
    const result = await purgeExpiredTombstones(backend, 30, new Date('2026-03-31T12:00:00.000Z'));
    expect(result).to.deep.equal({ before: '2026-03-01T12:00:00.000Z', purged: 3 });
    expect(backend.calls).to.deep.equal(['2026-03-01T12:00:00.000Z']);
  });
});
