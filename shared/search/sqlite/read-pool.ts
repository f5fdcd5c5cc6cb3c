/**
 * A pool of read-only SQLite connections, one per worker thread (read-worker.ts), so that
 * searches use every core and the event loop only parses, presents and writes. Reads are
 * served in arrival order: one queue, each task to the next idle worker, and a bound on how many
 * may wait (beyond it a 503 asks the client to come back). The time budget counts from a task's
 * arrival for the wait: a task still waiting when it is spent is refused unrun (503, busy). A
 * task a worker takes gets the whole budget to run, as on the event loop, so that a query is
 * cancelled (QUERY_TIMEOUT, "narrow it") only for its own cost, and no worker time goes on a
 * query that the rest of a half-spent budget could not finish anyway.
 *
 * What crosses the thread boundary is generic — statement texts and parameters in, rows out —
 * so the pool knows nothing of how a query is compiled. A worker that dies fails its task (500)
 * and is replaced; close() terminates them all.
 */
import type { Worker } from 'node:worker_threads';
import { InternalError, QueryTimeoutError, ServiceUnavailableError } from '../../errors/index.js';
import { startSiblingWorker } from '../../threads/start-worker.js';
import type { SqlValue } from './compile-query.js';

/** How a statement's rows come back: the first row as an object, every row as objects, or as arrays. */
export type ReadMode = 'get' | 'all' | 'raw';

export interface ReadStatement {
  sql: string;
  params: readonly SqlValue[];
  mode: ReadMode;
}

/** One task for a worker: its statements run in one read transaction. */
export interface ReadTask {
  id: number;
  statements: readonly ReadStatement[];
  /** Epoch milliseconds after which the task is cancelled; unset: no budget. */
  deadlineAt?: number | undefined;
}

export type ReadTaskResult =
  | { id: number; results: unknown[]; error?: undefined }
  | { id: number; error: { kind: 'timeout' } | { kind: 'driver' | 'cairn'; message: string } };

export interface ReadWorkerData {
  path: string;
}

/** A driver error raised in a worker, carried back by its message only (see wrapDriverError). */
export class ReadDriverError extends Error {}

export interface ReadPoolOptions {
  /** The catalogue file (it must exist: the writing connection creates it first). */
  path: string;
  /** Worker threads (at least 1). */
  size: number;
  /** Tasks that may wait for a worker; one more is refused with a 503. */
  queueLimit: number;
}

export interface ReadOptions {
  /** Epoch milliseconds (arrival + budget) after which a waiting task is refused unrun. */
  deadlineAt?: number | undefined;
  /** Milliseconds the statements may run once a worker takes them; unset: no budget. */
  budgetMs?: number | undefined;
  /** The budget a refusal names (QUERY_TIME_BUDGET_MS), when `budgetMs` is what is left of it. */
  reportedBudgetMs?: number | undefined;
}

interface Pending {
  statements: readonly ReadStatement[];
  options: ReadOptions;
  resolve: (results: unknown[]) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** The thread has exited: no task goes to it until its replacement takes the slot. */
  exited?: boolean;
  busy?: Pending | undefined;
}

/** Seconds a client is asked to wait when the queue is full. */
const BUSY_RETRY_AFTER_SECONDS = 1;
/** Wait before replacing a worker that could not start, so that a broken file is not a busy loop. */
const RESTART_DELAY_MS = 1000;

/** Starts a read worker (start-worker.ts: from dist, or the TypeScript source under tsx). */
function startReadWorker(path: string): Worker {
  const workerData: ReadWorkerData = { path };
  return startSiblingWorker(import.meta.url, 'read-worker', workerData);
}

