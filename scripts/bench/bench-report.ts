/**
 * Renders a benchmark result as markdown tables for the terminal and for reports.
 */
import {
  CPU_MARGIN_MS,
  frontMargins,
  medianDefined,
  P50_MARGIN_MS,
  P50_TARGET,
  P99_TARGET,
  P99_TARGET_CONCURRENCY,
  type FrontMargin,
  type OverheadRow,
} from './engine-direct.js';
import type { BenchResult } from './run-bench.js';

/** p50 ✓/✗ (and p99 ✓/✗ at the p99 target's concurrency). */
export function targetMarks(row: OverheadRow): string {
  const p50 = `p50 ${row.p50Target ? '✓' : '✗'}`;
  return row.p99Target === undefined ? p50 : `${p50}, p99 ${row.p99Target ? '✓' : '✗'}`;
}

/** The median of the defined values, or '–' when there are none. */
function medianOf(values: (number | undefined)[]): number | string {
  const middle = medianDefined(values);
  return middle === undefined ? '–' : Math.round(middle * 100) / 100;
}

function table(header: string[], rows: (string | number)[][]): string {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** Renders the whole result: context, corpus, HTTP, overhead, paging, ingest, notes. */
export function renderMarkdown(result: BenchResult): string {
  const { machine } = result;
  const parameters = result.parameters;
  const parts: string[] = [];
  parts.push(
    `## Cairn bench — ${String(parameters.backend)}, ${String(parameters.size)} records (seed ${String(parameters.seed)})`,
    '',
    `${result.date} · ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryMiB} MiB · ` +
      `load ${machine.loadAverage.join(' / ')} at start, ${result.loadAverageEnd.join(' / ')} at end (max 1 min ${result.loadAverageMax1m}) · ` +
      `node ${machine.node}, SQLite ${machine.sqlite}` +
      (machine.engine ? `, ${machine.engine.name} ${machine.engine.version}` : ''),
    '',
    `\`${result.command}\``,
  );
  if (result.corpus) {
    const { corpus } = result;
    parts.push(
      '',
      corpus.reused
        ? `Corpus reused: ${corpus.marker.size} records (seed ${corpus.marker.seed}), loaded ${corpus.marker.loadedAt} in ${corpus.marker.loadSeconds} s = ${corpus.marker.recordsPerSecond} records/s; backend holds ${corpus.backendRecords ?? '?'}.`
        : `Corpus loaded: ${corpus.written} records written (${corpus.rejected} rejected) in ${corpus.marker.loadSeconds} s = ${corpus.marker.recordsPerSecond} records/s; backend holds ${corpus.backendRecords ?? '?'}.`,
    );
  }
  if (result.http.length > 0) {
    parts.push(
      '',
      '### HTTP (autocannon)',
      '',
      table(
        [
          'case',
          'conc.',
          'req/s',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'requests',
          'non-2xx',
          'RSS max MiB',
          'CPU ms/req',
          'status',
        ],
        result.http.map((entry) => [
          entry.case,
          entry.concurrency,
          entry.requestsPerSecond,
          entry.latencyMs.p50,
          entry.latencyMs.p95,
          entry.latencyMs.p99,
          entry.requests,
          entry.non2xx + entry.errors + entry.timeouts,
          entry.rssMiB?.max ?? '–',
          entry.cpuMsPerRequest ?? '–',
          entry.ok ? 'ok' : 'FAIL',
        ]),
      ),
    );
    const failedProbes = result.probes.filter((probe) => probe.status !== 200);
    for (const probe of failedProbes) {
      parts.push('', `- ${probe.case}: probe answered ${probe.status}: ${probe.snippet ?? ''}`);
    }
  }
  if (result.backend.length > 0) {
    const overhead = new Map(result.overhead.map((entry) => [entry.case, entry]));
    parts.push(
      '',
      '### Backend alone vs API (concurrency 1)',
      '',
      table(
        ['case', 'matches', 'backend p50 ms', 'backend p95 ms', 'API p50 ms', 'API / backend'],
        result.backend.map((entry) => [
          entry.case,
          entry.total,
          entry.p50Ms,
          entry.p95Ms,
          overhead.get(entry.case)?.apiP50Ms ?? '–',
          overhead.get(entry.case)?.ratio ?? '–',
        ]),
      ),
    );
  }
  if (result.engine && result.engine.overhead.length > 0) {
    parts.push(
      '',
      `### Engine alone vs API (the API's own engine request replayed at ${result.engine.url}; A/B rounds)`,
      '',
      `Targets: API p50 ≤ ${P50_TARGET}× the engine's, API p99 ≤ ${P99_TARGET}× the engine's at concurrency ${P99_TARGET_CONCURRENCY}. Rounds: API / engine p50 and p99 in ms, the 1-minute load average after the round, and the API process's CPU time per request.`,
      '',
      table(
        [
          'case',
          'conc.',
          'engine req.',
          'API p50',
          'engine p50',
          'p50 ratio',
          'API p99',
          'engine p99',
          'p99 ratio',
          'targets',
          'rounds (API p50/p99 · engine p50/p99 · load)',
        ],
        result.engine.overhead.map((row) => [
          row.case,
          row.concurrency,
          row.engineRequests,
          row.apiP50Ms,
          row.engineP50Ms,
          row.p50Ratio,
          row.apiP99Ms,
          row.engineP99Ms,
          row.p99Ratio,
          targetMarks(row),
          row.rounds
            .map(
              (r) =>
                `${r.apiP50Ms}/${r.apiP99Ms} · ${r.engineP50Ms}/${r.engineP99Ms}${r.floorP50Ms === undefined ? '' : ` · floor ${r.floorP50Ms}/${r.floorP99Ms}`}${r.hopP50Ms === undefined ? '' : ` · hop ${r.hopP50Ms}/${r.hopP99Ms}`} · ${r.loadAverage1m}${r.apiCpuMsPerRequest === undefined ? '' : ` · API CPU ${r.apiCpuMsPerRequest} ms/req`}`,
            )
            .join('; '),
        ]),
      ),
    );
  }
  const floorRows = result.engine?.overhead.filter((row) => row.floor !== undefined) ?? [];
  if (floorRows.length > 0) {
    parts.push(
      '',
      '### The floor: a bare pass-through in front of the engine (scripts/bench/pass-through.ts)',
      '',
      "The same engine request through a `node:http` server that forwards it over keep-alive and returns the engine's JSON as is (its own process), in the same rounds as the API and the engine alone. Medians over the rounds in ms; CPU is each server process's CPU time per request (median of the rounds).",
      '',
      table(
        [
          'case',
          'conc.',
          'engine p50',
          'floor p50',
          'API p50',
          'floor/engine p50',
          'API/engine p50',
          'API/floor p50',
          'engine p99',
          'floor p99',
          'API p99',
          'floor/engine p99',
          'API/engine p99',
          'API/floor p99',
          'CPU ms/req floor · API',
        ],
        floorRows.map((row) => [
          row.case,
          row.concurrency,
          row.engineP50Ms,
          row.floor?.p50Ms ?? '–',
          row.apiP50Ms,
          row.floor?.engineP50Ratio ?? '–',
          row.p50Ratio,
          row.floor?.apiP50Ratio ?? '–',
          row.engineP99Ms,
          row.floor?.p99Ms ?? '–',
          row.apiP99Ms,
          row.floor?.engineP99Ratio ?? '–',
          row.p99Ratio,
          row.floor?.apiP99Ratio ?? '–',
          `${medianOf(row.rounds.map((r) => r.floorCpuMsPerRequest))} · ${medianOf(row.rounds.map((r) => r.apiCpuMsPerRequest))}`,
        ]),
      ),
    );
  }
  const readerRows = result.engine?.overhead.filter((row) => row.reader !== undefined) ?? [];
  if (readerRows.length > 0) {
    const sign = (value: number | undefined): string =>
      value === undefined ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
    const mark = (margin: FrontMargin | undefined): string =>
      margin === undefined ? '–' : margin.withinMargins ? '✓' : '✗';
    parts.push(
      '',
      '### The reader: the floor that reads what it serves (scripts/bench/pass-through.ts --read)',
      '',
      `The same engine request through the floor that also parses the engine's answer and writes its hits' sources as a page (\`JSON.parse\`, \`JSON.stringify\`, nothing else), in the same rounds. Beside it, what the API and the reader each add: p50 over the engine's (target at most +${P50_MARGIN_MS} ms) and CPU per request over the floor's (target at most +${CPU_MARGIN_MS} ms). Medians over the rounds in ms.`,
      '',
      table(
        [
          'case',
          'conc.',
          'engine p50',
          'floor p50',
          'reader p50',
          'API p50',
          'p50 − engine: reader · API',
          'CPU ms/req floor · reader · API',
          'CPU − floor: reader · API',
          `within +${P50_MARGIN_MS} ms and +${CPU_MARGIN_MS} ms: reader · API`,
        ],
        readerRows.map((row) => {
          const { api, reader } = frontMargins(row);
          return [
            row.case,
            row.concurrency,
            row.engineP50Ms,
            row.floor?.p50Ms ?? '–',
            row.reader?.p50Ms ?? '–',
            row.apiP50Ms,
            `${sign(reader?.p50OverEngineMs)} · ${sign(api?.p50OverEngineMs)}`,
            `${medianOf(row.rounds.map((r) => r.floorCpuMsPerRequest))} · ${medianOf(row.rounds.map((r) => r.readerCpuMsPerRequest))} · ${medianOf(row.rounds.map((r) => r.apiCpuMsPerRequest))}`,
            `${sign(reader?.cpuOverFloorMs)} · ${sign(api?.cpuOverFloorMs)}`,
            `${mark(reader)} · ${mark(api)}`,
          ];
        }),
      ),
    );
  }
  const hopRows = result.engine?.overhead.filter((row) => row.hop !== undefined) ?? [];
  if (hopRows.length > 0) {
    parts.push(
      '',
      '### The hop: a byte pipe in front of the engine (scripts/bench/pass-through.ts --tcp)',
      '',
      "The same engine request through a process that pipes each connection's bytes to the engine and back, parsing nothing, in the same rounds: what one more process on the path costs before any HTTP is parsed. Medians over the rounds in ms.",
      '',
      table(
        [
          'case',
          'conc.',
          'engine p50',
          'hop p50',
          'hop/engine p50',
          'engine p99',
          'hop p99',
          'hop/engine p99',
          'CPU ms/req hop',
        ],
        hopRows.map((row) => [
          row.case,
          row.concurrency,
          row.engineP50Ms,
          row.hop?.p50Ms ?? '–',
          row.hop?.engineP50Ratio ?? '–',
          row.engineP99Ms,
          row.hop?.p99Ms ?? '–',
          row.hop?.engineP99Ratio ?? '–',
          medianOf(row.rounds.map((r) => r.hopCpuMsPerRequest)),
        ]),
      ),
    );
  }
  if (result.paging) {
    parts.push(
      '',
      `### Deep paging (${result.paging.endpoint}, pages of ${result.paging.pageSize})`,
      '',
      table(
        [
          'page k',
          'offset',
          'jump ms',
          'jump / page 1',
          'sequential ms',
          'sequential / page 1',
          'status',
        ],
        result.paging.samples.map((sample) => [
          sample.page,
          sample.offset,
          sample.jumpMs,
          sample.jumpRatio,
          sample.sequentialMs,
          sample.sequentialRatio,
          sample.status,
        ]),
      ),
    );
  }
  if (result.coldJumps && result.coldJumps.length > 0) {
    parts.push(
      '',
      '### Cold jumps (each in a fresh API process, no checkpoints; pages of 10)',
      '',
      table(
        [
          'request',
          'offset',
          'page 1 ms',
          'jump ms',
          'jump / page 1',
          'sequential ms',
          'sequential / page 1',
          'status',
        ],
        result.coldJumps.map((jump) => [
          `${jump.endpoint === 'csw' ? 'CSW' : 'Records'} ${jump.request}`,
          jump.offset,
          jump.page1Ms,
          jump.jumpMs,
          jump.jumpRatio,
          jump.sequentialMs,
          jump.sequentialRatio,
          jump.status,
        ]),
      ),
    );
  }
  if (result.ingest) {
    parts.push(
      '',
      `### Ingest per format (${result.ingest.mode}; into ${result.ingest.target})`,
      '',
      table(
        ['format', 'records', 'written', 'rejected', 'seconds', 'records/s'],
        result.ingest.formats.map((entry) => [
          entry.format,
          entry.records,
          entry.written,
          entry.rejected,
          entry.seconds,
          entry.recordsPerSecond,
        ]),
      ),
    );
  }
  if (result.notes.length > 0) {
    parts.push('', 'Notes:', ...result.notes.map((note) => `- ${note}`));
  }
  return parts.join('\n');
}
