/**
 * The stored title sort key and the time index of the SQLite backend: a sort by title reads
 * `records_title_key` in order (a LIMIT stops it early) in exactly the order of the computed
 * key, old databases get the column filled when they are opened, and a time range is counted
 * from `records_time` and paged along the sort's index when its matches are dense.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { textSortKey } from '../../shared/query/text-folding.js';
import { buildMatchAllQuery, type SearchQuery } from '../../shared/query/search-query.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { compileSearch } from '../../shared/search/sqlite/compile-query.js';
import { migrateSchema } from '../../shared/search/sqlite/migrate-schema.js';
import { registerSqlFunctions } from '../../shared/search/sqlite/sql-functions.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

/** Titles with case and accent variants, exact ties, equal keys of different titles and none. */
const TITLES: (string | undefined)[] = [
  'Zebra crossings',
  'zebra crossings',
  'Äpfel und Birnen',
  'apfel und birnen',
  'Apfel und Birnen',
  'Éclairs',
  'eclairs',
  'Eclairs',
  'éclairs',
  'Mango',
  'Mango',
  'mango',
  'Leading space',
  'Ñandú',
  'nandu',
  '42 answers',
  'ß street',
  'ss street',
  undefined,
  undefined,
];

function feature(index: number, title: string | undefined): Record<string, unknown> {
  const year = 1990 + (index % 30);
  return {
    type: 'Feature',
    id: `t${String((index * 37) % 101).padStart(3, '0')}`,
    conformsTo: [],
    geometry: { type: 'Point', coordinates: [index % 10, index % 5] },
    time: { interval: [`${year}-01-01T00:00:00Z`, `${year}-12-31T00:00:00Z`] },
    properties: { type: 'dataset', ...(title !== undefined && { title }) },
  };
}

const RECORDS = TITLES.map((title, index) => feature(index, title));

/** The order a sort by title defines: the folded key, then the title (both missing last), then the id. */
function expectedOrder(direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1;
  const compare = (x: string | undefined, y: string | undefined): number => {
    if (x === y) return 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return (x < y ? -1 : 1) * sign;
  };
  const title = (record: Record<string, unknown>) =>
    (record.properties as { title?: string }).title;
  return [...RECORDS]
    .sort((a, b) => {
      const [x, y] = [title(a), title(b)];
      const byKey = compare(
        x === undefined ? undefined : textSortKey(x),
        y === undefined ? undefined : textSortKey(y),
      );
      if (byKey !== 0) return byKey;
      const byTitle = compare(x, y);
      if (byTitle !== 0) return byTitle;
      return (a.id as string) < (b.id as string) ? -1 : 1;
    })
    .map((record) => record.id as string);
}

function query(patch: Partial<SearchQuery>): SearchQuery {
  return { ...buildMatchAllQuery(1000), ...patch };
}

async function ids(backend: SqliteBackend, search: SearchQuery): Promise<string[]> {
  return (await backend.search(search)).records.map((record) => record.id);
}

function planOf(db: Database.Database, statement: { sql: string; params: unknown[] }): string[] {
  return (
    db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as {
      detail: string;
    }[]
  ).map((row) => row.detail);
}

function connectionOf(backend: SqliteBackend): Database.Database {
  return (backend as unknown as { db: Database.Database }).db;
}

