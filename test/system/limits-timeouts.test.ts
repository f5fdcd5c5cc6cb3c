/**
 * Slow and idle clients against the API's own HTTP server (services/api/http-server.ts) with
 * short configured timeouts, over real sockets: a client that drips its headers a byte at a
 * time, or its body, is answered 408 and disconnected; an idle keep-alive connection is closed.
 * Nothing here measures speed: each test waits for the server to act, bounded by mocha's timeout.
 */
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { createHttpServer } from '../../services/api/http-server.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { listen, type Listening } from '../support/fuzz-http.js';

const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: '600',
  HTTP_REQUEST_TIMEOUT_MS: '1200',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
};

/** A raw client socket that records everything the server sends and when it closes. */
interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

async function openClient(http: Listening): Promise<RawClient> {
  const { port } = new URL(http.baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined); // a reset by the server is an expected way to close
  const whenClosed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  return { socket, received: () => data, closed: whenClosed, isClosed: () => closed };
}

/** Writes `text` one byte at a time every `everyMs` until done or the server closes the socket. */
async function drip(client: RawClient, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  for (const character of text) {
    if (client.isClosed() || client.socket.destroyed) break;
    client.socket.write(character);
    sent += 1;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}

describe('slow and idle clients (real sockets, short timeouts)', function () {
  this.timeout(30_000);
  let test: TestApp;
  let http: Listening;

  before(async () => {
    test = await createTestApp(1, TIMEOUTS);
    http = await listen(createHttpServer(test.app, test.config));
  });
  after(async () => {
    await http?.close();
    await test?.close();
  });

  it('applies the configured timeouts to the server', () => {
    expect(http.server.headersTimeout).to.equal(600);
    expect(http.server.requestTimeout).to.equal(1200);
    expect(http.server.keepAliveTimeout).to.equal(1000);
  });

  it('answers a client that sends its headers byte by byte too slowly with 408 and disconnects it', async () => {
    const client = await openClient(http);
    const request = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`;
    // 100 ms a byte: the headers would take over 20 s, far beyond the 600 ms allowed.
    const sent = await drip(client, request, 100);
    await client.closed;
    expect(sent, 'bytes sent before the server gave up').to.be.below(request.length);
    expect(client.received()).to.match(/^HTTP\/1\.1 408 /);
    expect(client.received()).not.to.match(/"status":"ok"/);
  });

  it('answers a client that sends its body too slowly with 408 and disconnects it', async () => {
    const client = await openClient(http);
    const body = JSON.stringify({ limit: 1, ids: ['x'.repeat(200)] });
    client.socket.write(
      `POST /catalogue/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const sent = await drip(client, body, 100);
    await client.closed;
    expect(sent).to.be.below(body.length);
    expect(client.received()).to.match(/^HTTP\/1\.1 408 /);
  });

  it('serves a request on a keep-alive connection, then closes the connection once idle', async () => {
    const client = await openClient(http);
    client.socket.write(
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n',
    );
    await client.closed;
    expect(client.received()).to.match(/^HTTP\/1\.1 200 /);
    expect(client.received()).to.match(/\r\nKeep-Alive: timeout=1\r\n/i);
    expect(client.received()).to.include('{"status":"ok"}');
  });

  it('keeps serving requests that arrive in time on the same connection', async () => {
    const client = await openClient(http);
    for (let i = 0; i < 3; i += 1) {
      const before = client.received().length;
      client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      while (!client.received().slice(before).includes('{"status":"ok"}')) {
        expect(client.isClosed(), `connection closed before answer ${i + 1}`).to.equal(false);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    client.socket.destroy();
  });
});
