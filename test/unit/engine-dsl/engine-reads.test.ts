/**
 * Both engine adapters' searches, counts and reads by id go over node:http
 * (shared/search/engine/engine-reads.ts). Their failures, against loopback servers that
 * misbehave on purpose (faults a running engine cannot be made to show on demand): refused and
 * reset connections, a server that never answers, 502/503 answers, an error answer, an answer
 * that would poison a prototype. Each must end as the engine error the client's own would.
 */
import { expect } from 'chai';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { ClientConnectionOptions } from '../../../shared/search/engine/elasticsearch-adapter.js';
import { ElasticsearchAdapter } from '../../../shared/search/engine/elasticsearch-adapter.js';
import { EngineError, type EngineAdapter } from '../../../shared/search/engine/engine-adapter.js';
import { OpenSearchAdapter } from '../../../shared/search/engine/opensearch-adapter.js';

type AdapterClass = new (options: ClientConnectionOptions) => EngineAdapter;

interface Seen {
  method?: string | undefined;
  url?: string | undefined;
  authorization?: string | undefined;
  type?: string | undefined;
  body: string;
}

/** Starts a server on a free loopback port; answers with `handle`. */
async function serve(
  handle: (attempt: number, seen: Seen) => { status: number; type?: string; body: string } | null,
): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = createHttpServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const entry = {
        method: request.method,
        url: request.url,
        authorization: request.headers.authorization,
        type: request.headers['content-type'],
        body,
      };
      seen.push(entry);
      const answer = handle(seen.length, entry);
      if (answer === null) return; // never answers
      response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `use` with an adapter on a server answering with `handle`, then closes both. */
