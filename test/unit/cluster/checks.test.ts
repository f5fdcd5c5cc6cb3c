import { expect } from 'chai';
import {
  checkHarvest,
  checkIndexing,
  checkRequests,
  indexingPassed,
  resultLine,
  summaryPassed,
  type ClusterSummary,
  type RequestOutcome,
} from '../../../scripts/cluster/checks.js';
import { retryAfterSeconds } from '../../../scripts/cluster/client.js';
import { parseOptions } from '../../../scripts/cluster/options.js';

const outcome = (overrides: Partial<RequestOutcome>): RequestOutcome => ({
  client: 'discovery',
  status: 200,
  sentAt: 1000,
  doneAt: 1100,
  ...overrides,
});

function summary(overrides: Partial<ClusterSummary> = {}): ClusterSummary {
  const ids = ['a', 'b', 'c'];
  return {
    indexing: checkIndexing(ids, ids),
    harvests: [checkHarvest('csw', 2, ids, ids), checkHarvest('stac', 1, ids, ids)],
    requests: checkRequests([outcome({})], []),
    sessionShared: true,
    sourceHarvested: true,
    ...overrides,
  };
}

describe('cluster check: indexing arithmetic', () => {
  it('passes when the engine lists every accepted id once', () => {
    const check = checkIndexing(['a', 'b', 'c'], ['c', 'a', 'b']);
    expect(check).to.deep.include({
      accepted: 3,
      indexed: 3,
      lost: 0,
      duplicates: 0,
      unexpected: 0,
    });
    expect(indexingPassed(check)).to.equal(true);
  });

  it('counts lost, duplicated and unexpected ids, with examples', () => {
    const check = checkIndexing(['a', 'b', 'c', 'd'], ['a', 'a', 'b', 'x']);
    expect(check).to.deep.include({
      accepted: 4,
      indexed: 4,
      lost: 2,
      duplicates: 1,
      unexpected: 1,
    });
    expect(check.examples).to.deep.equal({
      lost: ['c', 'd'],
      duplicates: ['a'],
      unexpected: ['x'],
    });
    expect(indexingPassed(check)).to.equal(false);
  });

  it('fails a duplicate even when the counts happen to agree', () => {
    const check = checkIndexing(['a', 'b'], ['a', 'a']);
    expect(check.indexed).to.equal(check.accepted);
    expect(indexingPassed(check)).to.equal(false);
  });
});

describe('cluster check: harvest arithmetic', () => {
  it('sees every record exactly once', () => {
    const check = checkHarvest('csw', 3, ['b', 'a', 'c'], ['a', 'b', 'c']);
    expect(check).to.deep.include({ seen: 3, distinct: 3, missed: 0, repeated: 0, foreign: 0 });
  });

  it('reports records missed, repeated across pages and not in the catalogue', () => {
    const check = checkHarvest('stac', 2, ['a', 'b', 'b', 'z'], ['a', 'b', 'c']);
    expect(check).to.deep.include({ seen: 4, distinct: 3, missed: 1, repeated: 1, foreign: 1 });
    expect(check.examples).to.deep.equal({ missed: ['c'], repeated: ['b'] });
  });
});

describe('cluster check: request outcomes and failover windows', () => {
  const window = { what: 'API replica api-1', from: 10_000, to: 20_000 };

  it('excuses a 503 with Retry-After sent or answered inside a window', () => {
    const check = checkRequests(
      [
        outcome({ status: 503, retryAfter: 2, sentAt: 12_000, doneAt: 12_010 }),
        // Sent before the kill, answered after it: the kill caused it.
        outcome({ status: 503, retryAfter: 1, sentAt: 9_000, doneAt: 10_500 }),
        outcome({}),
      ],
      [window],
    );
    expect(check).to.deep.include({ total: 3, ok: 1, unavailableInWindow: 2, failed: 0 });
    expect(check.windows[0]).to.deep.include({
      what: 'API replica api-1',
      seconds: 10,
      unavailable: 2,
    });
    expect(check.windows[0]?.slowestMs).to.equal(1500);
  });

  it('tolerates an answer cut by the kill of the API replica serving it, and nothing else like it', () => {
    const cut = 'no answer: fetch failed (UND_ERR_SOCKET)';
    const check = checkRequests(
      [
        // In flight at the kill (10,000) and cut within the slack: tolerated.
        outcome({ status: 0, sentAt: 9_800, doneAt: 10_050, problem: cut }),
        // Sent in the instant the kill began: it may still reach the dying replica.
        outcome({ status: 0, sentAt: 10_005, doneAt: 10_020, problem: cut }),
        // Sent well after the kill: the balancer should have routed it elsewhere.
        outcome({ status: 0, sentAt: 12_500, doneAt: 12_600, problem: cut }),
        // Cut long after the kill.
        outcome({ status: 0, sentAt: 9_000, doneAt: 13_000, problem: cut }),
        // Another kind of failure at the kill.
        outcome({ status: 0, sentAt: 9_800, doneAt: 10_050, problem: 'no answer: timeout' }),
      ],
      [window],
    );
    expect(check).to.deep.include({ total: 5, cutByKill: 2, failed: 3 });
    const workerOnly = checkRequests(
      [outcome({ status: 0, sentAt: 9_800, doneAt: 10_050, problem: cut })],
      [{ what: 'worker worker-1', from: 10_000, to: 20_000 }],
    );
    expect(workerOnly).to.deep.include({ cutByKill: 0, failed: 1 });
  });

  it('charges a 503 to the latest kill when windows overlap', () => {
    const check = checkRequests(
      [outcome({ status: 503, retryAfter: 2, sentAt: 16_000, doneAt: 16_100 })],
      [window, { what: 'worker worker-1', from: 15_000, to: 30_000 }],
    );
    expect(check.windows.map((item) => item.unavailable)).to.deep.equal([0, 1]);
  });

  it('fails a 503 outside every window, a 503 without Retry-After, other errors and wrong answers', () => {
    const check = checkRequests(
      [
        outcome({ status: 503, retryAfter: 2, sentAt: 25_000, doneAt: 25_001 }),
        outcome({
          status: 503,
          sentAt: 12_000,
          doneAt: 12_001,
          problem: '503 without Retry-After',
        }),
        outcome({ status: 502, sentAt: 12_000, doneAt: 12_001, problem: 'HTTP 502' }),
        outcome({ status: 0, problem: 'no answer: timeout' }),
        outcome({ status: 200, problem: 'no "features" in the answer' }),
      ],
      [window],
    );
    expect(check).to.deep.include({ total: 5, ok: 0, unavailableInWindow: 0, failed: 5 });
    expect(check.examples).to.have.length(5);
    expect(check.examples[0]).to.match(/^discovery 503 at .*: outside every failover window$/);
    expect(check.examples[1]).to.match(/: 503 without Retry-After$/);
  });

  it('reads Retry-After only as a positive whole number of seconds', () => {
    expect(retryAfterSeconds('2')).to.equal(2);
    expect(retryAfterSeconds('0')).to.equal(undefined);
    expect(retryAfterSeconds('1.5')).to.equal(undefined);
    expect(retryAfterSeconds('Wed, 21 Oct 2026 07:28:00 GMT')).to.equal(undefined);
    expect(retryAfterSeconds(null)).to.equal(undefined);
  });
});

