/**
 * The Elasticsearch adapter's retries against a real loopback server that resets every
 * connection (a fault a running engine cannot be made to show on demand): the request is tried
 * three times, waiting 50 ms and then 100 ms, and ends as an "unavailable" engine error.
 */
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import { EngineError } from '../../../shared/search/engine/engine-adapter.js';
import {
  ElasticsearchAdapter,
  retryBackoffSeconds,
} from '../../../shared/search/engine/elasticsearch-adapter.js';

describe('Elasticsearch adapter retries', () => {
  let server: Server;
  let connections = 0;
  let url = '';

  before(async () => {
    server = createServer((socket: Socket) => {
      connections += 1;
      socket.resetAndDestroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `http://127.0.0.1:${address.port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('waits 50 ms, then 100 ms, between attempts (not the client default of seconds)', () => {
    expect([1, 2, 3].map(retryBackoffSeconds)).to.deep.equal([0.05, 0.1, 0.2]);
  });

  it('tries a failing request three times, then reports the engine unavailable', async () => {
    const adapter = new ElasticsearchAdapter({ url });
    try {
      connections = 0;
      const failure = await adapter.count('records').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(EngineError);
      expect((failure as EngineError).kind).to.equal('unavailable');
      expect(connections).to.equal(3);
    } finally {
      await adapter.close();
    }
  });
});
