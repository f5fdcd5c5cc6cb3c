import { expect } from 'chai';
import {
  busyShare,
  frameDocument,
  parseCpuTicks,
  readBulkItemsAnswer,
  runPool,
  settleVerdict,
} from '../../../scripts/bench/peers/load-plan.js';

describe('bench:peers load plan', () => {
  describe('runPool', () => {
    it('keeps at most `limit` calls in flight and returns results in input order', async () => {
      let inFlight = 0;
      let most = 0;
      const results = await runPool([30, 5, 20, 1, 10], 2, async (delay, index) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((done) => setTimeout(done, delay));
        inFlight -= 1;
        return `${index}:${delay}`;
      });
      expect(results).to.deep.equal(['0:30', '1:5', '2:20', '3:1', '4:10']);
      expect(most).to.equal(2);
    });

    it('throws the first failure and starts no more calls after it', async () => {
      const started: number[] = [];
      let thrown: unknown;
      try {
        await runPool([1, 2, 3, 4, 5], 1, async (item) => {
          started.push(item);
          if (item === 2) throw new Error('refused');
          return item;
        });
      } catch (error) {
        thrown = error;
      }
      expect((thrown as Error).message).to.equal('refused');
      expect(started).to.deep.equal([1, 2]);
    });

    it('refuses a limit below one', async () => {
      let thrown: unknown;
      try {
        await runPool([1], 0, async (item) => item);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as Error).message).to.contain('positive limit');
    });
  });

  describe('readBulkItemsAnswer', () => {
    it("reads SFEOS 8's summary with a refused item", () => {
      const body = JSON.stringify({
        received: 3,
        success: 2,
        skipped: 0,
        errors: [
          {
            create: {
              _id: 'rec-7|peersbench',
              status: 400,
              error: { type: 'mapper_parsing_exception', reason: 'failed to parse field' },
            },
          },
        ],
      });
      expect(readBulkItemsAnswer(200, body, 3)).to.deep.equal({
        success: 2,
        skipped: 0,
        errors: ['rec-7|peersbench: mapper_parsing_exception: failed to parse field'],
      });
    });

    it('reads per-item admission errors and duplicates', () => {
      const body = JSON.stringify({
        received: 2,
        success: 1,
        skipped: 1,
        errors: [{ id: 'x', msg: 'Item must be a JSON object.' }],
      });
      expect(readBulkItemsAnswer(200, body, 2)).to.deep.equal({
        success: 1,
        skipped: 1,
        errors: ['x: Item must be a JSON object.'],
      });
    });

    it("reads older SFEOS's sentence", () => {
      expect(readBulkItemsAnswer(200, '"Successfully added 500 Items."', 500)).to.deep.equal({
        success: 500,
        skipped: 0,
        errors: [],
      });
      expect(readBulkItemsAnswer(200, '"Successfully added 499 Items."', 500).errors).to.deep.equal(
        ['1 of 500 not added: Successfully added 499 Items.'],
      );
    });

    it('counts every item of a refused request as refused by the request', () => {
      const outcome = readBulkItemsAnswer(404, '{"detail":"Collection not found"}', 500);
      expect(outcome.success).to.equal(0);
      expect(outcome.errors).to.deep.equal([
        'the request answered 404: {"detail":"Collection not found"}',
      ]);
    });
  });

  it('frames a document as its length in bytes (not characters), a newline, the bytes', () => {
    const framed = frameDocument('<a>é</a>');
    expect(framed.toString('utf8')).to.equal('9\n<a>é</a>');
  });

  describe('settling', () => {
    it('reads the busy share of the CPU between two /proc/stat readings', () => {
      const before = parseCpuTicks('cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n');
      const after = parseCpuTicks('cpu  160 0 70 900 70 0 0 0 0 0\n');
      expect(before).to.deep.equal({ busy: 150, total: 1000 });
      expect(after).to.deep.equal({ busy: 230, total: 1200 });
      expect(busyShare(before!, after!)).to.equal(0.4);
      expect(parseCpuTicks('intr 1 2 3')).to.equal(undefined);
    });

    it('settles after three quiet seconds in a row, and gives up after the longest wait', () => {
      expect(settleVerdict([0.9, 0.2, 0.1])).to.deep.equal({ done: false, settled: false });
      expect(settleVerdict([0.9, 0.2, 0.1, 0.25])).to.deep.equal({ done: true, settled: true });
      expect(settleVerdict([0.1, 0.9, 0.1, 0.1])).to.deep.equal({ done: false, settled: false });
      const busy = Array.from({ length: 60 }, () => 0.8);
      expect(settleVerdict(busy)).to.deep.equal({ done: true, settled: false });
      expect(
        settleVerdict([0.5, 0.1], { quietShare: 0.2, quietSeconds: 1, maxSeconds: 10 }),
      ).to.deep.equal({ done: true, settled: true });
    });
  });
});
