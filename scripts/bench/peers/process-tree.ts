/**
 * Resident memory of a whole server — its process and every descendant (gunicorn's master and
 * workers, uvicorn's supervisor and workers) — sampled while a case runs.
 */
import { readFileSync } from 'node:fs';

/** `pid` and all its descendants, read from /proc (children of every thread). */
export function processTree(pid: number): number[] {
  const seen = new Set<number>();
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    let tasks: string[] = [];
    try {
      tasks = readFileSync(`/proc/${next}/task/${next}/children`, 'utf8').trim().split(/\s+/);
    } catch {
      continue;
    }
    for (const child of tasks.map(Number))
      if (Number.isInteger(child) && child > 0) pending.push(child);
  }
  return [...seen];
}

/** The summed VmRSS of `pid` and its descendants in MiB, or undefined when none is readable. */
export function treeRssMiB(pid: number): number | undefined {
  let total = 0;
  let read = 0;
  for (const member of processTree(pid)) {
    try {
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${member}/status`, 'utf8'));
      if (match) {
        total += Number(match[1]) / 1024;
        read += 1;
      }
    } catch {
      // exited meanwhile
    }
  }
  return read > 0 ? total : undefined;
}

/** Samples {@link treeRssMiB} every `intervalMs` until stopped; returns max and mean in MiB. */
export function sampleTreeRss(
  pid: number,
  intervalMs = 250,
): { stop: () => { max: number; mean: number } | null } {
  const samples: number[] = [];
  const take = (): void => {
    const value = treeRssMiB(pid);
    if (value !== undefined) samples.push(value);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      if (samples.length === 0) return null;
      return {
        max: Math.round(Math.max(...samples)),
        mean: Math.round(samples.reduce((sum, value) => sum + value, 0) / samples.length),
      };
    },
  };
}
