/**
 * The adapters' reads over node:http (shared/search/engine/engine-reads.ts) against a real
 * OpenSearch and a real Elasticsearch, each compared with the same calls through the engine's
 * official client: the same answers for searches (with and without filter_path, and into a
 * point in time, and as unparsed text), counts and reads by id, and the same refusals. Needs
 * CAIRN_TEST_OPENSEARCH_URL and CAIRN_TEST_ELASTICSEARCH_URL.
 */
import { expect } from 'chai';
import { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { ElasticsearchAdapter } from '../../shared/search/engine/elasticsearch-adapter.js';
import {
  EngineError,
  type EngineAdapter,
  type JsonObject,
} from '../../shared/search/engine/engine-adapter.js';
import { OpenSearchAdapter } from '../../shared/search/engine/opensearch-adapter.js';
import { requireEngineUrl } from './engine-backend-cases.js';

/** The official client's calls the reads are compared with, answering bodies. */
interface Reference {
  createIndex(index: string, mappings: JsonObject): Promise<void>;
  bulk(operations: JsonObject[]): Promise<{ errors: boolean }>;
  search(index: string, body: JsonObject, filterPath?: string[]): Promise<unknown>;
  count(index: string, query: JsonObject): Promise<number>;
  deleteIndex(index: string): Promise<void>;
  close(): Promise<void>;
}

function openSearchReference(url: string): Reference {
  const client = new OpenSearchClient({ node: url });
  return {
    createIndex: async (index, mappings) => {
      await client.indices.create({ index, body: { mappings } });
    },
    bulk: async (body) => (await client.bulk({ body, refresh: true })).body as { errors: boolean },
    search: async (index, body, filterPath) =>
      (
        await client.search({
          index,
          body,
          ...(filterPath === undefined ? {} : { filter_path: filterPath }),
        })
      ).body,
    count: async (index, query) =>
      ((await client.count({ index, body: { query } })).body as { count: number }).count,
    deleteIndex: async (index) => {
      await client.indices.delete({ index }, { ignore: [404] });
    },
    close: () => client.close(),
  };
}

function elasticsearchReference(url: string): Reference {
  const client = new ElasticsearchClient({ node: url });
  return {
    createIndex: async (index, mappings) => {
      await client.indices.create({ index, mappings });
    },
    bulk: async (operations) => client.bulk({ operations, refresh: true }),
    search: (index, body, filterPath) =>
      client.search({
        index,
        ...body,
        ...(filterPath === undefined ? {} : { filter_path: filterPath }),
      }),
    count: async (index, query) => (await client.count({ index, query })).count,
    deleteIndex: async (index) => {
      await client.indices.delete({ index }, { ignore: [404] });
    },
    close: () => client.close(),
  };
}

const engines: {
  name: string;
  url: string | undefined;
  adapter: (url: string) => EngineAdapter;
  reference: (url: string) => Reference;
}[] = [
  {
    name: 'OpenSearch',
    url: requireEngineUrl('opensearch'),
    adapter: (url) => new OpenSearchAdapter({ url }),
    reference: openSearchReference,
  },
  {
    name: 'Elasticsearch',
    url: requireEngineUrl('elasticsearch'),
    adapter: (url) => new ElasticsearchAdapter({ url }),
    reference: elasticsearchReference,
  },
];

/** An answer without what differs between two runs of one search. */
function comparable(answer: unknown): JsonObject {
  const rest = { ...(answer as JsonObject) };
  delete rest.took;
  return rest;
}

for (const engine of engines) {
  const url = engine.url;
  if (!url) continue;
  describe(`${engine.name} reads over node:http, against the client`, () => {
    const index = `cairn-test-reads-${process.pid}`;
    let client: Reference;
    let adapter: EngineAdapter;

    before(async function () {
      this.timeout(30_000);
      client = engine.reference(url);
      adapter = engine.adapter(url);
      await client.createIndex(index, {
        properties: { id: { type: 'keyword' }, n: { type: 'integer' } },
      });
      const body = Array.from({ length: 30 }, (_, n) => [
        { index: { _index: index, _id: `r${n}` } },
        { id: `r${n}`, n, title: `record ${n} ünïcödé`, nested: { list: [`${n}`, `x${n}`] } },
      ]).flat();
      const written = await client.bulk(body);
      expect(written.errors, JSON.stringify(written)).to.equal(false);
    });

    after(async () => {
      await client.deleteIndex(index);
      await client.close();
      await adapter.close();
    });

    const searches: [string, JsonObject, string[] | undefined][] = [
      [
        'a sorted page',
        { query: { range: { n: { gte: 5 } } }, sort: [{ id: 'asc' }], size: 7 },
        undefined,
      ],
      [
        'a page from an offset, counted exactly',
        { sort: [{ n: 'desc' }], from: 20, size: 5, track_total_hits: true },
        undefined,
      ],
      ['a filtered answer', { sort: [{ id: 'asc' }], size: 3 }, ['hits.hits._id', 'hits.total']],
      ['an aggregation', { size: 0, aggs: { top: { max: { field: 'n' } } } }, undefined],
    ];
    for (const [name, body, filterPath] of searches) {
      it(`answers ${name} as the client does`, async () => {
        const ours = await adapter.search({
          index,
          body,
          ...(filterPath === undefined ? {} : { filterPath }),
        });
        const theirs = await client.search(index, body, filterPath);
        expect(comparable(ours)).to.deep.equal(comparable(theirs));
        // Not two empty answers: every case matches records.
        expect(ours.hits.total?.value ?? 0).to.be.above(0);
      });
    }

    it('answers a search as its unparsed text, the same answer as the client gives, and refuses as search does', async () => {
      const body = searches[0]![1];
      const text = await adapter.searchText({ index, body });
      expect(text).to.be.a('string');
      expect(comparable(JSON.parse(text))).to.deep.equal(
        comparable(await client.search(index, body)),
      );
      const refusal = (call: Promise<unknown>) =>
        call.then(
          () => undefined,
          (error: unknown) => error,
        );
      const rejected = await refusal(
        adapter.searchText({ index, body: { query: { no_such_query: {} } } }),
      );
      expect(rejected).to.be.instanceOf(EngineError);
      expect(rejected).to.include({ kind: 'rejected', status: 400 });
      const missing = await refusal(adapter.searchText({ index: `${index}-gone`, body: {} }));
      expect(missing).to.include({ kind: 'not_found', type: 'index_not_found_exception' });
    });

    it('answers several searches in one _msearch, each as its own search', async () => {
      const bodies = searches.map(([, body]) => body);
      const answers = await adapter.searchMany(index, bodies);
      expect(answers).to.have.length(bodies.length);
      for (const [position, body] of bodies.entries()) {
        const alone = await client.search(index, body);
        const { status, ...answer } = comparable(answers[position]);
        expect(status, 'each answer carries its status').to.equal(200);
        expect(answer).to.deep.equal(comparable(alone));
      }
    });

    it('refuses a multi-search as the refused search alone is refused', async () => {
      const alone = await adapter.search({ index, body: { query: { no_such_query: {} } } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const together = await adapter
        .searchMany(index, [{ size: 1 }, { query: { no_such_query: {} } }])
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(together).to.be.instanceOf(EngineError);
      expect(together).to.include({ kind: 'rejected', status: 400 });
      expect((together as EngineError).type).to.equal((alone as EngineError).type);
      const missing = await adapter.searchMany(`${index}-gone`, [{ size: 1 }]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(missing).to.be.instanceOf(EngineError);
      expect(missing).to.include({ kind: 'not_found', type: 'index_not_found_exception' });
    });

    it('searches into a point in time (no index in the path)', async () => {
      const pit = await adapter.openPointInTime(index, '1m');
      try {
        const answer = await adapter.search({
          body: { pit: { id: pit, keep_alive: '1m' }, sort: [{ id: 'asc' }], size: 4 },
        });
        expect(answer.hits.hits.map((hit) => hit._id)).to.deep.equal(['r0', 'r1', 'r10', 'r11']);
      } finally {
        await adapter.closePointInTime(pit);
      }
    });

    it('counts as the client does, with and without a query', async () => {
      const query = { range: { n: { lt: 12 } } };
      expect(await adapter.count(index, query)).to.equal(12);
      expect(await client.count(index, query)).to.equal(12);
      expect(await adapter.count(index)).to.equal(30);
    });

    it('reads the chosen source fields by id, and null for an unknown id or index', async () => {
      expect(await adapter.getSource(index, 'r3', ['title', 'nested'])).to.deep.equal({
        title: 'record 3 ünïcödé',
        nested: { list: ['3', 'x3'] },
      });
      expect(await adapter.getSource(index, 'nope', ['title'])).to.equal(null);
      expect(await adapter.getSource(`${index}-gone`, 'r3', ['title'])).to.equal(null);
    });

    it('refuses a malformed query as rejected (400) and an unknown index as not_found', async () => {
      const rejected = await adapter.search({ index, body: { query: { no_such_query: {} } } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(rejected).to.be.instanceOf(EngineError);
      expect(rejected).to.include({ kind: 'rejected', status: 400 });
      const missing = await adapter.search({ index: `${index}-gone`, body: {} }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(missing).to.be.instanceOf(EngineError);
      expect(missing).to.include({ kind: 'not_found', type: 'index_not_found_exception' });
    });
  });
}
