/**
 * Two builds of the API side by side on one backend: each case of the bench's query mix driven
 * with autocannon on build A and build B in turn (which goes first alternates each round), each
 * build in an API process of its own, so a change to the API's request path can be judged by
 * its CPU time per request and its latency under the same machine load.
 *
 *   npx tsx scripts/bench/api-ab.ts --backend opensearch --alias A --a-root DIR
 *     [--cases text,bbox] [--concurrency 1,16] [--duration 3] [--rounds 3] [--out FILE]
 *   npx tsx scripts/bench/api-ab.ts --backend sqlite --sqlite-path FILE --a-root DIR …
 *     [--a-sqlite-path FILE]   (A reads another copy: a file B's schema migration left alone)
 *   npx tsx scripts/bench/api-ab.ts --backend opensearch --alias B --a-alias A …
 *
 * `--a-root` is a checkout of the other build (with its node_modules); B is this checkout.
 * `--a-alias` has A search another engine index instead (A is then this checkout too, unless
 * `--a-root` is given): the same code on two indexes, e.g. one merged into one segment.
 * Prints one line per run and a summary table (medians over the rounds), and writes every run
 * as JSON with the 1-minute load average.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startApi, stopApi, type ApiProcess } from './api-process.js';
import { probeCase, runHttpCase, type HttpCaseResult } from './http-load.js';
import { median } from './median.js';
import { buildQueryMix } from './query-mix.js';
import { readLoadAverage } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The median, to 0.01. */
function median2(values: number[]): number {
  return Math.round(median(values) * 100) / 100;
}

interface AbRun {
  build: 'A' | 'B';
  round: number;
  loadAverage1m: number;
  result: HttpCaseResult;
}

/** The variables choosing the backend both builds search (undefined when one is missing). */
function backendEnvironment(
  backend: string,
  values: { url?: string; alias?: string; 'sqlite-path'?: string },
): Record<string, string> | undefined {
  if (backend === 'sqlite') {
    const path = values['sqlite-path'];
    return path ? { SQLITE_PATH: resolve(path) } : undefined;
  }
  const variable = backend === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL';
  const url = values.url ?? process.env[variable];
  if (!url || !values.alias) return undefined;
  return { [variable]: url, SEARCH_INDEX_ALIAS: values.alias };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      backend: { type: 'string', default: 'opensearch' },
      url: { type: 'string' },
      'sqlite-path': { type: 'string' },
      'a-sqlite-path': { type: 'string' },
      alias: { type: 'string' },
      'a-root': { type: 'string' },
      'a-alias': { type: 'string' },
      cases: { type: 'string' },
      concurrency: { type: 'string', default: '1' },
      duration: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      size: { type: 'string', default: '100000' },
      out: { type: 'string' },
    },
  });
  const backend = values.backend ?? 'opensearch';
  const environment = backendEnvironment(backend, values);
  const aAlias = values['a-alias'];
  if ((!values['a-root'] && !aAlias) || !environment || (aAlias && backend === 'sqlite')) {
    throw new Error(
      'usage: api-ab.ts (--a-root DIR | --a-alias A) (--backend opensearch|elasticsearch --alias B [--url URL] | --backend sqlite --sqlite-path FILE --a-root DIR) …',
    );
  }
  const aSqlitePath = values['a-sqlite-path'];
  const aEnvironment = aAlias
    ? { ...environment, SEARCH_INDEX_ALIAS: aAlias }
    : aSqlitePath
      ? { ...environment, SQLITE_PATH: resolve(aSqlitePath) }
      : environment;
  const wanted = values.cases ? new Set(values.cases.split(',')) : undefined;
  const cases = buildQueryMix({
    corpusSize: Number(values.size),
    deepOffset: 100_010,
    pageSize: 10,
  }).filter((queryCase) => !wanted || wanted.has(queryCase.name));
  const concurrencies = (values.concurrency ?? '1').split(',').map(Number);
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const builds: { name: 'A' | 'B'; api: ApiProcess }[] = [
    { name: 'A', api: await startApi(resolve(values['a-root'] ?? REPO_ROOT), aEnvironment) },
    { name: 'B', api: await startApi(REPO_ROOT, environment) },
  ];
  const runs: AbRun[] = [];
  try {
    for (const queryCase of cases) {
      for (const build of builds) {
        const probe = await probeCase(build.api.origin, queryCase);
        if (probe.status !== 200) {
          throw new Error(`${build.name} ${queryCase.name}: ${probe.status} ${probe.snippet}`);
        }
        // Warm up: the first requests compile the hot path.
        await runHttpCase(build.api.origin, 0, queryCase, 1, 1);
      }
      for (const concurrency of concurrencies) {
        for (let round = 1; round <= rounds; round += 1) {
          const order = round % 2 === 1 ? builds : [...builds].reverse();
          for (const build of order) {
            const result = await runHttpCase(
              build.api.origin,
              build.api.pid,
              queryCase,
              concurrency,
              duration,
            );
            const loadAverage1m = readLoadAverage()[0];
            runs.push({ build: build.name, round, loadAverage1m, result });
            console.error(
              `${queryCase.name} c${concurrency} r${round} ${build.name}: p50 ${result.latencyMs.p50} p99 ${result.latencyMs.p99} ms, ${result.requestsPerSecond} req/s, CPU ${result.cpuMsPerRequest ?? '?'} ms/req, load ${loadAverage1m}${result.ok ? '' : ' FAIL'}`,
            );
          }
        }
      }
    }
  } finally {
    for (const build of builds) await stopApi(build.api);
  }
  console.log('| case | conc. | CPU ms/req A | CPU ms/req B | p50 A | p50 B | p99 A | p99 B |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const queryCase of cases) {
    for (const concurrency of concurrencies) {
      const of = (build: 'A' | 'B') =>
        runs.filter(
          (run) =>
            run.build === build &&
            run.result.case === queryCase.name &&
            run.result.concurrency === concurrency,
        );
      const cell = (build: 'A' | 'B', pick: (run: AbRun) => number) => median2(of(build).map(pick));
      console.log(
        `| ${queryCase.name} | ${concurrency} | ${cell('A', (r) => r.result.cpuMsPerRequest ?? NaN)} | ${cell('B', (r) => r.result.cpuMsPerRequest ?? NaN)} | ${cell('A', (r) => r.result.latencyMs.p50)} | ${cell('B', (r) => r.result.latencyMs.p50)} | ${cell('A', (r) => r.result.latencyMs.p99)} | ${cell('B', (r) => r.result.latencyMs.p99)} |`,
      );
    }
  }
  if (values.out) writeFileSync(values.out, `${JSON.stringify(runs, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
