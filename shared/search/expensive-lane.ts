/**
 * The places for expensive searches (shared/query/search-lanes.ts) in one process: at most
 * `concurrency` at once, and at most `perClient` for one client. There is no queue: a search
 * beyond either bound is refused at once with a 503 and Retry-After, so a client that sends
 * many expensive searches holds a few places, never the server, and a cheap search (which
 * takes no place) never waits behind expensive ones.
 *
 * The place is the request's, not the call's: the calls of one request (a search and its facet
 * counts) share one place, taken by the first that needs it and given back when the last of
 * them ends (normally, with an error, or when the request is aborted).
 */
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
}

export class ExpensiveLane {
  private running = 0;
  private readonly byClient = new Map<string, number>();
  private readonly holds = new WeakMap<SearchScope, Hold>();

  constructor(private readonly options: ExpensiveLaneOptions) {}

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
   * place its request holds already; returns the function that gives it back (once). Throws
   * ServiceUnavailableError (503, Retry-After) when no place is free, and aborts the request's
   * other calls with it.
   */
  enter(scope: SearchScope | undefined, reasons: readonly ExpensiveReason[]): () => void {
    const held = scope && this.holds.get(scope);
    if (held) {
      held.calls += 1;
      return this.leaver(scope, held);
    }
    const client = scope?.client;
    const { concurrency, perClient, retryAfterSeconds } = this.options;
    const refuse = (bound: 'process' | 'client', message: string): never => {
      this.options.onRefused?.(bound);
      const error = new ExpensiveLaneFullError(message, { retryAfter: retryAfterSeconds });
      scope?.abort(error);
      throw error;
    };
    if (client !== undefined && this.heldBy(client) >= perClient) {
      refuse(
        'client',
        `This client already runs ${perClient} expensive ${perClient === 1 ? 'search' : 'searches'} (QUERY_EXPENSIVE_PER_CLIENT); send the next one when an answer has come, or make it cheaper (${describe(reasons)})`,
      );
    }
    if (this.running >= concurrency) {
      refuse(
        'process',
        `The server runs as many expensive searches as it allows at once (QUERY_EXPENSIVE_CONCURRENCY: ${concurrency}); try again shortly, or make the search cheaper (${describe(reasons)})`,
      );
    }
    this.running += 1;
    if (client !== undefined) this.byClient.set(client, this.heldBy(client) + 1);
    this.options.onAdmitted?.(reasons);
    const hold: Hold = { client, calls: 1 };
    if (scope) this.holds.set(scope, hold);
    return this.leaver(scope, hold);
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
      if (hold.client !== undefined) {
        const remaining = this.heldBy(hold.client) - 1;
        if (remaining > 0) this.byClient.set(hold.client, remaining);
        else this.byClient.delete(hold.client);
      }
    };
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
