/**
 * The 1,000,000-record benchmarks on one engine, against a corpus loaded with
 * scripts/bench/million-load.ts: starts the compiled API (dist/services/api/main.js) on that
 * alias and, one request at a time,
 *
 * - walks the whole OAI-PMH ListRecords (oai_dc) through its resumption tokens, timing every
 *   page (target: every page within 1.5× the first page's time; and the harvest's rate);
 * - fetches the sitemap index and every sitemap file it names, timing each (target: the same
 *   cost per file wherever the file starts);
 * - runs each aggregation of /catalogue/aggregate through the API and, interleaved, the engine
 *   requests the API sends for it (captured from an engine backend configured as the API's,
 *   under the same query time budget) straight at the engine, every repetition (target: the
 *   API at most 2× the engine's time). The engine's shard request cache is cleared before every
 *   timed request on both sides (mode `cold`), and not cleared (mode `warm`).
 *
 * Writes each part's result (`oai.json`, `sitemap.json`, `aggregate.json`) as it finishes, the
 * series of every page, file and repetition (`oai-pages.csv`, `sitemap-files.csv`,
 * `aggregate-repetitions.csv`) and `million.md` (the tables of whatever parts are there) to
 * `--out`; `--render` only renders the tables from the part files there; `--readme` also puts
 * them into bench/README.md between its million markers. When the sitemap index fails (its
 * searches run past the query time budget), the files are planned in this process without a
 * budget and fetched from the API, and the failure is reported. `--oai-deadline <ISO time>`
 * stops the walk at that time (reported as a part of the harvest).
 *
 *   npm run bench:million -- [--backend elasticsearch|opensearch] [--url URL]
 *     [--alias cairn-bench-1m] [--parts oai,sitemap,aggregate] [--repetitions 5]
 *     [--sitemap-rounds 2] [--oai-prefix oai_dc] [--oai-deadline ISO] [--out DIR] [--render]
 *     [--readme]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import {
  createEngineAdapter,
  createEngineBackend,
  engineBackendOptions,
} from '../../shared/search/create-backend.js';
import { SearchScope } from '../../shared/search/search-scope.js';
import { sitemapFileUrl, urlsPerFile } from '../../services/api/protocols/web/sitemap.js';
import { planSitemapFiles } from '../../services/api/protocols/web/sitemap-walk.js';
import {
  parseAggregateRequest,
  runAggregate,
} from '../../services/api/protocols/stac/aggregate.js';
import { readCpuMs, startApi, stopApi, type ApiProcess } from './api-process.js';
import {
  engineHttpRequest,
  engineMultiSearchRequest,
  recordingAdapter,
  type CapturedRequest,
  type EngineHttpRequest,
} from './engine-direct.js';
import { median } from './median.js';
import { readSystemInfo } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'elasticsearch' },
    url: { type: 'string' },
    alias: { type: 'string', default: 'cairn-bench-1m' },
    parts: { type: 'string', default: 'oai,sitemap,aggregate' },
    repetitions: { type: 'string', default: '5' },
    'sitemap-rounds': { type: 'string', default: '2' },
    'oai-prefix': { type: 'string', default: 'oai_dc' },
    'oai-max-pages': { type: 'string' },
    aggregations: { type: 'string' },
    modes: { type: 'string', default: 'cold,warm' },
    out: {
      type: 'string',
      default: join('bench', 'results', `million-${new Date().toISOString().slice(0, 10)}`),
    },
    'oai-deadline': { type: 'string' },
    render: { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },
  },
});
const env = process.env;
const engine = values.backend === 'opensearch' ? 'opensearch' : 'elasticsearch';
const engineUrl = (
  values.url ??
  (engine === 'opensearch'
    ? (env.OPENSEARCH_URL ?? env.CAIRN_TEST_OPENSEARCH_URL)
    : (env.ELASTICSEARCH_URL ?? env.CAIRN_TEST_ELASTICSEARCH_URL)) ??
  ''
).replace(/\/$/, '');
if (!engineUrl) throw new Error('no engine URL: pass --url');
const alias = values.alias;
const parts = new Set(values.parts.split(',').map((part) => part.trim()));
const repetitions = Number(values.repetitions);
const sitemapRounds = Number(values['sitemap-rounds']);
const out = resolve(values.out);
mkdirSync(out, { recursive: true });

/** The API's backend environment: the engine and the corpus's alias (no Redis: no cache). */
const apiEnvironment: Record<string, string> = {
  [engine === 'opensearch' ? 'OPENSEARCH_URL' : 'ELASTICSEARCH_URL']: engineUrl,
  SEARCH_INDEX_ALIAS: alias,
};