describe('cluster check: the result line', () => {
  it('reads as the issue asks and ends in PASS when every check passed', () => {
    const passing = summary({
      requests: checkRequests(
        [outcome({}), outcome({ status: 503, retryAfter: 2, sentAt: 15_000, doneAt: 15_001 })],
        [{ what: 'engine node osnode3', from: 10_000, to: 20_000 }],
      ),
    });
    expect(summaryPassed(passing)).to.equal(true);
    expect(resultLine(passing)).to.equal(
      'cluster: 3 accepted, 3 indexed, 0 lost, 0 duplicates, harvest csw 3/3 once, harvest stac 3/3 once, ' +
        '0 failed requests of 2 (1 503s in failover windows, 0 answers cut by a replica kill), session shared, source harvested on a worker: PASS',
    );
  });

  it('names what failed and ends in FAIL', () => {
    const failing = summary({
      indexing: checkIndexing(['a', 'b', 'c'], ['a', 'b', 'b']),
      harvests: [checkHarvest('csw', 1, ['a', 'a'], ['a', 'b'])],
      requests: checkRequests([outcome({ status: 500, problem: 'HTTP 500' })], []),
      sessionShared: false,
      sourceHarvested: false,
    });
    expect(summaryPassed(failing)).to.equal(false);
    expect(resultLine(failing)).to.equal(
      'cluster: 3 accepted, 3 indexed, 1 lost, 1 duplicates, harvest csw 1/2 (1 missed, 1 repeated, 0 foreign), ' +
        '1 failed requests of 1 (0 503s in failover windows, 0 answers cut by a replica kill), session NOT shared, source NOT harvested on a worker: FAIL',
    );
  });

  it('fails each check alone', () => {
    expect(summaryPassed(summary({ sessionShared: false }))).to.equal(false);
    expect(summaryPassed(summary({ sourceHarvested: false }))).to.equal(false);
    expect(summaryPassed(summary({ harvests: [] }))).to.equal(false);
    expect(
      summaryPassed(
        summary({ requests: checkRequests([outcome({ status: 0, problem: 'x' })], []) }),
      ),
    ).to.equal(false);
  });
});

describe('cluster check: options', () => {
  it('defaults to the full check and reads the reduced one', () => {
    const full = parseOptions([], { CAIRN_CACHE: '/tmp/c' });
    expect(full).to.deep.include({ records: 100000, recordsPerRequest: 500, writers: 2 });
    expect(full.runDirectory).to.equal('/tmp/c/cluster');
    expect(full.ports).to.deep.equal({
      balancer: 8090,
      engineBalancer: 9260,
      httpBase: 9260,
      transportBase: 9360,
      redis: 6391,
    });
    const reduced = parseOptions(['--records', '5_000', '--run-dir', '/tmp/r'], {
      CAIRN_CLUSTER_LB_PORT: '18090',
    });
    expect(reduced).to.deep.include({ records: 5000, runDirectory: '/tmp/r' });
    expect(reduced.ports.balancer).to.equal(18090);
  });

  it('refuses a record count that is not a positive integer', () => {
    expect(() => parseOptions(['--records', 'many'], {})).to.throw('--records must be an integer');
    expect(() => parseOptions(['--writers', '0'], {})).to.throw('--writers must be an integer ≥ 1');
  });
});
