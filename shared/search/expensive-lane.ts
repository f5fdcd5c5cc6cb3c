/**
 * The places for expensive searches (shared/query/search-lanes.ts) in one process: at most
 * `concurrency` at once, and at most `perClient` for one client. There is no queue: a search
 * beyond either bound is refused at once with a 503 and Retry-After, so a client that sends
 * many expensive searches holds a few places, never the server, and a cheap search (which
 * takes no place) never waits behind expensive ones.
 *
 * A bound on places alone lets a client that sends many expensive searches at once keep its
 * place busy all the time: one is admitted the moment the last is answered. So a client
 * refused for its own bound (it sent more at once than it may) is held, for `crowdingWindowMs`
 * after its last such refusal, to `clientShare` of the time: after an expensive search that
 * ran t, it rests t × (1 − share) / share, and its next expensive search waits the rest out
 * (when the rest ends within `maxRestWaitMs` and the request's deadline) or is refused with
 * the rest as Retry-After. A client that sends one expensive search at a time (a person, a
 * harvester, a conformance suite) is never refused for its own bound, so never rests.
 *
 * The place is the request's, not the call's: the calls of one request (a search and its facet
 * counts) share one place, taken by the first that needs it and given back when the last of
 * them ends (normally, with an error, or when the request is aborted).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '../errors/index.js';
import type { ExpensiveReason } from '../query/search-lanes.js';
import type { SearchScope } from './search-scope.js';

export interface ExpensiveLaneOptions {
  /** Expensive searches running at once in this process (QUERY_EXPENSIVE_CONCURRENCY). */
  concurrency: number;
  /** Expensive searches of one client running at once (QUERY_EXPENSIVE_PER_CLIENT). */
  perClient: number;
  /** Seconds a refused client is asked to wait (Retry-After). */
  retryAfterSeconds: number;
  /**
   * The share of the time one client's expensive searches may take (QUERY_EXPENSIVE_CLIENT_SHARE,
   * 0 < share ≤ 1; 1: no rest). Default 1.
   */
  clientShare?: number;
  /** The longest a request waits out its client's rest before it is refused instead. */
  maxRestWaitMs?: number;
  /** How long a client refused for its own bound is held to its share. Default 10 s. */
  crowdingWindowMs?: number;
  /** Clients whose rest is remembered; beyond it the oldest rest is forgotten. Default 100,000. */
  maxResting?: number;
  /** The clock, in milliseconds (tests give their own). */
  now?: () => number;
  /** Told of every refusal: the bound that refused it. */
  onRefused?: (bound: 'process' | 'client') => void;
  /** Told of every place taken, with why the search is expensive. */
  onAdmitted?: (reasons: readonly ExpensiveReason[]) => void;
}

/** The refusal of a search for which the lane has no place (503, Retry-After). */
export class ExpensiveLaneFullError extends ServiceUnavailableError {}

/** A place held for a request, shared by its calls. */
interface Hold {
  client: string | undefined;
  calls: number;
  /** When the place was taken (the clock's milliseconds). */
  since: number;
  /** Gives the client's place back (once): at the request's end, or after its last call. */
  freeClient?: () => void;
}

export class ExpensiveLane {
  private running = 0;
  private readonly byClient = new Map<string, number>();
  private readonly holds = new WeakMap<SearchScope, Hold>();
  /** The admissions of requests waiting out their client's rest, joined by their other calls. */
  private readonly waiting = new WeakMap<SearchScope, Promise<Hold>>();
  /** Until when each client rests (clock milliseconds), in the order the rests were set. */
  private readonly restingUntil = new Map<string, number>();
  /** Until when each client refused for its own bound is held to its share. */
  private readonly crowdingUntil = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: ExpensiveLaneOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Expensive requests holding a place now. */
  get inFlight(): number {
    return this.running;
  }

  /** The places `client` holds now. */
  heldBy(client: string): number {
    return this.byClient.get(client) ?? 0;
  }

  /**
   * Takes a place for the request of `scope` (or for one call, without a scope), or joins the
   * place its request holds (or is waiting for) already; resolves to the function that gives
   * it back (once). A client still resting (clientShare) first waits out its rest, holding its
   * own place meanwhile but none of the process's, when the rest ends within `maxRestWaitMs`
   * and the request's deadline. Rejects with ExpensiveLaneFullError (503, Retry-After) when no
   * place is free or the rest is longer, and aborts the request's other calls with it.
   */
  enter(scope: SearchScope | undefined, reasons: readonly ExpensiveReason[]): Promise<() => void> {
    if (scope) {
      const held = this.holds.get(scope);
      if (held) {
        held.calls += 1;
        return Promise.resolve(this.leaver(scope, held));
      }
      const waiting = this.waiting.get(scope);
      if (waiting) {
        return waiting.then((hold) => {
          hold.calls += 1;
          return this.leaver(scope, hold);
        });
      }
    }
    const admission = this.admit(scope, reasons);
    if (scope) {
      this.waiting.set(scope, admission);
      const forget = () => this.waiting.delete(scope);
      admission.then(forget, forget);
    }
    return admission.then((hold) => this.leaver(scope, hold));
  }

