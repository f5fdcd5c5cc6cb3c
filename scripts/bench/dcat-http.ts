/**
 * What a page of 100 records costs as DCAT-AP against the GeoJSON page, over HTTP as a portal
 * asks for it: the API in a process of its own on one backend holding the bench corpus, each
 * page (`items?limit=100` as GeoJSON, Turtle, RDF/XML and JSON-LD) driven with autocannon at
 * concurrency 1 in turn, every round starting one page further, so that each comparison is
 * made under the same load. Per run: the API's CPU time per answer (from /proc) and the
 * latency percentiles; per round, each DCAT page's ratio to the GeoJSON page of that round.
 * Every run goes to the JSON file with the 1-minute load average.
 *
 * `--corpus generated` (the default) pages the bench's generated corpus (`--records` of them);
 * `--corpus samples` writes exactly 100 records, the sample records of every source format
 * repeated (each copy with an id of its own), the page scripts/bench/dcat-page.ts presents
 * in-process: about 100 statements a record, a Sentinel-2 scene's 40 assets among them.
 *
 *   npx tsx scripts/bench/dcat-http.ts --backend sqlite|elasticsearch|opensearch [--url URL]
 *     [--corpus generated|samples] [--records 10000] [--rounds 5] [--duration 3] [--out FILE]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { COLLECTION_ID } from '../../services/api/common/urls.js';
import { loadConfig } from '../../shared/config/index.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { startApi, stopApi, type ApiProcess } from './api-process.js';
import { loadOrReuseCorpus } from './bench-corpus.js';
import { probeCase, runHttpCase, type HttpCaseResult } from './http-load.js';
import { median } from './median.js';
import type { QueryCase } from './query-mix.js';
import { readLoadAverage, readSystemInfo } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SEED = 7;
const ITEMS = `/catalogue/collections/${encodeURIComponent(COLLECTION_ID)}/items`;

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'sqlite' },
    url: { type: 'string' },
    corpus: { type: 'string', default: 'generated' },
    records: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
const backendKind = values.backend as 'sqlite' | 'elasticsearch' | 'opensearch';
if (!['sqlite', 'elasticsearch', 'opensearch'].includes(backendKind)) {
  throw new Error(`--backend: sqlite, elasticsearch or opensearch, not ${backendKind}`);
}
if (backendKind !== 'sqlite' && values.url === undefined) throw new Error('--url is needed');
const corpusKind = values.corpus as 'generated' | 'samples';
if (!['generated', 'samples'].includes(corpusKind)) {
  throw new Error(`--corpus: generated or samples, not ${corpusKind}`);
}
const records = corpusKind === 'samples' ? 100 : Number(values.records);
const rounds = Number(values.rounds);
const duration = Number(values.duration);

/** The four pages: the same query, the same 100 records, four encodings. */
const PAGES: { name: string; format: string }[] = [
  { name: 'geojson', format: 'json' },
  { name: 'turtle', format: 'ttl' },
  { name: 'rdf-xml', format: 'rdf' },
  { name: 'json-ld', format: 'dcat' },
];
const pageCase = ({ name, format }: { name: string; format: string }): QueryCase => ({
  name,
  description: `items?limit=100&f=${format}`,
  method: 'GET',
  path: `${ITEMS}?limit=100&f=${format}`,
  buildQuery: () => ({ sort: [], offset: 0, limit: 100 }),
});

const log = (message: string): void => console.log(`[dcat-http] ${message}`);

/** The sample records of every source format, repeated to 100, each copy with an id of its own. */
function sampleRecords(): CoreRecord[] {
  const samples = ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'].flatMap((folder) =>
    readdirSync(join(REPO_ROOT, 'data', 'samples', folder))
      .filter((name) => /\.(xml|json)$/.test(name))
      .flatMap(
        (name) =>
          parseDocuments(readFileSync(join(REPO_ROOT, 'data', 'samples', folder, name), 'utf8'))
            .records,
      ),
  );
  return Array.from({ length: 100 }, (_, index) => {
    const record = samples[index % samples.length]!;
    const copy = Math.floor(index / samples.length);
    return copy === 0 ? record : { ...record, id: `${record.id}-copy-${copy}` };
  });
}
const round2 = (value: number): number => Math.round(value * 100) / 100;

