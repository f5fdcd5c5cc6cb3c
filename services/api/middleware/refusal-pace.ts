/**
 * Refusals at a client's pace. A request the door refuses for what it would cost (a query over
 * a QUERY_MAX_* limit, a search for which the expensive lane has no place, a body or URL over
 * its size limit) is answered at once, as long as its client has not been refused more than
 * REFUSAL_PACE_BURST times at more than REFUSAL_PACE_PER_SECOND a second. Beyond that pace,
 * the refusal is held for the time that brings the client back to it (at most
 * REFUSAL_PACE_MAX_DELAY_MS), then answered as before. A client that follows Retry-After or
 * fixes its request never notices; a client that loops on refused requests without pause gets
 * its answers at the pace, so answering its refusals cannot take the CPU the other clients'
 * searches need. Answers that are not refusals are never held.
 *
 * The pace is the generic cell rate algorithm: each client has a theoretical arrival time, the
 * moment by which its refusals so far would have been spread at the pace; a refusal more than
 * the burst ahead of it waits. Clients are told apart as the expensive lane does
 * (`request.ip`). The state is this process's: with several API processes a client gets the
 * pace on each, as it gets its lane places on each (docs/operations.md).
 */
import type { NextFunction, Request, Response } from 'express';
import { QueryLimitError } from '../../../shared/errors/index.js';
import { ExpensiveLaneFullError } from '../../../shared/search/expensive-lane.js';

export interface RefusalPaceOptions {
  /** Refusals a second a client may receive at once (REFUSAL_PACE_PER_SECOND; 0: no pace). */
  perSecond: number;
  /** Refusals a client may receive at once above the pace (REFUSAL_PACE_BURST). */
  burst: number;
  /** The longest a refusal is held (REFUSAL_PACE_MAX_DELAY_MS). */
  maxDelayMs: number;
  /** Refusals held at once in this process; beyond it a refusal is answered at once. */
  maxHeld: number;
  /** Clients whose pace is followed at once; a further client is not paced until some recover. */
  maxClients: number;
}

/** The pacing of one process's refusals, per client (see the file comment). Pure but for its map. */
export class RefusalPace {
  /** Each paced client's theoretical arrival time (ms): later than now while it is ahead. */
  private readonly arrivals = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly toleranceMs: number;

  constructor(private readonly options: RefusalPaceOptions) {
    this.intervalMs = options.perSecond > 0 ? 1000 / options.perSecond : 0;
    this.toleranceMs = Math.max(0, options.burst - 1) * this.intervalMs;
  }

  /** Clients whose pace is followed now. */
  get clients(): number {
    return this.arrivals.size;
  }

  /**
   * Counts one refusal of `client` at `now` (ms) and says how long to hold it: 0 within the
   * pace and its burst, else the time until the client is back within them, at most
   * `maxDelayMs`.
   */
  delayFor(client: string | undefined, now: number): number {
    if (this.intervalMs === 0 || client === undefined) return 0;
    const previous = this.arrivals.get(client);
    if (previous === undefined && this.arrivals.size >= this.options.maxClients) {
      this.forgetRecovered(now);
      if (this.arrivals.size >= this.options.maxClients) return 0;
    }
    const arrival = Math.max(previous ?? now, now);
    const ahead = arrival - now - this.toleranceMs;
    const delay = Math.min(Math.max(0, ahead), this.options.maxDelayMs);
    // A client held the longest does not run further ahead: its pace restarts from there.
    const next =
      ahead > this.options.maxDelayMs
        ? now + this.toleranceMs + this.options.maxDelayMs + this.intervalMs
        : arrival + this.intervalMs;
    this.arrivals.set(client, next);
    return delay;
  }

  /** Drops the clients whose refusals are all within the pace again. */
  forgetRecovered(now: number): void {
    for (const [client, arrival] of this.arrivals) {
      if (arrival <= now) this.arrivals.delete(client);
    }
  }
}

/** Whether an error is a refusal for what the request would cost (the paced kind). */
export function isCostRefusal(error: unknown): boolean {
  if (error instanceof QueryLimitError || error instanceof ExpensiveLaneFullError) return true;
  const status = (error as { status?: unknown } | null)?.status;
  return status === 413 || status === 414;
}

/**
 * An error handler, placed before the renderers: holds a cost refusal for the delay its
 * client's pace gives (then passes it on unchanged), and passes every other error on at once.
 */
export function paceRefusals(
  pace: RefusalPace,
  options: Pick<RefusalPaceOptions, 'maxHeld'> & { onHeld?: () => void },
): (error: unknown, request: Request, response: Response, next: NextFunction) => void {
  let held = 0;
  return (error, request, _response, next) => {
    if (!isCostRefusal(error)) return next(error);
    const delay = pace.delayFor(request.ip, Date.now());
    if (delay === 0 || held >= options.maxHeld) return next(error);
    held += 1;
    options.onHeld?.();
    setTimeout(() => {
      held -= 1;
      next(error);
    }, delay);
  };
}
