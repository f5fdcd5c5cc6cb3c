/**
 * Drives the API with autocannon for one query case at one concurrency, and measures the
 * latency percentiles, throughput, status codes and the API's resident memory meanwhile.
 */
import autocannon from 'autocannon';
import { readCpuMs, sampleRss } from './api-process.js';
import type { QueryCase } from './query-mix.js';

/** The outcome of one case at one concurrency. */
export interface HttpCaseResult {
  case: string;
  concurrency: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  rssMiB: { max: number; mean: number } | null;
  /** The server process's CPU time per answered request, when its process can be read. */
  cpuMsPerRequest?: number;
  ok: boolean;
}

/** The value below which `fraction` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], fraction: number): number {
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN; // none: NaN
}

/** Rounds milliseconds to 0.01. */
function ms(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The body and content type a case sends, if any. */
function requestBody(
  queryCase: QueryCase,
): { body: string; headers: Record<string, string> } | undefined {
  if (queryCase.body === undefined) return undefined;
  return typeof queryCase.body === 'string'
    ? { body: queryCase.body, headers: { 'content-type': queryCase.contentType ?? 'text/plain' } }
    : { body: JSON.stringify(queryCase.body), headers: { 'content-type': 'application/json' } };
}

/** Requests a case once and returns its status and the start of its body (a smoke check). */
export async function probeCase(
  origin: string,
  queryCase: QueryCase,
): Promise<{ status: number; snippet: string }> {
  const response = await fetch(`${origin}${queryCase.path}`, {
    method: queryCase.method,
    ...requestBody(queryCase),
  });
  const text = await response.text();
  return { status: response.status, snippet: text.slice(0, 300) };
}

/** Runs autocannon on one case for `duration` seconds with `concurrency` connections. */
export async function runHttpCase(
  origin: string,
  apiPid: number,
  queryCase: QueryCase,
  concurrency: number,
  duration: number,
): Promise<HttpCaseResult> {
  const latencies: number[] = [];
  const rss = sampleRss(apiPid);
  const cpuBefore = apiPid > 0 ? await readCpuMs(apiPid) : undefined;
  const started = performance.now();
  const instance = autocannon({
    url: `${origin}${queryCase.path}`,
    method: queryCase.method,
    connections: concurrency,
    duration,
    timeout: 60,
    ...requestBody(queryCase),
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, time: number) => {
    latencies.push(time);
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const memory = rss.stop();
  const cpuAfter = apiPid > 0 ? await readCpuMs(apiPid) : undefined;
  latencies.sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stats.count;
  }
  const requests = latencies.length;
  return {
    case: queryCase.name,
    concurrency,
    seconds: Math.round(seconds * 100) / 100,
    requests,
    requestsPerSecond: Math.round((requests / result.duration) * 10) / 10,
    latencyMs: {
      p50: ms(percentile(latencies, 0.5)),
      p95: ms(percentile(latencies, 0.95)),
      p99: ms(percentile(latencies, 0.99)),
      max: ms(latencies[latencies.length - 1] ?? Number.NaN),
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    rssMiB:
      memory.length > 0
        ? {
            max: Math.round(Math.max(...memory)),
            mean: Math.round(memory.reduce((sum, value) => sum + value, 0) / memory.length),
          }
        : null,
    ...(cpuBefore !== undefined &&
      cpuAfter !== undefined &&
      latencies.length > 0 && {
        cpuMsPerRequest: Math.round(((cpuAfter - cpuBefore) / latencies.length) * 100) / 100,
      }),
    ok: result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && requests > 0,
  };
}
