/**
 * The change listing contract (SearchBackend.changes, change, earliestChange, purgeTombstones):
 * the same cases on every backend. Deleted records leave tombstones that the listing shows and
 * that no search, count, facet or read by id ever does.
 */
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import type { ChangeEntry, ChangeQuery, SearchBackend } from '../../shared/search/backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { defined } from '../support/defined.js';

/** Waits until the clock has moved past `time` (change times have millisecond precision). */
async function laterThan(time: string): Promise<string> {
  for (;;) {
    const now = new Date().toISOString();
    if (now > time) return now;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Registers the change listing suite for one backend. */
export function describeChangeFeedContract(
  name: string,
  createBackend: () => Promise<SearchBackend>,
  options: { reindexes?: boolean } = {},
): void {
  describe(`SearchBackend change listing: ${name}`, () => {
    let backend: SearchBackend;
    let written: string;
    let deletedAt: string;

    const listing = async (query: Partial<ChangeQuery> = {}): Promise<ChangeEntry[]> =>
      (await backend.changes({ limit: 100, ...query })).entries;
    const summary = (entries: ChangeEntry[]): string[] =>
      entries.map((entry) => `${entry.id}${entry.deleted ? ' deleted' : ''}`);

    before(async () => {
      backend = await createBackend();
      const parsed = parseDocuments(JSON.stringify(CONTRACT_RECORDS));
      written = new Date().toISOString();
      expect(await backend.upsert(parsed.records)).to.deep.equal({ written: 6, failures: [] });
    });

    after(async () => {
      await backend.close();
    });

    it('lists every record with its write time, in (change time, id) order, and counts them', async () => {
      const page = await backend.changes({ limit: 100, count: true });
      expect(page.total).to.equal(6);
      expect(page.entries.map((entry) => entry.id).sort()).to.deep.equal([
        'r1',
        'r2',
        'r3',
        'r4',
        'r5',
        'r6',
      ]);
      for (const entry of page.entries) {
        expect(entry.deleted).to.equal(false);
        expect(entry.changed >= written, entry.id).to.equal(true);
        expect(entry.changed).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      const keys = page.entries.map((entry) => `${entry.changed} ${entry.id}`);
      expect(keys).to.deep.equal([...keys].sort());
      expect(page.entries.find((entry) => entry.id === 'r4')).to.include({
        type: 'dataset',
        parentId: 'hydro',
      });
      expect(page.entries.every((entry) => entry.record === undefined)).to.equal(true);
      const withRecords = await listing({ withRecords: true });
      expect(withRecords.map((entry) => entry.record?.id)).to.deep.equal(
        page.entries.map((entry) => entry.id),
      );
      expect(await backend.earliestChange()).to.equal(page.entries[0]?.changed);
    });

    it('a deleted record leaves a tombstone that no search, count, facet or read sees', async () => {
      deletedAt = await laterThan((await listing()).at(-1)?.changed ?? written);
      expect(await backend.delete(['r3', 'r4', 'absent'])).to.equal(2);
      const search = await backend.search({ sort: [], offset: 0, limit: 100 });
      expect(search.total).to.equal(4);
      expect(search.records.map((record) => record.id).sort()).to.deep.equal([
        'r1',
        'r2',
        'r5',
        'r6',
      ]);
      expect((await backend.search({ sort: [], offset: 0, limit: 0, ids: ['r3'] })).total).to.equal(
        0,
      );
      expect(await backend.get('r3')).to.equal(null);
      const types = await backend.domain('type');
      expect(types.find((value) => value.value === 'series')).to.equal(undefined);
      expect(await backend.health()).to.include({ records: 4 });

      const page = await backend.changes({ limit: 100, count: true });
      expect(page.total).to.equal(6);
      expect(summary(page.entries).slice(-2)).to.deep.equal(['r3 deleted', 'r4 deleted']);
      const r4 = defined(
        page.entries.find((entry) => entry.id === 'r4'),
        'r4',
      );
      expect(r4).to.include({ deleted: true, type: 'dataset', parentId: 'hydro' });
      expect(r4.changed >= deletedAt).to.equal(true);
      expect(await backend.change('r3')).to.include({ id: 'r3', deleted: true, type: 'series' });
      expect((await backend.change('r1'))?.record?.title).to.equal('Alpine glacier inventory');
      expect(await backend.change('absent')).to.equal(null);
      expect(await backend.change('x'.repeat(5000))).to.equal(null);
    });

    it('selects on the change time (from inclusive, before exclusive) and on sets', async () => {
      const all = await listing();
      const first = defined(all[0], 'the first entry');
      expect(summary(await listing({ from: deletedAt }))).to.deep.equal([
        'r3 deleted',
        'r4 deleted',
      ]);
      expect(summary(await listing({ before: deletedAt })).sort()).to.deep.equal([
        'r1',
        'r2',
        'r5',
        'r6',
      ]);
      expect(await listing({ from: first.changed, before: first.changed })).to.deep.equal([]);
      expect((await listing({ from: first.changed })).length).to.equal(6);
      const sorted = (entries: ChangeEntry[]): string[] => summary(entries).sort();
      expect(sorted(await listing({ set: { field: 'type', value: 'dataset' } }))).to.deep.equal([
        'r1',
        'r2',
        'r4 deleted',
        'r6',
      ]);
      expect(sorted(await listing({ set: { field: 'parentId', value: 'hydro' } }))).to.deep.equal([
        'r4 deleted',
        'r6',
      ]);
      expect((await listing({ set: { field: 'parentId' } })).length).to.equal(2);
      const counted = await backend.changes({
        limit: 1,
        count: true,
        set: { field: 'type', value: 'dataset' },
      });
      expect(counted.total).to.equal(4);
    });

    it('pages after a checkpoint walk the listing exactly once', async () => {
      const all = await listing();
      const walked: ChangeEntry[] = [];
      let page = await listing({ limit: 2 });
      while (page.length > 0) {
        walked.push(...page);
        const last = defined(page.at(-1), 'the last entry');
        page = await listing({ limit: 2, after: { changed: last.changed, id: last.id } });
      }
      expect(summary(walked)).to.deep.equal(summary(all));
    });

    it('writing a deleted record again removes its tombstone; purging removes old tombstones', async () => {
      const parsed = parseDocuments(JSON.stringify(CONTRACT_RECORDS));
      const r3 = defined(
        parsed.records.find((record) => record.id === 'r3'),
        'r3',
      );
      await backend.upsert([r3]);
      const page = await backend.changes({ limit: 100, count: true });
      expect(page.total).to.equal(6);
      expect(summary(page.entries).slice(-2)).to.deep.equal(['r4 deleted', 'r3']);
      expect(await backend.change('r3')).to.include({ deleted: false });

      expect(await backend.purgeTombstones(deletedAt)).to.equal(0);
      expect(await backend.purgeTombstones(await laterThan(new Date().toISOString()))).to.equal(1);
      expect(await backend.change('r4')).to.equal(null);
      const purged = await backend.changes({ limit: 100, count: true });
      expect(purged.total).to.equal(5);
      expect(purged.entries.some((entry) => entry.deleted)).to.equal(false);
    });

    if (options.reindexes)
      it("a reindex keeps every record's change time", async () => {
        const before = await listing();
        const reindex = defined(backend.reindex, 'the reindex capability').bind(backend);
        await reindex();
        expect(await listing()).to.deep.equal(before);
      });

    it('pages after a checkpoint walk records written at different times exactly once', async () => {
      // Six more records, each written after the clock moved on from the last: change times a
      // few milliseconds apart, so pages span windows of change times of every width.
      const parsed = parseDocuments(JSON.stringify(CONTRACT_RECORDS));
      let time = new Date().toISOString();
      for (const [index, record] of parsed.records.entries()) {
        time = await laterThan(time);
        await new Promise((resolve) => setTimeout(resolve, 3));
        await backend.upsert([{ ...record, id: `spread-${index}` }]);
      }
      const all = await listing();
      expect(all.filter((entry) => entry.id.startsWith('spread-'))).to.have.length(6);
      for (const limit of [1, 2, 4]) {
        const walked: ChangeEntry[] = [];
        let page = await listing({ limit });
        while (page.length > 0) {
          walked.push(...page);
          const last = defined(page.at(-1), 'the last entry');
          page = await listing({ limit, after: { changed: last.changed, id: last.id } });
        }
        expect(summary(walked), `pages of ${limit}`).to.deep.equal(summary(all));
      }
    });
  });
}
