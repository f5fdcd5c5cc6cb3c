/**
 * Pure parts of `npm run bench:peers`: reading the number of matches out of each
 * side's answer, checking that both sides agree before timing, and the Cairn/peer ratio table
 * of the interleaved repetitions.
 */
import type { HttpCaseResult } from '../http-load.js';
import { median as middleValue } from '../median.js';

/** How a side's answer reports its number of matches. */
export type CountStyle = 'numberMatched' | 'csw' | 'single';

/** Reads the number of matches from a response body, or undefined when it is not there. */
export function readMatchCount(
  style: CountStyle,
  status: number,
  body: string,
): number | undefined {
  if (style === 'single') return status === 200 ? 1 : status === 404 ? 0 : undefined;
  if (status !== 200) return undefined;
  if (style === 'csw') {
    const match = /numberOfRecordsMatched="(\d+)"/.exec(body);
    return match ? Number(match[1]) : undefined;
  }
  try {
    const parsed = JSON.parse(body) as { numberMatched?: unknown; context?: { matched?: unknown } };
    const value = parsed.numberMatched ?? parsed.context?.matched;
    return typeof value === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The outcome of the count check of one query. */
export interface CountCheck {
  query: string;
  cairn: number | undefined;
  peer: number | undefined;
  agree: boolean;
  /** When the counts differ and the difference is understood: which side is right and why. */
  explanation?: string;
  /** The number of matches counted in the corpus itself, where the bench can count it. */
  corpus?: number;
  /** When the counts differ and the corpus was counted: which side it bears out. */
  right?: RightSide;
}

/** Which side the corpus count bears out. */
export type RightSide = 'cairn' | 'peer' | 'neither';

/** Which side's count equals the count taken from the corpus (only asked when they differ). */
export function whichIsRight(
  cairn: number | undefined,
  peer: number | undefined,
  corpus: number,
): RightSide {
  if (cairn === corpus) return 'cairn';
  if (peer === corpus) return 'peer';
  return 'neither';
}

/**
 * Compares both sides' counts; `known` explains an expected difference; `corpus`, when given,
 * is the count taken from the generated records and decides which side is right.
 */
export function checkCounts(
  query: string,
  cairn: number | undefined,
  peer: number | undefined,
  known?: string,
  corpus?: number,
): CountCheck {
  const agree = cairn !== undefined && cairn === peer;
  return {
    query,
    cairn,
    peer,
    agree,
    ...(!agree && known !== undefined && { explanation: known }),
    ...(corpus !== undefined && { corpus }),
    ...(!agree && corpus !== undefined && { right: whichIsRight(cairn, peer, corpus) }),
  };
}

/** One line of the count check, for the console. */
export function formatCountCheck(check: CountCheck): string {
  const show = (value: number | undefined): string => (value === undefined ? 'n/a' : String(value));
  const verdict = check.agree
    ? 'agree'
    : check.explanation
      ? `DIFFER (${check.explanation})`
      : 'DIFFER';
  const corpus =
    check.corpus === undefined
      ? ''
      : `, corpus ${check.corpus}${check.right === undefined ? '' : check.right === 'neither' ? ' (neither side is right)' : ` (${check.right === 'cairn' ? 'Cairn' : 'the peer'} is right)`}`;
  return `${check.query}: Cairn ${show(check.cairn)}, peer ${show(check.peer)}${corpus} — ${verdict}`;
}

/** A page of CSW results asked for at `requested` and sent at `start` (clamped to the corpus). */
export interface DeepPage {
  requested: number;
  start: number;
  clamped: boolean;
}

/**
 * The CSW deep pages the issue asks for (startPosition 1, 1,000, 10,000 and 90,000), each
 * clamped so that a full page of `pageSize` records remains in a corpus of `size`; a clamped
 * start equal to one already listed is dropped.
 */
export function deepPages(
  size: number,
  pageSize = 10,
  wanted: readonly number[] = [1, 1_000, 10_000, 90_000],
): DeepPage[] {
  const last = Math.max(1, size - pageSize + 1);
  const pages: DeepPage[] = [];
  for (const requested of wanted) {
    const start = Math.min(requested, last);
    if (pages.some((page) => page.start === start)) continue;
    pages.push({ requested, start, clamped: start !== requested });
  }
  return pages;
}

/** One phase of the run and how long it took. */
export interface Phase {
  phase: string;
  seconds: number;
  /**
   * The phase this one ran inside, side by side with the other parts of that phase (the loads
   * run at once): its time is part of that phase's, not added to the total again.
   */
  within?: string;
}

/** Times phases of the run; `phases` is what it has recorded so far, in order of ending. */
export class PhaseClock {
  readonly phases: Phase[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Runs `work` as the phase `name` and records its elapsed time (also when it throws); `within`
   * names the phase it is a concurrent part of.
   */
  async time<T>(name: string, work: () => Promise<T> | T, within?: string): Promise<T> {
    const started = this.now();
    try {
      return await work();
    } finally {
      this.phases.push({
        phase: name,
        seconds: Math.round((this.now() - started) / 10) / 100,
        ...(within !== undefined && { within }),
      });
    }
  }
}

function clock(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/**
 * The phases as a markdown table with a total row (seconds and m:ss): the top-level phases in
 * order, each followed by the parts that ran inside it (marked ↳, not added to the total).
 */
export function renderPhaseTable(phases: Phase[]): string {
  const top = phases.filter((phase) => phase.within === undefined);
  const total = Math.round(top.reduce((sum, phase) => sum + phase.seconds, 0) * 100) / 100;
  const row = (phase: Phase, name: string): string =>
    `| ${name} | ${phase.seconds} | ${clock(phase.seconds)} |`;
  return [
    '| phase | seconds | m:ss |',
    '| --- | ---: | ---: |',
    ...top.flatMap((phase) => [
      row(phase, phase.phase),
      ...phases
        .filter((part) => part.within === phase.phase)
        .map((part) => row(part, `↳ ${part.phase}`)),
    ]),
    `| **total** | ${total} | ${clock(total)} |`,
  ].join('\n');
}

/** How fast one side took the corpus in. */
export interface LoadRate {
  side: string;
  records: number;
  seconds: number;
  how: string;
}

/** The load rates as a markdown table (records/s to the nearest record). */
export function renderLoadTable(loads: LoadRate[]): string {
  return [
    '| side | records | seconds | records/s | how |',
    '| --- | ---: | ---: | ---: | --- |',
    ...loads.map(
      (load) =>
        `| ${load.side} | ${load.records} | ${load.seconds} | ${load.seconds > 0 ? Math.round(load.records / load.seconds) : 'n/a'} | ${load.how} |`,
    ),
  ].join('\n');
}

/** One timed repetition of one side. */
export interface Repetition {
  query: string;
  /**
   * `engine`: Cairn's own search request for the query, sent straight to the engine; `reader`:
   * the same request through the bench's reader (scripts/bench/pass-through.ts --read);
   * `splicer`: through the splicer, on the index copy that keeps items as strings
   * (scripts/bench/pass-through.ts --splice).
   */
  side: 'cairn' | 'peer' | 'engine' | 'reader' | 'splicer';
  /** The peer's number of server worker processes (peer side only). */
  workers?: number;
  repetition: number;
  result: HttpCaseResult;
}

/**
 * A row of the ratio table: one query at one concurrency against one worker count of the peer,
 * over all repetitions (Cairn's repetitions are shared by the rows of each worker count: each
 * repetition runs Cairn, then the peer with each worker count).
 */
export interface RatioRow {
  query: string;
  concurrency: number;
  workers?: number;
  /** Each repetition's req/s, in order. */
  cairnRps: number[];
  peerRps: number[];
  /** Median over repetitions. */
  cairnP50: number;
  peerP50: number;
  cairnP99: number;
  peerP99: number;
  /** Cairn req/s ÷ peer req/s (medians): above 1 means Cairn serves more. */
  throughputRatio: number;
  /** Peer p50 ÷ Cairn p50: above 1 means Cairn answers faster. */
  p50Ratio: number;
  /** Peer p99 ÷ Cairn p99. */
  p99Ratio: number;
  errors: { cairn: number; peer: number };
  /** The largest resident memory sampled over the repetitions (MiB; null when not sampled). */
  rssMiB: { cairn: number | null; peer: number | null };
  /**
   * Windows in which a side completed no request (its latencies come from the other windows;
   * a request still running when a window ends is not counted).
   */
  unanswered: { cairn: number; peer: number };
}

/** The median of a list of numbers, to 0.01 (NaN when empty). */
export function median(values: number[]): number {
  return Math.round(middleValue(values) * 100) / 100;
}

function ratio(numerator: number, denominator: number): number {
  if (!(denominator > 0) || !Number.isFinite(numerator)) return Number.NaN;
  return Math.round((numerator / denominator) * 100) / 100;
}

function failures(result: HttpCaseResult): number {
  return result.non2xx + result.errors + result.timeouts;
}

/** The repetitions grouped by query and concurrency, in first-seen order. */
function byQueryAndConcurrency(repetitions: Repetition[]): Repetition[][] {
  const groups = new Map<string, Repetition[]>();
  for (const repetition of repetitions) {
    const key = `${repetition.query}\u0000${repetition.result.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), repetition]);
  }
  return [...groups.values()];
}

/** Groups the repetitions by query and concurrency (in first-seen order) into ratio rows. */
export function ratioRows(repetitions: Repetition[]): RatioRow[] {
  return byQueryAndConcurrency(repetitions).flatMap((group) => {
    const workerCounts = [
      ...new Set(group.filter((r) => r.side === 'peer').map((r) => r.workers)),
    ].sort((a, b) => (a ?? 0) - (b ?? 0));
    return (workerCounts.length > 0 ? workerCounts : [undefined]).map((workers) =>
      ratioRow(group, workers),
    );
  });
}

function maxRss(results: HttpCaseResult[]): number | null {
  const values = results.flatMap((result) => (result.rssMiB ? [result.rssMiB.max] : []));
  return values.length > 0 ? Math.max(...values) : null;
}

function ratioRow(group: Repetition[], workers: number | undefined): RatioRow {
  const [first] = group;
  if (first === undefined) throw new Error('ratioRow: no repetitions');
  const side = (name: 'cairn' | 'peer'): HttpCaseResult[] =>
    group
      .filter(
        (repetition) =>
          repetition.side === name && (name === 'cairn' || repetition.workers === workers),
      )
      .sort((a, b) => a.repetition - b.repetition)
      .map((repetition) => repetition.result);
  const cairn = side('cairn');
  const peer = side('peer');
  const cairnRps = cairn.map((result) => result.requestsPerSecond);
  const peerRps = peer.map((result) => result.requestsPerSecond);
  // Latency percentiles of the windows in which the side completed requests.
  const answered = (results: HttpCaseResult[]) => results.filter((result) => result.requests > 0);
  const latency = (results: HttpCaseResult[], pick: (result: HttpCaseResult) => number) =>
    median(answered(results).map(pick));
  const cairnP50 = latency(cairn, (result) => result.latencyMs.p50);
  const peerP50 = latency(peer, (result) => result.latencyMs.p50);
  const cairnP99 = latency(cairn, (result) => result.latencyMs.p99);
  const peerP99 = latency(peer, (result) => result.latencyMs.p99);
  return {
    query: first.query,
    concurrency: first.result.concurrency,
    ...(workers !== undefined && { workers }),
    cairnRps,
    peerRps,
    cairnP50,
    peerP50,
    cairnP99,
    peerP99,
    throughputRatio: ratio(median(cairnRps), median(peerRps)),
    p50Ratio: ratio(peerP50, cairnP50),
    p99Ratio: ratio(peerP99, cairnP99),
    errors: {
      cairn: cairn.reduce((sum, result) => sum + failures(result), 0),
      peer: peer.reduce((sum, result) => sum + failures(result), 0),
    },
    rssMiB: { cairn: maxRss(cairn), peer: maxRss(peer) },
    unanswered: {
      cairn: cairn.length - answered(cairn).length,
      peer: peer.length - answered(peer).length,
    },
  };
}

/** The ratio table as markdown, every repetition's req/s shown. */
export function renderRatioTable(peer: string, rows: RatioRow[]): string {
  const lines = [
    `| query | conc. | ${peer} workers | Cairn req/s (each rep.) | ${peer} req/s (each rep.) | Cairn p50 / p99 ms | ${peer} p50 / p99 ms | req/s ratio | p50 ratio | p99 ratio | errors C/P | RSS MiB C/P |`,
    '| --- | ---: | ---: | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |',
  ];
  const mib = (value: number | null): string => (value === null ? 'n/a' : String(value));
  for (const row of rows) {
    lines.push(
      `| ${row.query} | ${row.concurrency} | ${row.workers ?? 'n/a'} | ${row.cairnRps.join(', ')} | ${row.peerRps.join(', ')} | ${row.cairnP50} / ${row.cairnP99} | ${row.peerP50} / ${row.peerP99} | ${row.throughputRatio} | ${row.p50Ratio} | ${row.p99Ratio} | ${row.errors.cairn}/${row.errors.peer} | ${mib(row.rssMiB.cairn)}/${mib(row.rssMiB.peer)} |`,
    );
  }
  const notes = rows.flatMap((row) =>
    (['cairn', 'peer'] as const)
      .filter((side) => row.unanswered[side] > 0)
      .map((side) => {
        const name = side === 'cairn' ? 'Cairn' : `${peer}×${row.workers ?? 1}`;
        const windows = side === 'cairn' ? row.cairnRps.length : row.peerRps.length;
        return `- ${row.query} at concurrency ${row.concurrency}: ${name} completed no request in ${row.unanswered[side]} of ${windows} windows; its p50/p99 are those of the other windows (a request still running when a window ends is not counted)`;
      }),
  );
  return [...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}

/**
 * What the engine by itself serves of one query at one concurrency, beside Cairn and the peer:
 * Cairn cannot answer a query faster than the engine answers the search it sends for it, and on
 * a machine that runs both, the engine's and the API's CPU per request share the same cores.
 */
export interface EngineCeilingRow {
  query: string;
  concurrency: number;
  /** Each repetition's req/s of the engine alone, in order. */
  engineRps: number[];
  engineP50: number;
  engineP99: number;
  /** The engine process's CPU time per request (median over repetitions; NaN when not read). */
  engineCpuMs: number;
  /** Cairn's req/s and its API process's CPU time per request (medians). */
  cairnRps: number;
  cairnCpuMs: number;
  /** The peer's req/s, median over repetitions, at its fastest worker count. */
  peerRps: number;
  /** The engine alone's req/s ÷ the peer's: the most any front of this engine can reach. */
  engineOverPeer: number;
  /**
   * Cairn's req/s if the machine's cores did nothing but the engine's and the API's work per
   * request: cores × 1,000 ÷ (engine CPU + API CPU), in req/s (the load generator's own CPU
   * left out, so this bound is generous).
   */
  cpuBoundRps: number;
}

/** One row per query and concurrency that has engine repetitions, in first-seen order. */
export function engineCeilingRows(repetitions: Repetition[], cores: number): EngineCeilingRow[] {
  return byQueryAndConcurrency(repetitions).flatMap((group) => {
    const [first] = group;
    const engine = group.filter((r) => r.side === 'engine').map((r) => r.result);
    if (first === undefined || engine.length === 0) return [];
    const cairn = group.filter((r) => r.side === 'cairn').map((r) => r.result);
    const workerCounts = [...new Set(group.filter((r) => r.side === 'peer').map((r) => r.workers))];
    const peerMedians = workerCounts.map((workers) =>
      median(
        group
          .filter((r) => r.side === 'peer' && r.workers === workers)
          .map((r) => r.result.requestsPerSecond),
      ),
    );
    const peerRps = peerMedians.length > 0 ? Math.max(...peerMedians) : Number.NaN;
    const cpu = (results: HttpCaseResult[]): number =>
      median(results.flatMap((result) => result.cpuMsPerRequest ?? []));
    const answered = engine.filter((result) => result.requests > 0);
    const engineRps = engine.map((result) => result.requestsPerSecond);
    const engineCpuMs = cpu(engine);
    const cairnCpuMs = cpu(cairn);
    return [
      {
        query: first.query,
        concurrency: first.result.concurrency,
        engineRps,
        engineP50: median(answered.map((result) => result.latencyMs.p50)),
        engineP99: median(answered.map((result) => result.latencyMs.p99)),
        engineCpuMs,
        cairnRps: median(cairn.map((result) => result.requestsPerSecond)),
        cairnCpuMs,
        peerRps,
        engineOverPeer: ratio(median(engineRps), peerRps),
        cpuBoundRps: Math.round((cores * 1000) / (engineCpuMs + cairnCpuMs)),
      },
    ];
  });
}

/** The engine-alone rows as markdown, every repetition's req/s shown. */
export function renderEngineCeilingTable(peer: string, rows: EngineCeilingRow[]): string {
  return [
    `| query | conc. | engine req/s (each rep.) | engine p50 / p99 ms | engine CPU ms/req | Cairn req/s | Cairn API CPU ms/req | ${peer} req/s (faster workers) | engine ÷ ${peer} req/s | CPU-bound Cairn req/s |`,
    '| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.query} | ${row.concurrency} | ${row.engineRps.join(', ')} | ${row.engineP50} / ${row.engineP99} | ${row.engineCpuMs} | ${row.cairnRps} | ${row.cairnCpuMs} | ${row.peerRps} | ${row.engineOverPeer} | ${Number.isFinite(row.cpuBoundRps) ? row.cpuBoundRps : 'n/a'} |`,
    ),
  ].join('\n');
}

/**
 * The least any front that reads its records can cost, beside the peer: the reader
 * (scripts/bench/pass-through.ts --read, which parses the engine's answer to Cairn's search
 * and writes its hits' sources as a page, nothing else) timed on the same request at the same
 * concurrency. Where the reader itself serves less than `factor` × the peer, no front that reads
 * the records it serves can reach that factor on this machine.
 */
export interface ReaderFloorRow {
  query: string;
  concurrency: number;
  /** Each repetition's req/s through the reader, in order. */
  readerRps: number[];
  readerP50: number;
  readerP99: number;
  /** The reader process's CPU time per request (median over repetitions). */
  readerCpuMs: number;
  /** The engine alone's CPU time per request on the same search (median). */
  engineCpuMs: number;
  cairnRps: number;
  cairnCpuMs: number;
  /** The peer's req/s, median over repetitions, at its fastest worker count. */
  peerRps: number;
  /** The reader's req/s ÷ the peer's (medians). */
  readerOverPeer: number;
  /** The peer's p99 at the worker count with the lower one (median over repetitions). */
  peerP99: number;
  /** The peer's p99 ÷ the reader's: above `factor` the reader is that much faster at the tail. */
  readerP99Ratio: number;
  /** Cairn's req/s ÷ the peer's (medians). */
  cairnOverPeer: number;
  /**
   * The front's CPU per request that would leave room for `factor` × the peer's req/s if the
   * cores did nothing but the engine's and the front's work: cores × 1,000 ÷ (factor × peer
   * req/s) − engine CPU. Generous (the load generator's CPU is left out); negative when the
   * engine alone uses the cores up first.
   */
  frontBudgetMs: number;
}

/**
 * One row per query and concurrency with repetitions of `side` (the reader, or the splicer in
 * its place: the same figures for a front that keeps its items as strings), in first-seen order.
 */
export function readerFloorRows(
  repetitions: Repetition[],
  cores: number,
  factor: number,
  side: 'reader' | 'splicer' = 'reader',
): ReaderFloorRow[] {
  return byQueryAndConcurrency(repetitions).flatMap((group) => {
    const [first] = group;
    const reader = group.filter((r) => r.side === side).map((r) => r.result);
    if (first === undefined || reader.length === 0) return [];
    const [ceiling] = engineCeilingRows(group, cores);
    const cpu = (results: HttpCaseResult[]): number =>
      median(results.flatMap((result) => result.cpuMsPerRequest ?? []));
    const answered = reader.filter((result) => result.requests > 0);
    const readerRps = reader.map((result) => result.requestsPerSecond);
    const engineCpuMs = ceiling?.engineCpuMs ?? Number.NaN;
    const peerRps = ceiling?.peerRps ?? Number.NaN;
    const cairnRps = median(
      group.filter((r) => r.side === 'cairn').map((r) => r.result.requestsPerSecond),
    );
    const peerP99s = [...new Set(group.filter((r) => r.side === 'peer').map((r) => r.workers))].map(
      (workers) =>
        median(
          group
            .filter((r) => r.side === 'peer' && r.workers === workers && r.result.requests > 0)
            .map((r) => r.result.latencyMs.p99),
        ),
    );
    const peerP99 = peerP99s.length > 0 ? Math.min(...peerP99s) : Number.NaN;
    const readerP99 = median(answered.map((result) => result.latencyMs.p99));
    return [
      {
        query: first.query,
        concurrency: first.result.concurrency,
        readerRps,
        readerP50: median(answered.map((result) => result.latencyMs.p50)),
        readerP99,
        readerCpuMs: cpu(reader),
        engineCpuMs,
        cairnRps,
        cairnCpuMs: cpu(group.filter((r) => r.side === 'cairn').map((r) => r.result)),
        peerRps,
        readerOverPeer: ratio(median(readerRps), peerRps),
        peerP99,
        readerP99Ratio: ratio(peerP99, readerP99),
        cairnOverPeer: ratio(cairnRps, peerRps),
        frontBudgetMs: Math.round(((cores * 1000) / (factor * peerRps) - engineCpuMs) * 100) / 100,
      },
    ];
  });
}

/** The reader (or splicer) rows as markdown, every repetition's req/s shown. */
export function renderReaderFloorTable(
  peer: string,
  rows: ReaderFloorRow[],
  factor: number,
  side: 'reader' | 'splicer' = 'reader',
): string {
  const shown = (value: number): string => (Number.isFinite(value) ? String(value) : 'n/a');
  return [
    `| query | conc. | ${side} req/s (each rep.) | ${side} p50 / p99 ms | ${side} CPU ms/req | Cairn API CPU ms/req | engine CPU ms/req | front CPU budget for ${factor}× ms/req | ${side} ÷ ${peer} req/s | Cairn ÷ ${peer} req/s | ${peer} p99 ÷ ${side} p99 |`,
    '| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.query} | ${row.concurrency} | ${row.readerRps.join(', ')} | ${row.readerP50} / ${row.readerP99} | ${shown(row.readerCpuMs)} | ${shown(row.cairnCpuMs)} | ${shown(row.engineCpuMs)} | ${shown(row.frontBudgetMs)} | ${shown(row.readerOverPeer)} | ${shown(row.cairnOverPeer)} | ${shown(row.readerP99Ratio)} |`,
    ),
  ].join('\n');
}