describe('SQLite sort keys and time index', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'cairn-sort-keys-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  async function loaded(path = join(directory, 'catalogue.sqlite')): Promise<SqliteBackend> {
    const backend = new SqliteBackend({ path });
    await backend.upsert(parseDocuments(JSON.stringify(RECORDS)).records);
    return backend;
  }

  describe('sort by title', () => {
    it('keeps the order of the computed key, ties and missing titles included, both ways', async () => {
      const backend = await loaded();
      try {
        for (const direction of ['asc', 'desc'] as const) {
          const sort = [{ field: 'title', direction }];
          const order = expectedOrder(direction);
          expect(await ids(backend, query({ sort })), direction).to.deep.equal(order);
          expect(await ids(backend, query({ sort, offset: 5, limit: 7 }))).to.deep.equal(
            order.slice(5, 12),
          );
          // Read from the span index (a box drives the search): the key is computed there.
          const boxed = query({
            sort,
            spatial: { relation: 'intersects', bbox: [-1, -1, 20, 20] },
          });
          expect(await ids(backend, boxed), `${direction} in a box`).to.deep.equal(order);
        }
      } finally {
        await backend.close();
      }
    });

    it('reads the stored key in index order instead of sorting every record', async () => {
      const backend = await loaded();
      try {
        for (const direction of ['asc', 'desc'] as const) {
          const page = compileSearch(query({ sort: [{ field: 'title', direction }], limit: 10 }), {
            guard: '',
            columns: 'r.id',
          }).page(0, 0);
          const plan = planOf(connectionOf(backend), page);
          expect(plan.join('\n'), direction).to.match(
            /SCAN r USING (COVERING )?INDEX records_title_key/,
          );
          expect(plan.join('\n')).to.not.contain('USE TEMP B-TREE FOR ORDER BY');
        }
      } finally {
        await backend.close();
      }
    });

    it('is rewritten when a record is written again with another title', async () => {
      const backend = await loaded();
      try {
        const changed = feature(0, '0 Aardvark');
        await backend.upsert(parseDocuments(JSON.stringify([changed])).records);
        const first = await ids(backend, query({ sort: [{ field: 'title', direction: 'asc' }] }));
        expect(first[0]).to.equal(changed.id);
        const key = connectionOf(backend)
          .prepare('SELECT title_key FROM records WHERE id = ?')
          .pluck()
          .get(changed.id);
        expect(key).to.equal('0 aardvark');
      } finally {
        await backend.close();
      }
    });

    it('is added and filled when a database made before it is opened', async () => {
      const path = join(directory, 'old.sqlite');
      const before = await loaded(path);
      const orders = {
        asc: await ids(before, query({ sort: [{ field: 'title', direction: 'asc' }] })),
        desc: await ids(before, query({ sort: [{ field: 'title', direction: 'desc' }] })),
      };
      await before.close();
      // The schema of the release before the key: no column, no index.
      const old = new Database(path);
      old.exec('DROP INDEX records_title_key; ALTER TABLE records DROP COLUMN title_key');
      old.close();

      const reopened = new SqliteBackend({ path });
      try {
        const db = connectionOf(reopened);
        const mismatched = db
          .prepare('SELECT count(*) FROM records WHERE title_key IS NOT cairn_sort_key(title)')
          .pluck()
          .get();
        expect(mismatched).to.equal(0);
        expect(db.prepare('SELECT count(title_key) FROM records').pluck().get()).to.equal(
          TITLES.filter((title) => title !== undefined).length,
        );
        for (const direction of ['asc', 'desc'] as const) {
          expect(
            await ids(reopened, query({ sort: [{ field: 'title', direction }] })),
          ).to.deep.equal(orders[direction]);
          expect(orders[direction]).to.deep.equal(expectedOrder(direction));
        }
        // Nothing is left to migrate at the next open.
        expect(migrateSchema(db)).to.deep.equal([]);
      } finally {
        await reopened.close();
      }
    });

    it('leaves a new database to the schema and migrates only the columns it lacks', () => {
      const db = new Database(':memory:');
      try {
        registerSqlFunctions(db);
        expect(migrateSchema(db)).to.deep.equal([]);
        db.exec(
          "CREATE TABLE records (rid INTEGER PRIMARY KEY, title TEXT); INSERT INTO records (title) VALUES ('Éa'), (NULL)",
        );
        expect(migrateSchema(db)).to.deep.equal(['title_key']);
        expect(
          db.prepare('SELECT title_key FROM records ORDER BY rid').pluck().all(),
        ).to.deep.equal(['ea', null]);
      } finally {
        db.close();
      }
    });
  });

  describe('time ranges', () => {
    const temporal = {
      start: '2000-01-01T00:00:00Z',
      end: '2009-12-31T23:59:59Z',
      relation: 'intersects' as const,
    };
    const inRange = RECORDS.filter((_, index) => {
      const year = 1990 + (index % 30);
      return year >= 2000 && year <= 2009;
    })
      .map((record) => record.id as string)
      .sort();

    it('are counted from the narrow time index, not from the rows', async () => {
      const backend = await loaded();
      try {
        const search = query({ temporal: { ...temporal } });
        const { count } = compileSearch(search, { guard: '', columns: 'r.id' });
        const plan = planOf(connectionOf(backend), count);
        expect(plan.join('\n')).to.match(/USING COVERING INDEX records_time\b/);
        const result = await backend.search(search);
        expect(result.total).to.equal(inRange.length);
        expect(result.records.map((record) => record.id)).to.deep.equal(inRange);
      } finally {
        await backend.close();
      }
    });

    it('walk the sort index when the matches are dense, with the same page as a fetch and sort', async () => {
      const backend = await loaded();
      try {
        const db = connectionOf(backend);
        const statements = compileSearch(query({ temporal: { ...temporal }, limit: 3 }), {
          guard: '',
          columns: 'r.id',
        });
        expect(statements.pageDependsOnCount).to.equal(true);
        const walked = statements.page(inRange.length, RECORDS.length);
        const fetched = statements.page(inRange.length, 1_000_000);
        expect(planOf(db, walked).join('\n')).to.contain('sqlite_autoindex_records_1');
        expect(planOf(db, walked).join('\n')).to.not.contain('records_time');
        const run = (page: { sql: string; params: unknown[] }) =>
          (db.prepare(page.sql).all(...page.params) as { id: string }[]).map((row) => row.id);
        expect(run(walked)).to.deep.equal(inRange.slice(0, 3));
        expect(run(fetched)).to.deep.equal(inRange.slice(0, 3));
      } finally {
        await backend.close();
      }
    });
  });
});
