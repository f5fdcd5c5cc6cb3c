/**
 * Starts test/support/serve-catalogue.ts in a child process and measures, from this process,
 * how fast the server answers `/healthz` while another request is being served: the way to
 * tell that one request holds the server's event loop.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export interface ChildCatalogue {
  baseUrl: string;
  stop: () => Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./serve-catalogue.ts', import.meta.url));

/** Starts the catalogue with `records` generated records and the given settings. */
export async function startChildCatalogue(
  records: number,
  environment: Record<string, string> = {},
): Promise<ChildCatalogue> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, ...environment, CAIRN_TEST_RECORDS: String(records) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the catalogue exited (${code}) before listening`)),
    );
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    baseUrl: url,
    stop: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface TimedAnswer {
  status: number;
  contentType: string;
  body: string;
  /** Milliseconds from sending the request to its whole answer. */
  ms: number;
  /** The longest a `/healthz` asked while the request was being served took, in milliseconds. */
  healthzMs: number;
  /**
   * How many `/healthz` answers came back while the request was still unanswered: each was asked
   * after the request was sent and answered before it, so the server served both at once.
   */
  healthzDuring: number;
  /** How many `/healthz` were sent before the request was answered (answered before it or not). */
  healthzSent: number;
}

/**
 * Sends a request and, from `delayMs` after it, asks `/healthz` again and again until the request
 * is answered; returns the answer, how long it took, the slowest `/healthz` and how many were
 * sent while the request was in flight (the overlap a caller asserts, see expectServerFree).
 */
export async function sendWatchingHealth(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  delayMs = 0,
): Promise<TimedAnswer> {
  const started = performance.now();
  let answered = false;
  const answer = fetch(`${baseUrl}${path}`, init)
    .then(async (response) => ({
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
      ms: performance.now() - started,
    }))
    .finally(() => {
      answered = true;
    });
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  let healthzMs = 0;
  let healthzDuring = 0;
  let healthzSent = 0;
  do {
    // A /healthz sent before the answer came was in flight while the request was served, even
    // when the answer overtakes it: it waited for whatever held the loop then.
    const sentInFlight = !answered;
    const healthStarted = performance.now();
    const health = await fetch(`${baseUrl}/healthz`);
    await health.text();
    healthzMs = Math.max(healthzMs, performance.now() - healthStarted);
    if (sentInFlight) healthzSent += 1;
    if (!answered) healthzDuring += 1;
  } while (!answered);
  return { ...(await answer), healthzMs, healthzDuring, healthzSent };
}

/**
 * Asserts that the request held the server's event loop for less than `limitMs`: a `/healthz`
 * answered while the request was in flight took less than that, or, where none was (a refusal
 * faster than one `/healthz` round trip), the whole answer came within that time, which bounds
 * how long it could have held the loop.
 */
export function expectServerFree(answer: TimedAnswer, limitMs: number): void {
  if (answer.healthzSent > 0) {
    expect(
      answer.healthzMs,
      `/healthz took ${Math.round(answer.healthzMs)} ms while the request was served`,
    ).to.be.below(limitMs);
  } else {
    expect(
      answer.ms,
      `no /healthz overlapped the request, and its answer took ${Math.round(answer.ms)} ms`,
    ).to.be.below(limitMs);
  }
}
