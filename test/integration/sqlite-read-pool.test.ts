/**
 * The SQLite read pool (shared/search/sqlite/read-pool.ts) on real files: arrival order, the
 * queue bound, the time budget inside a worker and counted from arrival, a worker that dies,
 * read-your-writes through the backend, and close() leaving no thread behind.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import {
  InternalError,
  QueryTimeoutError,
  ServiceUnavailableError,
} from '../../shared/errors/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { ReadDriverError, SqliteReadPool } from '../../shared/search/sqlite/read-pool.js';
import type { ReadStatement } from '../../shared/search/sqlite/read-pool.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { RECORDS_CHANGES_SQL } from '../../shared/search/sqlite/schema.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { parseItemsQuery } from '../../services/api/protocols/records/parse.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import { deadlineGuard } from '../../shared/search/sqlite/sql-functions.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { REPO_ROOT } from '../support/fixtures.js';
import { defined } from '../support/defined.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-read-pool-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** A real statement that runs for a while (counting a recursive sequence), checking the budget. */
function slow(rows: number): ReadStatement {
  return {
    sql: `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE cairn_deadline() AND x < ?)
          SELECT count(*) AS n FROM c`,
    params: [rows],
    mode: 'get',
  };
}

const fast = (value: number): ReadStatement => ({
  sql: 'SELECT ? AS n',
  params: [value],
  mode: 'get',
});

/** Rows of the slow statement: about a hundred milliseconds on a quiet machine. */
const SLOW_ROWS = 1_000_000;

/**
 * Resolves once the pool has handed out every read but `waiting`, and each of its threads is
 * inside a statement: its event loop has not idled at all between two samples 20 ms apart
 * (libuv counts a loop waiting for a message as idle, a synchronous SQLite call as active).
 * Polled, with a generous bound, instead of sleeping and hoping the statement began.
 */
async function untilRunning(pool: SqliteReadPool, waiting: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  const sample = () => pool.workers.map((worker) => worker.performance.eventLoopUtilization());
  let before = sample();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = sample();
    const inStatement = after.every(
      (now, index) =>
        now.idle === before[index]?.idle && now.active > (before[index]?.active ?? Infinity),
    );
    if (pool.waiting === waiting && inStatement) return;
    if (Date.now() > deadline) {
      throw new Error(`the pool's threads did not all start a statement (${pool.waiting} waiting)`);
    }
    before = after;
  }
}

let opened = 0;
async function openPool(size: number, queueLimit = 100): Promise<SqliteReadPool> {
  // The writing connection creates the file; the workers open it read-only.
  const path = join(directory, `pool-${opened++}.sqlite`);
  const writer = new SqliteBackend({ path });
  await writer.close();
  const pool = new SqliteReadPool({ path, size, queueLimit });
  await pool.ready();
  return pool;
}

/** Runs reads and records the order in which they finish. */
function track(
  pool: SqliteReadPool,
  reads: [string, ReadStatement][],
): { order: string[]; done: Promise<unknown> } {
  const order: string[] = [];
  const done = Promise.all(
    reads.map(([name, statement]) => pool.run([statement]).then(() => order.push(name))),
  );
  return { order, done };
}

