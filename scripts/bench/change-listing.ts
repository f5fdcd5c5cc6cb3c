/**
 * Times the OAI-PMH change listing on SQLite, or on a search engine with `--engine URL` (an
 * Elasticsearch or OpenSearch URL and `--kind elasticsearch|opensearch`; a fresh alias, deleted
 * afterwards): the first page and a page deep in the listing (keyset, after a checkpoint), and a
 * search's exact count before and after a tenth of the records became tombstones (tombstones
 * live apart from the records, so the count should not move). Prints one JSON object of median
 * milliseconds.
 *
 *   npx tsx scripts/bench/change-listing.ts [records] [--engine URL --kind elasticsearch]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRecords } from '../corpus/generator.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { parseArgs } from 'node:util';
import type { ChangeEntry, SearchBackend } from '../../shared/search/backend.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { engine: { type: 'string' }, kind: { type: 'string', default: 'elasticsearch' } },
});
const RECORDS = Number(positionals[0] ?? 50_000);
const RUNS = 21;

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(RUNS / 2)] ?? 0) * 100) / 100;
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-change-listing-'));
  let backend: SearchBackend;
  let destroy = async (): Promise<void> => undefined;
  if (values.engine) {
    const engine = createEngineBackend({
      engine: values.kind === 'opensearch' ? 'opensearch' : 'elasticsearch',
      url: values.engine,
      alias: `cairn-bench-changes-${Date.now().toString(36)}-records`,
      spatial: 'envelope',
    });
    await engine.init();
    backend = engine;
    destroy = () => engine.destroy();
  } else backend = new SqliteBackend({ path: join(directory, 'bench.sqlite') });
  const refresh = async (): Promise<void> => {
    if ('refresh' in backend && typeof backend.refresh === 'function')
      await (backend.refresh as () => Promise<void>)();
  };
  try {
    const records = [];
    for (let start = 0; start < RECORDS; start += 5000) {
      const batch = [...generateRecords(Math.min(5000, RECORDS - start), 7, start)];
      const parsed = parseDocuments(JSON.stringify(batch)).records;
      await backend.upsert(parsed);
      records.push(...parsed);
    }
    await refresh();
    const count = () => backend.search({ sort: [], offset: 0, limit: 10 });
    const countBefore = await median(count);
    await backend.delete(records.filter((_, index) => index % 10 === 0).map((r) => r.id));
    await refresh();
    const countAfter = await median(count);
    const all = await backend.changes({ limit: 1, count: true });
    // The checkpoint of an entry near the end of the listing, walked to in pages of 5,000.
    let deep: ChangeEntry | undefined;
    for (let walked = 0; walked < RECORDS - 200; walked += 5000) {
      const page = await backend.changes({
        limit: Math.min(5000, RECORDS - 200 - walked),
        ...(deep ? { after: { changed: deep.changed, id: deep.id } } : {}),
      });
      deep = page.entries.at(-1);
    }
    if (deep === undefined) throw new Error(`nothing listed (${records.length} records parsed)`);
    const firstPageNoCount = await median(() => backend.changes({ limit: 100, withRecords: true }));
    const firstPage = await median(() =>
      backend.changes({ limit: 100, withRecords: true, count: true }),
    );
    const deepPage = await median(() =>
      backend.changes({
        limit: 100,
        withRecords: true,
        after: { changed: deep.changed, id: deep.id },
      }),
    );
    process.stdout.write(
      `${JSON.stringify({ backend: backend.kind, records: RECORDS, listed: all.total, countBefore, countAfter, firstPage, firstPageNoCount, deepPage })}\n`,
    );
  } finally {
    await destroy();
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