/** first, median, p95, max of a series and max over first. */
export interface SeriesSummary {
  count: number;
  firstMs: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  maxOverFirst: number;
  maxOverMedian: number;
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
}

function summarise(times: readonly number[]): SeriesSummary {
  const first = times[0] ?? 0;
  const middle = median(times);
  const max = Math.max(...times);
  return {
    count: times.length,
    firstMs: round(first),
    medianMs: round(middle),
    p95Ms: round(percentile(times, 0.95)),
    maxMs: round(max),
    maxOverFirst: round(max / first, 2),
    maxOverMedian: round(max / middle, 2),
  };
}

function load1(): number {
  return round(loadavg()[0] ?? 0, 2);
}

/** Fetches a URL and reads its body as text, timed from the request to the last byte. */
async function timedText(
  url: string,
  init?: RequestInit,
): Promise<{ ms: number; status: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  return { ms: performance.now() - started, status: response.status, text };
}

function countOf(text: string, pattern: RegExp): number {
  return (text.match(pattern) ?? []).length;
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

// ---------------------------------------------------------------- OAI-PMH

interface OaiPage {
  page: number;
  ms: number;
  records: number;
  bytes: number;
  load1m: number;
}

async function walkOai(api: ApiProcess) {
  const base = `${api.origin}/catalogue/oai`;
  const maxPages = values['oai-max-pages'] ? Number(values['oai-max-pages']) : Infinity;
  const deadline = values['oai-deadline'] ? Date.parse(values['oai-deadline']) : Infinity;
  let stoppedEarly = false;
  const pages: OaiPage[] = [];
  // Each page's request, kept to time the slow pages again after the walk.
  const urls: string[] = [];
  let url = `${base}?verb=ListRecords&metadataPrefix=${values['oai-prefix']}`;
  let completeListSize: number | undefined;
  const cpuBefore = await readCpuMs(api.pid);
  const started = performance.now();
  for (;;) {
    const { ms, status, text } = await timedText(url);
    if (status !== 200 || text.includes('<error ')) {
      throw new Error(`OAI page ${pages.length + 1}: ${status} ${text.slice(0, 500)}`);
    }
    const records = countOf(text, /<record>/g);
    urls.push(url);
    pages.push({
      page: pages.length + 1,
      ms: round(ms, 2),
      records,
      bytes: Buffer.byteLength(text),
      load1m: load1(),
    });
    const token =
      /<resumptionToken([^>]*)>([^<]*)<\/resumptionToken>|<resumptionToken([^>]*)\/>/.exec(text);
    const size = /completeListSize="(\d+)"/.exec(token?.[1] ?? token?.[3] ?? '');
    if (size) completeListSize ??= Number(size[1]);
    const value = token?.[2] ? decodeXml(token[2]) : '';
    if (pages.length % 500 === 0) {
      const walked = pages.reduce((sum, page) => sum + page.records, 0);
      console.log(
        `  OAI: ${pages.length} pages, ${walked} records, last ${round(ms)} ms (load ${load1()})`,
      );
    }
    if (!value) break;
    if (pages.length >= maxPages || Date.now() >= deadline) {
      stoppedEarly = true;
      break;
    }
    url = `${base}?verb=ListRecords&resumptionToken=${encodeURIComponent(value)}`;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await readCpuMs(api.pid);
  const records = pages.reduce((sum, page) => sum + page.records, 0);
  const times = pages.map((page) => page.ms);
  const first = times[0] ?? 0;
  const over = pages.filter((page) => page.ms > 1.5 * first);
  const retimed = await retimeSlowPages(urls, over);
  writeFileSync(
    join(out, 'oai-pages.csv'),
    `page,ms,records,bytes,load1m\n${pages.map((p) => `${p.page},${p.ms},${p.records},${p.bytes},${p.load1m}`).join('\n')}\n`,
  );
  // The series in tenths: the median page time of each tenth of the walk, to show a trend.
  const tenths = Array.from({ length: 10 }, (_, tenth) => {
    const slice = times.slice(
      Math.floor((tenth * times.length) / 10),
      Math.floor(((tenth + 1) * times.length) / 10),
    );
    return round(median(slice));
  });
  return {
    metadataPrefix: values['oai-prefix'],
    whole: !stoppedEarly,
    pages: pages.length,
    records,
    completeListSize,
    seconds: round(seconds, 1),
    recordsPerSecond: Math.round(records / seconds),
    apiCpuMsPerPage:
      cpuBefore !== undefined && cpuAfter !== undefined
        ? round((cpuAfter - cpuBefore) / pages.length, 2)
        : undefined,
    pageTimes: summarise(times),
    laterPageTimes: summarise(times.slice(1)),
    medianOfTenths: tenths,
    pagesOver1_5xFirst: over.length,
    pagesOver1_5xMedian: pages.filter((page) => page.ms > 1.5 * median(times)).length,
    slowestPages: [...pages].sort((a, b) => b.ms - a.ms).slice(0, 10),
    retimed,
    targetMet: over.length === 0,
  };
}

/** A slow page of the walk asked again, beside the first page asked again just before it. */
interface RetimedPage {
  page: number;
  walkMs: number;
  /** Every repetition: the first page's time, then this page's. */
  repetitions: { firstMs: number; pageMs: number }[];
  medianFirstMs: number;
  medianPageMs: number;
  stillOver1_5x: boolean;
}

/**
 * Asks each page that took more than 1.5× the first page again (resumption tokens are
 * stateless, so a page can be asked again after the walk), `RETIME_REPETITIONS` times, each
 * time just after the first page: a page that is slow again beside the first page costs more
 * where it lies in the walk; one that is not was slowed by the moment it was asked at.
 */
const RETIME_REPETITIONS = 3;
async function retimeSlowPages(
  urls: readonly string[],
  slow: readonly OaiPage[],
): Promise<RetimedPage[]> {
  const retimed: RetimedPage[] = [];
  for (const page of slow) {
    const repetitions: RetimedPage['repetitions'] = [];
    for (let repetition = 0; repetition < RETIME_REPETITIONS; repetition += 1) {
      const firstPage = await timedText(urls[0]!);
      const again = await timedText(urls[page.page - 1]!);
      if (again.status !== 200 || again.text.includes('<error ')) {
        throw new Error(`OAI page ${page.page} asked again: ${again.status}`);
      }
      repetitions.push({ firstMs: round(firstPage.ms, 2), pageMs: round(again.ms, 2) });
    }
    const medianFirstMs = round(median(repetitions.map((r) => r.firstMs)), 2);
    const medianPageMs = round(median(repetitions.map((r) => r.pageMs)), 2);
    retimed.push({
      page: page.page,
      walkMs: page.ms,
      repetitions,
      medianFirstMs,
      medianPageMs,
      stillOver1_5x: medianPageMs > 1.5 * medianFirstMs,
    });
  }
  return retimed;
}

// ---------------------------------------------------------------- sitemaps

interface SitemapFileTime {
  round: number;
  file: number;
  ms: number;
  urls: number;
  bytes: number;
  load1m: number;
}

async function walkSitemaps(api: ApiProcess) {
  const indexTimes: number[] = [];
  const indexFailures: { round: number; status: number; ms: number; body: string }[] = [];
  const plannedInProcessMs: number[] = [];
  const files: SitemapFileTime[] = [];
  let fileUrls: string[] = [];
  for (let roundNumber = 1; roundNumber <= sitemapRounds; roundNumber += 1) {
    const index = await timedText(`${api.origin}/catalogue/sitemap.xml`);
    indexTimes.push(round(index.ms, 2));
    if (index.status === 200) {
      fileUrls = [...index.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) =>
        decodeXml(match[1] ?? ''),
      );
    } else {
      // The index failed (the query time budget): the files are planned in this process the
      // way the route plans them, without a budget, and fetched from the API as a crawler would.
      indexFailures.push({
        round: roundNumber,
        status: index.status,
        ms: round(index.ms),
        body: index.text.slice(0, 300),
      });
      const started = performance.now();
      const plan = await planWithoutBudget();
      plannedInProcessMs.push(round(performance.now() - started));
      fileUrls = plan.files.map((range) => sitemapFileUrl(api.origin, range));
    }
    console.log(
      `  sitemap index (round ${roundNumber}): ${fileUrls.length} files, ${round(index.ms)} ms`,
    );
    for (const [position, fileUrl] of fileUrls.entries()) {
      // The index names the public base URL; the files are fetched from the API started here.
      const local = new URL(fileUrl);
      const { ms, status, text } = await timedText(`${api.origin}${local.pathname}${local.search}`);
      if (status !== 200) throw new Error(`sitemap file ${fileUrl}: ${status}`);
      files.push({
        round: roundNumber,
        file: position + 1,
        ms: round(ms, 2),
        urls: countOf(text, /<url>/g),
        bytes: Buffer.byteLength(text),
        load1m: load1(),
      });
    }
  }
  writeFileSync(
    join(out, 'sitemap-files.csv'),
    `round,file,ms,urls,bytes,load1m\n${files.map((f) => `${f.round},${f.file},${f.ms},${f.urls},${f.bytes},${f.load1m}`).join('\n')}\n`,
  );
  const perFile = fileUrls.map((_, position) =>
    median(files.filter((f) => f.file === position + 1).map((f) => f.ms)),
  );
  const urls = files.filter((f) => f.round === 1).reduce((sum, f) => sum + f.urls, 0);
  const rounds = Array.from({ length: sitemapRounds }, (_, r) =>
    summarise(files.filter((f) => f.round === r + 1).map((f) => f.ms)),
  );
  const fileSummary = summarise(perFile);
  // A file's cost per URL: the last file may hold fewer URLs than the others.
  const msPerThousandUrls = fileUrls.map((_, position) => {
    const file = files.find((f) => f.file === position + 1)!;
    return round((perFile[position]! / file.urls) * 1000, 2);
  });
  return {
    files: fileUrls.length,
    urls,
    rounds: sitemapRounds,
    indexMs: indexTimes,
    indexFailures,
    plannedInProcessMs,
    perFileMedianMs: perFile.map((ms) => round(ms, 1)),
    msPerThousandUrls,
    fileTimes: fileSummary,
    perRound: rounds,
    // Constant cost per file: the slowest file's time within 1.5× the median file's.
    targetMet: fileSummary.maxOverMedian <= 1.5,
  };
}

/** The sitemap plan as the index route makes it, in this process and with no time budget. */
async function planWithoutBudget() {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ...apiEnvironment,
    QUERY_TIME_BUDGET_MS: '600000',
  });
  const backend = createEngineBackend(engineBackendOptions(config));
  try {
    await backend.init();
    return await planSitemapFiles(backend, urlsPerFile(config.web.sitemap.urlsPerFile));
  } finally {
    await backend.close();
  }
}