describe('SQLite read pool', function () {
  this.timeout(60_000);
  /** One worker, shared by the tests that leave it as they found it. */
  let single: SqliteReadPool;
  before(async () => (single = await openPool(1)));
  after(() => single.close());

  it('serves a burst in arrival order on one worker: fast reads wait behind a slow one', async () => {
    const pool = single;
    const { order, done } = track(pool, [
      ['slow', slow(SLOW_ROWS)],
      ['fast 1', fast(1)],
      ['fast 2', fast(2)],
      ['fast 3', fast(3)],
    ]);
    await done;
    expect(order).to.deep.equal(['slow', 'fast 1', 'fast 2', 'fast 3']);
  });

  it('lets fast reads overtake a slow one on the other of two workers', async () => {
    const pool = await openPool(2);
    try {
      const { order, done } = track(pool, [
        ['slow', slow(SLOW_ROWS)],
        ['fast 1', fast(1)],
        ['fast 2', fast(2)],
        ['fast 3', fast(3)],
      ]);
      await done;
      expect(order).to.deep.equal(['fast 1', 'fast 2', 'fast 3', 'slow']);
    } finally {
      await pool.close();
    }
  });

  it('returns rows as objects or arrays, every statement of a task in one snapshot', async () => {
    const pool = single;
    const results = await pool.run([
      { sql: 'SELECT 1 AS a, ? AS b', params: ['x'], mode: 'get' },
      { sql: 'SELECT 1 AS a, ? AS b UNION ALL SELECT 2, NULL', params: ['y'], mode: 'all' },
      { sql: 'SELECT 1 AS a, ? AS b', params: ['z'], mode: 'raw' },
    ]);
    expect(results).to.deep.equal([
      { a: 1, b: 'x' },
      [
        { a: 1, b: 'y' },
        { a: 2, b: null },
      ],
      [[1, 'z']],
    ]);
  });

  it('refuses a read with a 503 and Retry-After when the queue is full', async () => {
    const pool = await openPool(1, 2);
    try {
      const running = pool.run([slow(SLOW_ROWS)]);
      const waiting = [pool.run([fast(1)]), pool.run([fast(2)])];
      const refused = await pool.run([fast(3)]).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(ServiceUnavailableError);
      expect((refused as ServiceUnavailableError).status).to.equal(503);
      expect((refused as ServiceUnavailableError).retryAfter).to.equal(1);
      expect((refused as Error).message).to.contain('SQLITE_READ_QUEUE_LIMIT');
      await Promise.all([running, ...waiting]);
      // Once the queue drains, reads are accepted again.
      expect(await pool.run([fast(4)])).to.deep.equal([{ n: 4 }]);
    } finally {
      await pool.close();
    }
  });

  it('cancels a statement in a worker when its time budget is spent', async () => {
    const pool = single;
    const began = Date.now();
    const error = await pool
      .run([slow(1_000_000_000)], { deadlineAt: Date.now() + 200, budgetMs: 200 })
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(QueryTimeoutError);
    expect((error as Error).message).to.contain('200 ms');
    expect(Date.now() - began).to.be.below(5_000);
    // The worker is free again afterwards.
    expect(await pool.run([fast(1)])).to.deep.equal([{ n: 1 }]);
  });

  it('cancels a long scan under the search guard, which calls the deadline on one row in 64', async () => {
    // The guard the backend puts in front of a search's conditions, on a scan of plain rows.
    const scan: ReadStatement = {
      sql: `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
            SELECT count(*) AS n FROM c WHERE ${deadlineGuard('x')}x > 0`,
      params: [1_000_000_000],
      mode: 'get',
    };
    const began = Date.now();
    const error = await single
      .run([scan], { deadlineAt: Date.now() + 200, budgetMs: 200 })
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(QueryTimeoutError);
    expect(Date.now() - began).to.be.below(5_000);
    // Without a budget the same guard lets every row through.
    expect(await single.run([{ ...scan, params: [1000] }])).to.deep.equal([{ n: 1000 }]);
  });

  it('counts the budget from arrival: a read whose budget runs out while waiting never runs', async () => {
    const pool = single;
    const running = pool.run([slow(SLOW_ROWS)]);
    const error = await pool
      .run([fast(1)], { deadlineAt: Date.now() + 1, budgetMs: 1 })
      .catch((caught: unknown) => caught);
    // Busy, not "narrow the query": the read itself is cheap.
    expect(error).to.be.instanceOf(ServiceUnavailableError);
    expect((error as Error).message).to.contain('waited its whole time budget of 1 ms');
    expect((error as ServiceUnavailableError).retryAfter).to.equal(1);
    await running;
  });

  it('carries a driver error back by its message', async () => {
    const pool = single;
    const error = await pool
      .run([{ sql: 'SELECT * FROM no_such_table', params: [], mode: 'all' }])
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(ReadDriverError);
    expect((error as Error).message).to.contain('no such table');
  });

  // The fault is provoked for real: the thread running the statement is terminated, as an
  // out-of-memory abort would end it.
  it('fails the read of a worker that dies, at once, and replaces the worker', async () => {
    const pool = await openPool(1);
    try {
      const running = pool.run([slow(1_000_000_000)]).catch((caught: unknown) => caught);
      const waiting = pool.run([fast(7)]);
      await untilRunning(pool, 1);
      await defined(pool.workers[0], 'the worker').terminate();
      const error = await running;
      expect(error).to.be.instanceOf(InternalError);
      expect((error as Error).message).to.contain('stopped');
      // The waiting read runs on the replacement, and so do later ones.
      expect(await waiting).to.deep.equal([{ n: 7 }]);
      expect(await pool.run([fast(8)])).to.deep.equal([{ n: 8 }]);
    } finally {
      await pool.close();
    }
  });

  it('close() fails waiting reads with a 503 and stops every thread', async () => {
    const pool = await openPool(2);
    const running = pool.run([slow(1_000_000_000)]).catch((caught: unknown) => caught);
    const waiting = [0, 1, 2].map((n) =>
      pool.run([slow(1_000_000_000 + n)]).catch((caught: unknown) => caught),
    );
    // Both threads in a statement, two reads still waiting for one.
    await untilRunning(pool, 2);
    const workers = [...pool.workers];
    await pool.close();
    for (const error of [await running, ...(await Promise.all(waiting))]) {
      expect(error).to.be.instanceOf(ServiceUnavailableError);
    }
    for (const worker of workers) expect(worker.threadId).to.equal(-1);
    const refused = await pool.run([fast(1)]).catch((caught: unknown) => caught);
    expect(refused).to.be.instanceOf(ServiceUnavailableError);
  });

  it('refuses to start on a file that does not exist, and fails reads instead of holding them', async () => {
    const pool = new SqliteReadPool({
      path: join(directory, 'missing', 'none.sqlite'),
      size: 1,
      queueLimit: 1,
    });
    try {
      const first = pool.run([fast(1)]).catch((caught: unknown) => caught);
      const error = await pool.ready().catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(InternalError);
      expect((error as Error).message).to.contain('could not start');
      expect(await first).to.be.instanceOf(InternalError);
      // A read while the pool retries waits for the next attempt and fails with it, not hangs.
      const later = await pool.run([fast(2)]).catch((caught: unknown) => caught);
      expect(later).to.be.instanceOf(ServiceUnavailableError);
      expect((later as Error).message).to.contain('cannot be read');
    } finally {
      await pool.close();
    }
  });
});

