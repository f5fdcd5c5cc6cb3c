import { expect } from 'chai';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Server as TcpServer } from 'node:net';
import {
  createPassThroughServer,
  createTcpPipeServer,
  pageOfHits,
  PRESENTED_BASE,
  splicePage,
  spliceRequest,
} from '../../../scripts/bench/pass-through.js';

function listen(server: Server | TcpServer): Promise<string> {
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
  const seen: {
    method?: string | undefined;
    url?: string | undefined;
    body: string;
    remotePort?: number | undefined;
  }[] = [];
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

// A stand-in engine answering a fixed _search answer (or 404 for /missing/_search): what is
// checked is that the reader parses the answer and writes its hits' sources as a page.
describe('bench: the reader (the floor that reads what it serves)', () => {
  const answer = {
    took: 3,
    timed_out: false,
    hits: {
      total: { value: 42, relation: 'eq' },
      hits: [
        { _index: 'i', _id: 'a', _source: { id: 'a', title: 'Flood \u00e9' } },
        { _index: 'i', _id: 'b', _source: { id: 'b', extent: [0, 1] } },
      ],
    },
  };
  let upstream: Server;
  let reader: Server;
  let readerOrigin: string;

  before(async () => {
    upstream = createServer((request, response) => {
      void readBody(request).then(() => {
        const missing = request.url?.startsWith('/missing/') === true;
        response.writeHead(missing ? 404 : 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(missing ? { error: { type: 'index_not_found' } } : answer));
      });
    });
    reader = createPassThroughServer(await listen(upstream), { read: true });
    readerOrigin = await listen(reader);
  });

  after(async () => {
    await close(reader);
    await close(upstream);
  });

  it("answers a page of the hits' sources with the number matched", async () => {
    const response = await fetch(`${readerOrigin}/i/_search`, { method: 'POST', body: '{}' });
    expect(response.status).to.equal(200);
    const text = await response.text();
    expect(response.headers.get('content-length')).to.equal(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).to.deep.equal({
      type: 'FeatureCollection',
      numberMatched: 42,
      numberReturned: 2,
      features: [
        { id: 'a', title: 'Flood \u00e9' },
        { id: 'b', extent: [0, 1] },
      ],
    });
  });

  it("passes an error answer through as the engine's", async () => {
    const response = await fetch(`${readerOrigin}/missing/_search`, { method: 'POST', body: '{}' });
    expect(response.status).to.equal(404);
    expect(await response.json()).to.deep.equal({ error: { type: 'index_not_found' } });
  });

  it('writes an answer without hits back as parsed, and a plain total as the number', () => {
    expect(pageOfHits('{ "count" : 7 }')).to.equal('{"count":7}');
    expect(JSON.parse(pageOfHits('{"hits":{"total":5,"hits":[]}}'))).to.deep.equal({
      type: 'FeatureCollection',
      numberMatched: 5,
      numberReturned: 0,
      features: [],
    });
  });
});

// The stand-in engine records the search it gets and answers hits with the kept item strings
// as stored fields; what is checked is the request the splicer sends and the page it joins.
describe('bench: the splicer (items kept as strings, joined per request)', () => {
  const item = (id: string): string =>
    JSON.stringify({
      type: 'Feature',
      id,
      links: [{ rel: 'self', href: `${PRESENTED_BASE}/catalogue/stac/items/${id}` }],
    });
  const seen: { url?: string | undefined; body: string }[] = [];
  let upstream: Server;
  let splicer: Server;
  let splicerOrigin: string;

  before(async () => {
    upstream = createServer((request, response) => {
      void readBody(request).then((body) => {
        seen.push({ url: request.url, body });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            hits: {
              total: { value: 7, relation: 'eq' },
              hits: [
                { _id: 'a', fields: { presented: [item('a')] } },
                { _id: 'b', fields: { presented: [item('b')] } },
              ],
            },
          }),
        );
      });
    });
    splicer = createPassThroughServer(await listen(upstream), { spliceIndex: 'copy' });
    splicerOrigin = await listen(splicer);
  });

  after(async () => {
    await close(splicer);
    await close(upstream);
  });

  it('sends the same search to the copy, asking for the kept string alone', async () => {
    seen.length = 0;
    const search = { size: 10, query: { match_all: {} }, _source: { excludes: ['x'] } };
    await (
      await fetch(`${splicerOrigin}/alias/_search?timeout=1s`, {
        method: 'POST',
        body: JSON.stringify(search),
      })
    ).text();
    expect(seen[0]?.url).to.equal('/copy/_search?timeout=1s');
    expect(JSON.parse(seen[0]?.body ?? '')).to.deep.equal({
      size: 10,
      query: { match_all: {} },
      _source: false,
      stored_fields: ['presented'],
    });
    expect(() => spliceRequest('/_search', '{}', 'copy')).to.throw(/no index/);
  });

  it("joins the strings with the request's base URL into a page, parsing no item", async () => {
    const response = await fetch(`${splicerOrigin}/alias/_search`, { method: 'POST', body: '{}' });
    const text = await response.text();
    expect(response.headers.get('content-length')).to.equal(String(Buffer.byteLength(text)));
    const base = splicerOrigin;
    expect(JSON.parse(text)).to.deep.equal({
      type: 'FeatureCollection',
      numberMatched: 7,
      numberReturned: 2,
      features: ['a', 'b'].map((id) => ({
        type: 'Feature',
        id,
        links: [{ rel: 'self', href: `${base}/catalogue/stac/items/${id}` }],
      })),
      links: [
        { rel: 'self', type: 'application/geo+json', href: `${base}/alias/_search` },
        { rel: 'root', type: 'application/json', href: `${base}/catalogue/stac` },
      ],
    });
    expect(text).not.to.contain(PRESENTED_BASE);
  });

  it('rewrites each search of a multi-search, and pages the answer with the most hits', () => {
    const body = [
      { index: 'alias' },
      { size: 0, query: { match_all: {} } },
      { index: 'alias' },
      { size: 10, query: { match_all: {} } },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    const rewritten = spliceRequest('/_msearch?x=1', `${body}\n`, 'copy');
    expect(rewritten.path).to.equal('/_msearch?x=1');
    expect(
      rewritten.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).to.deep.equal([
      { index: 'copy' },
      { size: 0, query: { match_all: {} }, _source: false, stored_fields: ['presented'] },
      { index: 'copy' },
      { size: 10, query: { match_all: {} }, _source: false, stored_fields: ['presented'] },
    ]);
    expect(spliceRequest('/alias/_msearch', `${body}\n`, 'copy').path).to.equal('/copy/_msearch');
    const answer = JSON.stringify({
      responses: [
        { hits: { total: { value: 3 }, hits: [] } },
        { hits: { total: { value: 3 }, hits: [{ fields: { presented: [item('c')] } }] } },
      ],
    });
    const page = JSON.parse(splicePage(answer, 'http://b', '/s')) as {
      numberMatched: number;
      features: { id: string }[];
    };
    expect(page.numberMatched).to.equal(3);
    expect(page.features.map((feature) => feature.id)).to.deep.equal(['c']);
  });
});

