import { expect } from 'chai';
import type { HttpCaseResult } from '../../../scripts/bench/http-load.js';
import {
  checkCounts,
  formatCountCheck,
  median,
  ratioRows,
  readMatchCount,
  renderRatioTable,
  type Repetition,
} from '../../../scripts/bench/peers/peer-report.js';

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
    expect(rows[0].cairnRps).to.deep.equal([300, 500]);
    expect(rows[0].peerRps).to.deep.equal([30, 50]);
    expect(rows[0].throughputRatio).to.equal(10);
    expect(rows[0].p50Ratio).to.equal(13.33);
    expect(rows[0].p99Ratio).to.equal(10);
    expect(rows[0].errors).to.deep.equal({ cairn: 0, peer: 3 });
    expect(rows[1].throughputRatio).to.equal(8);
    const table = renderRatioTable('pycsw', rows);
    expect(table.split('\n')).to.have.length(4);
    expect(table).to.contain(
      '| bbox | 1 | 300, 500 | 30, 50 | 3 / 15 | 40 / 150 | 10 | 13.33 | 10 | 0/3 |',
    );
  });

  it('shows NaN rather than a ratio when a side has no figure', () => {
    const rows = ratioRows([
      { query: 'q', side: 'cairn', repetition: 1, result: run(1, 10, 1, 2) },
    ]);
    expect(Number.isNaN(rows[0].throughputRatio)).to.equal(true);
    expect(rows[0].peerRps).to.deep.equal([]);
  });
});
