/**
 * The API and the worker as real child processes (`services/api/main.ts`,
 * `services/worker/main.ts`), so that a fault test sees what an operator sees: a process that
 * keeps running (or crashes), its exit code, and its log. Each process gets exactly the
 * environment the test gives it; nothing is inherited from the shell's Cairn settings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { findFreePort } from '../../../scripts/bench/api-process.js';

/** Configuration variables a test process must not inherit from the shell. */
const CAIRN_VARIABLES =
  /^(ELASTICSEARCH_URL|OPENSEARCH_URL|REDIS_URL|SQLITE_PATH|AUTH_|WORKER_|SEARCH_)/;

/** A running Cairn process with its log file. */
export class CairnProcess {
  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logPath: string,
  ) {}

  /** Starts `node --import tsx <entry>` with the given environment, logging to `logPath`. */
  static start(name: string, entry: string, environment: Record<string, string>, logPath: string) {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !CAIRN_VARIABLES.test(key)),
    );
    const log = openSync(logPath, 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: { ...inherited, LOG_LEVEL: 'info', ...environment },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    return new CairnProcess(name, child, logPath);
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines of the process's log, for failure messages. */
  logTail(lines = 40): string {
    try {
      return readFileSync(this.logPath, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Sends a signal and waits for the exit; resolves with the exit code (null after a signal). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.running) return this.child.exitCode;
    const exited = once(this.child, 'exit') as Promise<[number | null]>;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    const [code] = await exited;
    clearTimeout(timer);
    return code;
  }
}

/** An API process listening on a free loopback port. */
export interface ApiHandle {
  process: CairnProcess;
  origin: string;
}

/** Starts the API and waits until /readyz answers 200 (its backend is reachable). */
export async function startApiProcess(
  environment: Record<string, string>,
  logPath: string,
  timeoutMs = 120_000,
): Promise<ApiHandle> {
  const port = await findFreePort();
  const api = CairnProcess.start(
    'api',
    'services/api/main.ts',
    { ...environment, HOST: '127.0.0.1', PORT: String(port) },
    logPath,
  );
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!api.running) throw new Error(`the API exited while starting:\n${api.logTail()}`);
    const ready = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { process: api, origin };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await api.stop('SIGKILL');
  throw new Error(`the API did not become ready within ${timeoutMs} ms:\n${api.logTail()}`);
}

/** Starts the worker process. */
export function startWorkerProcess(
  environment: Record<string, string>,
  logPath: string,
): CairnProcess {
  return CairnProcess.start('worker', 'services/worker/main.ts', environment, logPath);
}
