/**
 * Starts test/support/serve-catalogue.ts in a child process and measures, from this process,
 * how fast the server answers `/healthz` while another request is being served: the way to
 * tell that one request holds the server's event loop.
 */
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
  /** Milliseconds `/healthz` took, asked while the request was being served. */
  healthzMs: number;
}

/**
 * Sends a request and, once the server has had it for `delayMs`, asks `/healthz`; returns the
 * answer and how long each took.
 */
export async function sendWatchingHealth(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  delayMs = 50,
): Promise<TimedAnswer> {
  const started = performance.now();
  const answer = fetch(`${baseUrl}${path}`, init).then(async (response) => ({
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await response.text(),
    ms: performance.now() - started,
  }));
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const healthStarted = performance.now();
  const health = await fetch(`${baseUrl}/healthz`);
  await health.text();
  const healthzMs = performance.now() - healthStarted;
  return { ...(await answer), healthzMs };
}
