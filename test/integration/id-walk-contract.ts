/**
 * The id walk contract (SearchBackend.walkIds, what the sitemaps read): the same cases on every
 * backend. Live records in the UTF-8 byte order of their ids, after `after` through `through`,
 * `skip` passed over, at most `limit`; `updated` when asked, as the record holds it; deleted
 * records and their tombstones never walked. The engines are given a
 * small result window, so that a walk takes several searches and passes over records in hops.
 */
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import type { IdWalkQuery, SearchBackend } from '../../shared/search/backend.js';
import { presentLastmod } from '../../services/api/protocols/web/sitemap.js';

const feature = (id: string, updated?: string): Record<string, unknown> => ({
  type: 'Feature',
  id,
  conformsTo: [],
  geometry: null,
  properties: { type: 'dataset', title: `Record ${id}`, ...(updated ? { updated } : {}) },
});

/**
 * Ids whose UTF-8 order differs from JavaScript's (UTF-16) order: U+FFFD sorts before an astral
 * character in UTF-8 and after it in UTF-16. Every kind of `updated` value the sitemaps present.
 */
const ODD = [
  feature('a', '2024-05-01'),
  feature('b', '2024-05-01T10:00:00+02:00'),
  feature('c', '2024-05-02T00:00:00Z'),
  feature('d'),
  feature('e', '2024-05'),
  feature('\u00e9t\u00e9', '2023'),
  feature('\ufffd', '2022-12-31T23:59:59.999Z'),
  feature('\u{1f30d}', '2021-06-15T12:00:00Z'),
];
/** Enough records that a walk takes several searches on an engine with a small window. */
const MANY = Array.from({ length: 40 }, (_, index) =>
  feature(
    `m-${String(index).padStart(3, '0')}`,
    `2020-01-${String((index % 28) + 1).padStart(2, '0')}`,
  ),
);
const DELETED = ['m-005', 'm-006', 'm-030', 'c'];

/** Compares as the backends order ids: by their UTF-8 bytes. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The ids a walk must give over `ids` (in UTF-8 order), as the contract says. */
function expected(ids: readonly string[], query: IdWalkQuery): string[] {
  return ids
    .filter((id) => query.after === undefined || byUtf8(id, query.after) > 0)
    .filter((id) => query.through === undefined || byUtf8(id, query.through) <= 0)
    .slice(query.skip ?? 0)
    .slice(0, query.limit);
}

