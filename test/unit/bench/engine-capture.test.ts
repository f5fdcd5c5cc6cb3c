import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  replayCall,
  startRecordingProxy,
  type EngineCall,
} from '../../../scripts/bench/peers/engine-capture.js';

function call(method: string, path: string, body = ''): EngineCall {
  return { method, path, body };
}

describe('bench:peers engine capture', () => {
  it('replays the last search or multi-search a query sent, not a count or a write', () => {
    const calls = [
      call('POST', '/cairn/_count', '{}'),
      call('POST', '/cairn/_search?filter_path=hits', '{"size":0}'),
      call('POST', '/_msearch', '{}\n{"size":10}\n'),
      call('GET', '/cairn/_doc/1'),
      call('POST', '/cairn/_count'),
    ];
    expect(replayCall(calls)?.path).to.equal('/_msearch');
    expect(replayCall([call('POST', '/cairn/_count')])).to.equal(undefined);
  });

  it('forwards requests to the engine and hands over what it recorded, once', async () => {
    const seen: string[] = [];
    const engine: Server = createServer((incoming, outgoing) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      incoming.on('end', () => {
        seen.push(`${incoming.method} ${incoming.url} ${body}`);
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ echoed: body.length }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const { port } = engine.address() as AddressInfo;
    const proxy = await startRecordingProxy(`http://127.0.0.1:${port}`);
    try {
      const answer = await fetch(`${proxy.origin}/cairn/_search?q=1`, {
        method: 'POST',
        body: '{"size":10}',
        headers: { 'content-type': 'application/json' },
      });
      expect(await answer.json()).to.deep.equal({ echoed: 11 });
      expect(seen).to.deep.equal(['POST /cairn/_search?q=1 {"size":10}']);
      const taken = proxy.take();
      expect(taken).to.deep.equal([
        {
          method: 'POST',
          path: '/cairn/_search?q=1',
          contentType: 'application/json',
          body: '{"size":10}',
        },
      ]);
      expect(proxy.take()).to.deep.equal([]);
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => engine.close(() => resolve()));
    }
  });
});
