/**
 * Sequential deep pages through the API, two builds side by side on one engine index: a
 * harvester's CSW pages (startPosition, pages of 10) from a deep offset on, each build's page
 * timed right after the other's (which goes first alternates), with page 1 timed the same way
 * as the yardstick. Each build runs in an API process of its own (no Redis), positioned first by
 * one jump to the offset (not timed: the walk there is the cold-jump measurement's business).
 *
 *   npx tsx scripts/bench/harvest-ab.ts --backend elasticsearch --alias A --a-root DIR
 *     [--offset 899990] [--pages 30] [--out FILE]
 *
 * `--a-root` is a checkout of the other build (with its node_modules); B is this checkout.
 * Prints a table and writes the samples as JSON (each with the 1-minute load average).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startApi, stopApi } from './api-process.js';
import { cswGetRecords } from './csw-get-records.js';
import { median } from './median.js';
import { readLoadAverage } from './system-info.js';

const PAGE_SIZE = 10;

function pagePath(offset: number): string {
  const parameters = new URLSearchParams(
    cswGetRecords('brief', PAGE_SIZE, { startPosition: String(offset + 1) }),
  );
  return `/catalogue/csw?${parameters.toString()}`;
}

async function time(origin: string, offset: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${origin}${pagePath(offset)}`);
  const body = await response.text();
  if (response.status !== 200 || !body.includes('numberOfRecordsMatched')) {
    throw new Error(`${origin} offset ${offset}: ${response.status} ${body.slice(0, 300)}`);
  }
  return performance.now() - started;
}

const round = (value: number): number => Math.round(value * 100) / 100;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      backend: { type: 'string', default: 'elasticsearch' },
      alias: { type: 'string' },
      'a-root': { type: 'string' },
      offset: { type: 'string', default: '899990' },
      pages: { type: 'string', default: '30' },
      out: { type: 'string' },
    },
  });
  const backend = values.backend;
  const variable = backend === 'opensearch' ? 'OPENSEARCH_URL' : 'ELASTICSEARCH_URL';
  const url = process.env[variable];
  if (!url || !values.alias || !values['a-root']) {
    throw new Error(`needs ${variable} in the environment, --alias and --a-root`);
  }
  const offset = Number(values.offset);
  const pages = Number(values.pages);
  const environment = { [variable]: url, SEARCH_INDEX_ALIAS: values.alias };
  const roots = { A: resolve(values['a-root']), B: resolve('.') };
  const apis = {
    A: await startApi(roots.A, environment, undefined, ['REDIS_URL']),
    B: await startApi(roots.B, environment, undefined, ['REDIS_URL']),
  };
  const samples: {
    page: number;
    offset: number;
    first: 'A' | 'B';
    load1: number;
    page1: { A: number; B: number };
    deep: { A: number; B: number };
  }[] = [];
  try {
    for (const side of ['A', 'B'] as const) {
      await time(apis[side].origin, 0);
      await time(apis[side].origin, offset);
    }
    for (let page = 1; page <= pages; page += 1) {
      const first = page % 2 === 1 ? 'A' : 'B';
      const order = first === 'A' ? (['A', 'B'] as const) : (['B', 'A'] as const);
      const page1 = { A: 0, B: 0 };
      const deep = { A: 0, B: 0 };
      const at = offset + page * PAGE_SIZE;
      for (const side of order) page1[side] = round(await time(apis[side].origin, 0));
      for (const side of order) deep[side] = round(await time(apis[side].origin, at));
      samples.push({ page, offset: at, first, load1: readLoadAverage()[0], page1, deep });
    }
  } finally {
    await stopApi(apis.A);
    await stopApi(apis.B);
  }
  const summary = Object.fromEntries(
    (['A', 'B'] as const).map((side) => {
      const page1 = median(samples.map((sample) => sample.page1[side]));
      const deep = median(samples.map((sample) => sample.deep[side]));
      return [side, { page1Ms: round(page1), deepMs: round(deep), ratio: round(deep / page1) }];
    }),
  );
  const result = {
    backend,
    alias: values.alias,
    offset,
    pageSize: PAGE_SIZE,
    roots,
    startedLoad: samples[0]?.load1,
    summary,
    samples,
  };
  console.log(JSON.stringify(summary));
  for (const sample of samples) {
    console.log(
      `${sample.offset}\tload ${sample.load1.toFixed(1)}\tpage1 A ${sample.page1.A} B ${sample.page1.B}\tdeep A ${sample.deep.A} B ${sample.deep.B}`,
    );
  }
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
