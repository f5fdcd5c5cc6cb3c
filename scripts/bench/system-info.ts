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
  engine?: { name: string; version: string; distribution?: string };
}

/** The 1, 5 and 15 minute load averages, rounded. */
export function readLoadAverage(): [number, number, number] {
  const [one, five, fifteen] = loadavg();
  return [one, five, fifteen].map((value) => Math.round(value * 100) / 100) as [
    number,
    number,
    number,
  ];
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

/** Asks a search engine for its version (its root endpoint). */
async function engineVersion(url: string): Promise<SystemInfo['engine']> {
  try {
    const response = await fetch(url);
    const body = (await response.json()) as {
      version?: { number?: string; distribution?: string };
    };
    return {
      name: body.version?.distribution ?? 'elasticsearch',
      version: body.version?.number ?? 'unknown',
    };
  } catch {
    return { name: 'unknown', version: 'unreachable' };
  }
}

/** Collects the machine description and versions. */
export async function readSystemInfo(repoRoot: string, engineUrl?: string): Promise<SystemInfo> {
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
  if (engineUrl) info.engine = await engineVersion(engineUrl);
  return info;
}
