/**
 * What the sitemaps cost on one backend: a catalogue of generated records (seed 7) is written
 * to a fresh SQLite file or a fresh engine alias, then the sitemap index is planned and the
 * first, a middle and the last sitemap file are read the way the API reads them
 * (services/api/protocols/web/sitemap-walk.ts), each several times; prints the median time and
 * the calls of the backend's id walk (SearchBackend.walkIds) of each, and writes them to a JSON
 * file. The alias or file is removed after.
 *
 *   npx tsx scripts/bench/sitemap-files.ts [--records 100000] [--per-file 10000] [--rounds 5]
 *     [--engine elasticsearch|opensearch --url http://127.0.0.1:9250] [--out bench/results/sitemap-files.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import type { IdWalkQuery, SearchBackend, SearchOptions } from '../../shared/search/backend.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { planSitemapFiles, readRange } from '../../services/api/protocols/web/sitemap-walk.js';
import { generateRecords } from '../corpus/generator.js';
import { median } from './median.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    'per-file': { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    engine: { type: 'string' },
    url: { type: 'string' },
    out: { type: 'string', default: 'bench/results/sitemap-files.json' },
  },
});
const records = Number(values.records);
const perFile = Number(values['per-file']);
const rounds = Number(values.rounds);

/** The backend with the calls of its id walk counted. */
function counting(backend: SearchBackend, counter: { walks: number }): SearchBackend {
  return new Proxy(backend, {
    get(target, property, receiver) {
      if (property === 'walkIds') {
        return (query: IdWalkQuery, options?: SearchOptions) => {
          counter.walks += 1;
          return target.walkIds(query, options);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

async function timed(run: (backend: SearchBackend) => Promise<unknown>, backend: SearchBackend) {
  const times: number[] = [];
  const counter = { walks: 0 };
  for (let round = 0; round < rounds; round += 1) {
    counter.walks = 0;
    const started = performance.now();
    await run(counting(backend, counter));
    times.push(performance.now() - started);
  }
  return { medianMs: Math.round(median(times) * 10) / 10, walks: counter.walks };
}

const directory = mkdtempSync(join(tmpdir(), 'cairn-bench-sitemap-'));
const alias = `bench-sitemap-${process.pid}`;
const config = loadConfig({
  LOG_LEVEL: 'silent',
  SQLITE_PATH: join(directory, 'cairn.sqlite'),
  ...(values.engine === 'elasticsearch' ? { ELASTICSEARCH_URL: values.url } : {}),
  ...(values.engine === 'opensearch' ? { OPENSEARCH_URL: values.url } : {}),
  SEARCH_INDEX_ALIAS: alias,
});
const backend = await createBackend(config);
try {
  await backend.init();
  const batch: { name: string; content: string }[] = [];
  let written = 0;
  for (const record of generateRecords(records, 7)) {
    batch.push({ name: `generated ${written + batch.length}`, content: JSON.stringify(record) });
    if (batch.length === 5000) {
      written += (await ingestDocuments(backend, batch.splice(0))).written;
    }
  }
  if (batch.length > 0) await ingestDocuments(backend, batch.splice(0));
  const refresh = (backend as { refresh?: () => Promise<void> }).refresh;
  if (refresh) await refresh.call(backend);

  const plan = await planSitemapFiles(backend, perFile);
  const readFile = (index: number) => async (target: SearchBackend) => {
    let count = 0;
    for await (const page of readRange(target, plan.files[index]!, perFile)) count += page.length;
    return count;
  };
  const result = {
    backend: config.search.kind,
    records: (await backend.search({ sort: [], offset: 0, limit: 0 })).total,
    perFile,
    files: plan.files.length,
    rounds,
    index: await timed((target) => planSitemapFiles(target, perFile), backend),
    first: await timed(readFile(0), backend),
    middle: await timed(readFile(Math.floor(plan.files.length / 2)), backend),
    last: await timed(readFile(plan.files.length - 1), backend),
  };
  console.log(JSON.stringify(result, null, 2));
  writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  const destroy = (backend as { destroy?: () => Promise<void> }).destroy;
  if (destroy) await destroy.call(backend);
  await backend.close();
  rmSync(directory, { recursive: true, force: true });
}
