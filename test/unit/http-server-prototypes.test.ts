/**
 * The API's server creates its requests and responses with the app's own prototypes
 * (appPrototypeClasses in services/api/http-server.ts), so Express has none to swap; and the
 * app still answers through a server someone else creates (as supertest does).
 */
import { expect } from 'chai';
import express from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appPrototypeClasses, createHttpServer } from '../../services/api/http-server.js';

const CONFIG = {
  http: { requestTimeoutMs: 5_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 1_000 },
  limits: { urlBytes: 8_192 },
} as Parameters<typeof createHttpServer>[1];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function testApp() {
  const app = express();
  app.get('/hello/:name', (request, response) => {
    // Express's request and response methods, and the app reached through them.
    response.type('json').send({
      name: request.params.name,
      host: request.hostname,
      accepts: request.accepts(['json', 'html']),
      app: request.app === app && response.app === app,
    });
  });
  return app;
}

describe('the API server and Express prototypes', () => {
  it('hands Express requests and responses that already have the app prototypes', async () => {
    const app = testApp();
    const server = createHttpServer(app, CONFIG);
    const arrived: boolean[] = [];
    // Runs before Express sees the request: what the server made, not what Express set.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      arrived.push(
        Object.getPrototypeOf(request) === app.request &&
          Object.getPrototypeOf(response) === app.response,
      );
    });
    const origin = await listen(server);
    try {
      for (const name of ['a', 'b']) {
        const answer = await fetch(`${origin}/hello/${name}`, {
          headers: { accept: 'application/json' },
        });
        expect(answer.status).to.equal(200);
        expect(await answer.json()).to.deep.equal({
          name,
          host: '127.0.0.1',
          accepts: 'json',
          app: true,
        });
      }
      expect(arrived).to.deep.equal([true, true]);
    } finally {
      await close(server);
    }
  });

  it('gives one app the same classes each time, and a server of its own still works', async () => {
    const app = testApp();
    const first = appPrototypeClasses(app);
    expect(appPrototypeClasses(app)).to.equal(first);
    const plain = createServer(app);
    const origin = await listen(plain);
    try {
      const answer = await fetch(`${origin}/hello/x`, { headers: { accept: 'text/html' } });
      expect(await answer.json()).to.deep.include({ name: 'x', accepts: 'html', app: true });
    } finally {
      await close(plain);
    }
  });
});
