/**
 * Whether a filter on a property new to the index finds the record written with it right after
 * the acknowledged write, counted over many tries (docs/decisions/result-cache.md, properties
 * new to the index). Two measurements on one engine:
 *
 * - the engine alone: a plain index of its own with a dynamic template for `props.*`; each try
 *   writes one document with a new property by `_bulk?refresh=wait_for` and searches a range on
 *   that property at once;
 * - two Cairn backends over one fresh alias (as two API processes): each try the reader
 *   filters on a new property (nothing has it yet), the writer writes a record with it
 *   (SEARCH_REFRESH=wait_for) and the reader filters again at once.
 *
 * A miss is a search after the write that does not find the record. The index and the alias are
 * removed after.
 *
 *   npx tsx scripts/bench/new-property-visibility.ts --engine elasticsearch --url http://127.0.0.1:9250
 *     [--engine-tries 150] [--backend-tries 50] [--out bench/results/new-property-visibility/<engine>.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { median } from './median.js';
import { readLoadAverage } from './system-info.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'elasticsearch' },
    url: { type: 'string' },
    'engine-tries': { type: 'string', default: '150' },
    'backend-tries': { type: 'string', default: '50' },
    out: { type: 'string' },
  },
});
const engine = values.engine as 'elasticsearch' | 'opensearch';
const givenUrl =
  values.url ?? process.env[engine === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL'];
if (!givenUrl) throw new Error(`--url or ${engine.toUpperCase()}_URL is needed`);
const url: string = givenUrl;
const engineTries = Number(values['engine-tries']);
const backendTries = Number(values['backend-tries']);
const out = values.out ?? `bench/results/new-property-visibility/${engine}.json`;
const stamp = Date.now().toString(36);

/** The parts of the engine's answers read here. */
interface EngineAnswer {
  errors?: boolean;
  hits?: { total: { value: number } };
}

/** One JSON request to the engine. */
async function call(
  method: string,
  path: string,
  body?: string,
  ndjson = false,
): Promise<EngineAnswer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    ...(body !== undefined && { body }),
  });
  return (await response.json()) as EngineAnswer;
}

/** The engine alone: misses among `tries` writes of a new property, and the write times. */
async function engineAlone(tries: number): Promise<{ misses: number; writeMs: number[] }> {
  const index = `cairn-bench-new-property-${stamp}`;
  await call(
    'PUT',
    `/${index}`,
    JSON.stringify({
      settings: { number_of_replicas: 0, number_of_shards: 1 },
      mappings: {
        dynamic_templates: [
          {
            numbers: {
              path_match: 'props.*',
              match_mapping_type: 'long',
              mapping: { type: 'double' },
            },
          },
        ],
      },
    }),
  );
  let misses = 0;
  const writeMs: number[] = [];
  try {
    for (let i = 0; i < tries; i += 1) {
      const bulk = `${JSON.stringify({ index: { _index: index, _id: `d${i}` } })}\n${JSON.stringify({ props: { [`p${i}`]: 5 } })}\n`;
      const started = performance.now();
      const written = await call('POST', '/_bulk?refresh=wait_for', bulk, true);
      writeMs.push(performance.now() - started);
      if (written.errors) throw new Error(JSON.stringify(written));
      const found = await call(
        'POST',
        `/${index}/_search`,
        JSON.stringify({ query: { range: { [`props.p${i}`]: { gt: 1 } } } }),
      );
      if (found.hits?.total.value !== 1) misses += 1;
    }
  } finally {
    await call('DELETE', `/${index}`);
  }
  return { misses, writeMs };
}

/** Two Cairn backends over one alias: misses among `tries`, and the write times. */
async function twoBackends(tries: number): Promise<{ misses: number; writeMs: number[] }> {
  const alias = `cairn-bench-new-property-${stamp}-records`;
  const settings = { engine, url, alias, spatial: 'envelope', refresh: 'wait_for' } as const;
  const writer = createEngineBackend(settings);
  await writer.init();
  const reader = createEngineBackend(settings);
  await reader.init();
  const matches = async (name: string): Promise<number> =>
    (
      await reader.search({
        sort: [],
        offset: 0,
        limit: 5,
        filter: checkFilter(parseCql2Text(`${name} > 10`)),
      })
    ).total;
  let misses = 0;
  const writeMs: number[] = [];
  try {
    for (let i = 0; i < tries; i += 1) {
      const name = `probe_${i}`;
      if ((await matches(name)) !== 0) throw new Error(`${name} matched before it was written`);
      const { records } = parseDocuments(
        JSON.stringify({
          type: 'Feature',
          id: `probe-${i}`,
          conformsTo: [],
          geometry: null,
          time: null,
          properties: { type: 'dataset', title: `probe ${i}`, [name]: 42 },
        }),
      );
      const started = performance.now();
      const result = await writer.upsert(records);
      writeMs.push(performance.now() - started);
      if (result.failures.length > 0) throw new Error(JSON.stringify(result.failures));
      if ((await matches(name)) !== 1) misses += 1;
    }
  } finally {
    await reader.close();
    await writer.destroy();
    await writer.close();
  }
  return { misses, writeMs };
}

const loadBefore = readLoadAverage();
const alone = await engineAlone(engineTries);
const backends = await twoBackends(backendTries);
const report = {
  engine,
  loadAverage: { before: loadBefore, after: readLoadAverage() },
  engineAlone: {
    tries: engineTries,
    misses: alone.misses,
    writeMsMedian: Math.round(median(alone.writeMs)),
  },
  twoBackends: {
    tries: backendTries,
    misses: backends.misses,
    writeMsMedian: Math.round(median(backends.writeMs)),
  },
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report));
