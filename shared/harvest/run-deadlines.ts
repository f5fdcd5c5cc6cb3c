/**
 * What ends a harvest run that would otherwise go on (a source sending one page every
 * 55 s held a worker slot for weeks): a deadline for the whole run (HARVEST_RUN_TIMEOUT_MS),
 * one for each page (HARVEST_PAGE_TIMEOUT_MS: every request the page takes, authentication
 * included), the caller's own signal (the worker shutting down), and the source itself
 * disappearing (checked before each page is written: deleting a source cancels its run).
 * Every request of the run is sent with `signal()`, so whichever comes first also aborts the
 * request in flight.
 */
import { CairnError } from '../errors/index.js';
import { HarvestSourceError } from './source-client.js';

/** The run's source was deleted (or replaced by a new one of the same id) while it ran. */
export class HarvestCancelledError extends CairnError {
  constructor(id: string) {
    super(
      'HARVEST_CANCELLED',
      409,
      `the harvest of source "${id}" was cancelled: the source was deleted while it ran`,
      true,
    );
  }
}

/** The run was stopped from outside (the worker shutting down); another attempt resumes it. */
export class HarvestInterruptedError extends Error {
  constructor() {
    super('the harvest was interrupted: the worker is shutting down');
    this.name = 'HarvestInterruptedError';
  }
}

export interface RunDeadlineOptions {
  sourceId: string;
  runTimeoutMs: number;
  pageTimeoutMs: number;
  /** Aborted when the run must stop now (worker shutdown); its reason is what the run throws. */
  signal?: AbortSignal | undefined;
}

/** The deadlines of one run (see the module comment). */
export class RunDeadlines {
  private readonly run: AbortSignal;
  private page: AbortSignal;
  private pageTimer?: NodeJS.Timeout;
  private readonly runTimer: NodeJS.Timeout;

  constructor(private readonly options: RunDeadlineOptions) {
    const runOut = new AbortController();
    const timer = setTimeout(
      () =>
        runOut.abort(
          new HarvestSourceError(
            `the harvest of source "${options.sourceId}" took longer than HARVEST_RUN_TIMEOUT_MS (${options.runTimeoutMs} ms) and was stopped`,
            true,
          ),
        ),
      options.runTimeoutMs,
    );
    timer.unref();
    this.runTimer = timer;
    this.run = options.signal ? AbortSignal.any([runOut.signal, options.signal]) : runOut.signal;
    this.run.addEventListener('abort', () => clearTimeout(timer), { once: true });
    this.page = this.run;
  }

  /** The signal every request of the current page is sent with. */
  signal(): AbortSignal {
    return this.page;
  }

  /** Throws why the run must stop, if it must. */
  check(): void {
    if (this.page.aborted) throw this.page.reason;
  }

  /** Stops the run's clock (its timer holds nothing once the run is over). */
  finish(): void {
    clearTimeout(this.runTimer);
    clearTimeout(this.pageTimer);
    this.page = AbortSignal.abort();
  }

  /**
   * The pages of `pages`, each under a fresh page deadline: waiting for a page ends at the
   * first deadline, and `stillThere` (the source re-checked) is asked before each page is
   * handed on.
   */
  async *paced<T>(pages: AsyncIterable<T>, stillThere: () => Promise<boolean>): AsyncIterable<T> {
    const iterator = pages[Symbol.asyncIterator]();
    try {
      for (;;) {
        this.startPage();
        const next = await this.race(iterator.next());
        if (next.done) return;
        this.check();
        if (!(await stillThere())) throw new HarvestCancelledError(this.options.sourceId);
        yield next.value;
      }
    } finally {
      void iterator.return?.()?.catch(() => undefined);
    }
  }

  private startPage(): void {
    const { pageTimeoutMs, sourceId } = this.options;
    const pageOut = new AbortController();
    clearTimeout(this.pageTimer);
    const timer = setTimeout(
      () =>
        pageOut.abort(
          new HarvestSourceError(
            `a page of source "${sourceId}" took longer than HARVEST_PAGE_TIMEOUT_MS (${pageTimeoutMs} ms)`,
            false,
          ),
        ),
      pageTimeoutMs,
    );
    timer.unref();
    this.pageTimer = timer;
    this.page = AbortSignal.any([this.run, pageOut.signal]);
  }

  /** `promise`, or the reason of the first deadline that passes before it settles. */
  private race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.page;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
