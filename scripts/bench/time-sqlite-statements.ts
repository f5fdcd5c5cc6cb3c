/**
 * Times the count and page statements of items queries on a SQLite catalogue, one at a time on
 * one connection (no HTTP, no pool), with their query plans: where a broad query's time goes.
 * Usage: tsx scripts/bench/time-sqlite-statements.ts FILE [REPEATS] [CASE…]
 * (PLAN=1 prints the query plans; GUARD=0 leaves out the deadline check.)
 */
import Database from 'better-sqlite3';
import { parseItemsQuery } from '../../services/api/protocols/records/parse.js';
import { compileFilter } from '../../shared/search/sqlite/compile-filter.js';
import { compileSearch } from '../../shared/search/sqlite/compile-query.js';
import {
  StatementDeadline,
  deadlineGuard,
  registerSqlFunctions,
} from '../../shared/search/sqlite/sql-functions.js';

const CASES: Record<string, Record<string, string>> = {
  'cql2-spatial-temporal': {
    filter:
      "S_INTERSECTS(geometry, BBOX(-10,40,20,60)) AND T_INTERSECTS(INTERVAL(start_datetime,end_datetime), INTERVAL('2000-01-01T00:00:00Z','2015-12-31T23:59:59Z'))",
    'filter-lang': 'cql2-text',
    limit: '10',
  },
  datetime: { datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z', limit: '10' },
  'bbox-datetime-text': {
    bbox: '-10,40,20,60',
    datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
    q: 'flood',
    limit: '10',
  },
  'bbox-datetime': {
    bbox: '-10,40,20,60',
    datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
    limit: '10',
  },
  'sort-title': { sortby: 'title', limit: '10' },
  'sort-title-desc': { sortby: '-title', limit: '10' },
  bbox: { bbox: '-10,40,20,60', limit: '10' },
  sorted: { sortby: '-updated', limit: '10' },
  'sort-start': { sortby: 'start_datetime', limit: '10' },
  'datetime-sort-start': {
    datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
    sortby: '-start_datetime',
    limit: '10',
  },
  'cql2-type': {
    filter: "S_INTERSECTS(geometry, BBOX(-10, 40, 20, 60)) AND type = 'series'",
    'filter-lang': 'cql2-text',
    limit: '10',
  },
  'text-bbox': { q: 'soil', bbox: '-10,40,20,60', limit: '10' },
  all: { limit: '10' },
  text: { q: 'flood', limit: '10' },
};

const [file, repeatText = '5', ...names] = process.argv.slice(2);
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma('cache_size = -32768');
db.pragma('temp_store = MEMORY');
registerSqlFunctions(db, new StatementDeadline());
const repeats = Number(repeatText);

function time<T>(run: () => T): [T, number] {
  const start = process.hrtime.bigint();
  const result = run();
  return [result, Number(process.hrtime.bigint() - start) / 1e6];
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

for (const name of names.length > 0 ? names : Object.keys(CASES)) {
  const parameters = CASES[name];
  if (parameters === undefined) throw new Error(`no case "${name}"`);
  const query = parseItemsQuery(parameters, { defaultLimit: 10, maxLimit: 10000 });
  const statements = compileSearch(query, {
    compileFilter,
    // The deadline check the backend adds when a time budget is set (the default).
    ...(process.env.GUARD === '0' ? {} : { guard: deadlineGuard }),
    columns: 'r.record, r.source_format, r.source_media_type, r.source',
  });
  const countStatement = db.prepare(statements.count.sql);
  const counts: number[] = [];
  const pages: number[] = [];
  let total = 0;
  let size = 0;
  let firstIds = '';
  for (let index = 0; index < repeats; index += 1) {
    const [count, countMs] = time(
      () => countStatement.get(...statements.count.params) as { n: number; size: number },
    );
    total = count.n;
    size = count.size;
    const page = statements.page(total, size);
    const [rows, pageMs] = time(
      () =>
        db
          .prepare(page.sql)
          .raw()
          .all(...page.params) as [string][],
    );
    firstIds = rows
      .map((row) => (JSON.parse(row[0]) as { id: string }).id)
      .slice(0, 3)
      .join(',');
    counts.push(countMs);
    pages.push(pageMs);
  }
  console.log(
    `${name}: total ${total}; count ms ${counts.map((v) => v.toFixed(1)).join(' ')} (p50 ${median(counts).toFixed(1)}); page ms ${pages.map((v) => v.toFixed(1)).join(' ')} (p50 ${median(pages).toFixed(1)}); first ${firstIds}`,
  );
  if (process.env.PLAN) {
    const page = statements.page(total, size);
    for (const [label, statement] of [
      ['count', statements.count],
      ['page', page],
    ] as const) {
      console.log(`  ${label}: ${statement.sql}`);
      for (const row of db
        .prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .all(...statement.params) as { detail: string }[]) {
        console.log(`    ${row.detail}`);
      }
    }
  }
}
