/**
 * The OpenSearch adapter's reads over node:http (shared/search/engine/opensearch-reads.ts)
 * against a real OpenSearch, compared with the same calls through the official client: the
 * same answers for searches (with and without filter_path, and into a point in time), counts
 * and reads by id, and the same refusals. Needs CAIRN_TEST_OPENSEARCH_URL.
 */
import { expect } from 'chai';
import { Client } from '@opensearch-project/opensearch';
import { EngineError, type JsonObject } from '../../shared/search/engine/engine-adapter.js';
import { OpenSearchAdapter } from '../../shared/search/engine/opensearch-adapter.js';
import { requireEngineUrl } from './engine-backend-cases.js';

const url = requireEngineUrl('opensearch');

/** An answer without what differs between two runs of one search. */
function comparable(answer: unknown): JsonObject {
  const rest = { ...(answer as JsonObject) };
  delete rest.took;
  return rest;
}

if (url) {
  describe('OpenSearch reads over node:http, against the client', () => {
    const index = `cairn-test-reads-${process.pid}`;
    let client: Client;
    let adapter: OpenSearchAdapter;

    before(async function () {
      this.timeout(30_000);
      client = new Client({ node: url });
      adapter = new OpenSearchAdapter({ url });
      await client.indices.create({
        index,
        body: { mappings: { properties: { id: { type: 'keyword' }, n: { type: 'integer' } } } },
      });
      const body = Array.from({ length: 30 }, (_, n) => [
        { index: { _index: index, _id: `r${n}` } },
        { id: `r${n}`, n, title: `record ${n} ünïcödé`, nested: { list: [`${n}`, `x${n}`] } },
      ]).flat();
      const written = await client.bulk({ body, refresh: true });
      expect((written.body as { errors: boolean }).errors, JSON.stringify(written.body)).to.equal(
        false,
      );
    });

    after(async () => {
      await client.indices.delete({ index }, { ignore: [404] });
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
        const ours = await adapter.search({ index, body, filterPath });
        const theirs = await client.search({ index, body, filter_path: filterPath });
        expect(comparable(ours)).to.deep.equal(comparable(theirs.body));
        // Not two empty answers: every case matches records.
        expect(ours.hits.total?.value ?? 0).to.be.above(0);
      });
    }

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
      const theirs = await client.count({ index, body: { query } });
      expect((theirs.body as { count: number }).count).to.equal(12);
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
