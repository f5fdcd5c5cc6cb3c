/**
 * Times the backend alone on the SearchQuery the protocol parser builds for each case, so
 * the API's latency can be compared with the backend's own (Cairn's overhead).
 */
import type { Config } from '../../shared/config/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { percentile } from './http-load.js';
import type { ParseLimits, QueryCase } from './query-mix.js';

/** The backend's own time for one case. */
export interface BackendCaseResult {
  case: string;
  repetitions: number;
  total: number;
  returned: number;
  p50Ms: number;
  p95Ms: number;
  minMs: number;
}

/** The parser limits the API uses, from its configuration. */
export function readApiLimits(config: Readonly<Config>): ParseLimits {
  return {
    defaultLimit: config.limits.defaultLimit,
    maxLimit: config.limits.maxLimit,
    bodyBytes: config.limits.bodyBytes,
  };
}

function ms(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Calls backend.search sequentially `repetitions` times per case (after one warm-up call). */
export async function timeBackendQueries(
  backend: SearchBackend,
  cases: QueryCase[],
  limits: ParseLimits,
  repetitions: number,
): Promise<BackendCaseResult[]> {
  const results: BackendCaseResult[] = [];
  for (const queryCase of cases) {
    const query = queryCase.buildQuery(limits);
    const first = await backend.search(structuredClone(query));
    const times: number[] = [];
    for (let i = 0; i < repetitions; i += 1) {
      const copy = structuredClone(query);
      const started = performance.now();
      await backend.search(copy);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    results.push({
      case: queryCase.name,
      repetitions,
      total: first.total,
      returned: first.records.length,
      p50Ms: ms(percentile(times, 0.5)),
      p95Ms: ms(percentile(times, 0.95)),
      minMs: ms(percentile(times, 0)),
    });
  }
  return results;
}
