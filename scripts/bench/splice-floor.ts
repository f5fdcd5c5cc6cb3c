/**
 * What serving STAC items kept as strings would cost: the splicer (scripts/bench/pass-through.ts
 * --splice) beside the API, the engine alone, the floor and the reader, on the STAC searches of
 * the peer bench, interleaved in rounds at each concurrency.
 *
 * The splicer reads a copy of the index (`<alias>-presented`) whose documents also keep each
 * record's STAC Item, written by Cairn's own presenter at build time, as one JSON string with a
 * placeholder base URL. It sends Cairn's captured search for each query to the copy asking for
 * that string alone, puts the request's base URL in and joins the strings into a page: no record
 * is parsed into objects or presented per request. Before timing, each query's splicer page is
 * checked against Cairn's own answer (the same matches, the same items in the same order, and
 * each item equal to Cairn's as JSON), so the figures are for the same answer.
 *
 *   source ~/.cache/cairn/run/env.sh
 *   npx tsx scripts/bench/splice-floor.ts --alias cairn-overhead-os \
 *     [--backend opensearch] [--concurrency 1,16] [--duration 4] [--rounds 3] [--out FILE]
 *
 * The copy is built once (scroll and bulk, about 2 minutes for 100,000 records) and kept while
 * its document count matches the alias's; `--rebuild` builds it again. The copy is merged into one
 * segment; `--merge-segments` merges the alias's index too before timing (as Cairn's reindex
 * leaves it), so that the engine searches both in one segment. Each index's segment count is
 * in the result file. Not part of CI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { presentStacItem } from '../../services/api/protocols/stac/present.js';
import { readStoredRecord, type StoredParts } from '../../shared/search/engine/engine-document.js';
import { startApi, startPassThrough, stopApi, type ApiProcess } from './api-process.js';
import { runHttpCase, type HttpCaseResult } from './http-load.js';
import { medianDefined } from './engine-direct.js';
import {
  engineCallCase,
  captureEngineCalls,
  listeningPid,
  replayCall,
  type EngineCall,
} from './peers/engine-capture.js';
import { PRESENTED_BASE, PRESENTED_FIELD } from './pass-through.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The STAC searches of the peer bench (scripts/bench/peers/run-peers.ts), on GET. */
const BBOX = '-10,40,20,60';
const DATETIME = '2015-01-01T00:00:00Z/2018-12-31T23:59:59Z';
const QUERIES: { name: string; path: string }[] = [
  { name: 'stac-text', path: '/catalogue/search?q=flood&limit=10' },
  { name: 'stac-bbox', path: `/catalogue/search?bbox=${BBOX}&limit=10` },
  { name: 'stac-datetime', path: `/catalogue/search?datetime=${DATETIME}&limit=10` },
  { name: 'stac-sort-date', path: '/catalogue/search?sortby=-properties.datetime&limit=10' },
];

/** The sides timed in each round, in this order. */
const SIDES = ['api', 'engine', 'floor', 'reader', 'splicer'] as const;
type Side = (typeof SIDES)[number];

interface Options {
  backend: 'opensearch' | 'elasticsearch';
  alias: string;
  concurrency: number[];
  duration: number;
  rounds: number;
  rebuild: boolean;
  mergeSegments: boolean;
  out?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    backend: 'opensearch',
    alias: '',
    concurrency: [1, 16],
    duration: 4,
    rounds: 3,
    rebuild: false,
    mergeSegments: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, value] = [argv[index], argv[index + 1] ?? ''];
    const positive = (text: string): number => {
      const parsed = Number(text);
      if (!Number.isInteger(parsed) || parsed < 1)
        throw new Error(`${flag} needs a positive integer`);
      return parsed;
    };
    if (flag === '--rebuild') options.rebuild = true;
    else if (flag === '--merge-segments') options.mergeSegments = true;
    else if (flag === '--backend' && (value === 'opensearch' || value === 'elasticsearch')) {
      options.backend = value;
      index += 1;
    } else if (flag === '--alias') {
      options.alias = value;
      index += 1;
    } else if (flag === '--concurrency') {
      options.concurrency = value.split(',').map(positive);
      index += 1;
    } else if (flag === '--duration' || flag === '--rounds') {
      options[flag === '--duration' ? 'duration' : 'rounds'] = positive(value);
      index += 1;
    } else if (flag === '--out') {
      options.out = value;
      index += 1;
    } else throw new Error(`unknown option ${flag}`);
  }
  if (options.alias === '') throw new Error('--alias is required (an index Cairn has loaded)');
  return options;
}