async function against(
  Adapter: AdapterClass,
  handle: Parameters<typeof serve>[0],
  use: (adapter: EngineAdapter, seen: Seen[]) => Promise<void>,
  options: { requestTimeout?: number; maxRetries?: number } = {},
): Promise<void> {
  const server = await serve(handle);
  const adapter = new Adapter({ url: server.url, ...options });
  try {
    await use(adapter, server.seen);
  } finally {
    await adapter.close();
    await server.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(EngineError);
  return error as EngineError;
}

const HITS = JSON.stringify({
  took: 1,
  timed_out: false,
  hits: { total: { value: 1, relation: 'eq' }, hits: [{ _id: 'a', _source: { record: {} } }] },
});

const ADAPTERS: [string, AdapterClass][] = [
  ['OpenSearch', OpenSearchAdapter],
  ['Elasticsearch', ElasticsearchAdapter],
];

for (const [engine, Adapter] of ADAPTERS)
  describe(`${engine} reads over node:http: failures`, () => {
    it('sends the search with filter_path, credentials and the URL path prefix, and reads the answer', async () => {
      const server = await serve(() => ({ status: 200, body: HITS }));
      const url = server.url.replace('http://', 'http://user:p%40ss@') + '/prefix/';
      const adapter = new Adapter({ url });
      try {
        const answer = await adapter.search({
          index: 'records',
          body: { size: 1 },
          filterPath: ['hits.hits._id', 'hits.total'],
        });
        expect(answer.hits.total).to.deep.equal({ value: 1, relation: 'eq' });
        expect(server.seen[0]).to.deep.include({
          method: 'POST',
          url: '/prefix/records/_search?filter_path=hits.hits._id%2Chits.total',
          authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
          body: '{"size":1}',
        });
      } finally {
        await adapter.close();
        await server.close();
      }
    });

    it('sends several searches as _msearch lines and reads each answer, retrying a 503', async () => {
      const answer = JSON.stringify({ took: 1, responses: [JSON.parse(HITS), JSON.parse(HITS)] });
      await against(
        Adapter,
        (attempt) => (attempt === 1 ? { status: 503, body: '{}' } : { status: 200, body: answer }),
        async (adapter, seen) => {
          const answers = await adapter.searchMany('records', [{ size: 1 }, { size: 0 }]);
          expect(answers.map((item) => item.hits.total?.value)).to.deep.equal([1, 1]);
          expect(seen).to.have.length(2);
          expect(seen[1]).to.deep.include({
            method: 'POST',
            url: '/_msearch',
            type: 'application/x-ndjson',
            body: '{"index":"records"}\n{"size":1}\n{"index":"records"}\n{"size":0}\n',
          });
        },
      );
    });

    it('refuses a multi-search answer with another number of answers than searches sent', async () => {
      const answer = JSON.stringify({ took: 1, responses: [JSON.parse(HITS)] });
      await against(
        Adapter,
        () => ({ status: 200, body: answer }),
        async (adapter) => {
          const error = await failure(adapter.searchMany('records', [{ size: 1 }, { size: 0 }]));
          expect(error.message).to.match(/msearch_answer_mismatch/);
        },
      );
    });

    it('retries a connection the server resets, twice, then reports the engine unavailable', async () => {
      let connections = 0;
      const server: Server = createServer((socket) => {
        connections += 1;
        socket.resetAndDestroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const adapter = new Adapter({ url: `http://127.0.0.1:${address.port}` });
      try {
        const error = await failure(adapter.count('records'));
        expect(error.kind).to.equal('unavailable');
        expect(connections).to.equal(3);
      } finally {
        await adapter.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('retries 502 and 503 and answers once the engine does', async () => {
      await against(
        Adapter,
        (attempt) =>
          attempt < 3
            ? { status: attempt === 1 ? 502 : 503, body: '{}' }
            : { status: 200, body: HITS },
        async (adapter, seen) => {
          const answer = await adapter.search({ index: 'records', body: {} });
          expect(answer.hits.hits.map((hit) => hit._id)).to.deep.equal(['a']);
          expect(seen).to.have.length(3);
        },
      );
    });

    it('reports a 503 that lasts as unavailable, even when its body is not JSON', async () => {
      await against(
        Adapter,
        () => ({ status: 503, type: 'text/html', body: '<h1>down</h1>' }),
        async (adapter, seen) => {
          const error = await failure(adapter.search({ index: 'records', body: {} }));
          expect(error).to.include({ kind: 'unavailable', status: 503 });
          expect(seen).to.have.length(3);
        },
      );
    });

    it('reports an engine that does not answer within the request timeout as unavailable', async () => {
      await against(
        Adapter,
        () => null,
        async (adapter, seen) => {
          const started = Date.now();
          const error = await failure(adapter.count('records'));
          expect(error.kind).to.equal('unavailable');
          expect(seen).to.have.length(2);
          expect(Date.now() - started).to.be.below(5_000);
        },
        { requestTimeout: 100, maxRetries: 1 },
      );
    });

    it("rejects a query the engine refuses with the engine's error type, without retrying", async () => {
      await against(
        Adapter,
        () => ({
          status: 400,
          body: JSON.stringify({
            error: { type: 'parsing_exception', root_cause: [{ type: 'parsing_exception' }] },
            status: 400,
          }),
        }),
        async (adapter, seen) => {
          const error = await failure(adapter.search({ index: 'records', body: {} }));
          expect(error).to.include({ kind: 'rejected', status: 400, type: 'parsing_exception' });
          expect(seen).to.have.length(1);
        },
      );
    });

    it('answers null for a missing id, and for a missing index (the client ignored any 404 here)', async () => {
      await against(
        Adapter,
        (_attempt, seen) =>
          seen.url?.startsWith('/gone/')
            ? {
                status: 404,
                body: JSON.stringify({ error: { type: 'index_not_found_exception' }, status: 404 }),
              }
            : { status: 404, body: JSON.stringify({ _id: 'x', found: false }) },
        async (adapter, seen) => {
          expect(await adapter.getSource('records', 'x/y', ['record'])).to.equal(null);
          expect(seen[0]?.url).to.equal('/records/_doc/x%2Fy?_source_includes=record');
          expect(await adapter.getSource('gone', 'x', ['record'])).to.equal(null);
          expect(seen).to.have.length(2);
        },
      );
    });

    it('refuses an answer that would poison a prototype, as the client does', async () => {
      await against(
        Adapter,
        () => ({
          status: 200,
          body: '{"hits":{"hits":[{"_source":{"__proto__":{"polluted":true}}}]}}',
        }),
        async (adapter, seen) => {
          const error = await failure(adapter.search({ index: 'records', body: {} }));
          expect(error.kind).to.equal('failed');
          expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
          // An unreadable answer is not asked for again.
          expect(seen).to.have.length(1);
        },
      );
    });
  });