/** Registers the id walk suite for one backend. */
export function describeIdWalkContract(
  name: string,
  createBackend: () => Promise<SearchBackend>,
): void {
  describe(`SearchBackend id walk: ${name}`, () => {
    let backend: SearchBackend;
    const updatedOf = new Map<string, string | undefined>();
    let live: string[];

    const walk = async (query: IdWalkQuery): Promise<string[]> =>
      (await backend.walkIds(query)).map((entry) => entry.id);

    before(async () => {
      backend = await createBackend();
    });

    after(async () => {
      await backend.close();
    });

    it('walks nothing in an empty catalogue, even past records it skips', async () => {
      expect(await backend.walkIds({ limit: 10 })).to.deep.equal([]);
      expect(await backend.walkIds({ skip: 20, limit: 2, withUpdated: true })).to.deep.equal([]);
    });

    describe('over records', () => {
      before(async () => {
        const features = [...ODD, ...MANY];
        const parsed = parseDocuments(JSON.stringify({ type: 'FeatureCollection', features }));
        expect(parsed.failures).to.deep.equal([]);
        expect(parsed.records).to.have.length(features.length);
        const written = await backend.upsert(parsed.records);
        expect(written.failures).to.deep.equal([]);
        for (const record of parsed.records) updatedOf.set(record.id, record.updated);
        expect(await backend.delete(DELETED)).to.equal(DELETED.length);
        live = [...updatedOf.keys()].filter((id) => !DELETED.includes(id)).sort(byUtf8);
      });

      it('lists every live record once, in the UTF-8 order of the ids, ids alone', async () => {
        const entries = await backend.walkIds({ limit: 1000 });
        expect(entries.map((entry) => entry.id)).to.deep.equal(live);
        expect(entries.every((entry) => Object.keys(entry).join() === 'id')).to.equal(true);
        // UTF-8 order is not JavaScript's here: the case is not passed by a plain sort.
        expect(live).to.not.deep.equal([...live].sort());
      });

      it('leaves deleted records out, and lists no tombstone', async () => {
        const ids = await walk({ limit: 1000 });
        for (const id of DELETED) expect(ids, id).to.not.include(id);
        // A deleted record's id is still a bound: the walk continues after it.
        expect(await walk({ after: 'm-005', limit: 2 })).to.deep.equal(['m-007', 'm-008']);
        expect(await walk({ after: 'b', through: 'c', limit: 10 })).to.deep.equal([]);
      });

      it('keeps to after (exclusive), through (inclusive), skip and limit', async () => {
        const queries: IdWalkQuery[] = [
          { limit: 3 },
          { after: 'a', limit: 3 },
          { after: 'd', through: 'm-010', limit: 100 },
          { after: 'd', through: 'm-010', limit: 4 },
          { through: 'b', limit: 100 },
          { after: 'm-000', skip: 9, limit: 2 },
          { after: 'm-000', skip: 17, limit: 12 },
          { skip: 25, limit: 100 },
          { skip: 9, limit: 1, through: 'm-003' },
          { after: 'm-001', through: 'm-020', skip: 12, limit: 5 },
          { skip: live.length - 1, limit: 2 },
          { skip: live.length, limit: 2 },
          { skip: 1000, limit: 2 },
          { after: '\u00e9t\u00e9', limit: 10 },
          { after: '\ufffd', limit: 10 },
          { after: 'm-039', limit: 10 },
          { after: '\u{1f30d}', limit: 10 },
          { after: 'zzz', through: 'zzzz', limit: 10 },
          { after: 'm-', through: 'm-0', limit: 10 },
          { limit: 0 },
        ];
        for (const query of queries) {
          expect(await walk(query), JSON.stringify(query)).to.deep.equal(expected(live, query));
        }
      });

      it('passes over more records than a search reads, to the same ids as a walk of all', async () => {
        for (const skip of [0, 7, 8, 9, 16, 23, 31]) {
          const query = { after: 'e', skip, limit: 10 };
          expect(await walk(query), `skip ${skip}`).to.deep.equal(expected(live, query));
        }
      });

      it('reads updated when asked, as the record holds it', async () => {
        const entries = await backend.walkIds({ limit: 1000, withUpdated: true });
        expect(entries.map((entry) => entry.id)).to.deep.equal(live);
        for (const entry of entries) {
          const written = updatedOf.get(entry.id);
          if (written === undefined) expect(entry, entry.id).to.not.have.property('updated');
          else expect(entry.updated, entry.id).to.equal(written);
        }
        // Dates alone, months and years, offsets: each as the readers store it.
        const byId = new Map(entries.map((entry) => [entry.id, entry.updated]));
        expect(byId.get('a')).to.equal('2024-05-01T00:00:00.000Z');
        expect(byId.get('e')).to.equal('2024-05-01T00:00:00.000Z');
        expect(byId.get('\u00e9t\u00e9')).to.equal('2023-01-01T00:00:00.000Z');
        expect(byId.get('b')).to.equal('2024-05-01T08:00:00.000Z');
        expect(byId.get('\ufffd')).to.equal('2022-12-31T23:59:59.999Z');
        expect(presentLastmod(byId.get('m-000'))).to.equal('2020-01-01T00:00:00.000Z');
      });

      it('sees a record written after the walk began, and a deleted one no more', async () => {
        const before = await walk({ after: 'm-010', limit: 3 });
        const parsed = parseDocuments(JSON.stringify(feature('m-010a', '2024-01-01')));
        await backend.upsert(parsed.records);
        expect(await walk({ after: 'm-010', limit: 3 })).to.deep.equal([
          'm-010a',
          ...before.slice(0, 2),
        ]);
        await backend.delete(['m-010a']);
        expect(await walk({ after: 'm-010', limit: 3 })).to.deep.equal(before);
      });
    });
  });
}
