import { expect } from 'chai';
import type { HttpCaseResult } from '../../../scripts/bench/http-load.js';
import { spliceDifference, spliceRows } from '../../../scripts/bench/splice-floor.js';

function result(p50: number, cpuMsPerRequest: number | undefined, rps: number): HttpCaseResult {
  return {
    case: 'q',
    concurrency: 1,
    seconds: 1,
    requests: rps,
    requestsPerSecond: rps,
    latencyMs: { p50, p95: p50, p99: p50, max: p50 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    rssMiB: null,
    ok: true,
    ...(cpuMsPerRequest !== undefined && { cpuMsPerRequest }),
  };
}

describe('bench: splice-floor rows', () => {
  it("sets each side's medians side by side, and the splicer, reader and API over the engine's p50 and the floor's CPU", () => {
    const sides = {
      api: [9, 4, 100],
      engine: [5, 6, 180],
      floor: [6, 1, 150],
      reader: [7, 2, 130],
    };
    const runs = [1, 2].flatMap((round) => [
      ...Object.entries(sides).map(([side, [p50, cpu, rps]]) => ({
        query: 'q',
        side: side as 'api' | 'engine' | 'floor' | 'reader',
        round,
        result: result(p50! + round - 1, cpu, rps!),
      })),
      // The splicer's CPU read in one round only: the median is of the rounds that have it.
      {
        query: 'q',
        side: 'splicer' as const,
        round,
        result: result(4, round === 1 ? 1.2 : undefined, 200),
      },
    ]);
    expect(spliceRows(runs)).to.deep.equal([
      '| q | 1 | 9.50 · 4.00 · 100.00 | 5.50 · 6.00 · 180.00 | 6.50 · 1.00 · 150.00 | 7.50 · 2.00 · 130.00 | 4.00 · 1.20 · 200.00 | -1.50 / +0.20 | +2.00 / +1.00 | +4.00 / +3.00 |',
    ]);
  });

  it("takes a spliced page for Cairn's only with the same matches and the same items, origins aside", () => {
    const page = (origin: string, matched: number, ids: string[], title = 'T'): string =>
      JSON.stringify({
        numberMatched: matched,
        features: ids.map((id) => ({ id, title, links: [{ href: `${origin}/items/${id}` }] })),
        links: [{ href: `${origin}/search?next=x` }],
      });
    const [cairn, splicer] = ['http://127.0.0.1:1', 'http://127.0.0.1:2'];
    const ours = page(cairn, 5, ['a', 'b']);
    expect(spliceDifference(ours, cairn, page(splicer, 5, ['a', 'b']), splicer)).to.equal(
      undefined,
    );
    expect(spliceDifference(ours, cairn, page(splicer, 6, ['a', 'b']), splicer)).to.equal(
      "matched 6 against Cairn's 5",
    );
    expect(spliceDifference(ours, cairn, page(splicer, 5, ['b', 'a']), splicer)).to.equal(
      "items b,a against Cairn's a,b",
    );
    expect(spliceDifference(ours, cairn, page(splicer, 5, ['a', 'b'], 'U'), splicer)).to.equal(
      'the same items (a,b) written differently',
    );
  });
});
