import { expect } from 'chai';
import type { HttpCaseResult } from '../../../scripts/bench/http-load.js';
import {
  checkCounts,
  deepPages,
  engineCeilingRows,
  formatCountCheck,
  median,
  PhaseClock,
  ratioRows,
  readMatchCount,
  readerFloorRows,
  renderLoadTable,
  renderEngineCeilingTable,
  renderPhaseTable,
  renderReaderFloorTable,
  renderRatioTable,
  whichIsRight,
  type Repetition,
} from '../../../scripts/bench/peers/peer-report.js';
import {
  boxIntersects,
  countBbox,
  countDatetime,
  timeOverlaps,
} from '../../../scripts/bench/peers/corpus-truth.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';

function run(
  concurrency: number,
  requestsPerSecond: number,
  p50: number,
  p99: number,
  non2xx = 0,
): HttpCaseResult {
  return {
    case: 'q',
    concurrency,
    seconds: 1,
    requests: requestsPerSecond,
    requestsPerSecond,
    latencyMs: { p50, p95: p99, p99, max: p99 },
    non2xx,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    rssMiB: null,
    ok: non2xx === 0,
  };
}

/** A timed run with the CPU its server spent per request. */
function withCpu(result: HttpCaseResult, cpuMsPerRequest: number): HttpCaseResult {
  return { ...result, cpuMsPerRequest };
}

