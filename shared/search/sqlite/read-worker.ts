/**
 * Worker-thread half of the SQLite read pool (read-pool.ts): one read-only connection to the
 * catalogue file with the same SQL functions as the writing connection (the time budget's
 * `cairn_deadline()` included) and its own prepared-statement cache. It runs the statements of
 * one task in one read transaction, so that a count and its page see the same snapshot, and
 * posts the rows back.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { CairnError, QueryTimeoutError } from '../../errors/index.js';
import type { ReadTask, ReadTaskResult, ReadWorkerData } from './read-pool.js';
import { StatementDeadline, registerSqlFunctions } from './sql-functions.js';

const STATEMENT_CACHE_SIZE = 256;

const { path } = workerData as ReadWorkerData;
const db = new Database(path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -32768');
db.pragma('temp_store = MEMORY');
const deadline = new StatementDeadline();
registerSqlFunctions(db, deadline);
const cache = new Map<string, Database.Statement>();

function prepareCached(sql: string): Database.Statement {
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(sql, statement);
  }
  return statement;
}

const readAll = db.transaction((task: ReadTask) =>
  task.statements.map(({ sql, params, mode }) => {
    const statement = prepareCached(sql).raw(mode === 'raw');
    return mode === 'get' ? statement.get(...params) : statement.all(...params);
  }),
);

/** Runs a task under what is left of its budget; errors become plain data for the main thread. */
export function runTask(task: ReadTask): ReadTaskResult {
  try {
    const budget = task.deadlineAt === undefined ? undefined : task.deadlineAt - Date.now();
    if (budget !== undefined && budget <= 0) return { id: task.id, error: { kind: 'timeout' } };
    return { id: task.id, results: deadline.run(budget, () => readAll(task)) };
  } catch (error) {
    if (error instanceof QueryTimeoutError) return { id: task.id, error: { kind: 'timeout' } };
    const message = error instanceof Error ? error.message : String(error);
    return {
      id: task.id,
      error: { kind: error instanceof CairnError ? 'cairn' : 'driver', message },
    };
  }
}

parentPort!.on('message', (task: ReadTask) => parentPort!.postMessage(runTask(task)));
parentPort!.postMessage({ ready: true });