// ---------------------------------------------------------------- aggregations

interface AggregateCase {
  name: string;
  parameters: Record<string, string>;
}

const AGGREGATE_CASES: AggregateCase[] = [
  {
    name: 'total_count+datetime_min+datetime_max',
    parameters: { aggregations: 'total_count,datetime_min,datetime_max' },
  },
  { name: 'datetime_frequency (month)', parameters: { aggregations: 'datetime_frequency' } },
  {
    name: 'datetime_frequency (year)',
    parameters: { aggregations: 'datetime_frequency', datetime_frequency_interval: 'year' },
  },
  { name: 'collection_frequency', parameters: { aggregations: 'collection_frequency' } },
  { name: 'platform_frequency', parameters: { aggregations: 'platform_frequency' } },
  { name: 'instruments_frequency', parameters: { aggregations: 'instruments_frequency' } },
  { name: 'type_frequency', parameters: { aggregations: 'type_frequency' } },
  { name: 'keywords_frequency', parameters: { aggregations: 'keywords_frequency' } },
  { name: 'cloud_cover_frequency', parameters: { aggregations: 'cloud_cover_frequency' } },
  {
    name: 'centroid_geohash_grid_frequency (precision 1)',
    parameters: { aggregations: 'centroid_geohash_grid_frequency' },
  },
  {
    name: 'centroid_geohash_grid_frequency (precision 2)',
    parameters: {
      aggregations: 'centroid_geohash_grid_frequency',
      centroid_geohash_grid_frequency_precision: '2',
    },
  },
];

