/**
 * The engine alone: the exact search requests Cairn sends the engine for each case, captured
 * from an EngineBackend configured as the API's is, replayed straight at the engine's `_search`
 * with the same load generator and concurrency as the API run, so Cairn's overhead over the
 * engine (API time / engine time for the same DSL) is measured in one run, interleaved.
 */
import type { Config } from '../../shared/config/index.js';
import {
  createEngineAdapter,
  createEngineBackend,
  engineBackendOptions,
} from '../../shared/search/create-backend.js';
import type {
  EngineAdapter,
  EngineSearchRequest,
  JsonObject,
} from '../../shared/search/engine/engine-adapter.js';
import { msearchLines, NDJSON } from '../../shared/search/engine/engine-reads.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { HttpCaseResult } from './http-load.js';
import { median } from './median.js';

/** One request a search sent the engine. */
export type CapturedRequest =
  | { kind: 'search'; request: EngineSearchRequest }
  | { kind: 'msearch'; index: string; bodies: JsonObject[] }
  | { kind: 'count'; index: string; query?: JsonObject };

/** The requests one case's search sends, in order. */
export interface CapturedCase {
  case: string;
  requests: CapturedRequest[];
}

/** An HTTP request straight at the engine. */
export interface EngineHttpRequest {
  method: 'POST';
  /** Path and query string under the engine's URL. */
  path: string;
  /** A JSON body, or the lines of an `_msearch` (with its content type). */
  body: JsonObject | string;
  contentType?: string;
}

/**
 * An adapter that records every search, multi-search and count it passes on (the only reads a
 * search makes), so the bench sends the engine byte for byte what the API would.
 */
