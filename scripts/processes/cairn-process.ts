/**
 * The API and the worker as real child processes (`services/api/main.ts`,
 * `services/worker/main.ts`), as an operator runs them: a process that keeps running (or
 * crashes), its exit code, its log file, its memory. Used by the fault suite and the soak.
 * Each process gets exactly the Cairn configuration it is given; none is inherited from the
 * shell.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { findFreePort, readRssMiB } from '../bench/api-process.js';

/** Configuration variables a process must not inherit from the shell. */
const CAIRN_VARIABLES =
  /^(ELASTICSEARCH_URL|OPENSEARCH_URL|REDIS_URL|SQLITE_PATH|AUTH_|WORKER_|SEARCH_)/;

/** Loaded into a process started with `reportMemory`: answers memory requests over IPC. */
const MEMORY_REPORTER = new URL('./report-memory.ts', import.meta.url).href;

/** One memory sample of a process, in MiB. */
export interface MemorySample {
  rssMiB: number;
  /** V8 heap in use and allocated; only for processes started with `reportMemory`. */
  heapUsedMiB?: number;
  heapTotalMiB?: number;
}

export interface StartOptions {
  /** Answer memory requests over an IPC channel (heap figures for `memory()`). */
  reportMemory?: boolean;
}

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** A running Cairn process with its log file. */
export class CairnProcess {
  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logPath: string,
  ) {}

  /** Starts `node --import tsx <entry>` with the given environment, logging to `logPath`. */
  static start(
    name: string,
    entry: string,
    environment: Record<string, string>,
    logPath: string,
    options: StartOptions = {},
  ): CairnProcess {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !CAIRN_VARIABLES.test(key)),
    );
    const log = openSync(logPath, 'a');
    const imports = [
      '--import',
      'tsx',
      ...(options.reportMemory ? ['--import', MEMORY_REPORTER] : []),
    ];
    const child = spawn(process.execPath, [...imports, entry], {
      env: { ...inherited, LOG_LEVEL: 'info', ...environment },
      stdio: ['ignore', log, log, ...(options.reportMemory ? (['ipc'] as const) : [])],
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

  /** Resident memory (from /proc), and the V8 heap when the process reports it. */
  async memory(): Promise<MemorySample | undefined> {
    const rssMiB = this.child.pid ? await readRssMiB(this.child.pid) : undefined;
    if (rssMiB === undefined) return undefined;
    if (!this.child.connected) return { rssMiB: Math.round(rssMiB * 10) / 10 };
    const answer = once(this.child, 'message') as Promise<[NodeJS.MemoryUsage]>;
    this.child.send('memory');
    const [usage] = await answer;
    return {
      rssMiB: Math.round(rssMiB * 10) / 10,
      heapUsedMiB: mib(usage.heapUsed),
      heapTotalMiB: mib(usage.heapTotal),
    };
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
  options: StartOptions & { timeoutMs?: number } = {},
): Promise<ApiHandle> {
  const port = await findFreePort();
  const api = CairnProcess.start(
    'api',
    'services/api/main.ts',
    { ...environment, HOST: '127.0.0.1', PORT: String(port) },
    logPath,
    options,
  );
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
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
  throw new Error(`the API did not become ready in time:\n${api.logTail()}`);
}

/** Starts the worker process. */
export function startWorkerProcess(
  environment: Record<string, string>,
  logPath: string,
  options: StartOptions = {},
): CairnProcess {
  return CairnProcess.start('worker', 'services/worker/main.ts', environment, logPath, options);
}
