/**
 * Waiting out an unavailable dependency. When the search engine (or another service a job
 * writes to) answers "unavailable", the job is not at fault: it goes back to the queue as a
 * delayed job without spending one of its attempts, so an outage longer than the retry policy
 * loses nothing. The delay doubles while the outage lasts, up to a ceiling, and starts again
 * from the configured backoff after the next job that succeeds.
 */
import { CairnError } from '../../shared/errors/index.js';

/** The longest a job waits between two tries while a dependency stays unavailable. */
export const MAX_UNAVAILABLE_DELAY_MS = 30_000;

/** True for the project's 503 errors (search engine, identity provider, queue unavailable). */
export function isUnavailableError(error: unknown): boolean {
  return error instanceof CairnError && error.status === 503;
}

/** The growing delay of one worker process while a dependency is unavailable. */
export class UnavailableBackoff {
  private failures = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs = MAX_UNAVAILABLE_DELAY_MS,
  ) {}

  /** The delay before the next try, doubling at every consecutive call. */
  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    return delay;
  }

  /** A job succeeded: the dependency is back. */
  reset(): void {
    this.failures = 0;
  }
}
