/**
 * A small pool of worker threads that run tasks of one kind, in arrival order, one task per
 * thread at a time, following the SQLite read pool's pattern (shared/search/sqlite/read-pool.ts):
 * threads start beside their module (start-worker.ts) and say when they are ready, an idle pool
 * does not keep the process alive, a thread that dies fails its task and is replaced, and
 * close() terminates them all. The threads are started on the first task, so a process that
 * never needs them never pays for them.
 *
 * A worker module answers `{ ready: true }` once, then one `{ id, result }` or
 * `{ id, error }` (a message) per `{ id, payload }` it is sent.
 */
import type { Worker } from 'node:worker_threads';
import { InternalError, ServiceUnavailableError } from '../errors/index.js';
import { startSiblingWorker } from './start-worker.js';

/** What the pool sends a worker. */
export interface PoolTask<P> {
  id: number;
  payload: P;
}

/** What a worker answers. */
export type PoolAnswer<R> = { id: number; result: R } | { id: number; error: string };

export interface TaskPoolOptions {
  /** The worker module's `import.meta.url`-relative location: its caller's URL and name. */
  callerUrl: string;
  name: string;
  /** Threads (at least 1). */
  size: number;
  /** What failures are called in messages ("refinement"). */
  label: string;
}

/** Wait before replacing a thread that could not start. */
const RESTART_DELAY_MS = 1000;

interface Pending<P, R> {
  payload: P;
  resolve: (result: R) => void;
  reject: (error: Error) => void;
}

interface Slot<P, R> {
  worker: Worker;
  ready: boolean;
  busy?: Pending<P, R> | undefined;
}

export class TaskPool<P, R> {
  private readonly slots: Slot<P, R>[] = [];
  private readonly queue: Pending<P, R>[] = [];
  private nextId = 0;
  private closed = false;
  private tasksRun = 0;

  constructor(private readonly options: TaskPoolOptions) {}

  /** Tasks the workers have answered (for tests and metrics). */
  get completed(): number {
    return this.tasksRun;
  }

  /** Runs a task on the next free thread; with `signal`, stops waiting when it aborts. */
  run(payload: P, signal?: AbortSignal): Promise<R> {
    if (this.closed) {
      return Promise.reject(new ServiceUnavailableError('The catalogue is shutting down'));
    }
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.slots.length === 0) this.startAll();
    return new Promise<R>((resolve, reject) => {
      const pending: Pending<P, R> = { payload, resolve, reject };
      const abort = (): void => {
        // A waiting task leaves the queue; a running one finishes in its thread, unread.
        const index = this.queue.indexOf(pending);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', abort, { once: true });
      pending.resolve = (result) => {
        signal?.removeEventListener('abort', abort);
        resolve(result);
      };
      pending.reject = (error) => {
        signal?.removeEventListener('abort', abort);
        reject(error);
      };
      this.queue.push(pending);
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

  private startAll(): void {
    for (let index = 0; index < Math.max(1, this.options.size); index += 1) this.start(index);
  }

  private start(index: number): void {
    const worker = startSiblingWorker(this.options.callerUrl, this.options.name);
    const slot: Slot<P, R> = { worker, ready: false };
    this.slots[index] = slot;
    let failure: Error | undefined;
    worker.on('message', (message: PoolAnswer<R> | { ready: true }) => {
      if ('ready' in message) {
        slot.ready = true;
        if (!slot.busy) worker.unref();
        this.dispatch();
        return;
      }
      const pending = slot.busy;
      slot.busy = undefined;
      this.tasksRun += 1;
      if (pending) {
        if ('error' in message) {
          pending.reject(new InternalError(`The ${this.options.label} failed: ${message.error}`));
        } else pending.resolve(message.result);
      }
      if (!this.closed) this.dispatch();
      if (!slot.busy) worker.unref();
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => {
      if (this.closed || this.slots[index] !== slot) return;
      const cause = failure ?? new Error(`exit code ${code}`);
      slot.busy?.reject(
        new InternalError(`A ${this.options.label} thread stopped while running a task`, {
          cause,
        }),
      );
      slot.busy = undefined;
      if (!slot.ready) {
        for (const pending of this.queue.splice(0)) {
          pending.reject(
            new InternalError(`A ${this.options.label} thread could not start`, { cause }),
          );
        }
        // Not at once: a thread that cannot start must not become a busy loop.
        setTimeout(() => {
          if (!this.closed) this.start(index);
        }, RESTART_DELAY_MS).unref();
        return;
      }
      this.start(index);
    });
  }

  /** Hands waiting tasks, oldest first, to idle ready threads. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || !slot.ready) continue;
      const pending = this.queue.shift()!;
      slot.busy = pending;
      slot.worker.ref();
      const task: PoolTask<P> = { id: this.nextId++, payload: pending.payload };
      slot.worker.postMessage(task);
    }
  }
}
