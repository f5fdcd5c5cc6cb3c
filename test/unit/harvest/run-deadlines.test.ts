/**
 * The deadlines of a harvest run without I/O: a page that does not come, a run that
 * goes on, a source that disappears, a worker that stops — each ends the page loop with its own
 * error, and the signal requests are sent with is aborted too.
 */
import { expect } from 'chai';
import {
  HarvestCancelledError,
  HarvestInterruptedError,
  RunDeadlines,
} from '../../../shared/harvest/run-deadlines.js';
import { HarvestSourceError } from '../../../shared/harvest/source-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pages every `ms` milliseconds, for ever. */
async function* trickle(ms: number): AsyncIterable<number> {
  for (let page = 0; ; page += 1) {
    await sleep(ms);
    yield page;
  }
}

async function drain(pages: AsyncIterable<number>): Promise<{ read: number; error: unknown }> {
  let read = 0;
  try {
    for await (const page of pages) read = page + 1;
  } catch (error) {
    return { read, error };
  }
  return { read, error: undefined };
}

describe('harvest run deadlines', () => {
  it('ends a run that goes on past the run deadline, for good, and aborts its signal', async () => {
    const deadlines = new RunDeadlines({ sourceId: 's', runTimeoutMs: 300, pageTimeoutMs: 1000 });
    const { read, error } = await drain(deadlines.paced(trickle(40), async () => true));
    expect(error).to.be.instanceOf(HarvestSourceError);
    expect((error as HarvestSourceError).permanent).to.equal(true);
    expect((error as Error).message).to.match(/HARVEST_RUN_TIMEOUT_MS \(300 ms\)/);
    expect(read).to.be.within(3, 8);
    expect(deadlines.signal().aborted).to.equal(true);
  });

  it('ends a page that does not come within the page deadline (retryable)', async () => {
    const deadlines = new RunDeadlines({ sourceId: 's', runTimeoutMs: 5000, pageTimeoutMs: 100 });
    const started = Date.now();
    const { read, error } = await drain(deadlines.paced(trickle(1000), async () => true));
    expect(Date.now() - started).to.be.lessThan(600);
    expect(read).to.equal(0);
    expect((error as HarvestSourceError).permanent).to.equal(false);
    expect((error as Error).message).to.match(/a page of source "s" took longer/);
    deadlines.finish();
  });

  it('cancels the run when the source is gone, before the page is handed on', async () => {
    const deadlines = new RunDeadlines({ sourceId: 's', runTimeoutMs: 5000, pageTimeoutMs: 1000 });
    let checks = 0;
    const { read, error } = await drain(deadlines.paced(trickle(5), async () => ++checks < 3));
    expect(read).to.equal(2);
    expect(error).to.be.instanceOf(HarvestCancelledError);
    deadlines.finish();
  });

  it('stops at once with the caller’s reason when its signal aborts', async () => {
    const stop = new AbortController();
    const deadlines = new RunDeadlines({
      sourceId: 's',
      runTimeoutMs: 5000,
      pageTimeoutMs: 5000,
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(new HarvestInterruptedError()), 50);
    const started = Date.now();
    const { error } = await drain(deadlines.paced(trickle(2000), async () => true));
    expect(error).to.be.instanceOf(HarvestInterruptedError);
    expect(Date.now() - started).to.be.lessThan(500);
    deadlines.finish();
  });

  it('lets a run that ends in time end normally', async () => {
    const deadlines = new RunDeadlines({ sourceId: 's', runTimeoutMs: 5000, pageTimeoutMs: 500 });
    async function* three() {
      for (let page = 0; page < 3; page += 1) {
        await sleep(5);
        yield page;
      }
    }
    const { read, error } = await drain(deadlines.paced(three(), async () => true));
    expect([read, error]).to.deep.equal([3, undefined]);
    deadlines.finish();
  });
});