  /** Waits out the client's rest if it may, then takes a place or refuses (see enter). */
  private async admit(
    scope: SearchScope | undefined,
    reasons: readonly ExpensiveReason[],
  ): Promise<Hold> {
    const client = scope?.client;
    const { concurrency, perClient, retryAfterSeconds } = this.options;
    const refuse = (
      bound: 'process' | 'client',
      message: string,
      retryAfter = retryAfterSeconds,
    ): never => {
      this.options.onRefused?.(bound);
      const error = new ExpensiveLaneFullError(message, { retryAfter });
      scope?.abort(error);
      throw error;
    };
    if (client !== undefined && this.heldBy(client) >= perClient) {
      this.remember(
        this.crowdingUntil,
        client,
        this.now() + (this.options.crowdingWindowMs ?? 10_000),
      );
      refuse(
        'client',
        `This client already runs ${perClient} expensive ${perClient === 1 ? 'search' : 'searches'} (QUERY_EXPENSIVE_PER_CLIENT); send the next one when an answer has come, or make it cheaper (${describe(reasons)})`,
      );
    }
    const rest = client === undefined ? undefined : this.restingUntil.get(client);
    if (client !== undefined && rest !== undefined) {
      const restMs = rest - this.now();
      if (restMs > 0) {
        const mayWait = Math.min(this.options.maxRestWaitMs ?? 0, scope?.remainingMs() ?? Infinity);
        if (restMs > mayWait) {
          const seconds = Math.ceil(restMs / 1000);
          refuse(
            'client',
            `This client's expensive searches have taken their share of the server's time (QUERY_EXPENSIVE_CLIENT_SHARE: ${this.options.clientShare ?? 1}); send the next one in ${seconds} s, or make it cheaper (${describe(reasons)})`,
            seconds,
          );
        }
        // The waiting request holds the client's place, so that its other requests do not
        // wait beside it.
        this.take(client);
        try {
          await sleep(restMs, undefined, { signal: scope?.signal });
        } catch (error) {
          // Aborted while waiting (its deadline, its client gone, another call refused): the
          // request fails with the scope's reason, as its backend calls would.
          throw scope?.signal.aborted ? (scope.signal.reason as Error) : error;
        } finally {
          this.release(client);
        }
      }
      this.restingUntil.delete(client);
    }
    if (this.running >= concurrency) {
      refuse(
        'process',
        `The server runs as many expensive searches as it allows at once (QUERY_EXPENSIVE_CONCURRENCY: ${concurrency}); try again shortly, or make the search cheaper (${describe(reasons)})`,
      );
    }
    this.running += 1;
    if (client !== undefined) this.take(client);
    this.options.onAdmitted?.(reasons);
    const hold: Hold = { client, calls: 1, since: this.now() };
    if (scope) this.holds.set(scope, hold);
    if (scope && client !== undefined) {
      // The client's place is its request's: once the request is answered or aborted (its
      // scope aborts then), a call still running (a SQLite statement cannot be stopped) holds
      // the process's place only, and the client's next request is not refused for it.
      let freed = false;
      const freeClient = (): void => {
        if (freed) return;
        freed = true;
        scope.signal.removeEventListener('abort', freeClient);
        this.release(client);
      };
      scope.signal.addEventListener('abort', freeClient, { once: true });
      hold.freeClient = freeClient;
    }
    return hold;
  }

  /** One place of the client's taken. */
  private take(client: string): void {
    this.byClient.set(client, this.heldBy(client) + 1);
  }

  /** One place of the client's given back. */
  private release(client: string): void {
    const remaining = this.heldBy(client) - 1;
    if (remaining > 0) this.byClient.set(client, remaining);
    else this.byClient.delete(client);
  }

  /** The function that ends one call's share of a hold, and frees the place after the last. */
  private leaver(scope: SearchScope | undefined, hold: Hold): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      hold.calls -= 1;
      if (hold.calls > 0) return;
      if (scope) this.holds.delete(scope);
      this.running -= 1;
      // A client comes with its request's scope, so its place has a freeClient.
      if (hold.client !== undefined) {
        hold.freeClient?.();
        this.rest(hold.client, hold.since);
      }
    };
  }

  /**
   * Sets the rest of a client held to its share after a search that held a place: its time ×
   * (1 − share) / share.
   */
  private rest(client: string, since: number): void {
    const share = this.options.clientShare ?? 1;
    const now = this.now();
    if (share >= 1 || (this.crowdingUntil.get(client) ?? 0) <= now) return;
    const rest = ((now - since) * (1 - share)) / share;
    if (rest <= 0) return;
    // Rests of searches run side by side add up.
    this.remember(
      this.restingUntil,
      client,
      Math.max(this.restingUntil.get(client) ?? now, now) + rest,
    );
  }

  /**
   * Sets a client's time in one of the bounded maps, at the end of its order. At the bound,
   * times that have passed go first, then the oldest set.
   */
  private remember(times: Map<string, number>, client: string, until: number): void {
    const now = this.now();
    const bound = this.options.maxResting ?? 100_000;
    times.delete(client);
    for (const [other, end] of times) {
      if (times.size < bound && end > now) break;
      times.delete(other);
    }
    times.set(client, until);
  }
}

/** What makes a search expensive, in words for the refusal's message. */
const REASON_WORDS: Record<ExpensiveReason, string> = {
  refinement: 'a filter the search engine cannot decide alone',
  'deep-walk': 'a deep page not reached through a next link',
  'deep-page': 'a sorted page beyond QUERY_EXPENSIVE_OFFSET',
  'sort-keys': 'more sort keys than QUERY_EXPENSIVE_SORT_KEYS',
  wildcards: 'many LIKE patterns with inner wildcards',
  facets:
    'more facets than QUERY_EXPENSIVE_FACETS or facet buckets than QUERY_EXPENSIVE_FACET_BUCKETS',
  'text-words': 'free text of more words than QUERY_EXPENSIVE_TEXT_WORDS',
};

function describe(reasons: readonly ExpensiveReason[]): string {
  return reasons.map((reason) => REASON_WORDS[reason]).join('; ');
}