async function main(): Promise<void> {
  const name =
    corpusKind === 'samples'
      ? 'cairn-bench-dcat-samples'
      : `cairn-bench-dcat-${records}-seed${SEED}`;
  const alias = name;
  const dataDir = join(REPO_ROOT, 'data', 'bench');
  mkdirSync(dataDir, { recursive: true });
  const sqlitePath = join(dataDir, `${name}.sqlite`);
  if (corpusKind === 'samples') rmSync(sqlitePath, { force: true });
  const environment: Record<string, string> =
    backendKind === 'sqlite'
      ? { SQLITE_PATH: sqlitePath }
      : {
          [backendKind === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL']: values.url!,
          SEARCH_INDEX_ALIAS: alias,
        };
  const config = loadConfig({ ...environment, LOG_LEVEL: 'warn' });
  const backend = await createBackend(config);
  const location = backendKind === 'sqlite' ? sqlitePath : `${values.url} alias ${alias}`;
  try {
    if (corpusKind === 'samples') {
      await backend.init();
      const written = await backend.upsert(sampleRecords());
      // An engine counts the records once its index has refreshed.
      let health = await backend.health();
      for (let tries = 0; tries < 50 && health.records !== 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        health = await backend.health();
      }
      if (written.written !== 100 || health.records !== 100) {
        throw new Error(
          `samples: ${written.written} of 100 written, ${health.records} held: ${JSON.stringify(written.failures)}`,
        );
      }
      log(`corpus: the 100 sample records on ${location}`);
    } else {
      const corpus = await loadOrReuseCorpus({
        backend,
        markerPath:
          backendKind === 'sqlite'
            ? `${sqlitePath}.corpus.json`
            : join(
                dataDir,
                `dcat-${backendKind}-${new URL(values.url!).port}-${alias}.corpus.json`,
              ),
        location,
        seed: SEED,
        size: records,
        batchSize: 1000,
        maxBytes: config.limits.bodyBytes * 20,
        force: false,
      });
      log(`corpus: ${records} records on ${location} (${corpus.reused ? 'reused' : 'loaded'})`);
    }
  } finally {
    await backend.close();
  }

  const cases = PAGES.map(pageCase);
  const runs: { round: number; loadAverage1m: number; result: HttpCaseResult }[] = [];
  let api: ApiProcess | undefined;
  try {
    api = await startApi(REPO_ROOT, environment);
    for (const queryCase of cases) {
      const probe = await probeCase(api.origin, queryCase);
      if (probe.status !== 200) {
        throw new Error(`${queryCase.name}: ${probe.status} ${probe.snippet}`);
      }
      // A warm-up run of each page: the first requests compile its code paths.
      await runHttpCase(api.origin, api.pid, queryCase, 1, 1);
    }
    for (let round = 1; round <= rounds; round += 1) {
      for (let turn = 0; turn < cases.length; turn += 1) {
        const queryCase = cases[(round - 1 + turn) % cases.length]!;
        const result = await runHttpCase(api.origin, api.pid, queryCase, 1, duration);
        const loadAverage1m = readLoadAverage()[0];
        runs.push({ round, loadAverage1m, result });
        log(
          `round ${round} ${queryCase.name}: p50 ${result.latencyMs.p50} ms, ${result.requestsPerSecond} req/s, ${result.cpuMsPerRequest ?? '?'} CPU ms/answer, non-2xx ${result.non2xx}, load ${loadAverage1m}`,
        );
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${queryCase.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        }
      }
    }
  } finally {
    if (api) await stopApi(api);
  }

  const of = (name: string, round: number) =>
    runs.find((run) => run.round === round && run.result.case === name)!.result;
  const summary = PAGES.map(({ name }) => {
    const own = runs.filter((run) => run.result.case === name).map((run) => run.result);
    const ratios = (measure: (result: HttpCaseResult) => number) =>
      Array.from({ length: rounds }, (_, index) =>
        round2(measure(of(name, index + 1)) / measure(of('geojson', index + 1))),
      );
    const cpu = ratios((result) => result.cpuMsPerRequest ?? Number.NaN);
    const p50 = ratios((result) => result.latencyMs.p50);
    return {
      page: name,
      medianP50Ms: round2(median(own.map((result) => result.latencyMs.p50))),
      medianCpuMsPerAnswer: round2(median(own.map((result) => result.cpuMsPerRequest ?? NaN))),
      cpuRatioPerRound: cpu,
      p50RatioPerRound: p50,
      medianCpuRatio: round2(median(cpu)),
      medianP50Ratio: round2(median(p50)),
    };
  });
  console.table(
    summary.map(({ page, medianP50Ms, medianCpuMsPerAnswer, medianCpuRatio, medianP50Ratio }) => ({
      page,
      medianP50Ms,
      medianCpuMsPerAnswer,
      medianCpuRatio,
      medianP50Ratio,
    })),
  );
  const output = {
    benchmark: 'dcat-http',
    date: new Date().toISOString(),
    command: `npx tsx scripts/bench/dcat-http.ts ${process.argv.slice(2).join(' ')}`,
    machine: await readSystemInfo(
      REPO_ROOT,
      values.url ? { url: values.url, kind: backendKind } : undefined,
    ),
    parameters: {
      backend: backendKind,
      corpus: corpusKind,
      records,
      rounds,
      durationSeconds: duration,
      seed: SEED,
    },
    summary,
    runs,
  };
  if (values.out) {
    mkdirSync(dirname(resolve(values.out)), { recursive: true });
    writeFileSync(values.out, `${JSON.stringify(output, null, 2)}\n`);
    log(`wrote ${values.out}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
