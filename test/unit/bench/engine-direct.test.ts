import { expect } from 'chai';
import { targetMarks } from '../../../scripts/bench/bench-report.js';
import {
  engineHttpRequest,
  frontMargins,
  overheadRow,
  replayRequest,
} from '../../../scripts/bench/engine-direct.js';
import type { HttpCaseResult } from '../../../scripts/bench/http-load.js';
import { parseCpuMs } from '../../../scripts/bench/api-process.js';

function run(concurrency: number, p50: number, p99: number): HttpCaseResult {
  return {
    case: 'text',
    concurrency,
    seconds: 1,
    requests: 100,
    requestsPerSecond: 100,
    latencyMs: { p50, p95: p99, p99, max: p99 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    rssMiB: null,
    ok: true,
  };
}

describe('bench: the engine alone', () => {
  it("builds the engine's _search request from a captured search, with its filter_path", () => {
    const body = { query: { match_all: {} }, size: 10 };
    expect(engineHttpRequest({ index: 'cairn records', body })).to.deep.equal({
      method: 'POST',
      path: '/cairn%20records/_search',
      body,
    });
    expect(
      engineHttpRequest({ index: 'a', body, filterPath: ['hits.hits.sort', 'timed_out'] }).path,
    ).to.equal('/a/_search?filter_path=hits.hits.sort%2Ctimed_out');
    expect(engineHttpRequest({ body }).path).to.equal('/_search');
  });

  it('replays the last search of a case (the page), not the count before it', () => {
    const page = { query: { term: { id: 'x' } }, size: 10 };
    const replay = replayRequest({
      case: 'bbox',
      requests: [
        { kind: 'count', index: 'a', query: { match_all: {} } },
        { kind: 'search', request: { index: 'a', body: page } },
      ],
    });
    expect(replay?.body).to.deep.equal(page);
    expect(replayRequest({ case: 'none', requests: [] })).to.equal(undefined);
  });

  it('replays a count and page sent together as the same _msearch lines', () => {
    const count = { query: { term: { id: 'x' } }, size: 0, track_total_hits: true };
    const page = { query: { term: { id: 'x' } }, size: 10 };
    const replay = replayRequest({
      case: 'deep-offset',
      requests: [{ kind: 'msearch', index: 'a b', bodies: [count, page] }],
    });
    expect(replay).to.deep.equal({
      method: 'POST',
      path: '/_msearch',
      contentType: 'application/x-ndjson',
      body: `{"index":"a b"}\n${JSON.stringify(count)}\n{"index":"a b"}\n${JSON.stringify(page)}\n`,
    });
  });

  it('pairs the rounds, takes the medians and marks the targets', () => {
    const row = overheadRow(
      [run(64, 12, 30), run(64, 10, 40), run(64, 11, 50)],
      [run(64, 10, 20), run(64, 9, 30), run(64, 10, 25)],
      1,
      { loadAverages: [2.5, 2.6, 2.7] },
    );
    expect(row.apiP50Ms).to.equal(11);
    expect(row.engineP50Ms).to.equal(10);
    expect(row.p50Ratio).to.equal(1.1);
    expect(row.apiP99Ms).to.equal(40);
    expect(row.engineP99Ms).to.equal(25);
    expect(row.p99Ratio).to.equal(1.6);
    expect(row.p50Target).to.equal(true);
    expect(row.p99Target).to.equal(false);
    expect(row.rounds[1]).to.include({ apiP50Ms: 10, engineP99Ms: 30, loadAverage1m: 2.6 });
    expect(targetMarks(row)).to.equal('p50 ✓, p99 ✗');
  });

  it('judges p99 only at concurrency 64, and refuses unpaired rounds', () => {
    const row = overheadRow([run(1, 2.5, 4), run(1, 2.7, 5)], [run(1, 2, 3), run(1, 2, 3)], 2);
    expect(row.apiP50Ms).to.equal(2.6);
    expect(row.p50Ratio).to.equal(1.3);
    expect(row.p99Target).to.equal(undefined);
    expect(targetMarks(row)).to.equal('p50 ✗');
    expect(() => overheadRow([run(1, 1, 1)], [], 1)).to.throw(/1 API runs against 0/);
  });

  it('adds the pass-through floor: its medians, API over floor and floor over engine', () => {
    const floorRun = (p50: number, p99: number, cpu: number): HttpCaseResult => ({
      ...run(1, p50, p99),
      cpuMsPerRequest: cpu,
    });
    const row = overheadRow([run(1, 4, 8), run(1, 6, 10)], [run(1, 2, 4), run(1, 2, 4)], 1, {
      loadAverages: [1, 1],
      floor: [floorRun(2.4, 5, 0.2), floorRun(2.6, 5, 0.3)],
    });
    expect(row.floor).to.deep.equal({
      p50Ms: 2.5,
      p99Ms: 5,
      apiP50Ratio: 2,
      apiP99Ratio: 1.8,
      engineP50Ratio: 1.25,
      engineP99Ratio: 1.25,
    });
    expect(row.rounds[1]).to.include({ floorP50Ms: 2.6, floorP99Ms: 5, floorCpuMsPerRequest: 0.3 });
    expect(overheadRow([run(1, 1, 1)], [run(1, 1, 1)], 1).floor).to.equal(undefined);
    expect(() =>
      overheadRow([run(1, 1, 1)], [run(1, 1, 1)], 1, { floor: [run(1, 1, 1), run(1, 1, 1)] }),
    ).to.throw(/1 API runs against 2 floor runs/);
  });

  it('adds the hop: its medians and the hop over the engine, round by round', () => {
    const hopRun = (p50: number, p99: number, cpu: number): HttpCaseResult => ({
      ...run(64, p50, p99),
      cpuMsPerRequest: cpu,
    });
    const row = overheadRow(
      [run(64, 30, 60), run(64, 34, 70)],
      [run(64, 20, 40), run(64, 20, 40)],
      1,
      { hop: [hopRun(21, 44, 0.1), hopRun(23, 46, 0.2)] },
    );
    expect(row.hop).to.deep.equal({
      p50Ms: 22,
      p99Ms: 45,
      engineP50Ratio: 1.1,
      engineP99Ratio: 1.13,
    });
    expect(row.rounds[0]).to.include({ hopP50Ms: 21, hopP99Ms: 44, hopCpuMsPerRequest: 0.1 });
    expect(row.floor).to.equal(undefined);
    expect(overheadRow([run(1, 1, 1)], [run(1, 1, 1)], 1).hop).to.equal(undefined);
    expect(() =>
      overheadRow([run(1, 1, 1), run(1, 1, 1)], [run(1, 1, 1), run(1, 1, 1)], 1, {
        hop: [run(1, 1, 1)],
      }),
    ).to.throw(/2 API runs against 1 hop runs/);
  });

  it('adds the reader, and says what it and the API add over the engine and the floor', () => {
    const timed = (p50: number, cpu: number): HttpCaseResult => ({
      ...run(1, p50, p50 * 2),
      cpuMsPerRequest: cpu,
    });
    // Engine p50 5 ms; floor 5.5 ms and 1.0 ms CPU; reader 5.9 ms and 1.4 ms CPU (within both
    // margins); API 7 ms and 3 ms CPU (2 ms over the engine, 2 ms over the floor's CPU).
    const row = overheadRow([timed(7, 3), timed(7, 3)], [run(1, 5, 10), run(1, 5, 10)], 1, {
      floor: [timed(5.5, 1), timed(5.5, 1)],
      reader: [timed(5.8, 1.3), timed(6, 1.5)],
    });
    expect(row.reader).to.deep.equal({
      p50Ms: 5.9,
      p99Ms: 11.8,
      engineP50Ratio: 1.18,
      engineP99Ratio: 1.18,
    });
    expect(row.rounds[1]).to.include({ readerP50Ms: 6, readerCpuMsPerRequest: 1.5 });
    expect(frontMargins(row)).to.deep.equal({
      reader: { p50OverEngineMs: 0.9, cpuOverFloorMs: 0.4, withinMargins: true },
      api: { p50OverEngineMs: 2, cpuOverFloorMs: 2, withinMargins: false },
    });
    // Within the p50 margin but not the CPU one is not within the margins.
    const cpuOnly = overheadRow([timed(5.5, 2)], [run(1, 5, 10)], 1, {
      floor: [timed(5.2, 1)],
      reader: [timed(5.2, 1.6)],
    });
    expect(frontMargins(cpuOnly).reader).to.deep.equal({
      p50OverEngineMs: 0.2,
      cpuOverFloorMs: 0.6,
      withinMargins: false,
    });
    // No floor: nothing to measure CPU against.
    expect(frontMargins(overheadRow([run(1, 1, 1)], [run(1, 1, 1)], 1))).to.deep.equal({
      api: undefined,
      reader: undefined,
    });
    expect(() =>
      overheadRow([run(1, 1, 1)], [run(1, 1, 1)], 1, { reader: [run(1, 1, 1), run(1, 1, 1)] }),
    ).to.throw(/1 API runs against 2 reader runs/);
  });

  it("reads a process's CPU time from /proc/<pid>/stat, whatever its command is called", () => {
    const stat =
      '4242 (node (api) x) S 1 4242 4242 0 -1 4194560 9000 0 12 0 731 45 0 0 20 0 11 0 1974301';
    expect(parseCpuMs(stat)).to.equal(7760);
    expect(parseCpuMs('1 (x) S')).to.equal(undefined);
  });
});