export function recordingAdapter(
  inner: EngineAdapter,
  record: (request: CapturedRequest) => void,
): EngineAdapter {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'search') {
        return (request: EngineSearchRequest) => {
          record({ kind: 'search', request: structuredClone(request) });
          return target.search(request);
        };
      }
      if (property === 'searchMany') {
        return (index: string, bodies: readonly JsonObject[]) => {
          record({ kind: 'msearch', index, bodies: structuredClone([...bodies]) });
          return target.searchMany(index, bodies);
        };
      }
      if (property === 'count') {
        return (index: string, query?: JsonObject) => {
          record({ kind: 'count', index, ...(query && { query: structuredClone(query) }) });
          return target.count(index, query);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/** The `_search` request for a captured search, as the client sends it. */
export function engineHttpRequest(request: EngineSearchRequest): EngineHttpRequest {
  const query = request.filterPath?.length
    ? `?${new URLSearchParams({ filter_path: request.filterPath.join(',') }).toString()}`
    : '';
  const target = request.index === undefined ? '' : `/${encodeURIComponent(request.index)}`;
  return { method: 'POST', path: `${target}/_search${query}`, body: request.body };
}

/** The `_msearch` request for captured searches sent together, as the adapter sends it. */
export function engineMultiSearchRequest(index: string, bodies: JsonObject[]): EngineHttpRequest {
  return {
    method: 'POST',
    path: '/_msearch',
    body: msearchLines(index, bodies),
    contentType: NDJSON,
  };
}

/**
 * The request of a case to replay: the last search or multi-search it sent (the page itself,
 * with whatever count went in the same round trip; a count sent on its own before it is
 * reported as an extra round trip).
 */
export function replayRequest(captured: CapturedCase): EngineHttpRequest | undefined {
  const searches = captured.requests.filter(
    (request) => request.kind === 'search' || request.kind === 'msearch',
  );
  const last = searches[searches.length - 1];
  if (!last) return undefined;
  return last.kind === 'msearch'
    ? engineMultiSearchRequest(last.index, last.bodies)
    : engineHttpRequest(last.request);
}

/**
 * Runs each query once on a backend configured as the API's (same alias, spatial mode, time
 * budget) and returns the engine requests it sent.
 */
export async function captureEngineRequests(
  config: Readonly<Config>,
  cases: { name: string; query: SearchQuery }[],
): Promise<CapturedCase[]> {
  const options = engineBackendOptions(config);
  const inner = createEngineAdapter(options.engine, { url: options.url ?? '' });
  let sink: CapturedRequest[] = [];
  const backend = createEngineBackend({
    ...options,
    adapter: recordingAdapter(inner, (request) => sink.push(request)),
  });
  const captured: CapturedCase[] = [];
  try {
    await backend.init();
    for (const { name, query } of cases) {
      // A first run warms the mapping cache; the second is what a warm API sends.
      sink = [];
      await backend.search(structuredClone(query));
      const requests: CapturedRequest[] = [];
      sink = requests;
      await backend.search(structuredClone(query));
      sink = [];
      captured.push({ case: name, requests });
    }
  } finally {
    await backend.close();
  }
  return captured;
}

/** Cairn's overhead over the engine for one case at one concurrency, over A/B rounds. */
export interface OverheadRow {
  case: string;
  concurrency: number;
  /** Engine requests the API's search sends (more than one: the extra ones are overhead). */
  engineRequests: number;
  rounds: {
    apiP50Ms: number;
    apiP99Ms: number;
    engineP50Ms: number;
    engineP99Ms: number;
    apiRequestsPerSecond: number;
    engineRequestsPerSecond: number;
    loadAverage1m: number;
    apiCpuMsPerRequest?: number;
    /** The pass-through floor (a bare node:http server forwarding the same DSL), when run. */
    floorP50Ms?: number;
    floorP99Ms?: number;
    floorCpuMsPerRequest?: number;
    /** The hop alone (a byte pipe in front of the engine, parsing nothing), when run. */
    hopP50Ms?: number;
    hopP99Ms?: number;
    hopCpuMsPerRequest?: number;
    /** The reader (the floor that parses the answer and writes a page of its hits), when run. */
    readerP50Ms?: number;
    readerP99Ms?: number;
    readerCpuMsPerRequest?: number;
  }[];
  /** Medians over the rounds. */
  apiP50Ms: number;
  apiP99Ms: number;
  engineP50Ms: number;
  engineP99Ms: number;
  p50Ratio: number;
  p99Ratio: number;
  /** The floor's medians and the API over the floor / the floor over the engine, when run. */
  floor?: {
    p50Ms: number;
    p99Ms: number;
    /** API over floor. */
    apiP50Ratio: number;
    apiP99Ratio: number;
    /** Floor over engine: what any HTTP API in front of the engine costs. */
    engineP50Ratio: number;
    engineP99Ratio: number;
  };
  /** The hop's medians and the hop over the engine: one more process on the path, no HTTP. */
  hop?: {
    p50Ms: number;
    p99Ms: number;
    engineP50Ratio: number;
    engineP99Ratio: number;
  };
  /** The reader's medians and each over the engine's: a front that reads what it serves. */
  reader?: {
    p50Ms: number;
    p99Ms: number;
    engineP50Ratio: number;
    engineP99Ratio: number;
  };
  /** Whether the issue-29 targets hold: p50 ≤ 1.2× (every concurrency), p99 ≤ 1.5× at 64. */
  p50Target: boolean;
  p99Target?: boolean;
}

export const P50_TARGET = 1.2;
/** The performance issue's target on what a front adds: p50 at c1 within the engine's + 1 ms… */
export const P50_MARGIN_MS = 1;
/** …and CPU per request within the floor's + 0.5 ms. */
export const CPU_MARGIN_MS = 0.5;
export const P99_TARGET = 1.5;
export const P99_TARGET_CONCURRENCY = 64;

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function ratio(numerator: number, denominator: number): number {
  return denominator > 0 ? round2(numerator / denominator) : Number.NaN;
}

/** The runs measured beside the API and the engine alone, and the machine's load per round. */
export interface OverheadExtras {
  /** The 1-minute load average after each round. */
  loadAverages?: number[];
  /** The pass-through floor's runs, one per round. */
  floor?: HttpCaseResult[];
  /** The hop's runs (the byte pipe), one per round. */
  hop?: HttpCaseResult[];
  /** The reader's runs (the floor that parses and writes), one per round. */
  reader?: HttpCaseResult[];
}

/** The median p50 and p99 of some runs (rounded to 0.01 ms), and each over the engine's. */
function overEngine(runs: HttpCaseResult[], engineP50Ms: number, engineP99Ms: number) {
  const p50Ms = round2(median(runs.map((run) => run.latencyMs.p50)));
  const p99Ms = round2(median(runs.map((run) => run.latencyMs.p99)));
  return {
    p50Ms,
    p99Ms,
    engineP50Ratio: ratio(p50Ms, engineP50Ms),
    engineP99Ratio: ratio(p99Ms, engineP99Ms),
  };
}

/**
 * Pairs the API runs and the engine runs of one case and concurrency (round i of each, in the
 * order they ran), and the pass-through floor's, the hop's and the reader's runs when given, and computes
 * the ratios of the medians.
 */
export function overheadRow(
  api: HttpCaseResult[],
  engine: HttpCaseResult[],
  engineRequests: number,
  { loadAverages = [], floor = [], hop = [], reader = [] }: OverheadExtras = {},
): OverheadRow {
  const [firstApi] = api;
  if (firstApi === undefined || api.length !== engine.length) {
    throw new Error(`overheadRow: ${api.length} API runs against ${engine.length} engine runs`);
  }
  for (const [name, runs] of [
    ['floor', floor],
    ['hop', hop],
    ['reader', reader],
  ] as const) {
    if (runs.length > 0 && runs.length !== api.length) {
      throw new Error(`overheadRow: ${api.length} API runs against ${runs.length} ${name} runs`);
    }
  }
  const rounds = api.map((run, i) => {
    const engineRun = engine[i];
    if (engineRun === undefined) throw new Error(`overheadRow: no engine run ${i}`);
    const floorRun = floor[i];
    const hopRun = hop[i];
    const readerRun = reader[i];
    return {
      apiP50Ms: run.latencyMs.p50,
      apiP99Ms: run.latencyMs.p99,
      engineP50Ms: engineRun.latencyMs.p50,
      engineP99Ms: engineRun.latencyMs.p99,
      apiRequestsPerSecond: run.requestsPerSecond,
      engineRequestsPerSecond: engineRun.requestsPerSecond,
      loadAverage1m: loadAverages[i] ?? Number.NaN,
      ...(run.cpuMsPerRequest !== undefined && { apiCpuMsPerRequest: run.cpuMsPerRequest }),
      ...(floorRun && {
        floorP50Ms: floorRun.latencyMs.p50,
        floorP99Ms: floorRun.latencyMs.p99,
        ...(floorRun.cpuMsPerRequest !== undefined && {
          floorCpuMsPerRequest: floorRun.cpuMsPerRequest,
        }),
      }),
      ...(hopRun && {
        hopP50Ms: hopRun.latencyMs.p50,
        hopP99Ms: hopRun.latencyMs.p99,
        ...(hopRun.cpuMsPerRequest !== undefined && {
          hopCpuMsPerRequest: hopRun.cpuMsPerRequest,
        }),
      }),
      ...(readerRun && {
        readerP50Ms: readerRun.latencyMs.p50,
        readerP99Ms: readerRun.latencyMs.p99,
        ...(readerRun.cpuMsPerRequest !== undefined && {
          readerCpuMsPerRequest: readerRun.cpuMsPerRequest,
        }),
      }),
    };
  });
  const apiP50Ms = round2(median(rounds.map((r) => r.apiP50Ms)));
  const apiP99Ms = round2(median(rounds.map((r) => r.apiP99Ms)));
  const engineP50Ms = round2(median(rounds.map((r) => r.engineP50Ms)));
  const engineP99Ms = round2(median(rounds.map((r) => r.engineP99Ms)));
  const p50Ratio = ratio(apiP50Ms, engineP50Ms);
  const p99Ratio = ratio(apiP99Ms, engineP99Ms);
  const concurrency = firstApi.concurrency;
  const floorMedians = floor.length > 0 ? overEngine(floor, engineP50Ms, engineP99Ms) : undefined;
  return {
    case: firstApi.case,
    concurrency,
    engineRequests,
    rounds,
    apiP50Ms,
    apiP99Ms,
    engineP50Ms,
    engineP99Ms,
    p50Ratio,
    p99Ratio,
    ...(floorMedians && {
      floor: {
        ...floorMedians,
        apiP50Ratio: ratio(apiP50Ms, floorMedians.p50Ms),
        apiP99Ratio: ratio(apiP99Ms, floorMedians.p99Ms),
      },
    }),
    ...(hop.length > 0 && { hop: overEngine(hop, engineP50Ms, engineP99Ms) }),
    ...(reader.length > 0 && { reader: overEngine(reader, engineP50Ms, engineP99Ms) }),
    p50Target: p50Ratio <= P50_TARGET,
    ...(concurrency === P99_TARGET_CONCURRENCY && { p99Target: p99Ratio <= P99_TARGET }),
  };
}

/** What one front adds to the engine in one row: p50 over the engine's, CPU over the floor's. */
export interface FrontMargin {
  /** p50 less the engine's p50 (ms, medians over the rounds). */
  p50OverEngineMs: number;
  /** CPU per request less the floor's (ms, medians over the rounds); undefined when not measured. */
  cpuOverFloorMs: number | undefined;
  /** Within the engine's p50 + P50_MARGIN_MS and the floor's CPU + CPU_MARGIN_MS. */
  withinMargins: boolean;
}

/**
 * What the API and the reader each add in a row, against the performance issue's margins: p50
 * at most the engine's + 1 ms and CPU at most the floor's + 0.5 ms. Undefined for a front that
 * was not run beside the floor.
 */
export function frontMargins(row: OverheadRow): {
  api: FrontMargin | undefined;
  reader: FrontMargin | undefined;
} {
  const floorCpu = medianDefined(row.rounds.map((r) => r.floorCpuMsPerRequest));
  const margin = (p50Ms: number, cpu: (number | undefined)[]): FrontMargin => {
    const ownCpu = medianDefined(cpu);
    const cpuOverFloorMs =
      ownCpu === undefined || floorCpu === undefined ? undefined : round2(ownCpu - floorCpu);
    const p50OverEngineMs = round2(p50Ms - row.engineP50Ms);
    return {
      p50OverEngineMs,
      cpuOverFloorMs,
      withinMargins:
        p50OverEngineMs <= P50_MARGIN_MS &&
        cpuOverFloorMs !== undefined &&
        cpuOverFloorMs <= CPU_MARGIN_MS,
    };
  };
  if (row.floor === undefined) return { api: undefined, reader: undefined };
  return {
    api: margin(
      row.apiP50Ms,
      row.rounds.map((r) => r.apiCpuMsPerRequest),
    ),
    reader:
      row.reader &&
      margin(
        row.reader.p50Ms,
        row.rounds.map((r) => r.readerCpuMsPerRequest),
      ),
  };
}

/** The median of the defined values; undefined when there are none. */
export function medianDefined(values: (number | undefined)[]): number | undefined {
  const defined = values.filter((value): value is number => value !== undefined);
  return defined.length === 0 ? undefined : median(defined);
}
