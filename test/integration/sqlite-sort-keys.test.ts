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
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { textSortKey } from '../../shared/query/text-folding.js';
import { buildMatchAllQuery, type SearchQuery } from '../../shared/query/search-query.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { compileSearch } from '../../shared/search/sqlite/compile-query.js';
import {
  OPEN_END_MS,
  OPEN_START_MS,
  geocellOf,
  toSqliteRow,
} from '../../shared/search/sqlite/rows.js';
import { migrateSchema } from '../../shared/search/sqlite/migrate-schema.js';
import { SQL_FUNCTIONS, registerSqlFunctions } from '../../shared/search/sqlite/sql-functions.js';
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
          `CREATE TABLE records (rid INTEGER PRIMARY KEY, title TEXT, time_start TEXT, time_end TEXT,
            has_time INTEGER NOT NULL DEFAULT 0, geometry TEXT, record TEXT NOT NULL)`,
        );
        const insert = db.prepare('INSERT INTO records (title, geometry, record) VALUES (?, ?, ?)');
        const setTime = db.prepare(
          'UPDATE records SET time_start = ?, time_end = ?, has_time = 1 WHERE rid = ?',
        );
        const square = {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [2, 0],
              [2, 1],
              [0, 1],
              [0, 0],
            ],
          ],
        };
        const line = {
          type: 'LineString',
          coordinates: [
            [0, 0],
            [2, 1],
          ],
        };
        insert.run('Éa', JSON.stringify(square), '{"bbox":[0,0,2,1]}');
        insert.run(null, JSON.stringify(line), '{"bbox":[0,0,2,1]}');
        insert.run(null, null, '{"bbox":[1,2,3,4]}');
        insert.run(null, null, '{"bbox":[170,0,-170,5]}');
        insert.run(null, null, '{}');
        setTime.run('2000-01-01T00:00:00.000Z', null, 1);
        setTime.run(null, '1970-01-01T00:00:01.000Z', 2);
        setTime.run('1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', 5);
        expect(migrateSchema(db)).to.deep.equal([
          'title_key',
          'box_west',
          'box_south',
          'box_east',
          'box_north',
          'bbox_west',
          'bbox_south',
          'bbox_east',
          'bbox_north',
          'changed',
          'time_lo',
          'time_hi',
          'geocell',
          'centre_lon',
          'centre_lat',
        ]);
        // The interval in milliseconds, open ends beyond every instant; the centre's cell.
        const stored = db
          .prepare(
            'SELECT time_lo, time_hi, geocell, centre_lon, centre_lat FROM records ORDER BY rid',
          )
          .safeIntegers()
          .raw()
          .all();
        const big = (value: number | null) => (value === null ? null : BigInt(value));
        expect(stored).to.deep.equal([
          [946684800000n, big(OPEN_END_MS), geocellOf([0, 0, 2, 1]), 1, 0.5],
          [big(OPEN_START_MS), 1000n, geocellOf([0, 0, 2, 1]), 1, 0.5],
          [null, null, geocellOf([1, 2, 3, 4]), 2, 3],
          [null, null, geocellOf([170, 0, -170, 5]), 180, 2.5],
          [-1n, 0n, null, null, null],
        ]);
        // Records stored before change times were kept count as changed at the upgrade.
        const changed = db.prepare('SELECT DISTINCT changed FROM records').pluck().all();
        expect(changed).to.have.length(1);
        expect(changed[0]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const rows = db
          .prepare(
            'SELECT title_key, box_west, box_south, box_east, box_north FROM records ORDER BY rid',
          )
          .raw()
          .all();
        expect(rows).to.deep.equal([
          ['ea', 0, 0, 2, 1],
          [null, null, null, null, null],
          [null, 1, 2, 3, 4],
          [null, null, null, null, null],
          [null, null, null, null, null],
        ]);
        // The records' own boxes, as written (west > east across the antimeridian).
        const own = db
          .prepare('SELECT bbox_west, bbox_south, bbox_east, bbox_north FROM records ORDER BY rid')
          .raw()
          .all();
        expect(own).to.deep.equal([
          [0, 0, 2, 1],
          [0, 0, 2, 1],
          [1, 2, 3, 4],
          [170, 0, -170, 5],
          [null, null, null, null],
        ]);
        expect(migrateSchema(db)).to.deep.equal([]);
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
        const { count } = compileSearch(search, { columns: 'r.id' });
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
  describe('time ranges on the stored milliseconds', () => {
    /** Intervals with open starts and ends, instants, millisecond edges and no time at all. */
    const INTERVALS: ([string | null, string | null] | undefined)[] = [
      [null, '2000-01-01T00:00:00.000Z'],
      ['1999-12-31T23:59:59.999Z', null],
      ['2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z'],
      ['2000-01-01T00:00:00.001Z', '2004-06-30T12:00:00.000Z'],
      ['1990-01-01T00:00:00.000Z', '1999-12-31T23:59:59.998Z'],
      ['2009-12-31T23:59:59.999Z', '2030-01-01T00:00:00.000Z'],
      ['2010-01-01T00:00:00.000Z', null],
      ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'],
      ['0050-06-01T00:00:00.000Z', '0060-01-01T00:00:00.000Z'],
      undefined,
    ];
    const timed = INTERVALS.map((interval, index) => ({
      type: 'Feature',
      id: `i${index}`,
      conformsTo: [],
      geometry: { type: 'Point', coordinates: [index, 0] },
      ...(interval && { time: { interval: interval.map((end) => end ?? '..') } }),
      properties: { type: 'dataset', title: `interval ${index}` },
    }));
    /** The records a range selects by comparing the timestamps' text, as the text form does. */
    function expected(
      start: string | null,
      end: string | null,
      relation: 'intersects' | 'disjoint' | 'during',
    ): string[] {
      return INTERVALS.flatMap((interval, index) => {
        if (!interval) return [];
        const [from, to] = interval;
        const meets =
          (end === null || from === null || from <= end) &&
          (start === null || to === null || to >= start);
        const inside =
          (start === null || (from !== null && from >= start)) &&
          (end === null || (to !== null && to <= end));
        const holds = relation === 'intersects' ? meets : relation === 'disjoint' ? !meets : inside;
        return holds ? [`i${index}`] : [];
      }).sort();
    }
    const BOUNDS: [string | null, string | null][] = [
      ['2000-01-01T00:00:00.000Z', '2009-12-31T23:59:59.999Z'],
      ['2000-01-01T00:00:00.001Z', '2000-01-01T00:00:00.001Z'],
      ['1999-12-31T23:59:59.999Z', '1999-12-31T23:59:59.999Z'],
      [null, '1999-12-31T23:59:59.998Z'],
      ['2010-01-01T00:00:00.000Z', null],
      ['0055-01-01T00:00:00.000Z', '0055-01-01T00:00:00.000Z'],
      [null, null],
    ];

    it('select the records the timestamps select, open ends and millisecond edges included', async () => {
      const backend = new SqliteBackend({ path: join(directory, 'intervals.sqlite') });
      try {
        await backend.upsert(parseDocuments(JSON.stringify(timed)).records);
        for (const [start, end] of BOUNDS) {
          for (const relation of ['intersects', 'disjoint', 'during'] as const) {
            const search = query({ temporal: { start, end, relation } });
            const found = await backend.search(search);
            const want = expected(start, end, relation);
            expect(found.total, `${relation} ${start}/${end}`).to.equal(want.length);
            expect(found.records.map((record) => record.id).sort()).to.deep.equal(want);
          }
        }
      } finally {
        await backend.close();
      }
    });

    it('are counted from one range scan of records_interval', async () => {
      const backend = await loaded();
      try {
        const search = query({
          temporal: {
            start: '2000-01-01T00:00:00.000Z',
            end: '2009-12-31T23:59:59.999Z',
            relation: 'intersects',
          },
        });
        const { count } = compileSearch(search, { columns: 'r.id' });
        const plan = planOf(connectionOf(backend), count).join('\n');
        expect(plan).to.match(/SEARCH r USING COVERING INDEX records_interval \(time_lo<\?\)/);
        expect(plan).to.not.contain('MULTI-INDEX OR');
      } finally {
        await backend.close();
      }
    });

    it('are the columns toSqliteRow writes, also after a file made before them is opened', async () => {
      const path = join(directory, 'old-intervals.sqlite');
      const fresh = new SqliteBackend({ path });
      await fresh.upsert(parseDocuments(JSON.stringify(timed)).records);
      const read = (db: Database.Database) =>
        db
          .prepare(
            'SELECT id, time_lo, time_hi, geocell, centre_lon, centre_lat FROM records ORDER BY id',
          )
          .safeIntegers()
          .raw()
          .all();
      const written = read(connectionOf(fresh));
      await fresh.close();
      const rows = parseDocuments(JSON.stringify(timed)).records.map(toSqliteRow);
      expect(written.map((row) => (row as unknown[]).slice(1, 4))).to.deep.equal(
        [...rows]
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((row) => [
            row.timeLo === null ? null : BigInt(row.timeLo),
            row.timeHi === null ? null : BigInt(row.timeHi),
            row.geocell,
          ]),
      );
      // The schema before them: no columns, their indexes absent, the span and probe indexes
      // without the interval.
      const old = new Database(path);
      old.exec(`DROP INDEX records_span; DROP INDEX records_probe; DROP INDEX records_interval;
        DROP INDEX records_cells;
        CREATE INDEX records_span ON records(rid, has_time, time_start, time_end, type, parent_id, created, updated, id, title, box_west, box_south, box_east, box_north);
        CREATE INDEX records_probe ON records(rid, type, has_time, time_start, time_end, box_west, box_south, box_east, box_north);
        ALTER TABLE records DROP COLUMN time_lo; ALTER TABLE records DROP COLUMN time_hi;
        ALTER TABLE records DROP COLUMN geocell; ALTER TABLE records DROP COLUMN centre_lon;
        ALTER TABLE records DROP COLUMN centre_lat;`);
      old.close();

      const reopened = new SqliteBackend({ path });
      try {
        const db = connectionOf(reopened);
        expect(read(db)).to.deep.equal(written);
        for (const index of ['records_span', 'records_probe']) {
          const columns = db
            .prepare(`SELECT name FROM pragma_index_info('${index}')`)
            .pluck()
            .all();
          expect(columns, index).to.include.members(['time_lo', 'time_hi']);
        }
        for (const [start, end] of BOUNDS) {
          const found = await reopened.search(
            query({ temporal: { start, end, relation: 'intersects' } }),
          );
          expect(found.records.map((record) => record.id).sort()).to.deep.equal(
            expected(start, end, 'intersects'),
          );
        }
        expect(migrateSchema(db)).to.deep.equal([]);
      } finally {
        await reopened.close();
      }
    });
  });

  describe('the time index', () => {
    it('replaces the start index of an older file and serves sorts on the start', async () => {
      const path = join(directory, 'old-time.sqlite');
      const fresh = await loaded(path);
      const sort = [{ field: 'start_datetime', direction: 'desc' as const }];
      const before = await ids(fresh, query({ sort }));
      await fresh.close();
      const old = new Database(path);
      old.exec('DROP INDEX records_time; CREATE INDEX records_time_start ON records(time_start)');
      old.close();
      const reopened = new SqliteBackend({ path });
      try {
        const db = connectionOf(reopened);
        const names = db
          .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'records_time%'",
          )
          .pluck()
          .all();
        expect(names.sort()).to.deep.equal(['records_time', 'records_time_end']);
        const page = compileSearch(query({ sort, limit: 5 }), { columns: 'r.id' }).page(0, 0);
        expect(planOf(db, page).join('\n')).to.contain('SCAN r USING INDEX records_time');
        expect(await ids(reopened, query({ sort }))).to.deep.equal(before);
      } finally {
        await reopened.close();
      }
    });
  });

  describe('rectangle footprints', () => {
    type Position = [number, number];
    const polygon = (...ring: Position[]) => ({
      type: 'Polygon',
      coordinates: [[...ring, ring[0]]],
    });
    const rectangle = (w: number, s: number, e: number, n: number) =>
      polygon([w, s], [e, s], [e, n], [w, n]);
    const record = (
      id: string,
      geometry: Record<string, unknown> | null,
      extra: Record<string, unknown> = {},
    ) => ({
      type: 'Feature',
      id,
      conformsTo: [],
      geometry,
      time: null,
      properties: { type: 'dataset', title: id },
      ...extra,
    });
    /** Records against the box (0, 0, 10, 10), with whether each meets it. */
    const CASES: [Record<string, unknown>, boolean][] = [
      [record('inside', rectangle(2, 2, 4, 4)), true],
      // Crosses the box with no vertex inside it and not inside it: once only the exact test.
      [record('strip-across', rectangle(-5, 4, 15, 6)), true],
      [record('edge-touch', rectangle(10, 2, 12, 4)), true],
      [record('corner-touch', rectangle(-3, -3, 0, 0)), true],
      [record('just-outside', rectangle(10.000001, 2, 12, 4)), false],
      [record('outside', rectangle(20, 20, 30, 30)), false],
      [record('bbox-only-across', null, { bbox: [-5, 4, 15, 6] }), true],
      [record('bbox-only-out', null, { bbox: [-5, 11, 15, 12] }), false],
    ];

    function filterQuery(text: string): SearchQuery {
      return query({ filter: checkFilter(parseCql2Text(text)) });
    }

    it('are decided by their edges, without the exact predicate', async () => {
      let exactCalls = 0;
      // The exact predicate replaced by one that counts its calls and answers NULL (no match).
      const backend = new SqliteBackend({
        path: ':memory:',
        registerFunctions: (db) =>
          // Three arguments, as the real one: SQLite keys functions by name and argument count.
          db.function(
            SQL_FUNCTIONS.spatial,
            (_relation: unknown, _stored: unknown, _query: unknown) => {
              exactCalls += 1;
              return null;
            },
          ),
      });
      try {
        await backend.upsert(parseDocuments(JSON.stringify(CASES.map(([r]) => r))).records);
        const expected = CASES.filter(([, meets]) => meets)
          .map(([r]) => r.id as string)
          .sort();
        const result = await backend.search(filterQuery('S_INTERSECTS(geometry, BBOX(0,0,10,10))'));
        expect(result.records.map((r) => r.id).sort()).to.deep.equal(expected);
        expect(result.total).to.equal(expected.length);
        const apart = await ids(backend, filterQuery('S_DISJOINT(geometry, BBOX(0,0,10,10))'));
        expect(apart.sort()).to.deep.equal(
          CASES.filter(([, meets]) => !meets)
            .map(([r]) => r.id as string)
            .sort(),
        );
        expect(exactCalls).to.equal(0);
      } finally {
        await backend.close();
      }
    });

    it('meet a query box across the antimeridian by either half', async () => {
      const backend = new SqliteBackend({ path: ':memory:' });
      try {
        await backend.upsert(
          parseDocuments(
            JSON.stringify([
              record('east', rectangle(172, 0, 175, 5)),
              record('west', rectangle(-175, 0, -172, 5)),
              record('middle', rectangle(0, 0, 5, 5)),
              record('edge', rectangle(-170, 0, -160, 5)),
            ]),
          ).records,
        );
        const found = await ids(
          backend,
          filterQuery('S_INTERSECTS(geometry, BBOX(170,-10,-170,10))'),
        );
        expect(found.sort()).to.deep.equal(['east', 'edge', 'west']);
      } finally {
        await backend.close();
      }
    });

    it('are filled and indexed when a database made before them is opened', async () => {
      const path = join(directory, 'old-boxes.sqlite');
      const fresh = new SqliteBackend({ path });
      await fresh.upsert(parseDocuments(JSON.stringify(CASES.map(([r]) => r))).records);
      const read = (db: Database.Database) =>
        db
          .prepare('SELECT id, box_west, box_south, box_east, box_north FROM records ORDER BY id')
          .raw()
          .all();
      const boxes = read(connectionOf(fresh));
      await fresh.close();
      // The schema of the release before the boxes: no columns, the span index without them,
      // no probe index.
      const old = new Database(path);
      old.exec(`DROP INDEX records_span; DROP INDEX records_probe;
        CREATE INDEX records_span ON records(rid, has_time, time_start, time_end, type, parent_id, created, updated, id, title);
        ALTER TABLE records DROP COLUMN box_west; ALTER TABLE records DROP COLUMN box_south;
        ALTER TABLE records DROP COLUMN box_east; ALTER TABLE records DROP COLUMN box_north;`);
      old.close();

      const reopened = new SqliteBackend({ path });
      try {
        const db = connectionOf(reopened);
        expect(read(db)).to.deep.equal(boxes);
        expect(boxes.filter((row) => (row as unknown[])[1] !== null)).to.have.length(CASES.length);
        const spanColumns = db
          .prepare("SELECT name FROM pragma_index_info('records_span')")
          .pluck()
          .all();
        expect(spanColumns.slice(-4)).to.deep.equal([
          'box_west',
          'box_south',
          'box_east',
          'box_north',
        ]);
        const probeColumns = db
          .prepare("SELECT name FROM pragma_index_info('records_probe')")
          .pluck()
          .all();
        expect(probeColumns.slice(-4)).to.deep.equal(spanColumns.slice(-4));
        const found = await ids(reopened, filterQuery('S_INTERSECTS(geometry, BBOX(0,0,10,10))'));
        expect(found.sort()).to.deep.equal(
          CASES.filter(([, meets]) => meets)
            .map(([r]) => r.id as string)
            .sort(),
        );
      } finally {
        await reopened.close();
      }
    });
  });
});
