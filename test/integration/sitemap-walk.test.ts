/**
 * The sitemaps' walk (services/api/protocols/web/sitemap-walk.ts) over a real SQLite file and a
 * real Elasticsearch index: the plan splits the catalogue into ranges of N ids that cover every
 * record once, and reading a deep file takes the same searches as reading the first — keyset
 * ranges from one id to the next, never an offset into the catalogue. On Elasticsearch the
 * backend is told its result window holds 8 hits, so the plan's searches at offset N-1 go
 * through the engine's deep paging (needs CAIRN_TEST_ELASTICSEARCH_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import {
  planSitemapFiles,
  rangeFilter,
  readRange,
} from '../../services/api/protocols/web/sitemap-walk.js';
import { generatedDocuments } from '../support/catalogue-app.js';
import { createTestBackend, requireEngineUrl } from './engine-backend-cases.js';

const RECORDS = 53;
const PER_FILE = 10;

/** The backend with every search it runs recorded. */
function recording(backend: SearchBackend, queries: SearchQuery[]): SearchBackend {
  return new Proxy(backend, {
    get(target, property, receiver) {
      if (property === 'search') {
        return (query: SearchQuery) => {
          queries.push(query);
          return target.search(query);
        };
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
      const plan = await planSitemapFiles(backend, PER_FILE);
      expect(plan.total).to.equal(RECORDS);
      expect(plan.files).to.have.length(Math.ceil(RECORDS / PER_FILE));
      const read: string[] = [];
      for (const [index, range] of plan.files.entries()) {
        expect(range.after).to.equal(index === 0 ? undefined : ids[index * PER_FILE - 1]);
        const last = index === plan.files.length - 1;
        expect(range.through).to.equal(last ? undefined : ids[(index + 1) * PER_FILE - 1]);
        for await (const records of readRange(backend, range, PER_FILE, 4)) {
          read.push(...records.map((record) => record.id));
        }
      }
      expect(read).to.deep.equal(ids);
    });

    it('reads a deep file with the same searches as the first: keyset ranges, offset 0', async () => {
      const plan = await planSitemapFiles(backend, PER_FILE);
      const searches = async (fileIndex: number): Promise<SearchQuery[]> => {
        const queries: SearchQuery[] = [];
        const range = plan.files[fileIndex]!;
        for await (const records of readRange(recording(backend, queries), range, PER_FILE, 4)) {
          expect(records.length).to.be.at.most(4);
        }
        return queries;
      };
      const first = await searches(0);
      const deep = await searches(plan.files.length - 2);
      expect(first.map((query) => [query.offset, query.limit])).to.deep.equal([
        [0, 4],
        [0, 4],
        [0, 2],
      ]);
      expect(deep.map((query) => [query.offset, query.limit])).to.deep.equal(
        first.map((query) => [query.offset, query.limit]),
      );
      // Each search of the deep file is bounded by its range: after the previous batch, through
      // the file's last id.
      expect(deep[0]?.filter).to.deep.equal(rangeFilter(plan.files[plan.files.length - 2]!));
    });

    it('plans one open file for a catalogue smaller than a file', async () => {
      const plan = await planSitemapFiles(backend, 1000);
      expect(plan).to.deep.equal({ total: RECORDS, files: [{ after: undefined }] });
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
