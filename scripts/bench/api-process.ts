/**
 * Starts the Cairn API as a child process on loopback for the benchmark, waits until it is
 * ready, samples its resident memory, and stops it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { PassThroughMode } from './pass-through.js';

/** A running API child process. */
export interface ApiProcess {
  origin: string;
  pid: number;
  child: ChildProcess;
}

/** Asks the kernel for a free loopback port. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

const built = new Set<string>();

/**
 * Builds a checkout's `dist/` (scripts/build.mjs: incremental, about a second when nothing
 * changed), once per checkout and run.
 */
function buildOnce(repoRoot: string): void {
  if (built.has(repoRoot)) return;
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    throw new Error(`building ${repoRoot} failed (node scripts/build.mjs): ${build.stderr.trim()}`);
  }
  built.add(repoRoot);
}

/**
 * Builds the checkout and starts `node --max-semi-space-size=32 dist/services/api/main.js` (what `npm start` and the
 * container run; not tsx, whose name-keeping wrapper costs a call per closure made) with
 * HOST=127.0.0.1, a free PORT and the backend environment given (without the variables in
 * `unset`), and resolves once /readyz answers 200.
 */
export async function startApi(
  repoRoot: string,
  backendEnvironment: Record<string, string>,
  timeoutMs = 120_000,
  unset: string[] = [],
): Promise<ApiProcess> {
  const port = await findFreePort();
  const environment: NodeJS.ProcessEnv = { ...process.env };
  // The backend is chosen by these variables alone: clear any inherited choice first.
  for (const name of ['ELASTICSEARCH_URL', 'OPENSEARCH_URL', 'SQLITE_PATH', ...unset]) {
    delete environment[name];
  }
  // Cold figures: every answer computed, the result cache off unless the caller turns it on
  // (its cached figures come from scripts/bench/result-cache.ts).
  Object.assign(environment, { RESULT_CACHE_ENABLED: 'false' }, backendEnvironment, {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  });
  buildOnce(repoRoot);
  // The young generation's size as `npm start` and the container give it (docs/decisions/less-cpu-per-answer.md).
  const child = spawn(process.execPath, ['--max-semi-space-size=32', 'dist/services/api/main.js'], {
    cwd: repoRoot,
    env: environment,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return waitUntilReady(child, `http://127.0.0.1:${port}`, 'the API', timeoutMs);
}

/**
 * Starts the bench's pass-through server (scripts/bench/pass-through.ts: by `mode`, the floor, a
 * bare `node:http` server forwarding to the engine; the reader, the floor that also parses the
 * answer and writes a page of it; the splicer, the floor in front of the index copy that keeps
 * items as strings (`spliceIndex`); or the hop alone, a byte pipe) on loopback and a free port,
 * as a process of its own.
 */
export async function startPassThrough(
  repoRoot: string,
  engineUrl: string,
  {
    mode = 'floor',
    timeoutMs = 60_000,
    spliceIndex,
  }: { mode?: PassThroughMode; timeoutMs?: number; spliceIndex?: string } = {},
): Promise<ApiProcess> {
  if (mode === 'splice' && spliceIndex === undefined) {
    throw new Error('startPassThrough: the splicer needs the index copy it reads');
  }
  const port = await findFreePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/bench/pass-through.ts',
      engineUrl,
      String(port),
      ...(mode === 'floor' ? [] : [`--${mode}`]),
      ...(mode === 'splice' && spliceIndex !== undefined ? [spliceIndex] : []),
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  if (mode !== 'tcp') return waitUntilReady(child, origin, `the pass-through (${mode})`, timeoutMs);
  // The byte pipe has no path of its own: any answer through it is the engine's, and enough
  // (Elasticsearch answers its root 405 behind the services script's settings).
  return waitUntilReady(child, origin, 'the TCP pipe', timeoutMs, '/', () => true);
}

/**
 * Resolves once `origin` + `path` answers with a status `ready` accepts (200 by default); fails
 * when the child exits or time runs out.
 */
async function waitUntilReady(
  child: ChildProcess,
  origin: string,
  name: string,
  timeoutMs: number,
  path = '/readyz',
  ready: (status: number) => boolean = (status) => status === 200,
): Promise<ApiProcess> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited with code ${child.exitCode}: ${stderr.trim()}`);
    }
    try {
      const response = await fetch(`${origin}${path}`);
      await response.body?.cancel();
      if (ready(response.status)) return { origin, pid: child.pid ?? 0, child };
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  child.kill('SIGTERM');
  throw new Error(`${name} did not become ready within ${timeoutMs} ms: ${stderr.trim()}`);
}

/** Stops the API child (SIGTERM, then SIGKILL after a grace period). */
export async function stopApi(api: ApiProcess): Promise<void> {
  if (api.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => api.child.once('exit', () => resolve()));
  api.child.kill('SIGTERM');
  const timer = setTimeout(() => api.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The resident set size of a process in MiB, from /proc/<pid>/status (VmRSS). */
export async function readRssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS at an interval until stopped; returns the samples in MiB. */
export function sampleRss(pid: number, intervalMs = 250): { stop: () => number[] } {
  const samples: number[] = [];
  const timer = setInterval(() => {
    void readRssMiB(pid).then((value) => {
      if (value !== undefined) samples.push(value);
    });
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

/**
 * The CPU time (user + system) a process has used, in milliseconds, from /proc/<pid>/stat
 * (fields 14 and 15, in clock ticks of 10 ms); undefined when the process cannot be read.
 */
export async function readCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return parseCpuMs(stat);
  } catch {
    return undefined;
  }
}

/** utime + stime of a /proc/<pid>/stat line in milliseconds (the command may hold spaces). */
export function parseCpuMs(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}

/**
 * Starts the API from its sources (`node --import tsx services/api/main.ts`, no build: suites
 * that run at once must not write the same `dist/`) with HOST=127.0.0.1, a free PORT and the
 * environment given (the backend's variables inherited from this process cleared first), and
 * resolves once /readyz answers 200.
 */
export async function startApiFromSources(
  repoRoot: string,
  environment: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ApiProcess> {
  const port = await findFreePort();
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['ELASTICSEARCH_URL', 'OPENSEARCH_URL', 'SQLITE_PATH', 'REDIS_URL']) {
    delete inherited[name];
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/api/main.ts'], {
    cwd: repoRoot,
    env: {
      ...inherited,
      LOG_LEVEL: 'warn',
      RESULT_CACHE_ENABLED: 'false', // cold figures, as startApi
      ...environment,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return waitUntilReady(child, `http://127.0.0.1:${port}`, 'the API', timeoutMs);
}
