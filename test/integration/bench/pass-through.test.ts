import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPassThroughServer } from '../../../scripts/bench/pass-through.js';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => resolve(text));
  });
}

// The upstream here is a plain loopback HTTP server standing in for the engine's _search: the
// pass-through is a proxy, and what is checked is what it forwards and returns.
describe('bench: the pass-through floor', () => {
  const seen: { method?: string; url?: string; body: string; remotePort?: number }[] = [];
  let upstream: Server;
  let floor: Server;
  let floorOrigin: string;

  before(async () => {
    upstream = createServer((request, response) => {
      void readBody(request).then((body) => {
        seen.push({
          method: request.method,
          url: request.url,
          body,
          remotePort: request.socket.remotePort,
        });
        response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        response.end(JSON.stringify({ took: 1, echoed: JSON.parse(body) as unknown }));
      });
    });
    floor = createPassThroughServer(await listen(upstream));
    floorOrigin = await listen(floor);
  });

  after(async () => {
    await close(floor);
    await close(upstream);
  });

  it("forwards method, path, query string and body, and returns the engine's JSON as is", async () => {
    const body = { query: { match_all: {} }, size: 10 };
    const path = '/overhead2-os/_search?filter_path=hits.hits._source%2Ctimed_out';
    const response = await fetch(`${floorOrigin}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=UTF-8');
    expect(await response.text()).to.equal(JSON.stringify({ took: 1, echoed: body }));
    const last = seen[seen.length - 1];
    expect(last).to.include({ method: 'POST', url: path, body: JSON.stringify(body) });
  });

  it('reuses its upstream connection between requests (keep-alive)', async () => {
    seen.length = 0;
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${floorOrigin}/a/_search`, { method: 'POST', body: '{}' });
      expect(response.status).to.equal(200);
      await response.text();
    }
    expect(new Set(seen.map((entry) => entry.remotePort)).size).to.equal(1);
  });

  it('answers its own readiness probe without forwarding it', async () => {
    seen.length = 0;
    const response = await fetch(`${floorOrigin}/readyz`);
    expect(response.status).to.equal(200);
    expect(seen).to.have.length(0);
  });
});