/** The engine requests the API sends for an aggregate request, captured in order. */
async function captureAggregate(parameters: Record<string, string>): Promise<EngineHttpRequest[]> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...apiEnvironment });
  const options = engineBackendOptions(config);
  const captured: CapturedRequest[] = [];
  const inner = createEngineAdapter(options.engine, { url: options.url ?? '' });
  const backend = createEngineBackend({
    ...options,
    adapter: recordingAdapter(inner, (request) => captured.push(request)),
  });
  try {
    await backend.init();
    const parsed = parseAggregateRequest(parameters, 'GET', {
      ...config.limits,
      query: config.query,
    });
    // A first run warms the mapping cache; the second is what a warm API sends.
    await runAggregate(backend, parsed, config.query, { scope: new SearchScope() });
    captured.length = 0;
    await runAggregate(backend, parsed, config.query, { scope: new SearchScope() });
  } finally {
    await backend.close();
  }
  return captured.map((request) => {
    if (request.kind === 'search') return engineHttpRequest(request.request);
    if (request.kind === 'msearch') return engineMultiSearchRequest(request.index, request.bodies);
    return {
      method: 'POST' as const,
      path: `/${encodeURIComponent(request.index)}/_count`,
      body: request.query ? { query: request.query } : {},
    };
  });
}

