/**
 * The sitemaps' walk (services/api/protocols/web/sitemap-walk.ts) over a real SQLite file and a
 * real Elasticsearch index: the plan splits the catalogue into ranges of N ids that cover every
 * record once, and reading a deep file takes the same calls of the backend's id walk as reading
 * the first — from one id to the next, never an offset into the catalogue; no search is made.
 * On Elasticsearch the backend is told its result window holds 8 hits, so the plan passes over
 * each file's records in hops (needs CAIRN_TEST_ELASTICSEARCH_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import type { IdWalkQuery, SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { planSitemapFiles, readRange } from '../../services/api/protocols/web/sitemap-walk.js';
import { generatedDocuments } from '../support/catalogue-app.js';
import { createTestBackend, requireEngineUrl } from './engine-backend-cases.js';

const RECORDS = 53;
const PER_FILE = 10;

/** The backend with every id walk it runs recorded, and its searches counted. */
function recording(
  backend: SearchBackend,
  walks: IdWalkQuery[],
  searches = { count: 0 },
): SearchBackend {
  return new Proxy(backend, {
    get(target, property, receiver) {
      if (property === 'walkIds') {
        return (query: IdWalkQuery) => {
          walks.push(query);
          return target.walkIds(query);
        };
      }
      if (property === 'search') {
        searches.count += 1;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The cases on one backend, opened by `open` and closed by `close`. */
function walkCases(
  label: string,
  open: () => Promise<SearchBackend>,
  close: (backend: SearchBackend) => Promise<void>,
): void {
  describe(`sitemap walk over ${label}`, function () {
    this.timeout(60_000);
    let backend: SearchBackend;
    let ids: string[];

    before(async () => {
      backend = await open();
      const summary = await ingestDocuments(backend, generatedDocuments(RECORDS));
      expect(summary.rejected).to.deep.equal([]);
      // Every id in id order, by offset pages of 8 (the engine's small window: deep pages there).
      ids = [];
      for (let offset = 0; offset < RECORDS; offset += 8) {
        const page = await backend.search({ sort: [], offset, limit: 8 });
        ids.push(...page.records.map((record) => record.id));
      }
      expect(ids).to.have.length(RECORDS);
    });
    after(async () => {
      if (backend) await close(backend);
    });

    it('plans ranges of N ids in id order, the last one open, covering every record once', async () => {
      const searches = { count: 0 };
      const plan = await planSitemapFiles(recording(backend, [], searches), PER_FILE);
      expect(plan.files).to.have.length(Math.ceil(RECORDS / PER_FILE));
      const read: string[] = [];
      for (const [index, range] of plan.files.entries()) {
        expect(range.after).to.equal(index === 0 ? undefined : ids[index * PER_FILE - 1]);
        const last = index === plan.files.length - 1;
        expect(range.through).to.equal(last ? undefined : ids[(index + 1) * PER_FILE - 1]);
        const file: string[] = [];
        for await (const entries of readRange(
          recording(backend, [], searches),
          range,
          PER_FILE,
          4,
        )) {
          file.push(...entries.map((entry) => entry.id));
        }
        expect(file.length).to.be.at.most(PER_FILE);
        read.push(...file);
      }
      expect(read).to.deep.equal(ids);
      expect(searches.count, 'searches').to.equal(0);
    });

    it('gives each record of a file with its updated time', async () => {
      const plan = await planSitemapFiles(backend, PER_FILE);
      const entries = [];
      for await (const batch of readRange(backend, plan.files[1]!, PER_FILE))
        entries.push(...batch);
      expect(entries.map((entry) => entry.id)).to.deep.equal(ids.slice(PER_FILE, 2 * PER_FILE));
      for (const entry of entries) {
        const written = (await backend.get(entry.id))?.updated;
        if (written === undefined) expect(entry.updated, entry.id).to.equal(undefined);
        else expect(Date.parse(entry.updated ?? ''), entry.id).to.equal(Date.parse(written));
      }
    });

    it('reads a deep file with the same walk as the first: from one id to the next, no skip', async () => {
      const plan = await planSitemapFiles(backend, PER_FILE);
      const walks = async (fileIndex: number): Promise<IdWalkQuery[]> => {
        const queries: IdWalkQuery[] = [];
        const range = plan.files[fileIndex]!;
        for await (const entries of readRange(recording(backend, queries), range, PER_FILE, 4)) {
          expect(entries.length).to.be.at.most(4);
        }
        return queries;
      };
      const first = await walks(0);
      const deepIndex = plan.files.length - 2;
      const deep = await walks(deepIndex);
      const shape = (queries: IdWalkQuery[]) => queries.map((query) => [query.skip, query.limit]);
      expect(shape(first)).to.deep.equal([
        [undefined, 4],
        [undefined, 4],
        [undefined, 2],
      ]);
      expect(shape(deep)).to.deep.equal(shape(first));
      // Each call of the deep file is bounded by its range: after the previous batch, through
      // the file's last id.
      const range = plan.files[deepIndex]!;
      expect(deep.map((query) => [query.after, query.through])).to.deep.equal([
        [range.after, range.through],
        [ids[deepIndex * PER_FILE + 3], range.through],
        [ids[deepIndex * PER_FILE + 7], range.through],
      ]);
    });

    it('plans each file with one walk that passes over the file and reads two ids', async () => {
      const walks: IdWalkQuery[] = [];
      const plan = await planSitemapFiles(recording(backend, walks), PER_FILE);
      expect(walks.map((query) => [query.after, query.skip, query.limit])).to.deep.equal(
        plan.files.map((range) => [range.after, PER_FILE - 1, 2]),
      );
    });

    it('plans one open file for a catalogue of at most a file', async () => {
      expect(await planSitemapFiles(backend, 1000)).to.deep.equal({
        files: [{ after: undefined }],
      });
      expect(await planSitemapFiles(backend, RECORDS)).to.deep.equal({
        files: [{ after: undefined }],
      });
      expect(await planSitemapFiles(backend, RECORDS - 1)).to.deep.equal({
        files: [{ after: undefined, through: ids[RECORDS - 2] }, { after: ids[RECORDS - 2] }],
      });
    });
  });
}

let directory: string | undefined;
walkCases(
  'SQLite',
  async () => {
    directory = mkdtempSync(join(tmpdir(), 'cairn-sitemap-walk-'));
    const sqlite = new SqliteBackend({ path: join(directory, 'cairn.sqlite'), readWorkers: 0 });
    await sqlite.init();
    return sqlite;
  },
  async (backend) => {
    await backend.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  },
);

const elasticsearch = requireEngineUrl('elasticsearch');
if (elasticsearch) {
  walkCases(
    'Elasticsearch with a result window of 8',
    () =>
      createTestBackend('elasticsearch', elasticsearch, {
        spatial: 'envelope',
        maxResultWindow: 8,
      }),
    (backend) => backend.close(),
  );
}
