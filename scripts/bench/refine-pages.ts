/**
 * Pages of a refined search on an engine (shared/search/engine/refine-search.ts): a filter the
 * engine cannot decide alone (`created < updated`, two properties compared) over every record
 * of a fresh alias, so that each search decides all its candidates in Node — in the refinement
 * threads (`--workers`, SEARCH_REFINE_WORKERS) — before it can give a page.
 *
 * Two ways of paging through it, taking turns round by round:
 * - **decided per page**: each request's scope knows no catalogue generation, so every page
 *   fetches and decides every candidate again (as before the survivors were kept);
 * - **survivors kept**: each request's scope reads a catalogue generation, moved on before the
 *   round starts (as a write would), so the first page decides and keeps the survivors and
 *   the later pages slice them (refine-survivors.ts).
 * Each page is timed from the backend's call to its answer; the event loop's longest delay
 * during each page is measured too (what other requests would have waited).
 *
 *   npx tsx scripts/bench/refine-pages.ts --engine elasticsearch --url http://127.0.0.1:9250
 *     [--records 10000] [--pages 5] [--limit 10] [--rounds 3] [--workers 2] [--out FILE]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { LocalGeneration } from '../../shared/search/catalogue-generation.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import { generateRecords } from '../corpus/generator.js';
import { median } from './median.js';
import { readLoadAverage } from './system-info.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'elasticsearch' },
    url: { type: 'string' },
    records: { type: 'string', default: '10000' },
    pages: { type: 'string', default: '5' },
    limit: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    out: { type: 'string' },
  },
});
const engine = values.engine as 'elasticsearch' | 'opensearch';
const url =
  values.url ?? process.env[engine === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL'];
if (!url) throw new Error(`--url or ${engine.toUpperCase()}_URL is needed`);
const recordCount = Number(values.records);
const pages = Number(values.pages);
const limit = Number(values.limit);
const rounds = Number(values.rounds);
const workers = Number(values.workers);
const out = values.out ?? `bench/results/refine-pages/${engine}.json`;

const backend = createEngineBackend({
  engine,
  url,
  alias: `cairn-refine-pages-${Date.now().toString(36)}-records`,
  refresh: false,
  refineWorkers: workers,
  refineMaxCandidates: recordCount,
  queryTimeBudgetMs: 30_000,
});
await backend.init();

const loadBefore = readLoadAverage();
try {
  let batch: CoreRecord[] = [];
  for (const feature of generateRecords(recordCount)) {
    batch.push(...parseDocuments(JSON.stringify(feature)).records);
    if (batch.length === 1000) {
      await backend.upsert(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await backend.upsert(batch);
  await backend.refresh();

  const filter = checkFilter(parseCql2Text('created < updated'));
  const generation = new LocalGeneration();
  const page = async (offset: number, keep: boolean) => {
    const scope = new SearchScope(keep ? { readGeneration: () => generation.current() } : {});
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const started = performance.now();
    const result = await backend.search({ sort: [], offset, limit, filter }, { scope });
    const ms = performance.now() - started;
    delay.disable();
    return { ms, total: result.total, loopMaxMs: delay.max / 1e6, first: result.records[0]?.id };
  };

  type Page = Awaited<ReturnType<typeof page>>;
  const runs: { round: number; mode: string; pages: Page[] }[] = [];
  // One warm-up walk each, not reported (the threads start, the engine caches its segments).
  await page(0, false);
  for (let round = 1; round <= rounds; round += 1) {
    for (const mode of ['decided per page', 'survivors kept'] as const) {
      await generation.advance();
      const walked: Page[] = [];
      for (let index = 0; index < pages; index += 1) {
        walked.push(await page(index * limit, mode === 'survivors kept'));
      }
      runs.push({ round, mode, pages: walked });
      console.log(
        `round ${round} ${mode}: total ${walked[0]?.total}; ms ${walked.map((p) => p.ms.toFixed(1)).join(' ')}; loop max ms ${walked.map((p) => p.loopMaxMs.toFixed(1)).join(' ')}`,
      );
    }
  }
  // Both modes must give the same pages.
  const firsts = (mode: string) =>
    runs.filter((run) => run.mode === mode).map((run) => run.pages.map((p) => p.first).join());
  if (new Set([...firsts('decided per page'), ...firsts('survivors kept')]).size !== 1) {
    throw new Error('the two modes gave different pages');
  }

  const summary = ['decided per page', 'survivors kept'].map((mode) => {
    const walks = runs.filter((run) => run.mode === mode);
    return {
      mode,
      firstPageMsP50: median(walks.map((run) => run.pages[0]!.ms)),
      laterPagesMsP50: median(walks.flatMap((run) => run.pages.slice(1).map((p) => p.ms))),
      walkMsP50: median(walks.map((run) => run.pages.reduce((sum, p) => sum + p.ms, 0))),
      loopMaxMs: Math.max(...walks.flatMap((run) => run.pages.map((p) => p.loopMaxMs))),
    };
  });
  console.table(summary);
  const report = {
    engine,
    records: recordCount,
    filter: 'created < updated',
    pages,
    limit,
    rounds,
    refineWorkers: workers,
    loadAverage: { before: loadBefore, after: readLoadAverage() },
    summary,
    runs,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written ${out}`);
} finally {
  await backend.destroy();
  await backend.close();
}
