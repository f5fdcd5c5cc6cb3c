/**
 * Describes the machine and the software versions a benchmark ran on, for its result file.
 */
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The machine and versions recorded with every result. */
export interface SystemInfo {
  cpus: number;
  cpuModel: string;
  memoryMiB: number;
  freeMemoryMiB: number;
  loadAverage: [number, number, number];
  node: string;
  sqlite: string;
  betterSqlite3: string;
  autocannon: string;
  engine?: { name: string; version: string; distribution?: string; jvm?: EngineJvm } | undefined;
}

/** How the engine's JVM runs: its heap and JIT decide much of the engine's throughput. */
export interface EngineJvm {
  heapMaxMiB: number;
  /** `C2` (the JVM's default tiered compilation) or `C1 only` (-XX:TieredStopAtLevel=1). */
  jit: string;
  arguments: string[];
}

/** Reads the JVM settings of the engine's (first) node, or undefined when it cannot be asked. */
export async function readEngineJvm(url: string): Promise<EngineJvm | undefined> {
  try {
    const response = await fetch(
      new URL('/_nodes/jvm?filter_path=nodes.*.jvm.input_arguments,nodes.*.jvm.mem', url),
    );
    const body = (await response.json()) as {
      nodes?: Record<
        string,
        { jvm: { input_arguments: string[]; mem: { heap_max_in_bytes: number } } }
      >;
    };
    const node = Object.values(body.nodes ?? {})[0];
    if (!node) return undefined;
    const args = node.jvm.input_arguments.filter((arg) =>
      /^-X(ms|mx|X:TieredStopAtLevel)/.test(arg),
    );
    return {
      heapMaxMiB: Math.round(node.jvm.mem.heap_max_in_bytes / 1024 / 1024),
      jit: args.some((arg) => arg === '-XX:TieredStopAtLevel=1') ? 'C1 only' : 'C2',
      arguments: args,
    };
  } catch {
    return undefined;
  }
}

/** The 1, 5 and 15 minute load averages, rounded. */
export function readLoadAverage(): [number, number, number] {
  return loadavg()
    .slice(0, 3)
    .map((value) => Math.round(value * 100) / 100) as [number, number, number];
}

function packageVersion(repoRoot: string, name: string): string {
  try {
    const text = readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

/** Asks a search engine for its name (root endpoint) and version (nodes info, which minimal distributions also serve). */
async function engineVersion(url: string, kind: string): Promise<SystemInfo['engine']> {
  let name = kind;
  let version = 'unknown';
  try {
    const root = await fetch(url);
    if (root.ok) {
      const body = (await root.json()) as { version?: { number?: string; distribution?: string } };
      name = body.version?.distribution ?? name;
      version = body.version?.number ?? version;
    }
    if (version === 'unknown') {
      const nodes = await fetch(new URL('/_nodes?filter_path=nodes.*.version', url));
      const body = (await nodes.json()) as { nodes?: Record<string, { version?: string }> };
      version = Object.values(body.nodes ?? {})[0]?.version ?? version;
    }
  } catch {
    version = 'unreachable';
  }
  return { name, version };
}

/** Collects the machine description and versions. */
export async function readSystemInfo(
  repoRoot: string,
  engine?: { url: string; kind: string },
): Promise<SystemInfo> {
  const info: SystemInfo = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryMiB: Math.round(totalmem() / 1024 / 1024),
    freeMemoryMiB: Math.round(freemem() / 1024 / 1024),
    loadAverage: readLoadAverage(),
    node: process.version,
    sqlite: sqliteVersion(),
    betterSqlite3: packageVersion(repoRoot, 'better-sqlite3'),
    autocannon: packageVersion(repoRoot, 'autocannon'),
  };
  if (engine) {
    info.engine = await engineVersion(engine.url, engine.kind);
    const jvm = await readEngineJvm(engine.url);
    if (info.engine && jvm) info.engine.jvm = jvm;
  }
  return info;
}

/** The engine node's process CPU time in seconds, or undefined when it cannot be asked. */
export async function readEngineCpuSeconds(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(
      new URL('/_nodes/_local/stats/process?filter_path=nodes.*.process.cpu.total_in_millis', url),
    );
    const body = (await response.json()) as {
      nodes?: Record<string, { process: { cpu: { total_in_millis: number } } }>;
    };
    const node = Object.values(body.nodes ?? {})[0];
    return node ? node.process.cpu.total_in_millis / 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Where an index's writing time went, in seconds (wall time summed over the engine's threads). */
export interface IndexTimes {
  indexing: number;
  merging: number;
  merges: number;
  refreshing: number;
  flushing: number;
  segments: number;
}

/** The primaries' indexing, merge, refresh and flush times of an index (or alias). */
export async function readIndexTimes(url: string, index: string): Promise<IndexTimes | undefined> {
  try {
    const response = await fetch(
      new URL(`/${encodeURIComponent(index)}/_stats/indexing,merge,refresh,flush,segments`, url),
    );
    const body = (await response.json()) as {
      _all?: {
        primaries: {
          indexing: { index_time_in_millis: number };
          merges: { total: number; total_time_in_millis: number };
          refresh: { total_time_in_millis: number };
          flush: { total_time_in_millis: number };
          segments: { count: number };
        };
      };
    };
    const totals = body._all?.primaries;
    if (!totals) return undefined;
    return {
      indexing: totals.indexing.index_time_in_millis / 1000,
      merging: totals.merges.total_time_in_millis / 1000,
      merges: totals.merges.total,
      refreshing: totals.refresh.total_time_in_millis / 1000,
      flushing: totals.flush.total_time_in_millis / 1000,
      segments: totals.segments.count,
    };
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds this process takes for a fixed amount of integer work: a yardstick of how fast
 * the machine runs at the moment (on a shared virtual machine the same work can take twice as
 * long from one minute to the next). Lower is faster; compare runs by it.
 */
export function measureCpuYardstick(): number {
  const started = performance.now();
  let state = 0x9e3779b9;
  for (let step = 0; step < 100_000_000; step += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
  }
  const elapsed = performance.now() - started;
  // Uses the result, so that the loop cannot be left out.
  return state === 0 ? elapsed + 1 : Math.round(elapsed);
}
