/**
 * HTTP as the cluster check's clients see it: every request's outcome is kept (status, times,
 * Retry-After, what was wrong), and a 503 with Retry-After is waited out and sent again, as a
 * well-behaved client does.
 */
import type { RequestOutcome } from './checks.js';

/** A request gets this long to answer; beyond it the outcome is a failure (a hang). */
const CLIENT_TIMEOUT_MS = 60_000;

export interface Answer {
  status: number;
  text: string;
  response?: Response;
  outcome: RequestOutcome;
}

/** Reads a positive integer Retry-After, or undefined. */
export function retryAfterSeconds(value: string | null): number | undefined {
  return value !== null && /^[1-9]\d*$/.test(value) ? Number(value) : undefined;
}

/** The socket error under a failed fetch ("fetch failed" alone says little). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message ?? JSON.stringify(cause)})` : '';
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export class Recorder {
  readonly outcomes: RequestOutcome[] = [];

  /**
   * Sends one request and records its outcome. `check` returns a problem with a normal (2xx)
   * answer, or undefined when it is right.
   */
  async send(
    client: string,
    url: string,
    init: RequestInit,
    check: (answer: Answer) => string | undefined = () => undefined,
  ): Promise<Answer> {
    const sentAt = Date.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      text = await response.text();
    } catch (error) {
      const outcome: RequestOutcome = {
        client,
        status: 0,
        sentAt,
        doneAt: Date.now(),
        problem: `no answer: ${(error as Error).message}${causeOf(error)}`,
      };
      this.outcomes.push(outcome);
      return { status: 0, text: '', outcome };
    }
    const outcome: RequestOutcome = { client, status: response.status, sentAt, doneAt: Date.now() };
    const answer: Answer = { status: response.status, text, response, outcome };
    if (answer.status === 503) {
      outcome.retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      if (outcome.retryAfter === undefined)
        outcome.problem = `503 without Retry-After (via ${response.headers.get('server') ?? 'the API'}): ${text.slice(0, 200)}`;
    } else if (answer.status >= 200 && answer.status < 300) {
      try {
        outcome.problem = check(answer);
      } catch (error) {
        outcome.problem = `unreadable answer: ${(error as Error).message}`;
      }
    } else {
      outcome.problem = `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`;
    }
    this.outcomes.push(outcome);
    return answer;
  }

  /**
   * Sends until the answer is not a 503 (waiting Retry-After, or 2 s without one) or
   * `attempts` ran out; other failures are sent again after a second, up to the same limit.
   */
  async sendUntilAnswered(
    client: string,
    url: string,
    init: () => RequestInit,
    check?: (answer: Answer) => string | undefined,
    attempts = 60,
  ): Promise<Answer> {
    for (let attempt = 1; ; attempt += 1) {
      const answer = await this.send(client, url, init(), check);
      const { outcome } = answer;
      if ((answer.status >= 200 && answer.status < 300 && !outcome.problem) || attempt >= attempts)
        return answer;
      await sleep(answer.status === 503 ? (outcome.retryAfter ?? 2) * 1000 : 1000);
    }
  }
}