async function clearRequestCache(): Promise<void> {
  const response = await fetch(
    `${engineUrl}/${encodeURIComponent(alias)}/_cache/clear?request=true`,
    {
      method: 'POST',
    },
  );
  await response.text();
  if (!response.ok) throw new Error(`clearing the request cache: ${response.status}`);
}

/** Sends the captured requests in order; the total time and each one's time and `took`. */
async function sendDirect(requests: EngineHttpRequest[]) {
  const times: number[] = [];
  const took: number[] = [];
  for (const request of requests) {
    const started = performance.now();
    const response = await fetch(`${engineUrl}${request.path}`, {
      method: 'POST',
      headers: { 'content-type': request.contentType ?? 'application/json' },
      body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body),
    });
    const text = await response.text();
    times.push(performance.now() - started);
    if (!response.ok)
      throw new Error(`engine ${request.path}: ${response.status} ${text.slice(0, 300)}`);
    const body = JSON.parse(text) as { took?: number; responses?: { took?: number }[] };
    took.push(body.took ?? Math.max(...(body.responses ?? []).map((r) => r.took ?? 0)));
  }
  return { ms: times.reduce((a, b) => a + b, 0), times, took };
}

interface AggregateRepetition {
  case: string;
  mode: 'cold' | 'warm';
  repetition: number;
  order: 'api-first' | 'engine-first';
  apiMs: number;
  engineMs: number;
  /** The last engine request alone (the aggregation; an earlier one reads the bounds). */
  engineAggregationMs: number;
  engineTookMs: number[];
  load1m: number;
}

