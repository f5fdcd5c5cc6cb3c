/**
 * Reindex faults on a real OpenSearch, provoked rather than assumed (the write of another
 * process during the build is in test/system/reindex.test.ts):
 *
 * - the write block: once the reindex has write-blocked the live version for its last
 *   catch-up (observed by polling the index's settings, not guessed), a write from another
 *   process's backend is refused with a retryable 503 after its retries, while the alias still
 *   names the live version and the reindex is still running;
 * - the rollback: the version being built is closed under the reindex (a real engine fault:
 *   every later step on it fails); the reindex fails, the version it was building is deleted,
 *   the alias still names the live version alone, that version is writable again, and every
 *   record is still found.
 *
 * The catch-up passes copy again every record indexed in the two minutes before they start,
 * so records loaded just before the reindex keep its write-blocked window open for as long as
 * copying them takes: several seconds here, longer than a writer's retries.
 */
import { strict as assert } from 'node:assert';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import type { EngineAdapter } from '../../shared/search/engine/engine-adapter.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { defined } from '../support/defined.js';
import {
  createAdapter,
  createTestBackend,
  parseAll,
  requireEngineUrl,
} from './engine-backend-cases.js';

const RECORDS = 10_000;
const SEED = 47;
const url = requireEngineUrl('opensearch');

/** Settles a promise into a value that says how it ended, without an unhandled rejection. */
function settle<T>(promise: Promise<T>): {
  done: () => boolean;
  result: Promise<{ value?: T; error?: unknown }>;
} {
  let done = false;
  const result = promise.then(
    (value) => {
      done = true;
      return { value };
    },
    (error: unknown) => {
      done = true;
      return { error };
    },
  );
  return { done: () => done, result };
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

if (url)
  describe('reindex faults (real OpenSearch): the write block and the rollback', function () {
    this.timeout(300_000);
    let backend: EngineBackend;
    let other: EngineBackend | undefined;
    let adapter: EngineAdapter;

    before(async () => {
      backend = await createTestBackend('opensearch', url, { spatial: 'envelope', refresh: false });
      const documents = [...generateRecords(RECORDS, SEED)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      }));
      const loaded = await ingestDocuments(backend, documents);
      assert.deepEqual(loaded.rejected, []);
      assert.equal(loaded.written, RECORDS);
      await backend.refresh();
      // Another process's backend over the same alias, as an API replica beside the worker.
      other = createEngineBackend({
        engine: 'opensearch',
        url,
        alias: backend.alias,
        spatial: 'envelope',
        refresh: 'wait_for',
      });
      await other.init();
      adapter = createAdapter('opensearch', url);
    });

    after(async () => {
      await other?.close();
      await adapter?.close();
      await backend?.close();
    });

    const total = async (): Promise<number> =>
      (await backend.search({ sort: [], offset: 0, limit: 1 })).total;

    /** Whether an index has the write block on. */
    const writeBlocked = async (index: string): Promise<boolean> => {
      const response = await fetch(
        `${url}/${index}/_settings/index.blocks.write?flat_settings=true`,
      );
      if (!response.ok) return false;
      const settings = (await response.json()) as Record<
        string,
        { settings: Record<string, string> }
      >;
      return settings[index]?.settings['index.blocks.write'] === 'true';
    };

    /** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
    const until = async (
      what: string,
      condition: () => Promise<boolean>,
      timeoutMs = 120_000,
    ): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        assert.ok(Date.now() < deadline, `${what} within ${timeoutMs} ms`);
        await sleep(10);
      }
    };

    it('a write from another process while the live version is write-blocked is refused with a 503, and the reindex completes', async () => {
      const from = defined(backend.liveIndex, 'the live version');
      const to = from.replace(/-v(\d+)$/, (_, version: string) => `-v${Number(version) + 1}`);
      assert.notEqual(to, from);
      const reindex = settle(backend.reindex());
      await until('the live version write-blocked by the reindex', async () => {
        assert.ok(!reindex.done(), 'the reindex ended before its write block was seen');
        return writeBlocked(from);
      });
      const [record] = [...generateRecords(1, SEED, RECORDS)];
      const written = await other!
        .upsert(ingestible(record))
        .then(() => 'written')
        .catch((error: unknown) => error);
      // Refused after the writer's own retries, as a retryable 503 (Retry-After), …
      assert.ok(written instanceof Error, `the write was ${String(written)}`);
      assert.equal((written as Error & { status?: number }).status, 503, String(written));
      assert.ok(((written as { retryAfter?: number }).retryAfter ?? 0) > 0, 'with a Retry-After');
      // … inside the window: the reindex still running and the alias still on the live version.
      assert.equal(reindex.done(), false, 'the reindex was still running when the write failed');
      assert.deepEqual(await adapter.aliasTargets(backend.alias), [from]);

      const outcome = await reindex.result;
      assert.equal(outcome.error, undefined, String(outcome.error));
      assert.deepEqual(await adapter.aliasTargets(backend.alias), [to]);
      assert.equal(await total(), RECORDS);
      // Once the alias has moved, the same write goes through.
      const again = await other!.upsert(ingestible(record));
      assert.deepEqual([again.written, again.failures], [1, []]);
      await backend.refresh();
      assert.equal(await total(), RECORDS + 1);
    });

    it('a fault on the version being built rolls back: the alias keeps the live version, writable, with every record', async () => {
      const from = defined(backend.liveIndex, 'the live version');
      const before = await total();
      const to = from.replace(/-v(\d+)$/, (_, version: string) => `-v${Number(version) + 1}`);
      const reindex = settle(backend.reindex());
      await until('the reindex to create the next version', async () => {
        assert.ok(!reindex.done(), 'the reindex ended before its next version was seen');
        return adapter.indexExists(to);
      });
      // The fault: the version being built is closed under the reindex.
      const closed = await fetch(`${url}/${to}/_close`, { method: 'POST' });
      assert.equal(closed.status, 200, await closed.text());
      const outcome = await reindex.result;
      assert.ok(outcome.error instanceof Error, 'the reindex failed');

      assert.deepEqual(await adapter.aliasTargets(backend.alias), [from]);
      assert.equal(await adapter.indexExists(to), false, 'the version being built was deleted');
      assert.equal(await writeBlocked(from), false, 'the live version is writable');
      assert.equal(backend.liveIndex, from);
      assert.equal(await total(), before);
      const [record] = [...generateRecords(1, SEED, RECORDS + 1)];
      const written = await other!.upsert(ingestible(record));
      assert.deepEqual([written.written, written.failures], [1, []]);
      await backend.refresh();
      assert.equal(await total(), before + 1);
      const found = await backend.get(String(record!.id));
      assert.equal(found?.id, String(record!.id));
    });
  });

/** A generated record as the records the backend writes. */
function ingestible(record: Record<string, unknown> | undefined) {
  if (record === undefined) throw new Error('no generated record');
  const [parsed] = parseAll(JSON.stringify(record));
  if (parsed === undefined) throw new Error('the generated record does not parse');
  return [parsed];
}