function log(message: string): void {
  console.error(`[splice-floor ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

async function engineJson(
  engine: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${engine}${path}`, {
    method,
    ...(body !== undefined && {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: {
        'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json',
      },
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The number of searchable segments of the index behind `index`. */
async function segmentCount(engine: string, index: string): Promise<number> {
  const response = await fetch(`${engine}/_cat/segments/${index}?format=json`);
  if (!response.ok) throw new Error(`segments of ${index}: ${response.status}`);
  return ((await response.json()) as { searchable?: string }[]).filter(
    (segment) => segment.searchable === 'true',
  ).length;
}

async function countOf(engine: string, index: string): Promise<number | undefined> {
  const response = await fetch(`${engine}/${index}/_count`);
  if (!response.ok) return undefined;
  return ((await response.json()) as { count: number }).count;
}

/** The STAC Item string kept for a stored document: Cairn's presenter, placeholder base URL. */
export function presentedItem(source: StoredParts): string {
  return JSON.stringify(presentStacItem(readStoredRecord(source), PRESENTED_BASE, new Set()));
}

/**
 * Builds `<alias>-presented`: the alias's index's mapping and documents, each with its STAC
 * Item string added (not indexed, no doc values), refreshed and merged into one segment as
 * Cairn's reindex leaves its own index.
 */
export async function buildCopy(engine: string, alias: string, copy: string): Promise<void> {
  await fetch(`${engine}/${copy}`, { method: 'DELETE' });
  const mappings = await engineJson(engine, 'GET', `/${alias}/_mapping`);
  const [mapping] = Object.values(mappings) as {
    mappings: { properties: object; _source?: { excludes?: string[] } };
  }[];
  if (!mapping) throw new Error(`no mapping for ${alias}`);
  // The index settings that shape searches, as the alias's index has them.
  const settings = await engineJson(engine, 'GET', `/${alias}/_settings`);
  const [indexSettings] = Object.values(settings) as {
    settings: { index: Record<string, unknown> };
  }[];
  const shaping = ['sort', 'analysis', 'max_result_window', 'max_regex_length', 'mapping'];
  await engineJson(engine, 'PUT', `/${copy}`, {
    settings: {
      index: {
        ...Object.fromEntries(
          shaping.flatMap((name) =>
            indexSettings?.settings.index[name] === undefined
              ? []
              : [[name, indexSettings.settings.index[name]]],
          ),
        ),
        number_of_shards: 1,
        number_of_replicas: 0,
        refresh_interval: '-1',
      },
    },
    mappings: {
      ...mapping.mappings,
      // The string is kept once, as a stored field: the `_source` stays the alias's documents'.
      _source: {
        ...mapping.mappings._source,
        excludes: [...(mapping.mappings._source?.excludes ?? []), PRESENTED_FIELD],
      },
      properties: {
        ...mapping.mappings.properties,
        [PRESENTED_FIELD]: { type: 'keyword', index: false, doc_values: false, store: true },
      },
    },
  });
  let page = await engineJson(engine, 'POST', `/${alias}/_search?scroll=2m`, {
    size: 1000,
    sort: ['_doc'],
  });
  let copied = 0;
  for (;;) {
    const hits = (page.hits as { hits: { _id: string; _source: Record<string, unknown> }[] }).hits;
    if (hits.length === 0) break;
    const lines = hits.flatMap((hit) => [
      JSON.stringify({ index: { _index: copy, _id: hit._id } }),
      JSON.stringify({
        ...hit._source,
        [PRESENTED_FIELD]: presentedItem(hit._source as unknown as StoredParts),
      }),
    ]);
    const bulk = await engineJson(engine, 'POST', '/_bulk', `${lines.join('\n')}\n`);
    if (bulk.errors) throw new Error(`bulk into ${copy} had errors`);
    copied += hits.length;
    if (copied % 20_000 === 0) log(`copied ${copied}`);
    page = await engineJson(engine, 'POST', '/_search/scroll', {
      scroll: '2m',
      scroll_id: page._scroll_id,
    });
  }
  await engineJson(engine, 'PUT', `/${copy}/_settings`, { index: { refresh_interval: null } });
  await engineJson(engine, 'POST', `/${copy}/_refresh`);
  await engineJson(engine, 'POST', `/${copy}/_forcemerge?max_num_segments=1`);
  log(`built ${copy}: ${copied} documents`);
}

/**
 * Why the splicer's page is not Cairn's, or undefined when it is: the same number of matches and
 * the same items in the same order, each equal as JSON once each page's own origin is taken out.
 */
export function spliceDifference(
  cairnText: string,
  cairnOrigin: string,
  splicedText: string,
  splicerOrigin: string,
): string | undefined {
  interface Page {
    numberMatched?: number;
    features?: { id?: string }[];
  }
  const [cairn, spliced] = [JSON.parse(cairnText) as Page, JSON.parse(splicedText) as Page];
  const items = (page: Page, origin: string): string =>
    JSON.stringify(page.features ?? []).replaceAll(origin, 'BASE');
  const ids = (page: Page): string => (page.features ?? []).map((item) => item.id).join(',');
  if (cairn.numberMatched !== spliced.numberMatched) {
    return `matched ${spliced.numberMatched} against Cairn's ${cairn.numberMatched}`;
  }
  if (items(cairn, cairnOrigin) !== items(spliced, splicerOrigin)) {
    return ids(cairn) === ids(spliced)
      ? `the same items (${ids(cairn)}) written differently`
      : `items ${ids(spliced)} against Cairn's ${ids(cairn)}`;
  }
  return undefined;
}

/** Sends a captured engine call to `origin` and returns the answer's text. */
export async function replayText(origin: string, call: EngineCall): Promise<string> {
  const response = await fetch(`${origin}${call.path}`, {
    method: call.method,
    ...(call.body !== '' && {
      body: call.body,
      headers: { 'content-type': call.contentType ?? 'application/json' },
    }),
  });
  return response.text();
}

/** Throws unless the splicer's page for a query is Cairn's. */
async function checkSameAnswer(
  query: { name: string; path: string },
  api: ApiProcess,
  splicer: ApiProcess,
  call: EngineCall,
): Promise<void> {
  const cairn = await (await fetch(`${api.origin}${query.path}`)).text();
  const difference = spliceDifference(
    cairn,
    api.origin,
    await replayText(splicer.origin, call),
    splicer.origin,
  );
  if (difference)
    throw new Error(`${query.name}: the splicer's page is not Cairn's: ${difference}`);
  log(`${query.name}: the splicer's page is Cairn's`);
}

interface Run {
  query: string;
  side: Side;
  round: number;
  result: HttpCaseResult;
}

/** One row per query and concurrency: each side's median p50, CPU per request and req/s. */
export function spliceRows(runs: Run[]): string[] {
  const keys = [...new Set(runs.map((run) => `${run.query}\u0000${run.result.concurrency}`))];
  return keys.map((key) => {
    const [query, concurrency] = key.split('\u0000');
    const of = (side: Side) =>
      runs.filter(
        (run) =>
          run.query === query &&
          String(run.result.concurrency) === concurrency &&
          run.side === side,
      );
    const med = (side: Side, pick: (result: HttpCaseResult) => number | undefined): number =>
      medianDefined(of(side).map((run) => pick(run.result))) ?? Number.NaN;
    const fixed = (value: number): string => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
    const signed = (value: number): string => `${value >= 0 ? '+' : ''}${fixed(value)}`;
    const cell = (side: Side): string =>
      `${fixed(med(side, (r) => r.latencyMs.p50))} · ${fixed(med(side, (r) => r.cpuMsPerRequest))} · ${fixed(med(side, (r) => r.requestsPerSecond))}`;
    const floorCpu = med('floor', (r) => r.cpuMsPerRequest);
    const engineP50 = med('engine', (r) => r.latencyMs.p50);
    const over = (side: Side): string =>
      `${signed(med(side, (r) => r.latencyMs.p50) - engineP50)} / ${signed(med(side, (r) => r.cpuMsPerRequest) - floorCpu)}`;
    return `| ${query} | ${concurrency} | ${SIDES.map(cell).join(' | ')} | ${over('splicer')} | ${over('reader')} | ${over('api')} |`;
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const variable = options.backend === 'opensearch' ? 'OPENSEARCH_URL' : 'ELASTICSEARCH_URL';
  const engine = process.env[variable]?.replace(/\/$/, '');
  if (!engine) throw new Error(`${variable} is not set (source ~/.cache/cairn/run/env.sh)`);
  const copy = `${options.alias}-presented`;
  const [aliasCount, copyCount] = [
    await countOf(engine, options.alias),
    await countOf(engine, copy),
  ];
  if (aliasCount === undefined) throw new Error(`no index behind ${options.alias} at ${engine}`);
  if (options.rebuild || copyCount !== aliasCount) await buildCopy(engine, options.alias, copy);
  else log(`${copy} holds ${copyCount} documents, as ${options.alias} does: kept`);
  if (options.mergeSegments) {
    await engineJson(engine, 'POST', `/${options.alias}/_forcemerge?max_num_segments=1`);
  }
  const segments = {
    [options.alias]: await segmentCount(engine, options.alias),
    [copy]: await segmentCount(engine, copy),
  };
  log(`segments: ${JSON.stringify(segments)}`);

  const captured = await captureEngineCalls(
    REPO_ROOT,
    { [variable]: engine, SEARCH_INDEX_ALIAS: options.alias },
    variable,
    QUERIES.map((query) => ({
      name: query.name,
      ask: async (origin: string) => {
        const response = await fetch(`${origin}${query.path}`);
        await response.text();
        return response.status;
      },
    })),
  );
  const calls = new Map<string, EngineCall>();
  for (const query of QUERIES) {
    const replay = replayCall(captured.get(query.name) ?? []);
    if (!replay) throw new Error(`${query.name}: Cairn sent the engine no search`);
    calls.set(query.name, replay);
  }
  const processes: Partial<Record<Side, ApiProcess>> = {};
  try {
    processes.api = await startApi(REPO_ROOT, {
      [variable]: engine,
      SEARCH_INDEX_ALIAS: options.alias,
    });
    processes.floor = await startPassThrough(REPO_ROOT, engine);
    processes.reader = await startPassThrough(REPO_ROOT, engine, { mode: 'read' });
    processes.splicer = await startPassThrough(REPO_ROOT, engine, {
      mode: 'splice',
      spliceIndex: copy,
    });
    const enginePid = listeningPid(Number(new URL(engine).port)) ?? 0;
    if (enginePid === 0) log(`no pid found listening at ${engine}: the engine's CPU is not read`);
    for (const query of QUERIES) {
      await checkSameAnswer(query, processes.api, processes.splicer, calls.get(query.name)!);
    }
    const runs: Run[] = [];
    for (const query of QUERIES) {
      const call = calls.get(query.name)!;
      for (const concurrency of options.concurrency) {
        for (let round = 1; round <= options.rounds; round += 1) {
          const line: string[] = [];
          for (const side of SIDES) {
            const process = processes[side];
            const origin = side === 'engine' ? engine : process!.origin;
            const pid = side === 'engine' ? enginePid : process!.pid;
            const queryCase =
              side === 'api'
                ? {
                    ...engineCallCase(query.name, call),
                    method: 'GET' as const,
                    path: query.path,
                    body: undefined,
                  }
                : engineCallCase(query.name, call);
            const result = await runHttpCase(origin, pid, queryCase, concurrency, options.duration);
            runs.push({ query: query.name, side, round, result });
            line.push(
              `${side} ${result.requestsPerSecond} req/s p50 ${result.latencyMs.p50} cpu ${result.cpuMsPerRequest ?? '?'}${result.ok ? '' : ' ERRORS'}`,
            );
          }
          log(`${query.name} c=${concurrency} round ${round}: ${line.join(', ')}`);
        }
      }
    }
    const table = [
      '| query | conc. | API p50 · CPU · req/s | engine | floor | reader | splicer | splicer p50 − engine / CPU − floor | reader | API |',
      '| --- | ---: | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...spliceRows(runs),
    ].join('\n');
    console.log(`\n${table}\n`);
    const out =
      options.out ??
      join(
        REPO_ROOT,
        'bench',
        'results',
        `splice-floor-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      );
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify({ options, engine: options.backend, copy, segments, calls: Object.fromEntries(calls), runs, table }, null, 2)}\n`,
    );
    log(`wrote ${out}`);
  } finally {
    for (const process of Object.values(processes)) if (process) await stopApi(process);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