// The same stand-in engine; what is checked is that the pipe changes no byte either way and
// gives each client connection an engine connection of its own, for as long as it lasts.
describe('bench: the hop (a byte pipe in front of the engine)', () => {
  const seen: { raw: string; remotePort?: number | undefined }[] = [];
  let upstream: Server;
  let pipe: TcpServer;
  let pipeOrigin: string;
  let upstreamOrigin: string;

  before(async () => {
    upstream = createServer((request, response) => {
      void readBody(request).then((body) => {
        const head = `${request.method} ${request.url} ${String(request.headers['x-probe'] ?? '')}`;
        seen.push({ raw: `${head}\n${body}`, remotePort: request.socket.remotePort });
        response.writeHead(201, { 'content-type': 'application/json', 'x-echo': head });
        response.end(JSON.stringify({ echoed: body }));
      });
    });
    upstreamOrigin = await listen(upstream);
    pipe = createTcpPipeServer(upstreamOrigin);
    pipeOrigin = await listen(pipe);
  });

  // Closing the engine's connections closes the pipe's, and with them the clients'.
  after(async () => {
    await close(upstream);
    await new Promise<void>((resolve) => pipe.close(() => resolve()));
  });

  it('carries the request and the answer through unchanged', async () => {
    const body = JSON.stringify({ query: { match_all: {} }, size: 10 });
    const send = async (origin: string) => {
      const response = await fetch(`${origin}/idx/_search?filter_path=hits`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-probe': 'p1' },
      });
      return {
        status: response.status,
        echo: response.headers.get('x-echo'),
        text: await response.text(),
      };
    };
    seen.length = 0;
    const direct = await send(upstreamOrigin);
    const piped = await send(pipeOrigin);
    expect(piped).to.deep.equal(direct);
    expect(piped.status).to.equal(201);
    expect(seen.map((entry) => entry.raw)).to.deep.equal([
      `POST /idx/_search?filter_path=hits p1\n${body}`,
      `POST /idx/_search?filter_path=hits p1\n${body}`,
    ]);
  });

  it('keeps one engine connection per client connection, and a new one for a new client', async () => {
    seen.length = 0;
    const ask = async (agent: Agent) => {
      const url = new URL(`${pipeOrigin}/a/_search`);
      return new Promise<void>((resolve, reject) => {
        const outgoing = request(
          { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST' },
          (answer) => {
            answer.resume();
            answer.on('end', () => resolve());
          },
        );
        outgoing.on('error', reject);
        outgoing.end('{}');
      });
    };
    const first = new Agent({ keepAlive: true, maxSockets: 1 });
    const second = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i += 1) await ask(first);
    await ask(second);
    first.destroy();
    second.destroy();
    const ports = seen.map((entry) => entry.remotePort);
    expect(ports).to.have.length(4);
    expect(new Set(ports.slice(0, 3)).size).to.equal(1);
    expect(ports[3]).to.not.equal(ports[0]);
  });
});
