/**
 * Loads the corpus of the 1,000,000-record benchmarks (scripts/bench/million-corpus.ts) into an
 * engine alias and writes how the load went to `<out>/load-<from>-<size>.json`.
 *
 *   npx tsx scripts/bench/million-load.ts [--backend elasticsearch|opensearch] [--url URL]
 *     [--alias cairn-bench-1m] [--size 1000000] [--from 0] [--batch-size 1000] [--out DIR]
 *
 * `--from` continues a load that stopped (records are written by id, so a repeated slice only
 * replaces itself).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { loadMillionCorpus } from './million-corpus.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'elasticsearch' },
    url: { type: 'string' },
    alias: { type: 'string', default: 'cairn-bench-1m' },
    size: { type: 'string', default: '1000000' },
    from: { type: 'string', default: '0' },
    seed: { type: 'string', default: '42' },
    'batch-size': { type: 'string', default: '1000' },
    out: {
      type: 'string',
      default: `bench/results/million-${new Date().toISOString().slice(0, 10)}`,
    },
  },
});
const env = process.env;
const url =
  values.url ??
  (values.backend === 'opensearch'
    ? (env.OPENSEARCH_URL ?? env.CAIRN_TEST_OPENSEARCH_URL)
    : (env.ELASTICSEARCH_URL ?? env.CAIRN_TEST_ELASTICSEARCH_URL));
if (!url) throw new Error('no engine URL: pass --url');
const config = loadConfig({
  LOG_LEVEL: 'silent',
  [values.backend === 'opensearch' ? 'OPENSEARCH_URL' : 'ELASTICSEARCH_URL']: url,
  SEARCH_INDEX_ALIAS: values.alias,
});
const backend = await createBackend(config);
try {
  await backend.init();
  const from = Number(values.from);
  const size = Number(values.size) - from;
  const outcome = await loadMillionCorpus({
    backend,
    seed: Number(values.seed),
    from,
    size,
    batchSize: Number(values['batch-size']),
    onSlice: (slice, written) =>
      console.log(
        `${new Date().toISOString()} ${from + written} written: ${slice.recordsPerSecond} records/s over the last ${slice.written} (load ${slice.loadAverage1m})`,
      ),
  });
  const refresh = (backend as { refresh?: () => Promise<void> }).refresh;
  if (refresh) await refresh.call(backend);
  const health = await backend.health();
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  const file = join(out, `load-${from}-${from + size}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ backend: values.backend, url, alias: values.alias, seed: Number(values.seed), ...outcome, backendRecords: health.records }, null, 2)}\n`,
  );
  console.log(
    `${outcome.written} written in ${outcome.seconds} s (${outcome.recordsPerSecond} records/s); the alias holds ${health.records}; ${file}`,
  );
} finally {
  await backend.close();
}
