/**
 * The engine protects itself (docs/operations.md, "How the engine protects itself"): the
 * services script (scripts/services/search.sh) starts each engine with circuit breakers, a
 * bucket bound, a default search timeout and, on OpenSearch, a clause limit, a cancellation
 * time and enforced search backpressure. Read back from the live engines the tests are given:
 * each setting must be among the node's launch settings and in effect (no cluster setting
 * overrides it), and the breakers' limits in bytes must be those shares of the heap.
 *
 * Runs on the engine CAIRN_TEST_SYSTEM_BACKEND names, or on both when it names none or SQLite
 * (scripts/test-all.sh runs it in the SQLite system suite, once for both engines).
 */
import { expect } from 'chai';
import { chosenBackendKind } from '../support/system-backend.js';
import { requireEngineUrl } from '../integration/engine-backend-cases.js';

type Engine = 'elasticsearch' | 'opensearch';

/** What both engines are started with, as the services script passes it (`-E`). */
const COMMON: Readonly<Record<string, string>> = {
  'indices.breaker.total.limit': '90%',
  'indices.breaker.request.limit': '40%',
  'indices.breaker.fielddata.limit': '20%',
  'search.max_buckets': '25000',
  'search.default_search_timeout': '30s',
  'search.low_level_cancellation': 'true',
};

const EXPECTED: Readonly<Record<Engine, Readonly<Record<string, string>>>> = {
  elasticsearch: COMMON,
  opensearch: {
    ...COMMON,
    'indices.query.bool.max_clause_count': '1024',
    'search.cancel_after_time_interval': '30s',
    'search_backpressure.mode': 'enforced',
    'search_backpressure.search_task.elapsed_time_millis_threshold': '10000',
    'search_backpressure.search_task.cpu_time_millis_threshold': '10000',
    'search_backpressure.search_shard_task.elapsed_time_millis_threshold': '10000',
    'search_backpressure.search_shard_task.cpu_time_millis_threshold': '5000',
  },
};

/** The breakers whose limits are shares of the heap, and the setting of each. */
const BREAKER_SETTINGS: Readonly<Record<string, string>> = {
  parent: 'indices.breaker.total.limit',
  request: 'indices.breaker.request.limit',
  fielddata: 'indices.breaker.fielddata.limit',
};

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  expect(response.status, url).to.equal(200);
  return (await response.json()) as T;
}

/** The one node's part of a `_nodes/_local/…` answer. */
function onlyNode<T>(answer: { nodes: Record<string, T> }): T {
  const nodes = Object.values(answer.nodes);
  expect(nodes, 'one local node').to.have.length(1);
  return nodes[0]!;
}

const engines: Engine[] = (() => {
  const chosen = chosenBackendKind();
  return chosen === 'elasticsearch' || chosen === 'opensearch'
    ? [chosen]
    : ['elasticsearch', 'opensearch'];
})();

for (const engine of engines) {
  const url = requireEngineUrl(engine);
  if (!url) continue;

  describe(`${engine} protects itself with the services script's settings`, function () {
    this.timeout(60_000);

    it('was started with each setting (-E), and each is in effect', async () => {
      const launched = onlyNode(
        await getJson<{ nodes: Record<string, { settings: Record<string, unknown> }> }>(
          `${url}/_nodes/_local/settings?flat_settings=true`,
        ),
      ).settings;
      const cluster = await getJson<Record<'persistent' | 'transient' | 'defaults', object>>(
        `${url}/_cluster/settings?include_defaults=true&flat_settings=true`,
      );
      const effective = {
        ...cluster.defaults,
        ...cluster.persistent,
        ...cluster.transient,
      } as Record<string, unknown>;
      for (const [name, value] of Object.entries(EXPECTED[engine])) {
        expect(launched[name], `${name} among the launch settings`).to.equal(value);
        expect(effective[name], `${name} in effect`).to.equal(value);
      }
      // The catalogue's LIKE patterns are wildcard queries and its case-insensitive
      // comparisons regexp queries: the engines must keep allowing them.
      expect(effective['search.allow_expensive_queries']).to.equal('true');
    });

    it("sets each breaker's limit to its share of the heap", async () => {
      const { jvm } = onlyNode(
        await getJson<{ nodes: Record<string, { jvm: { mem: { heap_max_in_bytes: number } } }> }>(
          `${url}/_nodes/_local/jvm`,
        ),
      );
      const { breakers } = onlyNode(
        await getJson<{
          nodes: Record<string, { breakers: Record<string, { limit_size_in_bytes: number }> }>;
        }>(`${url}/_nodes/_local/stats/breaker`),
      );
      const heap = jvm.mem.heap_max_in_bytes;
      for (const [breaker, setting] of Object.entries(BREAKER_SETTINGS)) {
        const share = Number.parseFloat(EXPECTED[engine][setting]!) / 100;
        expect(breakers[breaker]?.limit_size_in_bytes, breaker).to.be.closeTo(heap * share, 1);
      }
    });
  });
}
