/**
 * The worker's wait while a dependency is unavailable: which errors count, and the delay that
 * doubles up to its ceiling and starts over after a success.
 */
import { expect } from 'chai';
import {
  InternalError,
  InvalidRecordError,
  ServiceUnavailableError,
} from '../../../shared/errors/index.js';
import {
  isUnavailableError,
  UnavailableBackoff,
} from '../../../services/worker/unavailable-backoff.js';

describe('worker: waiting out an unavailable dependency', () => {
  it('counts only the project’s 503 errors as unavailable', () => {
    expect(isUnavailableError(new ServiceUnavailableError('engine down'))).to.equal(true);
    expect(isUnavailableError(new InternalError('bug'))).to.equal(false);
    expect(isUnavailableError(new InvalidRecordError('bad'))).to.equal(false);
    expect(isUnavailableError(new Error('ECONNREFUSED'))).to.equal(false);
  });

  it('doubles the delay up to the ceiling, and starts over after a success', () => {
    const backoff = new UnavailableBackoff(1000, 5000);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).to.deep.equal([
      1000, 2000, 4000, 5000,
    ]);
    backoff.reset();
    expect(backoff.next()).to.equal(1000);
  });
});
