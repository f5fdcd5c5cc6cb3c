/**
 * The SQL shapes of the SQLite search (compile-query.ts): counts from the R*Tree alone, pages
 * picked by walking a column index or from the R*Tree's matches, the span index, the uncorrelated
 * "box inside" set and the exact-test shortcut. Each must give the same counts, records and order
 * as the plain rule it replaces.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { readGeometry, relateGeometries } from '../../shared/query/cql2-functions.js';
import { buildMatchAllQuery, type SearchQuery } from '../../shared/query/search-query.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { compileQuery, compileSearch } from '../../shared/search/sqlite/compile-query.js';
import { compileFilter } from '../../shared/search/sqlite/compile-filter.js';
import {
  SQL_FUNCTIONS,
  deadlineGuard,
  registerSqlFunctions,
} from '../../shared/search/sqlite/sql-functions.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

type Position = [number, number];

const polygon = (...ring: Position[]) => ({ type: 'Polygon', coordinates: [[...ring, ring[0]]] });
const rectangle = (w: number, s: number, e: number, n: number) =>
  polygon([w, s], [e, s], [e, n], [w, n]);

function feature(
  id: string,
  geometry: Record<string, unknown> | null,
  extra: Record<string, unknown> = {},
  updated: string | undefined = undefined,
): Record<string, unknown> {
  return {
    type: 'Feature',
    id,
    conformsTo: [],
    geometry,
    time: null,
    properties: { type: 'dataset', title: `Record ${id}`, ...(updated && { updated }) },
    ...extra,
  };
}

/** The query box of the boundary tests. */
const BOX = [0, 0, 10, 10] as const;

/** One record for each case of the boundary rule, with whether it intersects BOX exactly. */
const BOUNDARY_RECORDS: [Record<string, unknown>, boolean][] = [
  [feature('inside', rectangle(2, 2, 4, 4)), true],
  [feature('corner-in', rectangle(8, 8, 12, 12)), true],
  // Crosses BOX with no vertex inside it: only the exact test sees it.
  [feature('strip-across', rectangle(-5, 4, 15, 6)), true],
  // Its box meets BOX, the geometry does not (a diagonal line past the corner).
  [
    feature('line-past', {
      type: 'LineString',
      coordinates: [
        [9, 20],
        [20, 9],
      ],
    }),
    false,
  ],
  [
    feature('l-shape-out', polygon([11, -5], [20, -5], [20, 20], [-5, 20], [-5, 11], [11, 11])),
    false,
  ],
  [feature('point-edge', { type: 'Point', coordinates: [10, 5] }), true],
  [feature('outside', rectangle(20, 20, 30, 30)), false],
  // No geometry, only a bbox: the footprint is the bbox.
  [feature('bbox-only', null, { bbox: [9, -3, 12, 1] }), true],
  [feature('no-footprint', null), false],
  [
    {
      ...feature('antimeridian', {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [170, 0],
              [180, 0],
              [180, 5],
              [170, 5],
              [170, 0],
            ],
          ],
          [
            [
              [-180, 0],
              [-170, 0],
              [-170, 5],
              [-180, 5],
              [-180, 0],
            ],
          ],
        ],
      }),
      bbox: [170, 0, -170, 5],
    },
    false,
  ],
];

function query(patch: Partial<SearchQuery>): SearchQuery {
  return { ...buildMatchAllQuery(1000), ...patch };
}

function filterQuery(text: string, patch: Partial<SearchQuery> = {}): SearchQuery {
  return query({ filter: checkFilter(parseCql2Text(text)), ...patch });
}

async function loaded(records: Record<string, unknown>[]): Promise<SqliteBackend> {
  const backend = new SqliteBackend({ path: ':memory:' });
  await backend.upsert(parseDocuments(JSON.stringify(records)).records);
  return backend;
}

async function ids(backend: SqliteBackend, search: SearchQuery): Promise<string[]> {
  return (await backend.search(search)).records.map((record) => record.id);
}