async function runAggregations(api: ApiProcess) {
  const names = values.aggregations?.split(',');
  const cases = AGGREGATE_CASES.filter((c) => !names || names.some((n) => c.name.startsWith(n)));
  const repetitionsOut: AggregateRepetition[] = [];
  const captures: Record<string, EngineHttpRequest[]> = {};
  for (const aggregateCase of cases) {
    captures[aggregateCase.name] = await captureAggregate(aggregateCase.parameters);
  }
  const apiRequest = async (aggregateCase: AggregateCase) => {
    const query = new URLSearchParams(aggregateCase.parameters).toString();
    const { ms, status, text } = await timedText(`${api.origin}/catalogue/aggregate?${query}`);
    if (status !== 200) throw new Error(`aggregate ${query}: ${status} ${text.slice(0, 300)}`);
    return ms;
  };
  const modes = (['cold', 'warm'] as const).filter((mode) =>
    values.modes.split(',').includes(mode),
  );
  for (const mode of modes) {
    for (const aggregateCase of cases) {
      const requests = captures[aggregateCase.name]!;
      // One untimed run of each side first: the first request of a case pays for loading
      // the field data it reads, whichever side sends it.
      await apiRequest(aggregateCase);
      await sendDirect(requests);
      for (let repetition = 1; repetition <= repetitions; repetition += 1) {
        const apiFirst = repetition % 2 === 1;
        let apiMs = 0;
        let direct = { ms: 0, times: [] as number[], took: [] as number[] };
        for (const side of apiFirst ? ['api', 'engine'] : ['engine', 'api']) {
          if (mode === 'cold') await clearRequestCache();
          if (side === 'api') apiMs = await apiRequest(aggregateCase);
          else direct = await sendDirect(requests);
        }
        repetitionsOut.push({
          case: aggregateCase.name,
          mode,
          repetition,
          order: apiFirst ? 'api-first' : 'engine-first',
          apiMs: round(apiMs, 2),
          engineMs: round(direct.ms, 2),
          engineAggregationMs: round(direct.times.at(-1) ?? 0, 2),
          engineTookMs: direct.took,
          load1m: load1(),
        });
      }
      const rows = repetitionsOut.filter((r) => r.case === aggregateCase.name && r.mode === mode);
      console.log(
        `  ${mode} ${aggregateCase.name}: API ${round(median(rows.map((r) => r.apiMs)))} ms, engine ${round(median(rows.map((r) => r.engineMs)))} ms (load ${load1()})`,
      );
    }
  }
  writeFileSync(
    join(out, 'aggregate-repetitions.csv'),
    `case,mode,repetition,order,api_ms,engine_ms,engine_aggregation_ms,engine_took_ms,load1m\n${repetitionsOut
      .map(
        (r) =>
          `"${r.case}",${r.mode},${r.repetition},${r.order},${r.apiMs},${r.engineMs},${r.engineAggregationMs},${r.engineTookMs.join('+')},${r.load1m}`,
      )
      .join('\n')}\n`,
  );
  writeFileSync(join(out, 'aggregate-requests.json'), `${JSON.stringify(captures, null, 2)}\n`);
  const results = [];
  for (const mode of modes) {
    for (const aggregateCase of cases) {
      const rows = repetitionsOut.filter((r) => r.case === aggregateCase.name && r.mode === mode);
      const ratios = rows.map((r) => r.apiMs / r.engineMs);
      const apiMedian = median(rows.map((r) => r.apiMs));
      const engineMedian = median(rows.map((r) => r.engineMs));
      const aggregationMedian = median(rows.map((r) => r.engineAggregationMs));
      results.push({
        case: aggregateCase.name,
        mode,
        engineRequests: captures[aggregateCase.name]!.length,
        apiMs: summarise(rows.map((r) => r.apiMs)),
        engineMs: summarise(rows.map((r) => r.engineMs)),
        engineTookMedianMs: median(rows.map((r) => r.engineTookMs.reduce((a, b) => a + b, 0))),
        ratioOfMedians: round(apiMedian / engineMedian, 2),
        ratioOverAggregationAlone: round(apiMedian / aggregationMedian, 2),
        maxRepetitionRatio: round(Math.max(...ratios), 2),
        repetitionRatios: ratios.map((ratio) => round(ratio, 2)),
        targetMet: apiMedian <= 2 * engineMedian,
      });
    }
  }
  return results;
}

// ---------------------------------------------------------------- report

type Results = {
  oai?: Awaited<ReturnType<typeof walkOai>>;
  sitemap?: Awaited<ReturnType<typeof walkSitemaps>>;
  aggregate?: Awaited<ReturnType<typeof runAggregations>>;
};

