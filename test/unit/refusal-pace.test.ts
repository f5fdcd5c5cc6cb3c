/**
 * The pace of cost refusals (services/api/middleware/refusal-pace.ts): which errors are cost
 * refusals, and how long a client's refusal is held (the generic cell rate algorithm) — nothing
 * within the burst, then the time back to the pace, never more than the bound, per client, and
 * nothing once the client has kept to the pace again. Times are given, never slept.
 */
import { expect } from 'chai';
import {
  NotFoundError,
  PayloadTooLargeError,
  QueryLimitError,
  ServiceUnavailableError,
  UriTooLongError,
} from '../../shared/errors/index.js';
import { ExpensiveLaneFullError } from '../../shared/search/expensive-lane.js';
import { isCostRefusal, RefusalPace } from '../../services/api/middleware/refusal-pace.js';

/** 10 refusals a second (one per 100 ms), a burst of 3, held at most 250 ms. */
const pace = (maxClients = 100): RefusalPace =>
  new RefusalPace({ perSecond: 10, burst: 3, maxDelayMs: 250, maxHeld: 10, maxClients });

describe('isCostRefusal', () => {
  it('counts query-limit 400s, full-lane 503s and size refusals, nothing else', () => {
    expect(isCostRefusal(new QueryLimitError('sortby', 'too many'))).to.equal(true);
    expect(isCostRefusal(new ExpensiveLaneFullError('full'))).to.equal(true);
    expect(isCostRefusal(new PayloadTooLargeError('big'))).to.equal(true);
    expect(isCostRefusal(new UriTooLongError('long'))).to.equal(true);
    // body-parser's own error, before it is turned into a PayloadTooLargeError
    expect(isCostRefusal(Object.assign(new Error('big'), { status: 413 }))).to.equal(true);
    // An engine that is down is not the client's doing; a 404 is an ordinary answer.
    expect(isCostRefusal(new ServiceUnavailableError('engine down'))).to.equal(false);
    expect(isCostRefusal(new NotFoundError('none'))).to.equal(false);
    expect(isCostRefusal(undefined)).to.equal(false);
  });
});

describe('RefusalPace', () => {
  it('answers a burst at once, then holds each refusal until the client is back at the pace', () => {
    const p = pace();
    // Three at the same moment: the burst.
    expect([0, 0, 0].map((t) => p.delayFor('a', t))).to.deep.equal([0, 0, 0]);
    // The fourth is one interval ahead of the pace, the fifth two.
    expect(p.delayFor('a', 0)).to.equal(100);
    expect(p.delayFor('a', 0)).to.equal(200);
  });

  it('never holds longer than the bound, and does not let a client run further ahead', () => {
    const p = pace();
    for (let i = 0; i < 3; i += 1) p.delayFor('a', 0);
    const delays = Array.from({ length: 20 }, () => p.delayFor('a', 0));
    expect(Math.max(...delays)).to.equal(250);
    expect(delays.slice(-5)).to.deep.equal([250, 250, 250, 250, 250]);
    // Held at the bound, the client is back within its burst after the bound and the burst:
    // its arrival time did not grow with every refusal.
    expect(p.delayFor('a', 250 + 300)).to.equal(0);
  });

  it('keeps each client to its own pace', () => {
    const p = pace();
    for (let i = 0; i < 5; i += 1) p.delayFor('a', 0);
    expect(p.delayFor('a', 0)).to.be.greaterThan(0);
    expect(p.delayFor('b', 0)).to.equal(0);
  });

  it('holds nothing for a client that keeps to the pace', () => {
    const p = pace();
    const delays = Array.from({ length: 50 }, (_, i) => p.delayFor('a', i * 100));
    expect(delays.every((delay) => delay === 0)).to.equal(true);
  });

  it('paces nothing without a client, or at a pace of 0', () => {
    expect(Array.from({ length: 10 }, () => pace().delayFor(undefined, 0))).to.deep.equal(
      Array.from({ length: 10 }, () => 0),
    );
    const off = new RefusalPace({
      perSecond: 0,
      burst: 1,
      maxDelayMs: 250,
      maxHeld: 10,
      maxClients: 10,
    });
    expect(Array.from({ length: 10 }, () => off.delayFor('a', 0))).to.deep.equal(
      Array.from({ length: 10 }, () => 0),
    );
  });

  it('follows at most maxClients, and makes room from the clients that recovered', () => {
    const p = pace(2);
    p.delayFor('a', 0);
    p.delayFor('b', 0);
    // A third client is not followed while both are ahead of their pace ...
    for (let i = 0; i < 10; i += 1) expect(p.delayFor('c', 0)).to.equal(0);
    expect(p.clients).to.equal(2);
    // ... and is once one of them has recovered.
    p.delayFor('a', 0);
    p.delayFor('a', 0);
    p.delayFor('c', 150);
    expect(p.clients).to.equal(2);
    for (let i = 0; i < 3; i += 1) p.delayFor('c', 150);
    expect(p.delayFor('c', 150)).to.be.greaterThan(0);
  });
});