describe('SQLite search shapes', () => {
  describe('the boundary rule of S_INTERSECTS with a BBOX', () => {
    it('counts and selects exactly the records whose footprint meets the box', async () => {
      const backend = await loaded(BOUNDARY_RECORDS.map(([record]) => record));
      try {
        const expected = BOUNDARY_RECORDS.filter(([, meets]) => meets)
          .map(([record]) => record.id as string)
          .sort();
        const search = filterQuery(`S_INTERSECTS(geometry, BBOX(${BOX.join(',')}))`);
        const result = await backend.search(search);
        expect(result.records.map((record) => record.id).sort()).to.deep.equal(expected);
        expect(result.total).to.equal(expected.length);
        // The same under NOT (the probing and CASE forms) and across the antimeridian.
        const outside = await ids(
          backend,
          filterQuery(`NOT S_INTERSECTS(geometry, BBOX(${BOX.join(',')}))`),
        );
        expect(outside.sort()).to.deep.equal(
          BOUNDARY_RECORDS.filter(([record, meets]) => !meets && record.id !== 'no-footprint')
            .map(([record]) => record.id as string)
            .sort(),
        );
        expect(
          await ids(backend, filterQuery('S_INTERSECTS(geometry, BBOX(175,1,-175,2))')),
        ).to.deep.equal(['antimeridian']);
      } finally {
        await backend.close();
      }
    });

    it('answers the shortcut exactly as jsts does, NULL for geometries jsts cannot read', () => {
      const db = new Database(':memory:');
      registerSqlFunctions(db);
      const query = JSON.stringify(rectangle(...BOX));
      const relate = db.prepare(`SELECT ${SQL_FUNCTIONS.spatial}('intersects', ?, ?) AS v`);
      const geometries: unknown[] = [
        ...BOUNDARY_RECORDS.map(([record]) => record.geometry).filter(Boolean),
        {
          type: 'MultiPoint',
          coordinates: [
            [50, 50],
            [5, 5],
          ],
        },
        {
          type: 'MultiLineString',
          coordinates: [
            [
              [20, 20],
              [30, 30],
            ],
            [
              [1, 1],
              [2, 2],
            ],
          ],
        },
        {
          type: 'Polygon',
          coordinates: [
            [
              [1, 1],
              [2, 1],
              [2, 2],
            ],
          ],
        }, // too short a ring
        {
          type: 'Polygon',
          coordinates: [
            [
              [1, 1],
              [2, 1],
              [2, 2],
              [1, 2],
            ],
          ],
        }, // not closed
        { type: 'LineString', coordinates: [[5, 5]] }, // one point
        { type: 'Point', coordinates: [5, 'x'] },
      ];
      for (const geometry of geometries) {
        let expected: number | null;
        try {
          expected = relateGeometries(
            'intersects',
            readGeometry(geometry as never),
            readGeometry(JSON.parse(query)),
          )
            ? 1
            : 0;
        } catch {
          expected = null;
        }
        const { v } = relate.get(JSON.stringify(geometry), query) as { v: number | null };
        expect(v, JSON.stringify(geometry)).to.equal(expected);
      }
      db.close();
    });
  });

  describe('bbox counts from the R*Tree alone', () => {
    it('counts a record split at the antimeridian once when both of its boxes match', async () => {
      const backend = await loaded(BOUNDARY_RECORDS.map(([record]) => record));
      try {
        for (const bbox of [
          [-180, -90, 180, 90],
          [-180, 0, 180, 3],
          [170, -1, -170, 1],
          [0, 0, 10, 10],
        ] as const) {
          const search = query({ spatial: { relation: 'intersects', bbox: [...bbox] } });
          expect(compileQuery(search).boxesOnly, 'the R*Tree-only count is used').to.not.equal(
            undefined,
          );
          const result = await backend.search(search);
          expect(result.total, bbox.join(',')).to.equal(result.records.length);
          expect(new Set(result.records.map((record) => record.id)).size).to.equal(
            result.records.length,
          );
        }
        const world = await backend.search(
          query({ spatial: { relation: 'intersects', bbox: [-180, -90, 180, 90] } }),
        );
        expect(world.total).to.equal(BOUNDARY_RECORDS.length - 1); // all but no-footprint
      } finally {
        await backend.close();
      }
    });
  });

  describe('free-text counts from the text index alone', () => {
    it('count the records the text finds, after a replacement and a deletion too', async () => {
      const titled = (id: string, title: string) => ({
        ...feature(id, null),
        properties: { type: 'dataset', title },
      });
      const backend = await loaded([
        titled('t1', 'Soil moisture'),
        titled('t2', 'Soil carbon'),
        titled('t3', 'Sea ice'),
        titled('t4', 'Soil and sea'),
      ]);
      try {
        const soil = query({ text: [['soil']], limit: 100 });
        expect(compileQuery(soil).textOnly, 'the text-index count is used').to.be.a('string');
        expect(compileQuery({ ...soil, types: ['dataset'] }).textOnly).to.equal(undefined);
        const found = async () => {
          const result = await backend.search(soil);
          expect(result.total).to.equal(result.records.length);
          return result.records.map((record) => record.id).sort();
        };
        expect(await found()).to.deep.equal(['t1', 't2', 't4']);
        await backend.upsert(parseDocuments(JSON.stringify([titled('t2', 'Sea level')])).records);
        await backend.delete(['t4']);
        await backend.upsert(
          parseDocuments(JSON.stringify([titled('t3', 'Soil salinity')])).records,
        );
        expect(await found()).to.deep.equal(['t1', 't3']);
      } finally {
        await backend.close();
      }
    });

    it('page by relevance as slices of the whole order, ties on the page boundary by id', async () => {
      // Equal texts score equally: three groups of ties, ids out of insertion order.
      const texts = ['Soil', 'Soil map of soil', 'Soil moisture and sea ice'];
      const records = Array.from({ length: 24 }, (_, i) => ({
        ...feature(`r${String((i * 7) % 24).padStart(2, '0')}`, null),
        id: `r${String((i * 7) % 24).padStart(2, '0')}`,
        properties: { type: 'dataset', title: texts[i % 3] },
      }));
      const backend = await loaded(records);
      try {
        const page = async (offset: number, limit: number) =>
          (await backend.search(query({ text: [['soil']], offset, limit }))).records.map(
            (record) => record.id,
          );
        const whole = await page(0, 100);
        expect(whole).to.have.length(24);
        expect(new Set(whole).size).to.equal(24);
        for (const [offset, limit] of [
          [0, 1],
          [0, 5],
          [3, 5],
          [7, 2],
          [8, 8],
          [20, 10],
          [24, 5],
        ] as const) {
          expect(await page(offset, limit), `${offset}+${limit}`).to.deep.equal(
            whole.slice(offset, offset + limit),
          );
        }
        // The groups come in score order, each in id order.
        const title = new Map(records.map((record) => [record.id, record.properties.title]));
        const groupOf = (id: string) => texts.indexOf(title.get(id) ?? '');
        const groups = whole.map(groupOf);
        expect(new Set(groups.slice(0, 8)).size).to.equal(1);
        expect(whole.slice(0, 8)).to.deep.equal([...whole.slice(0, 8)].sort());
      } finally {
        await backend.close();
      }
    });
  });

  describe('pages', () => {
    // 300 records: most in the box, a few outside, ties and missing values in `updated`.
    const many = Array.from({ length: 300 }, (_, i) =>
      feature(
        `m${String((i * 7919) % 300).padStart(3, '0')}`,
        i % 10 === 0 ? rectangle(50, 50, 51, 51) : rectangle((i % 9) + 0.5, 1, (i % 9) + 1, 2),
        {},
        i % 13 === 0 ? undefined : `2024-01-${String((i % 5) + 1).padStart(2, '0')}T00:00:00Z`,
      ),
    );

    /** The order the sort defines: updated (missing last), then id. */
    function expectedOrder(direction: 'asc' | 'desc'): string[] {
      const inBox = many.filter((_, i) => i % 10 !== 0);
      const updated = (record: Record<string, unknown>) =>
        (record.properties as { updated?: string }).updated;
      return inBox
        .sort((a, b) => {
          const [x, y] = [updated(a), updated(b)];
          if (x !== y) {
            if (x === undefined) return 1;
            if (y === undefined) return -1;
            return (x < y ? -1 : 1) * (direction === 'asc' ? 1 : -1);
          }
          return (a.id as string) < (b.id as string) ? -1 : 1;
        })
        .map((record) => record.id as string);
    }

    it('are the same whether walked along the index or fetched from the R*Tree and sorted', async () => {
      const backend = await loaded(many);
      try {
        const spatial = { relation: 'intersects' as const, bbox: [0, 0, 10, 10] as const };
        for (const direction of ['asc', 'desc'] as const) {
          const order = expectedOrder(direction);
          for (const [offset, limit] of [
            [0, 10],
            [100, 25],
            [260, 20],
          ] as const) {
            const search = query({
              spatial: { ...spatial, bbox: [...spatial.bbox] },
              sort: [{ field: 'updated', direction }],
              offset,
              limit,
            });
            const statements = compileSearch(search, { columns: 'r.id' });
            // Dense matches walk the index; few matches (or a deep page) start from the R*Tree.
            const walked = statements.page(270, 300).sql;
            const fetched = statements.page(270, 1_000_000).sql;
            if (offset === 0) expect(walked).to.not.equal(fetched);
            expect(await ids(backend, search), `${direction} ${offset}`).to.deep.equal(
              order.slice(offset, offset + limit),
            );
            expect((await backend.search(search)).total).to.equal(270);
          }
        }
        const db = (backend as unknown as { db: Database.Database }).db;
        const search = query({
          spatial: { relation: 'intersects', bbox: [0, 0, 10, 10] },
          sort: [{ field: 'updated', direction: 'desc' }],
          offset: 30,
          limit: 40,
        });
        const statements = compileSearch(search, { columns: 'r.id' });
        const run = (total: number, size: number) => {
          const page = statements.page(total, size);
          return (db.prepare(page.sql).all(...page.params) as { id: string }[]).map((r) => r.id);
        };
        expect(run(270, 300)).to.deep.equal(run(270, 1_000_000));
        expect(run(270, 300)).to.deep.equal(expectedOrder('desc').slice(30, 70));
      } finally {
        await backend.close();
      }
    });
    it('walk the sort index even when another condition could drive them by its own index', async () => {
      const backend = await loaded(many);
      try {
        const db = (backend as unknown as { db: Database.Database }).db;
        const search = filterQuery(
          "S_INTERSECTS(geometry, BBOX(0,0,10,10)) AND updated > TIMESTAMP('2024-01-02T00:00:00Z')",
          { sort: [{ field: 'updated', direction: 'desc' }], limit: 10 },
        );
        const statements = compileSearch(search, { compileFilter, columns: 'r.id' });
        const page = statements.page(270, 300);
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params) as { detail: string }[]
        ).map((row) => row.detail);
        expect(plan).to.include('SCAN r USING INDEX records_updated');
        const rows = db.prepare(page.sql).all(...page.params) as { id: string }[];
        const fetched = statements.page(270, 1_000_000);
        expect(rows).to.deep.equal(db.prepare(fetched.sql).all(...fetched.params));
        expect(rows).to.have.length(10);
      } finally {
        await backend.close();
      }
    });
  });

  describe('the deadline guard', () => {
    it('is left out without conditions, so the count stays B-tree counting', () => {
      const count = (search: SearchQuery): string =>
        compileSearch(search, { compileFilter, guard: deadlineGuard, columns: 'r.id' }).count.sql;
      expect(count(query({}))).to.not.contain(SQL_FUNCTIONS.deadline);
      const filtered = count(filterQuery("type = 'series'"));
      expect(filtered).to.contain(`OR ${SQL_FUNCTIONS.deadline}())`);
      // On one row in 64 by rowid: a scan of many rows still reads the clock.
      expect(filtered).to.contain('(((r.rid) & 63) <> 0');
    });
  });

  describe('within and disjoint boxes', () => {
    it("look up each record's own R*Tree entries by id, not by a scan of the R*Tree", async () => {
      const backend = await loaded(BOUNDARY_RECORDS.map(([record]) => record));
      try {
        for (const relation of ['within', 'disjoint'] as const) {
          const search = query({ spatial: { relation, bbox: [-1, -1, 11, 11] } });
          const { sql } = compileQuery(search).where;
          expect(sql).to.not.contain('t.id >> 1 = r.rid');
          const db = (backend as unknown as { db: Database.Database }).db;
          const count = compileSearch(search, { columns: 'r.id' }).count;
          const plan = (
            db.prepare(`EXPLAIN QUERY PLAN ${count.sql}`).all(...count.params) as {
              detail: string;
            }[]
          ).map((row) => row.detail);
          // INDEX 1 is the R*Tree's rowid lookup; INDEX 2 with no constraint is a whole scan.
          expect(plan.filter((detail) => /VIRTUAL TABLE INDEX 2:$/.test(detail))).to.deep.equal([]);
        }
        const within = await ids(
          backend,
          query({ spatial: { relation: 'within', bbox: [-1, -1, 11, 11] } }),
        );
        expect(within.sort()).to.deep.equal(['inside', 'point-edge']);
      } finally {
        await backend.close();
      }
    });
  });

  describe('the span index', () => {
    it('is added to a database made before it, which then searches the same', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'cairn-span-'));
      const path = join(directory, 'old.sqlite');
      try {
        const old = new SqliteBackend({ path });
        await old.upsert(parseDocuments(JSON.stringify(BOUNDARY_RECORDS.map(([r]) => r))).records);
        const search = filterQuery(`S_INTERSECTS(geometry, BBOX(${BOX.join(',')}))`);
        const before = await ids(old, search);
        await old.close();
        const db = new Database(path);
        db.exec('DROP INDEX records_span');
        db.close();
        const reopened = new SqliteBackend({ path });
        try {
          expect(await ids(reopened, search)).to.deep.equal(before);
          const check = new Database(path, { readonly: true });
          const names = check
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'index'")
            .pluck()
            .all();
          check.close();
          expect(names).to.include('records_span');
        } finally {
          await reopened.close();
        }
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });

  it('uses the span index only where the R*Tree drives the search', () => {
    const driven = compileSearch(
      filterQuery(
        "S_INTERSECTS(geometry, BBOX(0,0,1,1)) AND updated > TIMESTAMP('2020-01-01T00:00:00Z')",
      ),
      { compileFilter, columns: 'r.id' },
    );
    expect(driven.count.sql).to.contain('INDEXED BY records_span');
    // Conditions on the probe index's columns alone count on it.
    for (const text of [
      "S_INTERSECTS(geometry, BBOX(0,0,1,1)) AND type = 'series'",
      "S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 0))) AND T_INTERSECTS(INTERVAL(start_datetime, end_datetime), INTERVAL('2000-01-01T00:00:00Z', '2001-01-01T00:00:00Z'))",
    ]) {
      const { count } = compileSearch(filterQuery(text), { compileFilter, columns: 'r.id' });
      expect(count.sql, text).to.contain('INDEXED BY records_probe');
    }
    for (const text of [
      'NOT S_INTERSECTS(geometry, BBOX(0,0,1,1))',
      "S_INTERSECTS(geometry, BBOX(0,0,1,1)) OR title = 'x'",
      'S_DISJOINT(geometry, BBOX(0,0,1,1))',
    ]) {
      const statements = compileSearch(filterQuery(text), {
        compileFilter,
        columns: 'r.id',
      });
      expect(statements.count.sql, text).to.not.contain('INDEXED BY');
    }
  });
});