export class SqliteReadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly starting: Promise<void>[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: ReadPoolOptions) {
    for (let index = 0; index < Math.max(1, options.size); index += 1) {
      const started = this.start(index);
      // Observed by ready(); a pool nobody waits for must not end the process on a failed start.
      started.catch(() => undefined);
      this.starting.push(started);
    }
  }

  /** The worker threads, for tests that provoke a crash. */
  get workers(): readonly Worker[] {
    return this.slots.map((slot) => slot.worker);
  }

  /** Workers that would take a task at once: started, not busy, and nothing waiting before it. */
  get idle(): number {
    if (this.queue.length > 0 || this.closed) return 0;
    return this.slots.filter((slot) => slot.ready && !slot.busy && !slot.exited).length;
  }

  /** Tasks waiting for a worker. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves once every worker has opened the file; rejects when one could not. */
  async ready(): Promise<void> {
    await Promise.all(this.starting);
  }

  /** Runs statements on the next idle worker, after every task that arrived before them. */
  run(statements: readonly ReadStatement[], options: ReadOptions = {}): Promise<unknown[]> {
    if (this.closed) {
      return Promise.reject(new ServiceUnavailableError('The catalogue is shutting down'));
    }
    if (this.queue.length >= this.options.queueLimit) {
      return Promise.reject(
        new ServiceUnavailableError(
          `The catalogue is busy: ${this.queue.length} searches are waiting (SQLITE_READ_QUEUE_LIMIT); try again shortly`,
          { retryAfter: BUSY_RETRY_AFTER_SECONDS },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ statements, options, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stopped = new ServiceUnavailableError('The catalogue is shutting down');
    for (const pending of this.queue.splice(0)) pending.reject(stopped);
    for (const slot of this.slots) slot.busy?.reject(stopped);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private start(index: number): Promise<void> {
    return new Promise((resolveStart, rejectStart) => {
      const worker = startReadWorker(this.options.path);
      const slot: Slot = { worker, ready: false };
      this.slots[index] = slot;
      let failure: Error | undefined;
      worker.on('message', (message: ReadTaskResult | { ready: true }) => {
        if ('ready' in message) {
          slot.ready = true;
          if (!slot.busy) worker.unref();
          resolveStart();
          return;
        }
        const pending = slot.busy;
        slot.busy = undefined;
        if (pending) this.settle(pending, message);
        if (!this.closed) this.dispatch();
        // An idle pool does not keep the process alive; a worker with a task does.
        if (!slot.busy) worker.unref();
      });
      worker.on('error', (error) => (failure = error));
      worker.on('exit', (code) => {
        if (this.closed || this.slots[index] !== slot) return;
        slot.exited = true;
        const cause = failure ?? new Error(`exit code ${code}`);
        slot.busy?.reject(
          new InternalError('A SQLite read worker stopped while running a search', { cause }),
        );
        slot.busy = undefined;
        if (!slot.ready) {
          rejectStart(new InternalError('A SQLite read worker could not start', { cause }));
          for (const pending of this.queue.splice(0)) {
            pending.reject(
              new ServiceUnavailableError('The catalogue database cannot be read', { cause }),
            );
          }
          setTimeout(() => {
            if (!this.closed) this.start(index).catch(() => undefined);
          }, RESTART_DELAY_MS).unref();
          return;
        }
        this.start(index).catch(() => undefined);
        this.dispatch();
      });
    });
  }

  /** Hands waiting tasks, oldest first, to idle workers. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || slot.exited) continue;
      const pending = this.nextRunnable();
      if (!pending) return;
      slot.busy = pending;
      slot.worker.ref();
      const { budgetMs } = pending.options;
      const task: ReadTask = {
        id: this.nextId++,
        statements: pending.statements,
        deadlineAt: budgetMs === undefined ? undefined : Date.now() + budgetMs,
      };
      slot.worker.postMessage(task);
    }
  }

  /**
   * The oldest waiting task whose budget is not spent. One whose whole budget went on waiting
   * fails here, unrun, with a 503 that says the server is busy (not QUERY_TIMEOUT's "narrow
   * it": the query itself may be cheap).
   */
  private nextRunnable(): Pending | undefined {
    for (let pending = this.queue.shift(); pending; pending = this.queue.shift()) {
      const { deadlineAt, budgetMs } = pending.options;
      if (deadlineAt === undefined || Date.now() < deadlineAt) return pending;
      pending.reject(
        new ServiceUnavailableError(
          `The catalogue is busy: the search waited its whole time budget of ${pending.options.reportedBudgetMs ?? budgetMs ?? 0} ms (QUERY_TIME_BUDGET_MS) for a read connection; try again shortly`,
          { retryAfter: BUSY_RETRY_AFTER_SECONDS },
        ),
      );
    }
    return undefined;
  }

  private settle(pending: Pending, result: ReadTaskResult): void {
    if (result.error === undefined) pending.resolve(result.results);
    else if (result.error.kind === 'timeout') {
      const { reportedBudgetMs, budgetMs } = pending.options;
      pending.reject(new QueryTimeoutError(reportedBudgetMs ?? budgetMs ?? 0));
    } else pending.reject(new ReadDriverError(result.error.message));
  }
}