describe('bench:peers report', () => {
  it('reads the number of matches from JSON, CSW and single-record answers', () => {
    expect(readMatchCount('numberMatched', 200, '{"numberMatched":42}')).to.equal(42);
    expect(readMatchCount('numberMatched', 200, '{"context":{"matched":7}}')).to.equal(7);
    expect(readMatchCount('numberMatched', 200, '{"features":[]}')).to.equal(undefined);
    expect(readMatchCount('numberMatched', 400, '{"numberMatched":1}')).to.equal(undefined);
    expect(readMatchCount('numberMatched', 200, 'not json')).to.equal(undefined);
    expect(
      readMatchCount(
        'csw',
        200,
        '<csw:SearchResults numberOfRecordsMatched="351" numberOfRecordsReturned="10">',
      ),
    ).to.equal(351);
    expect(readMatchCount('csw', 200, '<ows:ExceptionReport/>')).to.equal(undefined);
    expect(readMatchCount('single', 200, '{}')).to.equal(1);
    expect(readMatchCount('single', 404, '{}')).to.equal(0);
    expect(readMatchCount('single', 500, '{}')).to.equal(undefined);
  });

  it('agrees only on equal known counts, and explains a known difference', () => {
    expect(checkCounts('text', 117, 117).agree).to.equal(true);
    expect(checkCounts('x', undefined, undefined).agree).to.equal(false);
    const differ = checkCounts('bbox', 415, 463, 'pycsw reads antimeridian boxes wrongly');
    expect(differ.agree).to.equal(false);
    expect(differ.explanation).to.equal('pycsw reads antimeridian boxes wrongly');
    expect(checkCounts('t', 1, 1, 'unused').explanation).to.equal(undefined);
    expect(formatCountCheck(differ)).to.equal(
      'bbox: Cairn 415, peer 463 — DIFFER (pycsw reads antimeridian boxes wrongly)',
    );
    expect(formatCountCheck(checkCounts('c', 5, undefined))).to.equal(
      'c: Cairn 5, peer n/a — DIFFER',
    );
  });

  it('takes the median of odd and even lists', () => {
    expect(median([3, 1, 2])).to.equal(2);
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(median([2.71, 3.03])).to.equal(2.87);
    expect(median([12.72, 14.870000000000001])).to.equal(13.8);
    expect(Number.isNaN(median([]))).to.equal(true);
  });

  it('groups interleaved repetitions per query and concurrency into Cairn/peer ratios', () => {
    const repetitions: Repetition[] = [
      { query: 'bbox', side: 'cairn', repetition: 1, result: run(1, 300, 2, 10) },
      { query: 'bbox', side: 'peer', repetition: 1, result: run(1, 30, 30, 100) },
      { query: 'bbox', side: 'cairn', repetition: 2, result: run(1, 500, 4, 20) },
      { query: 'bbox', side: 'peer', repetition: 2, result: run(1, 50, 50, 200, 3) },
      { query: 'bbox', side: 'cairn', repetition: 1, result: run(16, 800, 10, 40) },
      { query: 'bbox', side: 'peer', repetition: 1, result: run(16, 100, 100, 400) },
    ];
    const rows = ratioRows(repetitions);
    expect(rows.map((row) => [row.query, row.concurrency])).to.deep.equal([
      ['bbox', 1],
      ['bbox', 16],
    ]);
    expect(rows[0]?.cairnRps).to.deep.equal([300, 500]);
    expect(rows[0]?.peerRps).to.deep.equal([30, 50]);
    expect(rows[0]?.throughputRatio).to.equal(10);
    expect(rows[0]?.p50Ratio).to.equal(13.33);
    expect(rows[0]?.p99Ratio).to.equal(10);
    expect(rows[0]?.errors).to.deep.equal({ cairn: 0, peer: 3 });
    expect(rows[1]?.throughputRatio).to.equal(8);
    const table = renderRatioTable('pycsw', rows);
    expect(table.split('\n')).to.have.length(4);
    expect(table).to.contain(
      '| bbox | 1 | n/a | 300, 500 | 30, 50 | 3 / 15 | 40 / 150 | 10 | 13.33 | 10 | 0/3 | n/a/n/a |',
    );
  });

  it('shows NaN rather than a ratio when a side has no figure', () => {
    const rows = ratioRows([
      { query: 'q', side: 'cairn', repetition: 1, result: run(1, 10, 1, 2) },
    ]);
    expect(Number.isNaN(rows[0]?.throughputRatio)).to.equal(true);
    expect(rows[0]?.peerRps).to.deep.equal([]);
  });

  it('takes latencies from the windows that completed requests, and says which did not', () => {
    const silent = {
      ...run(1, 0, 0, 0),
      latencyMs: { p50: null, p95: null, p99: null, max: null },
    };
    const rows = ratioRows([
      { query: 'q', side: 'cairn', repetition: 1, result: run(1, 60, 16, 23) },
      { query: 'q', side: 'peer', repetition: 1, result: silent as unknown as HttpCaseResult },
      { query: 'q', side: 'cairn', repetition: 2, result: run(1, 60, 16, 22) },
      { query: 'q', side: 'peer', repetition: 2, result: run(1, 2, 469, 484) },
    ]);
    expect(rows[0]?.peerP50).to.equal(469);
    expect(rows[0]?.p50Ratio).to.equal(29.31);
    expect(rows[0]?.throughputRatio).to.equal(60);
    expect(rows[0]?.unanswered).to.deep.equal({ cairn: 0, peer: 1 });
    expect(renderRatioTable('pycsw', rows)).to.contain(
      '- q at concurrency 1: pycsw×1 completed no request in 1 of 2 windows',
    );
  });

  it("gives the peer its own rows per worker count, sharing Cairn's repetitions, with memory", () => {
    const withRss = (result: HttpCaseResult, max: number): HttpCaseResult => ({
      ...result,
      rssMiB: { max, mean: max },
    });
    const rows = ratioRows([
      { query: 'q', side: 'cairn', repetition: 1, result: withRss(run(1, 100, 1, 2), 200) },
      {
        query: 'q',
        side: 'peer',
        workers: 1,
        repetition: 1,
        result: withRss(run(1, 10, 10, 20), 90),
      },
      {
        query: 'q',
        side: 'peer',
        workers: 2,
        repetition: 1,
        result: withRss(run(1, 20, 5, 10), 180),
      },
      { query: 'q', side: 'cairn', repetition: 2, result: withRss(run(1, 300, 1, 2), 210) },
      {
        query: 'q',
        side: 'peer',
        workers: 2,
        repetition: 2,
        result: withRss(run(1, 40, 5, 10), 170),
      },
      {
        query: 'q',
        side: 'peer',
        workers: 1,
        repetition: 2,
        result: withRss(run(1, 30, 10, 20), 95),
      },
    ]);
    expect(rows.map((row) => row.workers)).to.deep.equal([1, 2]);
    expect(rows[0]?.cairnRps).to.deep.equal([100, 300]);
    expect(rows[1]?.cairnRps).to.deep.equal([100, 300]);
    expect(rows[0]?.peerRps).to.deep.equal([10, 30]);
    expect(rows[1]?.peerRps).to.deep.equal([20, 40]);
    expect(rows[0]?.throughputRatio).to.equal(10);
    expect(rows[1]?.throughputRatio).to.equal(6.67);
    expect(rows[0]?.rssMiB).to.deep.equal({ cairn: 210, peer: 95 });
    expect(rows[1]?.rssMiB).to.deep.equal({ cairn: 210, peer: 180 });
    expect(renderRatioTable('sfeos', rows)).to.contain('| q | 1 | 2 | 100, 300 | 20, 40 |');
  });

  it('sets the engine alone beside Cairn and the faster peer, and bounds Cairn by their CPU', () => {
    const repetitions: Repetition[] = [
      { query: 'q', side: 'cairn', repetition: 1, result: withCpu(run(16, 200, 50, 90), 3) },
      { query: 'q', side: 'peer', workers: 1, repetition: 1, result: run(16, 80, 150, 300) },
      { query: 'q', side: 'peer', workers: 2, repetition: 1, result: run(16, 100, 120, 280) },
      { query: 'q', side: 'engine', repetition: 1, result: withCpu(run(16, 280, 40, 70), 5) },
      { query: 'q', side: 'cairn', repetition: 2, result: withCpu(run(16, 220, 48, 88), 1) },
      { query: 'q', side: 'peer', workers: 1, repetition: 2, result: run(16, 90, 150, 300) },
      { query: 'q', side: 'peer', workers: 2, repetition: 2, result: run(16, 110, 120, 280) },
      { query: 'q', side: 'engine', repetition: 2, result: withCpu(run(16, 300, 44, 74), 7) },
      // A query without engine repetitions has no row.
      { query: 'r', side: 'cairn', repetition: 1, result: run(16, 10, 1, 2) },
    ];
    const rows = engineCeilingRows(repetitions, 2);
    expect(rows).to.have.length(1);
    const [row] = rows;
    expect(row?.engineRps).to.deep.equal([280, 300]);
    expect(row?.engineP50).to.equal(42);
    expect(row?.engineCpuMs).to.equal(6);
    expect(row?.cairnRps).to.equal(210);
    expect(row?.cairnCpuMs).to.equal(2);
    // The faster worker count's median: 2 workers, (100 + 110) / 2.
    expect(row?.peerRps).to.equal(105);
    expect(row?.engineOverPeer).to.equal(2.76);
    // 2 cores × 1,000 ms ÷ (6 + 2) ms a request.
    expect(row?.cpuBoundRps).to.equal(250);
    // The peer side alone is not mistaken for Cairn's in the ratio rows.
    expect(ratioRows(repetitions)[0]?.cairnRps).to.deep.equal([200, 220]);
    expect(renderEngineCeilingTable('sfeos', rows)).to.contain(
      '| q | 16 | 280, 300 | 42 / 72 | 6 | 210 | 2 | 105 | 2.76 | 250 |',
    );
  });

  it('sets the reader beside the peer, with the front CPU a factor of the peer leaves', () => {
    const repetitions: Repetition[] = [
      { query: 'q', side: 'cairn', repetition: 1, result: withCpu(run(16, 200, 50, 90), 3) },
      { query: 'q', side: 'peer', workers: 1, repetition: 1, result: run(16, 80, 150, 300) },
      { query: 'q', side: 'peer', workers: 2, repetition: 1, result: run(16, 90, 100, 200) },
      { query: 'q', side: 'engine', repetition: 1, result: withCpu(run(16, 280, 40, 70), 5) },
      { query: 'q', side: 'reader', repetition: 1, result: withCpu(run(16, 230, 45, 80), 1.5) },
      { query: 'q', side: 'cairn', repetition: 2, result: withCpu(run(16, 220, 48, 88), 1) },
      { query: 'q', side: 'peer', workers: 1, repetition: 2, result: run(16, 120, 150, 300) },
      { query: 'q', side: 'peer', workers: 2, repetition: 2, result: run(16, 90, 100, 220) },
      { query: 'q', side: 'engine', repetition: 2, result: withCpu(run(16, 300, 44, 74), 1) },
      { query: 'q', side: 'reader', repetition: 2, result: withCpu(run(16, 250, 47, 84), 2.5) },
      // A query with the engine alone but no reader repetitions has no row.
      { query: 'r', side: 'engine', repetition: 1, result: withCpu(run(16, 10, 1, 2), 1) },
    ];
    const rows = readerFloorRows(repetitions, 2, 3);
    expect(rows).to.have.length(1);
    const [row] = rows;
    expect(row?.readerRps).to.deep.equal([230, 250]);
    expect(row?.readerP50).to.equal(46);
    expect(row?.readerP99).to.equal(82);
    expect(row?.readerCpuMs).to.equal(2);
    expect(row?.engineCpuMs).to.equal(3);
    expect(row?.cairnCpuMs).to.equal(2);
    expect(row?.readerOverPeer).to.equal(2.4);
    expect(row?.cairnOverPeer).to.equal(2.1);
    // The faster worker count by req/s (1: median 100 against 90); the lower p99 of the two
    // worker counts' medians (2: 210 against 300), over the reader's median p99 (82).
    expect(row?.peerRps).to.equal(100);
    expect(row?.peerP99).to.equal(210);
    expect(row?.readerP99Ratio).to.equal(2.56);
    // 2 cores × 1,000 ms ÷ (3 × 100 req/s) − 3 ms of the engine's.
    expect(row?.frontBudgetMs).to.equal(3.67);
    // Reader repetitions are neither Cairn's nor the peer's in the ratio rows.
    expect(ratioRows(repetitions)[0]?.cairnRps).to.deep.equal([200, 220]);
    expect(renderReaderFloorTable('sfeos', rows, 3)).to.contain(
      '| q | 16 | 230, 250 | 46 / 82 | 2 | 2 | 3 | 3.67 | 2.4 | 2.1 | 2.56 |',
    );
    // The splicer's rows come from its own repetitions only (none here), under its own name.
    expect(readerFloorRows(repetitions, 2, 3, 'splicer')).to.deep.equal([]);
    const spliced = repetitions.map((r) =>
      r.side === 'reader' ? { ...r, side: 'splicer' as const } : r,
    );
    const splicerRows = readerFloorRows(spliced, 2, 3, 'splicer');
    expect(splicerRows).to.deep.equal(rows);
    expect(renderReaderFloorTable('sfeos', splicerRows, 3, 'splicer')).to.contain(
      '| query | conc. | splicer req/s (each rep.) | splicer p50 / p99 ms | splicer CPU ms/req |',
    );
  });

  it('clamps the CSW deep pages to the corpus and drops duplicates', () => {
    expect(deepPages(100_000)).to.deep.equal([
      { requested: 1, start: 1, clamped: false },
      { requested: 1_000, start: 1_000, clamped: false },
      { requested: 10_000, start: 10_000, clamped: false },
      { requested: 90_000, start: 90_000, clamped: false },
    ]);
    expect(deepPages(10_000)).to.deep.equal([
      { requested: 1, start: 1, clamped: false },
      { requested: 1_000, start: 1_000, clamped: false },
      { requested: 10_000, start: 9_991, clamped: true },
    ]);
    expect(deepPages(500)).to.deep.equal([
      { requested: 1, start: 1, clamped: false },
      { requested: 1_000, start: 491, clamped: true },
    ]);
    expect(deepPages(5)).to.deep.equal([{ requested: 1, start: 1, clamped: false }]);
  });

  it('says which side the corpus count bears out when the counts differ', () => {
    expect(whichIsRight(415, 463, 415)).to.equal('cairn');
    expect(whichIsRight(415, 463, 463)).to.equal('peer');
    expect(whichIsRight(415, 463, 400)).to.equal('neither');
    expect(whichIsRight(undefined, 7, 7)).to.equal('peer');
    const check = checkCounts('bbox', 415, 463, 'antimeridian', 415);
    expect(check).to.include({ corpus: 415, right: 'cairn', agree: false });
    expect(formatCountCheck(check)).to.equal(
      'bbox: Cairn 415, peer 463, corpus 415 (Cairn is right) — DIFFER (antimeridian)',
    );
    expect(formatCountCheck(checkCounts('d', 5, 6, undefined, 6))).to.equal(
      'd: Cairn 5, peer 6, corpus 6 (the peer is right) — DIFFER',
    );
    expect(formatCountCheck(checkCounts('d', 5, 6, undefined, 4))).to.contain(
      'corpus 4 (neither side is right)',
    );
    expect(checkCounts('same', 3, 3, undefined, 3)).to.not.have.property('right');
  });

  it('times phases in order, also one that throws, and totals them', async () => {
    let now = 0;
    const clock = new PhaseClock(() => now);
    await clock.time('load', () => {
      now += 61_500;
    });
    let thrown: unknown;
    try {
      await clock.time('timing', async () => {
        now += 2_250;
        await Promise.resolve();
        throw new Error('boom');
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(Error);
    expect(await clock.time('value', () => 42)).to.equal(42);
    expect(clock.phases).to.deep.equal([
      { phase: 'load', seconds: 61.5 },
      { phase: 'timing', seconds: 2.25 },
      { phase: 'value', seconds: 0 },
    ]);
    const table = renderPhaseTable(clock.phases).split('\n');
    expect(table).to.deep.equal([
      '| phase | seconds | m:ss |',
      '| --- | ---: | ---: |',
      '| load | 61.5 | 1:02 |',
      '| timing | 2.25 | 0:02 |',
      '| value | 0 | 0:00 |',
      '| **total** | 63.75 | 1:04 |',
    ]);
  });

  it('shows the parts of a phase that ran at once under it, counted once in the total', async () => {
    let now = 0;
    const clock = new PhaseClock(() => now);
    await clock.time('loads', async () => {
      let release = (): void => undefined;
      const gate = new Promise<void>((done) => {
        release = done;
      });
      const parts = [
        clock.time(
          'pycsw',
          async () => {
            await gate;
            now += 100_000;
          },
          'loads',
        ),
        clock
          .time(
            'sfeos',
            async () => {
              now += 20_000;
            },
            'loads',
          )
          .then(release),
      ];
      await Promise.all(parts);
    });
    await clock.time('timing', () => {
      now += 30_000;
    });
    expect(clock.phases.find((phase) => phase.phase === 'sfeos')).to.deep.equal({
      phase: 'sfeos',
      seconds: 20,
      within: 'loads',
    });
    expect(renderPhaseTable(clock.phases).split('\n')).to.deep.equal([
      '| phase | seconds | m:ss |',
      '| --- | ---: | ---: |',
      '| loads | 120 | 2:00 |',
      '| ↳ sfeos | 20 | 0:20 |',
      '| ↳ pycsw | 120 | 2:00 |',
      '| timing | 30 | 0:30 |',
      '| **total** | 150 | 2:30 |',
    ]);
  });

  it("shows each side's load rate", () => {
    const table = renderLoadTable([
      { side: 'pycsw', records: 100_000, seconds: 142.9, how: 'parser' },
      { side: 'none', records: 0, seconds: 0, how: '-' },
    ]);
    expect(table).to.contain('| pycsw | 100000 | 142.9 | 700 | parser |');
    expect(table).to.contain('| none | 0 | 0 | n/a | - |');
  });
});

describe('bench:peers counts from the corpus', () => {
  const record = (bbox?: CoreRecord['bbox'], time?: CoreRecord['time']): CoreRecord =>
    ({ id: 'r', bbox, time }) as unknown as CoreRecord;

  it('intersects boxes, a west > east record box as two spans', () => {
    const query: [number, number, number, number] = [-10, 40, 20, 60];
    expect(boxIntersects([0, 0, 10, 10], query)).to.equal(false);
    expect(boxIntersects([15, 55, 30, 70], query)).to.equal(true);
    expect(boxIntersects([20, 60, 25, 65], query)).to.equal(true);
    expect(boxIntersects([170, 45, -170, 50], query)).to.equal(false);
    expect(boxIntersects([170, 45, 0, 50], query)).to.equal(true);
    expect(
      countBbox([record([15, 55, 30, 70]), record(), record([170, 45, -170, 50])], query),
    ).to.equal(1);
  });

  it('overlaps periods with open ends, and skips records without time', () => {
    const [from, to] = ['2000-01-01T00:00:00Z', '2015-12-31T23:59:59Z'];
    expect(timeOverlaps({ start: '1990-01-01', end: '2000-01-01T00:00:00Z' }, from, to)).to.equal(
      true,
    );
    expect(timeOverlaps({ start: '1990-01-01', end: '1999-12-31T23:59:59Z' }, from, to)).to.equal(
      false,
    );
    expect(timeOverlaps({ start: null, end: '2001-01-01' }, from, to)).to.equal(true);
    expect(timeOverlaps({ start: '2016-01-01', end: null }, from, to)).to.equal(false);
    expect(timeOverlaps({ start: null, end: null }, from, to)).to.equal(false);
    expect(timeOverlaps(undefined, from, to)).to.equal(false);
    expect(
      countDatetime(
        [record(undefined, { start: '2010-01-01', end: '2020-01-01' }), record()],
        from,
        to,
      ),
    ).to.equal(1);
  });
});