/** The first contract record: a record with a footprint and a time, copied under other ids. */
function templateRecord(): CoreRecord {
  return defined(
    parseDocuments(JSON.stringify(CONTRACT_RECORDS)).records[0],
    'the template record',
  );
}
describe('SqliteBackend with read workers', function () {
  this.timeout(60_000);

  it('sees every write committed before a search starts (read-your-writes)', async () => {
    const backend = new SqliteBackend({ path: join(directory, 'ryw.sqlite'), readWorkers: 2 });
    try {
      await backend.init();
      const template = templateRecord();
      for (let n = 0; n < 40; n += 1) {
        const id = `ryw-${n}`;
        await backend.upsert([{ ...template, id, title: `title ${n}` }]);
        const found = await backend.search({ ids: [id], sort: [], offset: 0, limit: 10 });
        expect(found.total, id).to.equal(1);
        expect(defined(found.records[0], `record ${id}`).title).to.equal(`title ${n}`);
        await backend.upsert([{ ...template, id, title: `changed ${n}` }]);
        const changed = await backend.search({ ids: [id], sort: [], offset: 0, limit: 10 });
        expect(defined(changed.records[0], `record ${id}`).title).to.equal(`changed ${n}`);
        if (n % 2 === 0) {
          await backend.delete([id]);
          const gone = await backend.search({ ids: [id], sort: [], offset: 0, limit: 10 });
          expect(gone.total, `${id} deleted`).to.equal(0);
        }
      }
      const all = await backend.search({ sort: [], offset: 0, limit: 1 });
      expect(all.total).to.equal(20);
    } finally {
      await backend.close();
    }
  });

  it('counts every row written to or deleted from records in the change number, whoever writes', async () => {
    const path = join(directory, 'changes.sqlite');
    const backend = new SqliteBackend({ path });
    const other = new Database(path, { readonly: true });
    try {
      const changes = () =>
        (other.prepare(RECORDS_CHANGES_SQL).get() as { n: number } | undefined)?.n;
      const template = templateRecord();
      expect(changes()).to.equal(0);
      await backend.upsert([
        { ...template, id: 'changes-1' },
        { ...template, id: 'changes-2' },
      ]);
      expect(changes(), 'two inserts').to.equal(2);
      await backend.upsert([{ ...template, id: 'changes-1', title: 'again' }]);
      expect(changes(), 'an upsert of a stored record').to.be.above(2);
      const afterUpdate = defined(changes(), 'the number');
      await backend.delete(['changes-2']);
      expect(changes(), 'a delete').to.equal(afterUpdate + 1);
      // Reopening the file keeps the number (the row is written only when the table is new).
      await backend.close();
      const reopened = new SqliteBackend({ path });
      expect(changes()).to.equal(afterUpdate + 1);
      await reopened.close();
    } finally {
      other.close();
      await backend.close();
    }
  });

  /**
   * Searches while a writer adds and removes a matching record just after each one starts (after
   * a varying pause), until one search saw the write between its two reads; every match fits the
   * page, so an answer is consistent exactly when its count is the length of its page.
   */
  async function searchWhileWriting(
    backend: SqliteBackend,
    query: SearchQuery,
    template: CoreRecord,
  ): Promise<number> {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const repeatedBefore = backend.splitReads.repeated;
    let searches = 0;
    for (; searches < 2000 && backend.splitReads.repeated === repeatedBefore; searches += 1) {
      const found = backend.search(query);
      await pause(searches % 3);
      if (searches % 2 === 0) await backend.upsert([{ ...template, id: 'split-moving' }]);
      else await backend.delete(['split-moving']);
      const { total, records } = await found;
      expect(total, `search ${searches}`).to.equal(records.length);
      expect(total, `search ${searches}`).to.be.within(5, 6);
    }
    expect(
      backend.splitReads.repeated - repeatedBefore,
      `a write between the reads in ${searches} searches`,
    ).to.equal(1);
    return searches;
  }

  it('reads a count and its page on two idle connections at once, and again together when a write came between them', async function () {
    this.timeout(60_000);
    const backend = new SqliteBackend({ path: join(directory, 'split.sqlite'), readWorkers: 2 });
    try {
      await backend.init();
      const template = templateRecord();
      await backend.upsert(
        Array.from({ length: 5 }, (_, n) => ({ ...template, id: `split-${n}` })),
      );
      const query: SearchQuery = { sort: [], offset: 0, limit: 100 };
      const searches = await searchWhileWriting(backend, query, template);
      expect(backend.splitReads.split, 'read apart').to.be.at.least(searches);
      // A busy pool reads both in one transaction: four searches at once on two workers.
      const splitBefore = backend.splitReads.split;
      const together = await Promise.all([1, 2, 3, 4].map(() => backend.search(query)));
      for (const { total, records } of together) expect(total).to.equal(records.length);
      expect(backend.splitReads.split - splitBefore, 'read apart while busy').to.be.below(4);
    } finally {
      await backend.close();
    }
  });

  it('counts an R*Tree-driven search with a cheap page in two halves on two connections: the same count and page as one connection, for every shape of condition', async function () {
    this.timeout(120_000);
    const path = join(directory, 'halves.sqlite');
    const pooled = new SqliteBackend({ path, readWorkers: 2 });
    try {
      await pooled.init();
      const parsed = parseDocuments(JSON.stringify([...generateRecords(3000, 17)]));
      expect(parsed.failures).to.deep.equal([]);
      await pooled.upsert(parsed.records);
      const alone = new SqliteBackend({ path });
      // Each with whether its count is halved (a bbox alone is counted on the R*Tree alone).
      const cases: [Record<string, string>, boolean][] = [
        [{ bbox: '-10,40,20,60' }, false],
        [{ bbox: '-10,40,20,60', datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z' }, true],
        // Two query boxes (across the antimeridian), OR-joined in the R*Tree prefilter.
        [{ bbox: '150,-60,-150,60', datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z' }, true],
        [
          {
            filter:
              "S_INTERSECTS(geometry, BBOX(-10,40,20,60)) AND T_INTERSECTS(INTERVAL(start_datetime,end_datetime), INTERVAL('2000-01-01T00:00:00Z','2015-12-31T23:59:59Z'))",
          },
          true,
        ],
        // The prefilter under NOT and OR: records outside it count too.
        [{ filter: "NOT S_INTERSECTS(geometry, BBOX(-10,40,20,60)) OR type = 'series'" }, true],
        [
          {
            filter:
              'S_WITHIN(geometry, BBOX(-60,-60,60,60)) OR S_INTERSECTS(geometry, BBOX(100,0,120,20))',
          },
          true,
        ],
        [
          {
            bbox: '-10,40,20,60',
            datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z',
            sortby: '-updated',
          },
          true,
        ],
        // Free text: its relevance page is read beside the count, which is not halved.
        [{ q: 'soil', bbox: '-10,40,20,60' }, false],
        // No R*Tree prefilter: the count is not halved.
        [{ datetime: '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z' }, false],
      ];
      const limits = { defaultLimit: 10, maxLimit: 10_000 };
      for (const [parameters, halved] of cases) {
        const query = parseItemsQuery({ ...parameters, limit: '10' }, limits);
        const halvedBefore = pooled.splitReads.halved;
        const split = await pooled.search(query);
        const whole = await alone.search(query);
        const label = JSON.stringify(parameters);
        expect(pooled.splitReads.halved - halvedBefore, `${label} halved`).to.equal(halved ? 1 : 0);
        expect(split.total, label).to.equal(whole.total);
        expect(
          split.records.map((record) => record.id),
          label,
        ).to.deep.equal(whole.records.map((record) => record.id));
        expect(whole.total, `${label} matches some but not all`).to.be.within(1, 2999);
      }
      await alone.close();
    } finally {
      await pooled.close();
    }
  });

  it('reads a page whose plan depends on its count again with the count when a write came between them', async function () {
    this.timeout(60_000);
    const backend = new SqliteBackend({ path: join(directory, 'probe.sqlite'), readWorkers: 2 });
    try {
      await backend.init();
      const template = templateRecord();
      expect(template.time, 'the template has a time').to.be.an('object');
      await backend.upsert(
        Array.from({ length: 5 }, (_, n) => ({ ...template, id: `probe-${n}` })),
      );
      // A time range sorted on an indexed column: the page's plan is chosen on the count.
      const query: SearchQuery = {
        temporal: {
          start: '1900-01-01T00:00:00Z',
          end: '2100-01-01T00:00:00Z',
          relation: 'intersects',
        },
        sort: [{ field: 'updated', direction: 'desc' }],
        offset: 0,
        limit: 100,
      };
      const split = backend.splitReads.split;
      await searchWhileWriting(backend, query, template);
      expect(backend.splitReads.split, 'this path never reads at once').to.equal(split);
      // With a box too, the count is read in halves (compileSearch's countHalves) before the
      // page: a write between the halves, or between the count and the page, is caught too.
      const halved = backend.splitReads.halved;
      await searchWhileWriting(
        backend,
        { ...query, spatial: { bbox: [-180, -90, 180, 90], relation: 'intersects' } },
        template,
      );
      expect(backend.splitReads.halved, 'counted in halves').to.be.above(halved);
    } finally {
      await backend.close();
    }
  });

  for (const readWorkers of [0, 1]) {
    it(`holds the reads of one request to its one deadline (${readWorkers} read workers)`, async () => {
      const backend = new SqliteBackend({
        path: join(directory, `deadline-${readWorkers}.sqlite`),
        readWorkers,
        timeBudgetMs: 60_000,
      });
      try {
        await backend.init();
        await backend.upsert(parseDocuments(JSON.stringify(CONTRACT_RECORDS)).records);
        const query = { sort: [], offset: 0, limit: 2 };
        // A request whose deadline (its first search started it) has passed: its next read,
        // a facet count or a page, is refused unrun, naming the request's budget.
        const scope = new SearchScope();
        scope.startDeadline(50);
        expect((await backend.search(query, { scope })).total).to.equal(6);
        await new Promise((resolve) => setTimeout(resolve, 80));
        const page = await backend.search(query, { scope }).catch((error: unknown) => error);
        expect(page).to.be.instanceOf(QueryTimeoutError);
        expect((page as Error).message).to.contain('50 ms');
        const facet = await backend
          .domain('type', { query, scope })
          .catch((error: unknown) => error);
        expect(facet).to.be.instanceOf(QueryTimeoutError);
        // Another request has a deadline of its own (the backend's budget).
        expect((await backend.search(query)).total).to.equal(6);
      } finally {
        await backend.close();
      }
    });
  }

  it('reads in-process for a :memory: database whatever the setting', async () => {
    const backend = new SqliteBackend({ path: ':memory:', readWorkers: 2 });
    try {
      await backend.init();
      await backend.upsert(parseDocuments(JSON.stringify(CONTRACT_RECORDS)).records);
      expect((await backend.search({ sort: [], offset: 0, limit: 1 })).total).to.equal(6);
    } finally {
      await backend.close();
    }
  });

  /**
   * Runs, in a child process started with `preloads` after tsx, a script that opens a backend on
   * `readWorkers` threads, searches once and closes; expects it to print the count and exit by
   * itself within 30 s, with nothing on stderr.
   */
  function expectChildSearchExits(name: string, readWorkers: number, preloads: string[] = []) {
    const path = join(directory, `${name}.sqlite`);
    const script = join(directory, `${name}-script.mts`);
    const backendModule = join(REPO_ROOT, 'shared/search/sqlite/sqlite-backend.ts');
    writeFileSync(
      script,
      `
      import { SqliteBackend } from ${JSON.stringify(backendModule)};
      const backend = new SqliteBackend({ path: ${JSON.stringify(path)}, readWorkers: ${readWorkers} });
      await backend.init();
      const result = await backend.search({ sort: [], offset: 0, limit: 1 });
      await backend.close();
      console.log('total', result.total);
    `,
    );
    const imports = ['tsx', ...preloads].flatMap((module) => ['--import', module]);
    const child = spawnSync(process.execPath, [...imports, script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.error, 'the process did not exit within 30 s').to.equal(undefined);
    expect(child.stderr).to.equal('');
    expect(child.stdout.trim()).to.equal('total 0');
    expect(child.status).to.equal(0);
  }

  it('leaves no thread behind: a process that searched and closed exits by itself', () => {
    expectChildSearchExits('exit', 2);
  });

  it('starts its threads in a process preloading a TypeScript hook with --import (as the soak runs the API)', () => {
    const hook = join(directory, 'preload-hook.ts');
    writeFileSync(hook, 'const loaded: string = "hook";\nexport default loaded;\n');
    expectChildSearchExits('preload', 1, [hook]);
  });
});
