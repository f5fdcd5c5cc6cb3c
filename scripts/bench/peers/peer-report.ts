/**
 * Pure parts of `npm run bench:peers` (issue 29): reading the number of matches out of each
 * side's answer, checking that both sides agree before timing, and the Cairn/peer ratio table
 * of the interleaved repetitions.
 */
import type { HttpCaseResult } from '../http-load.js';

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
}

/** Compares both sides' counts; `known` explains an expected difference. */
export function checkCounts(
  query: string,
  cairn: number | undefined,
  peer: number | undefined,
  known?: string,
): CountCheck {
  const agree = cairn !== undefined && cairn === peer;
  return {
    query,
    cairn,
    peer,
    agree,
    ...(!agree && known !== undefined && { explanation: known }),
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
  return `${check.query}: Cairn ${show(check.cairn)}, peer ${show(check.peer)} — ${verdict}`;
}

/** One timed repetition of one side. */
export interface Repetition {
  query: string;
  side: 'cairn' | 'peer';
  repetition: number;
  result: HttpCaseResult;
}

/** A row of the ratio table: one query at one concurrency, over all repetitions. */
export interface RatioRow {
  query: string;
  concurrency: number;
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
}

/** The median of a list of numbers, to 0.01 (NaN when empty). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value =
    sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return Math.round(value * 100) / 100;
}

function ratio(numerator: number, denominator: number): number {
  if (!(denominator > 0) || !Number.isFinite(numerator)) return Number.NaN;
  return Math.round((numerator / denominator) * 100) / 100;
}

function failures(result: HttpCaseResult): number {
  return result.non2xx + result.errors + result.timeouts;
}

/** Groups the repetitions by query and concurrency (in first-seen order) into ratio rows. */
export function ratioRows(repetitions: Repetition[]): RatioRow[] {
  const groups = new Map<string, Repetition[]>();
  for (const repetition of repetitions) {
    const key = `${repetition.query}\u0000${repetition.result.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), repetition]);
  }
  return [...groups.values()].map((group) => {
    const side = (name: 'cairn' | 'peer'): HttpCaseResult[] =>
      group
        .filter((repetition) => repetition.side === name)
        .sort((a, b) => a.repetition - b.repetition)
        .map((repetition) => repetition.result);
    const cairn = side('cairn');
    const peer = side('peer');
    const cairnRps = cairn.map((result) => result.requestsPerSecond);
    const peerRps = peer.map((result) => result.requestsPerSecond);
    const cairnP50 = median(cairn.map((result) => result.latencyMs.p50));
    const peerP50 = median(peer.map((result) => result.latencyMs.p50));
    const cairnP99 = median(cairn.map((result) => result.latencyMs.p99));
    const peerP99 = median(peer.map((result) => result.latencyMs.p99));
    return {
      query: group[0].query,
      concurrency: group[0].result.concurrency,
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
    };
  });
}

/** The ratio table as markdown, every repetition's req/s shown. */
export function renderRatioTable(peer: string, rows: RatioRow[]): string {
  const lines = [
    `| query | conc. | Cairn req/s (each rep.) | ${peer} req/s (each rep.) | Cairn p50 / p99 ms | ${peer} p50 / p99 ms | req/s ratio | p50 ratio | p99 ratio | errors C/P |`,
    '| --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.query} | ${row.concurrency} | ${row.cairnRps.join(', ')} | ${row.peerRps.join(', ')} | ${row.cairnP50} / ${row.cairnP99} | ${row.peerP50} / ${row.peerP99} | ${row.throughputRatio} | ${row.p50Ratio} | ${row.p99Ratio} | ${row.errors.cairn}/${row.errors.peer} |`,
    );
  }
  return lines.join('\n');
}