function renderMarkdown(runs: {
  oai?: (PartRun & { result: Results['oai'] }) | undefined;
  sitemap?: (PartRun & { result: Results['sitemap'] }) | undefined;
  aggregate?: (PartRun & { result: Results['aggregate'] }) | undefined;
}): string {
  const lines: string[] = [];
  const oai = runs.oai?.result;
  const sitemap = runs.sitemap?.result;
  const aggregate = runs.aggregate?.result;
  const context = (run: PartRun) =>
    `_${run.date.slice(0, 16).replace('T', ' ')} UTC, ${run.records?.toLocaleString('en')} records (${engine}, alias \`${alias}\`), load average ${run.loadAverageStart.join(' ')} at the start and ${run.loadAverageEnd.join(' ')} at the end (2 cores, shared)._`;
  const row = (cells: (string | number | undefined)[]) =>
    `| ${cells.map((c) => c ?? '').join(' | ')} |`;
  if (oai && runs.oai) {
    lines.push(
      context(runs.oai),
      '',
      `**OAI-PMH ListRecords (${oai.metadataPrefix}), ${oai.whole ? 'whole harvest' : 'first part of the harvest (stopped early)'}:** ${oai.records.toLocaleString('en')} records in ${oai.pages.toLocaleString('en')} pages, ${oai.seconds} s, **${oai.recordsPerSecond.toLocaleString('en')} records/s**; API CPU ${oai.apiCpuMsPerPage} ms per page.`,
      '',
      row([
        'pages',
        'first ms',
        'median ms',
        'p95 ms',
        'max ms',
        'max/first',
        'pages > 1.5× first',
        'target (every page ≤ 1.5× first)',
      ]),
      row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
      row([
        oai.pages,
        oai.pageTimes.firstMs,
        oai.pageTimes.medianMs,
        oai.pageTimes.p95Ms,
        oai.pageTimes.maxMs,
        oai.pageTimes.maxOverFirst,
        oai.pagesOver1_5xFirst,
        oai.targetMet ? 'met' : 'missed',
      ]),
      '',
      `Median page time of each tenth of the walk (ms): ${oai.medianOfTenths.join(', ')}.`,
      '',
    );
    const retimed = oai.retimed ?? [];
    if (retimed.length > 0) {
      const still = retimed.filter((page) => page.stillOver1_5x);
      lines.push(
        `The ${retimed.length} pages over 1.5× the first, each asked again ${retimed[0]!.repetitions.length} times just after the first page: ${still.length === 0 ? 'none' : `${still.length} (pages ${still.map((page) => page.page).join(', ')})`} over 1.5× the first page's median; medians of page / first page (ms): ${retimed.map((page) => `p${page.page} ${page.medianPageMs}/${page.medianFirstMs}`).join(', ')}.`,
        '',
      );
    }
  }
  if (sitemap && runs.sitemap) {
    lines.push(
      context(runs.sitemap),
      '',
      `**Sitemaps:** ${sitemap.indexFailures.length > 0 ? `the index answered ${sitemap.indexFailures.map((f) => `${f.status} after ${f.ms} ms`).join(', ')}; the ${sitemap.files} files were planned in the bench process without a budget (${sitemap.plannedInProcessMs.join(', ')} ms) and fetched from the API` : `an index of ${sitemap.files} files (${sitemap.indexMs.map((ms) => `${ms} ms`).join(', ')})`}; ${sitemap.urls.toLocaleString('en')} URLs in all; each file the median of ${sitemap.rounds} round(s).`,
      '',
      row([
        'files',
        'first ms',
        'median ms',
        'max ms',
        'max/first',
        'max/median',
        'target (max ≤ 1.5× median)',
      ]),
      row(['---:', '---:', '---:', '---:', '---:', '---:', '---']),
      row([
        sitemap.files,
        sitemap.fileTimes.firstMs,
        sitemap.fileTimes.medianMs,
        sitemap.fileTimes.maxMs,
        sitemap.fileTimes.maxOverFirst,
        sitemap.fileTimes.maxOverMedian,
        sitemap.targetMet ? 'met' : 'missed',
      ]),
      '',
      `Per file, in order (ms): ${sitemap.perFileMedianMs.join(', ')}.`,
      '',
    );
  }
  if (aggregate && runs.aggregate) {
    lines.push(
      context(runs.aggregate),
      '',
      `**Aggregations** (\`/catalogue/aggregate?aggregations=…\`, whole catalogue), ${repetitions} interleaved repetitions each (API and engine alternate which goes first); engine = the requests the API sends, sent straight to the engine in order; \`cold\`: the shard request cache cleared before every timed request on both sides.`,
      '',
      row([
        'aggregation',
        'mode',
        'engine req.',
        'API first / median / max ms',
        'engine first / median / max ms',
        'engine took (median)',
        'API/engine (medians)',
        'API/last engine request',
        'max per repetition',
        'target (≤ 2×)',
      ]),
      row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    );
    for (const result of aggregate) {
      lines.push(
        row([
          result.case,
          result.mode,
          result.engineRequests,
          `${result.apiMs.firstMs} / ${result.apiMs.medianMs} / ${result.apiMs.maxMs}`,
          `${result.engineMs.firstMs} / ${result.engineMs.medianMs} / ${result.engineMs.maxMs}`,
          result.engineTookMedianMs,
          result.ratioOfMedians,
          result.ratioOverAggregationAlone,
          result.maxRepetitionRatio,
          result.targetMet ? 'met' : 'missed',
        ]),
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

const README_START = '<!-- million:start -->';
const README_END = '<!-- million:end -->';

function readPart<T>(name: string): T | undefined {
  try {
    return JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function writePart(name: string, value: unknown): void {
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(value, null, 2)}\n`);
}

interface PartRun {
  date: string;
  command: string;
  records: number | undefined;
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

async function main(): Promise<void> {
  if (!values.render) {
    const loadAverageStart = loadavg().map((value) => round(value, 2));
    const system = await readSystemInfo(REPO_ROOT, { url: engineUrl, kind: engine });
    const countResponse = await fetch(`${engineUrl}/${encodeURIComponent(alias)}/_count`);
    const records = ((await countResponse.json()) as { count?: number }).count;
    console.log(`${records} records in ${alias}; load ${loadAverageStart.join(' ')}`);
    const api = await startApi(REPO_ROOT, apiEnvironment, 120_000, ['REDIS_URL']);
    const command = `npm run bench:million -- ${process.argv.slice(2).join(' ')}`.trim();
    const run = async (name: string, part: () => Promise<unknown>) => {
      const started = new Date().toISOString();
      const load = loadavg().map((value) => round(value, 2));
      const result = await part();
      writePart(name, {
        date: started,
        command,
        engine,
        engineUrl,
        alias,
        records,
        repetitions,
        loadAverageStart: load,
        loadAverageEnd: loadavg().map((value) => round(value, 2)),
        system,
        result,
      });
    };
    try {
      if (parts.has('aggregate')) {
        console.log('aggregations');
        await run('aggregate', () => runAggregations(api));
      }
      if (parts.has('sitemap')) {
        console.log('sitemaps');
        await run('sitemap', () => walkSitemaps(api));
      }
      if (parts.has('oai')) {
        console.log('OAI-PMH ListRecords walk');
        await run('oai', () => walkOai(api));
      }
    } finally {
      await stopApi(api);
    }
  }
  const markdown = renderMarkdown({
    oai: readPart<PartRun & { result: Results['oai'] }>('oai'),
    sitemap: readPart<PartRun & { result: Results['sitemap'] }>('sitemap'),
    aggregate: readPart<PartRun & { result: Results['aggregate'] }>('aggregate'),
  });
  writeFileSync(join(out, 'million.md'), `${markdown}\n`);
  console.log(markdown);
  if (values.readme) {
    const readmePath = join(REPO_ROOT, 'bench', 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const start = readme.indexOf(README_START);
    const end = readme.indexOf(README_END);
    if (start < 0 || end < start)
      throw new Error(`bench/README.md has no ${README_START} … ${README_END}`);
    writeFileSync(
      readmePath,
      `${readme.slice(0, start + README_START.length)}\n\n${markdown}\n${readme.slice(end)}`,
    );
  }
}

await main();
