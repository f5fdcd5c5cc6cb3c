/**
 * The one request a backend call serves: who asks (the key the per-client lane limit counts
 * by), and one deadline and abort signal for all the calls the request makes. The API builds one
 * per HTTP request (services/api/middleware/search-scope.ts) and passes it in the search options
 * of every backend call; a call made without one gets a scope of its own from the backend.
 *
 * The deadline is set by the first search of the request (`startDeadline`, the backend's
 * QUERY_TIME_BUDGET_MS), counted from when the request arrived (`startedAt`; without it, from
 * that first search) less the time kept back to send the answer (`reserveMs`), and covers every
 * later call of it: the facet counts beside a page, the
 * walk to a deep page, the candidate batches of a refinement, the count of records in doubt.
 * When it passes, the signal aborts with a QueryTimeoutError: the engine requests in flight are
 * closed (the engines cancel a search whose connection closes), and every call still running
 * fails with that error at once. The signal also aborts when the client goes away, or when
 * one call of the request is refused its lane.
 */
import { QueryTimeoutError } from '../errors/index.js';

export interface SearchScopeOptions {
  /** The client's key (its address as the API sees it); undefined: not counted per client. */
  client?: string | undefined;
  /** Epoch milliseconds the request arrived: its deadline counts from then (default: the first search). */
  startedAt?: number | undefined;
  /**
   * Milliseconds of the budget kept back for rendering and sending the answer after the
   * deadline fires (at most a twentieth of the budget, so that a small budget keeps nearly all of
   * itself for the search), so that the answer itself is not late.
   */
  reserveMs?: number | undefined;
  /**
   * Reads the catalogue generation (shared/search/catalogue-generation.ts); read at most once
   * per request, by the first caller of `generation()`. Unset: none is known.
   */
  readGeneration?: (() => Promise<string | undefined>) | undefined;
}

export class SearchScope {
  readonly client: string | undefined;
  private readonly startedAt: number | undefined;
  private readonly reserveMs: number;
  private readonly readGeneration: (() => Promise<string | undefined>) | undefined;
  private generationRead: Promise<string | undefined> | undefined;
  private readonly controller = new AbortController();
  private deadline: { at: number; budgetMs: number; timer: NodeJS.Timeout } | undefined;

  constructor(options: SearchScopeOptions = {}) {
    this.client = options.client;
    this.startedAt = options.startedAt;
    this.reserveMs = options.reserveMs ?? 0;
    this.readGeneration = options.readGeneration;
  }

  /**
   * The catalogue generation as this request first read it, or undefined when none is known or
   * it could not be read. Read once, so the result cache and a backend's remembered work key
   * what they keep under the same value, read before anything they keep was computed.
   */
  generation(): Promise<string | undefined> {
    if (!this.readGeneration) return Promise.resolve(undefined);
    this.generationRead ??= this.readGeneration().catch(() => undefined);
    return this.generationRead;
  }

  /** Aborts when the deadline passes, the client leaves, or a call of the request is refused. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Epoch milliseconds the request must be answered by; undefined: no deadline (yet). */
  get deadlineAt(): number | undefined {
    return this.deadline?.at;
  }

  /** The budget the deadline was started with. */
  get budgetMs(): number | undefined {
    return this.deadline?.budgetMs;
  }

  /**
   * Starts the deadline `budgetMs` from the request's arrival (or from now), less the reserve,
   * unless it runs already (the first search of the request starts it; later calls share it).
   * Undefined budget: no deadline.
   */
  startDeadline(budgetMs: number | undefined): void {
    if (this.deadline || budgetMs === undefined || this.signal.aborted) return;
    const now = Date.now();
    const at = (this.startedAt ?? now) + budgetMs - Math.min(this.reserveMs, budgetMs / 20);
    const timer = setTimeout(
      () => this.abort(new QueryTimeoutError(budgetMs)),
      Math.max(0, at - now),
    );
    timer.unref();
    this.deadline = { at, budgetMs, timer };
  }

  /** Milliseconds left before the deadline (at least 0); undefined: no deadline. */
  remainingMs(): number | undefined {
    return this.deadline && Math.max(0, this.deadline.at - Date.now());
  }

  /** Throws the abort's reason (QueryTimeoutError when the deadline passed) once aborted. */
  check(): void {
    if (this.signal.aborted) throw this.signal.reason;
    const deadline = this.deadline;
    if (deadline && Date.now() >= deadline.at) {
      this.abort(new QueryTimeoutError(deadline.budgetMs));
      throw this.signal.reason;
    }
  }

  /** Aborts every call of the request with `reason` (the first reason given wins). */
  abort(reason: Error): void {
    this.end();
    if (!this.signal.aborted) this.controller.abort(reason);
  }

  /** The request is over: the deadline's timer is dropped. */
  end(): void {
    if (this.deadline) clearTimeout(this.deadline.timer);
  }
}

/**
 * Runs `call` within the scope given, or within a scope of its own that starts its deadline
 * now and ends with the call (a backend called outside a request).
 */
export async function withinScope<T>(
  scope: SearchScope | undefined,
  budgetMs: number | undefined,
  call: (scope: SearchScope) => Promise<T>,
): Promise<T> {
  const own = scope === undefined;
  const active = scope ?? new SearchScope();
  active.startDeadline(budgetMs);
  try {
    active.check();
    return await call(active);
  } finally {
    if (own) active.end();
  }
}
