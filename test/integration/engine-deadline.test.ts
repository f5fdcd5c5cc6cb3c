/**
 * One deadline for the whole request, on a real Elasticsearch and a real OpenSearch: a search
 * that would run for seconds even on a quiet machine (500 leading-wildcard patterns over 200,000
 * distinct terms: each pattern's automaton walks the whole term dictionary; 150 patterns over
 * 40,000 terms finished within 300 ms once the machine was quiet) is sent through the budgeted search under
 * a deadline of 300 ms. The call fails with QueryTimeoutError (503) soon after the deadline, on
 * the Node side, without waiting for the engine; and the engine's search task is gone within a
 * few seconds (polled in `_tasks`), long before the search alone would end: the closed
 * connection, the search `timeout` and (OpenSearch) `cancel_after_time_interval` cancelled it.
 * Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { QueryTimeoutError } from '../../shared/errors/index.js';
import { createEngineAdapter } from '../../shared/search/create-backend.js';
import { BudgetedSearch } from '../../shared/search/engine/budgeted-search.js';
import type { EngineName, JsonObject } from '../../shared/search/engine/engine-adapter.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import { requireEngineUrl } from './engine-backend-cases.js';

const DOCUMENTS = 200_000;
const PATTERNS = 500;
const BUDGET_MS = 300;
/** What the machine may add to the deadline before the call fails (a loaded 2-core box). */
const MARGIN_MS = 2_000;

/** Sends a request to the engine with fetch (test set-up and `_tasks`, not the code tested). */
async function engine(url: string, method: string, path: string, body?: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      'content-type': path.includes('_bulk') ? 'application/x-ndjson' : 'application/json',
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** A random lowercase word of `length` letters from a seeded generator. */
function words(count: number, length: number): string[] {
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length }, () => String.fromCharCode(97 + (next() % 26))).join(''),
  );
}

/** The running search tasks that touch `index`. */
async function searchTasksOn(url: string, index: string): Promise<string[]> {
  const answer = (await engine(url, 'GET', '/_tasks?actions=*search*&detailed=true')) as {
    nodes?: Record<string, { tasks?: Record<string, { description?: string }> }>;
  };
  return Object.values(answer.nodes ?? {}).flatMap((node) =>
    Object.entries(node.tasks ?? {})
      .filter(([, task]) => (task.description ?? '').includes(index))
      .map(([id]) => id),
  );
}

for (const name of ['elasticsearch', 'opensearch'] as EngineName[]) {
  const url = requireEngineUrl(name);
  if (!url) continue;

  describe(`one deadline for the request on ${name}`, function () {
    this.timeout(120_000);
    const index = `cairn-test-deadline-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

    before(async () => {
      await engine(
        url,
        'PUT',
        `/${index}`,
        JSON.stringify({
          settings: { number_of_shards: 1, number_of_replicas: 0 },
          mappings: { properties: { s: { type: 'keyword' } } },
        }),
      );
      const all = words(DOCUMENTS, 24);
      for (let start = 0; start < all.length; start += 50_000) {
        let lines = '';
        for (const word of all.slice(start, start + 50_000))
          lines += `{"index":{}}\n{"s":"${word}"}\n`;
        const bulk = (await engine(url, 'POST', `/${index}/_bulk`, lines)) as { errors: boolean };
        expect(bulk.errors).to.equal(false);
      }
      await engine(url, 'POST', `/${index}/_refresh`);
    });
    after(async () => {
      await engine(url, 'DELETE', `/${index}`).catch(() => undefined);
    });

    it('answers QueryTimeoutError soon after the deadline, and the engine task is cancelled', async () => {
      const adapter = createEngineAdapter(name, { url });
      try {
        const letters = 'abcdefghijklmnopqrstuvwxyz';
        const should: JsonObject[] = Array.from({ length: PATTERNS }, (_, i) => ({
          wildcard: {
            s: {
              value: `*${letters[i % 26]}*${letters[(i * 7 + 3) % 26]}*${letters[(i * 11 + 5) % 26]}*`,
            },
          },
        }));
        const scope = new SearchScope();
        scope.startDeadline(BUDGET_MS);
        const started = Date.now();
        const caught = await new BudgetedSearch(adapter, index, BUDGET_MS)
          .search(
            { index, body: { size: 0, track_total_hits: true, query: { bool: { should } } } },
            scope,
          )
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        const elapsed = Date.now() - started;
        expect(caught, 'the search must fail at its deadline').to.be.instanceOf(QueryTimeoutError);
        expect((caught as QueryTimeoutError).status).to.equal(503);
        expect(elapsed, 'milliseconds to the 503').to.be.below(BUDGET_MS + MARGIN_MS);
        // The search alone runs for several seconds on this index; cancelled, its task goes.
        const until = Date.now() + 4_000;
        let running = await searchTasksOn(url, index);
        while (running.length > 0 && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          running = await searchTasksOn(url, index);
        }
        expect(running, 'search tasks still running on the index').to.deep.equal([]);
      } finally {
        await adapter.close();
      }
    });

    it('cancels a search whose connection closes, with no timeout of any kind', async () => {
      // The search is slow on its own (still running after 500 ms), and the engine drops it
      // when the abort signal closes its connection: the mechanism the deadline relies on.
      const adapter = createEngineAdapter(name, { url, requestTimeout: 60_000 });
      try {
        const should: JsonObject[] = Array.from({ length: PATTERNS }, (_, i) => ({
          wildcard: { s: { value: `*${'abcdefghijklmnopqrstuvwxyz'[i % 26]}*q*${i % 10}*` } },
        }));
        const controller = new AbortController();
        const pending = adapter
          .search({
            index,
            body: { size: 0, track_total_hits: true, query: { bool: { should } } },
            signal: controller.signal,
          })
          .catch(() => undefined);
        // Seen running, then cancelled by closing the connection (the engine's own mechanism).
        let seen = await searchTasksOn(url, index);
        while (seen.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          seen = await searchTasksOn(url, index);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await searchTasksOn(url, index), 'still running after 500 ms').to.not.deep.equal([]);
        controller.abort(new Error('test over'));
        await pending;
        const until = Date.now() + 4_000;
        while ((await searchTasksOn(url, index)).length > 0 && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(await searchTasksOn(url, index)).to.deep.equal([]);
      } finally {
        await adapter.close();
      }
    });
  });
}
