/**
 * Turns a soak's raw samples into its figures: query latency in the first and the last window
 * (a minute, or a third of a shorter run) and their ratio, memory at the start and the end of
 * the run with the growth and its trend, and a printable summary.
 */
import { percentile } from '../bench/http-load.js';
import type { MemorySample } from '../processes/cairn-process.js';
import type { LatencySample } from './soak-traffic.js';

/** Latency of the queries sent within one window of the run. */
export interface LatencyWindow {
  fromSeconds: number;
  toSeconds: number;
  requests: number;
  p50Ms: number;
  p95Ms: number;
}

export interface LatencyDrift {
  first: LatencyWindow;
  last: LatencyWindow;
  /** Last over first (1 = no drift). */
  p50Ratio: number;
  p95Ratio: number;
}

/** Memory of a process at one moment of the run. */
export interface MemoryPoint extends MemorySample {
  atSeconds: number;
}

export interface MemoryTrend {
  /** Medians of the samples in the first and the last window, and their difference. */
  firstMiB: number;
  lastMiB: number;
  growthMiB: number;
  maxMiB: number;
  /** Least-squares slope over the samples after the first window (warm-up left out). */
  slopeMiBPerMinute: number;
}

const round = (value: number, digits = 2): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** The comparison window: a minute, or a third of a run shorter than three minutes. */
export function windowSeconds(durationSeconds: number): number {
  return Math.min(60, durationSeconds / 3);
}

function latencyWindow(samples: LatencySample[], fromSeconds: number, toSeconds: number) {
  const times = samples
    .filter((sample) => sample.at >= fromSeconds * 1000 && sample.at < toSeconds * 1000)
    .map((sample) => sample.ms)
    .sort((a, b) => a - b);
  return {
    fromSeconds: round(fromSeconds, 1),
    toSeconds: round(toSeconds, 1),
    requests: times.length,
    p50Ms: round(percentile(times, 0.5)),
    p95Ms: round(percentile(times, 0.95)),
  };
}

/** p50/p95 of the first and the last window, and how much they moved. */
export function measureLatencyDrift(
  samples: LatencySample[],
  durationSeconds: number,
): LatencyDrift {
  const window = windowSeconds(durationSeconds);
  const first = latencyWindow(samples, 0, window);
  const last = latencyWindow(samples, durationSeconds - window, durationSeconds);
  return {
    first,
    last,
    p50Ratio: round(last.p50Ms / first.p50Ms),
    p95Ratio: round(last.p95Ms / first.p95Ms),
  };
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function slope(points: { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const covariance = points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0);
  const variance = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

/** How one memory figure (RSS or heap in use) moved over the run; undefined without samples. */
export function measureMemoryTrend(
  points: MemoryPoint[],
  figure: 'rssMiB' | 'heapUsedMiB',
  durationSeconds: number,
): MemoryTrend | undefined {
  const samples = points
    .filter((point) => point[figure] !== undefined)
    .map((point) => ({ at: point.atSeconds, value: point[figure]! }));
  if (samples.length === 0) return undefined;
  const window = windowSeconds(durationSeconds);
  const inWindow = (from: number, to: number) =>
    samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.value);
  const first = inWindow(0, window);
  const last = inWindow(durationSeconds - window, durationSeconds);
  const firstMiB = median(first.length > 0 ? first : samples.slice(0, 1).map((s) => s.value));
  const lastMiB = median(last.length > 0 ? last : samples.slice(-1).map((s) => s.value));
  const afterWarmUp = samples.filter((s) => s.at >= window);
  return {
    firstMiB: round(firstMiB, 1),
    lastMiB: round(lastMiB, 1),
    growthMiB: round(lastMiB - firstMiB, 1),
    maxMiB: round(Math.max(...samples.map((s) => s.value)), 1),
    slopeMiBPerMinute: round(slope(afterWarmUp.map((s) => ({ x: s.at / 60, y: s.value })))),
  };
}

/** One line per figure, for the terminal. */
export function formatSummary(result: {
  backend: string;
  durationSeconds: number;
  requests: number;
  writes: number;
  errors: number;
  latency: LatencyDrift;
  memory: Record<string, MemoryTrend | undefined>;
}): string {
  const { latency } = result;
  const lines = [
    `soak on ${result.backend}: ${result.durationSeconds} s, ${result.requests} queries, ${result.writes} writes, ${result.errors} errors`,
    `latency p50 ${latency.first.p50Ms} → ${latency.last.p50Ms} ms (×${latency.p50Ratio}), p95 ${latency.first.p95Ms} → ${latency.last.p95Ms} ms (×${latency.p95Ratio}); first vs last ${latency.first.toSeconds - latency.first.fromSeconds} s`,
  ];
  for (const [name, trend] of Object.entries(result.memory)) {
    if (!trend) continue;
    lines.push(
      `${name}: ${trend.firstMiB} → ${trend.lastMiB} MiB (${trend.growthMiB >= 0 ? '+' : ''}${trend.growthMiB}), max ${trend.maxMiB}, trend ${trend.slopeMiBPerMinute} MiB/min`,
    );
  }
  lines.push(result.errors === 0 ? 'PASS: no errors' : `FAIL: ${result.errors} errors`);
  return lines.join('\n');
}
