/**
 * `npm run bench:peers`: Cairn side by side with its peers on this
 * machine — pycsw 3 (geonode-pycsw, gunicorn, SQLite) against Cairn on SQLite, and SFEOS
 * (stac-fastapi-opensearch, uvicorn) against Cairn on the same OpenSearch node. The same
 * generated records go into each (ISO 19139 through pycsw's own parser and repository layer,
 * STAC Items through SFEOS's bulk Transactions API, the OGC records through Cairn's ingest
 * pipeline); each query's number of matches is compared on both sides before timing; then
 * each query is timed interleaved (Cairn, peer, Cairn, peer …) at each concurrency. Writes
 * bench/results/peers-<time>.json and prints the Cairn/peer ratio tables.
 *
 *   npm run bench:peers      (the full run: 100,000 records, both peers at 1 and 2
 *                              workers, concurrency 1 and 16, 2 repetitions of 3 s)
 *   npm run bench:peers -- --size 10000 --duration 3 --repetitions 2 --concurrency 1,16 \
 *     --workers 1,2 --peers pycsw,sfeos,sfeos-elasticsearch
 *   npm run bench:peers -- --peers sfeos --merge-segments   (every engine index, Cairn's and
 *                              SFEOS's, merged into one segment before timing)
 *   npm run bench:peers -- --peers sfeos --no-engine-alone   (without the engine-alone side)
 *
 * Beside SFEOS, each repetition also times the engine alone on the search Cairn sends it for
 * the query (captured through a recording proxy, scripts/bench/peers/engine-capture.ts), with
 * the engine's and Cairn's CPU per request: what any front of that engine could serve.
 *
 * Each worker count of a peer is its own server, all up at once; each repetition runs Cairn, then
 * the peer at each worker count (A B1 B2 A B1 B2 …), so Cairn's runs are shared by the rows.
 * Prints the elapsed time of every phase and in total, the load rate of each side and the
 * resident memory of each side (summed over the server's processes).
 *
 * Needs Python >= 3.11 (the peers go into a venv made by `scripts/python-env.sh peers`) and, for
 * SFEOS, OPENSEARCH_URL (the services script's OpenSearch); stac-fastapi-elasticsearch runs only
 * where ELASTICSEARCH_URL's engine has `geo_shape` (probed; otherwise skipped with the reason
 * printed and recorded). Everything binds 127.0.0.1; the engine indexes it makes are named
 * `peersbench-…` and deleted at the end.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../../shared/config/index.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { writeIso19139 } from '../../../shared/records/writers/xml/iso19139.js';
import { writeStacItem } from '../../../shared/records/writers/stac-item.js';
import { createBackend } from '../../../shared/search/create-backend.js';
import {
  findFreePort,
  startApi,
  startPassThrough,
  stopApi,
  type ApiProcess,
} from '../api-process.js';
import { generateCorpusDocuments, loadOrReuseCorpus } from '../bench-corpus.js';
import { runHttpCase, type HttpCaseResult } from '../http-load.js';
import type { QueryCase } from '../query-mix.js';
import { readLoadAverage, readSystemInfo } from '../system-info.js';
import { generateRecord } from '../../corpus/generator.js';
import {
  checkCounts,
  deepPages,
  engineCeilingRows,
  readerFloorRows,
  formatCountCheck,
  PhaseClock,
  ratioRows,
  readMatchCount,
  renderLoadTable,
  renderEngineCeilingTable,
  renderReaderFloorTable,
  renderPhaseTable,
  renderRatioTable,
  type CountCheck,
  type CountStyle,
  type LoadRate,
  type Repetition,
} from './peer-report.js';
import { countBbox, countDatetime } from './corpus-truth.js';
import {
  busyShare,
  frameDocument,
  parseCpuTicks,
  readBulkItemsAnswer,
  runPool,
  SETTLE_RULE,
  settleVerdict,
  type CpuTicks,
} from './load-plan.js';
import { sampleTreeRss } from './process-tree.js';
import {
  engineCallCase,
  captureEngineCalls,
  listeningPid,
  replayCall,
  type EngineCall,
} from './engine-capture.js';
import { cswGetRecords } from '../csw-get-records.js';
import { buildCopy, replayText, spliceDifference } from '../splice-floor.js';
import {
  deletePeerIndexesAndTemplates,
  installPeers,
  PYCSW_PEER_SCRIPT,
  REPO_ROOT,
  runCommand,
  SFEOS_FLAVOURS,
  startPycsw,
  startSfeos,
  stopChild,
  type Peer,
  type SfeosFlavour,
} from './peer-servers.js';

const INDEX_PREFIX = 'peersbench-';
const SFEOS_COLLECTION = 'peersbench';
/** How many times SFEOS's req/s and p99 the performance target asks of Cairn at concurrency 16. */
const SFEOS_FACTOR = 3;
const ITEMS = '/catalogue/collections/metadata%3Amain/items';

function log(message: string): void {
  console.error(`[bench:peers ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((done) => setTimeout(done, milliseconds));
}

/** Command-line options. */
interface Options {
  size: number;
  seed: number;
  duration: number;
  repetitions: number;
  concurrency: number[];
  peers: string[];
  /** The worker counts each peer is run with (one server per count, side by side). */
  workers: number[];
  /** Only these queries (by name), when given. */
  queries?: string[];
  /**
   * Merge every loaded engine index (Cairn's and the peer's alike) into one segment before
   * timing, as an operator would after a bulk load (Cairn's reindex does it for its own).
   */
  mergeSegments: boolean;
  /**
   * Beside each SFEOS query, time the engine alone on the search Cairn sends it for the query
   * (captured through a recording proxy): the most any front of that engine can serve.
   */
  engineAlone: boolean;
}

const PEERS = ['pycsw', 'sfeos', 'sfeos-elasticsearch'];

function parseOptions(argv: string[]): Options {
  const options: Options = {
    size: 100_000,
    seed: 42,
    duration: 3,
    repetitions: 2,
    concurrency: [1, 16],
    peers: [...PEERS],
    workers: [1, 2],
    mergeSegments: false,
    engineAlone: true,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, value] = [argv[index], argv[index + 1]];
    const number = (): number => {
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 1)
        throw new Error(`${flag} needs a positive integer`);
      index += 1;
      return parsed;
    };
    if (flag === '--size') options.size = number();
    else if (flag === '--seed') options.seed = number();
    else if (flag === '--duration') options.duration = number();
    else if (flag === '--repetitions') options.repetitions = number();
    else if (flag === '--concurrency' || flag === '--workers') {
      const list = (value ?? '').split(',').map(Number);
      if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1))
        throw new Error(`${flag} needs a list of positive integers`);
      if (flag === '--workers') options.workers = [...new Set(list)];
      else options.concurrency = list;
      index += 1;
    } else if (flag === '--queries') {
      options.queries = (value ?? '').split(',').filter(Boolean);
      index += 1;
    } else if (flag === '--merge-segments') {
      options.mergeSegments = true;
    } else if (flag === '--no-engine-alone') {
      options.engineAlone = false;
    } else if (flag === '--peers') {
      options.peers = (value ?? '').split(',');
      if (options.peers.some((peer) => !PEERS.includes(peer)))
        throw new Error(`--peers takes a list of ${PEERS.join(', ')}`);
      index += 1;
    } else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

/** The generated corpus as Cairn records (the same ones Cairn's pipeline loads). */
function corpusRecords(size: number, seed: number): CoreRecord[] {
  const records: CoreRecord[] = [];
  for (let index = 0; index < size; index += 1) {
    const parsed = parseDocuments(JSON.stringify(generateRecord(index, seed)));
    if (parsed.records.length !== 1) {
      throw new Error(
        `generated record ${index} does not parse: ${JSON.stringify(parsed.failures)}`,
      );
    }
    records.push(...parsed.records);
  }
  return records;
}

/** One side of a query: a request and how its answer reports the count. */
interface Side {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  count: CountStyle;
}

/** One query of a pairing: Cairn's request and the peer's for the same question. */
interface PeerQuery {
  name: string;
  cairn: Side;
  peer: Side;
  /** Why the counts may differ, and which side is right. */
  known?: string;
  /** The number of matches counted in the corpus, where the bench can count it. */
  corpus?: (records: readonly CoreRecord[]) => number;
}

function get(path: string, count: CountStyle = 'numberMatched'): Side {
  return { method: 'GET', path, count };
}

function post(path: string, body: unknown): Side {
  return { method: 'POST', path, body, count: 'numberMatched' };
}

const BBOX = '-10,40,20,60';
const BOX: [number, number, number, number] = [-10, 40, 20, 60];
const FROM = '2000-01-01T00:00:00Z';
const TO = '2015-12-31T23:59:59Z';
const DATETIME = `${FROM}/${TO}`;
const byBbox = (records: readonly CoreRecord[]): number => countBbox(records, BOX);
const byDatetime = (records: readonly CoreRecord[]): number => countDatetime(records, FROM, TO);

function csw(parameters: Record<string, string>): string {
  return new URLSearchParams(cswGetRecords('summary', 10, parameters)).toString();
}

/** The CQL2 filter of the Records pairing: a box and a resource type. */
const CQL2_TEXT = "S_INTERSECTS(geometry, BBOX(-10, 40, 20, 60)) AND type = 'series'";
// pycsw's queryable for the footprint is `bbox` (its wkt_geometry column); on SQLite it answers
// ECQL INTERSECTS with a 400 (no ST_Intersects there: "CQL evaluator error"), but takes BBOX.
const PYCSW_ECQL = "BBOX(bbox, -10, 40, 20, 60) AND type = 'series'";

/** Cairn on SQLite against pycsw (OGC API – Records and CSW 2.0.2). */
function pycswQueries(size: number, sampleId: string): PeerQuery[] {
  const constraint = {
    constraintLanguage: 'CQL_TEXT',
    // pycsw's CQL_TEXT reader wants the csw: prefix and a lower-case `like` ("Invalid Filter
    // syntax" otherwise); Cairn reads both spellings. Not '%ocean%': Cairn reads AnyText as
    // words (like q), pycsw as a substring, so 'oceans' (a topic category) matches only there.
    constraint: "csw:AnyText like '%flood%'",
  };
  return [
    {
      name: 'text',
      cairn: get(`${ITEMS}?q=flood&limit=10`),
      peer: get('/collections/metadata:main/items?q=flood&limit=10'),
    },
    {
      name: 'bbox',
      cairn: get(`${ITEMS}?bbox=${BBOX}&limit=10`),
      peer: get(`/collections/metadata:main/items?bbox=${BBOX}&limit=10`),
      known:
        'pycsw reads a record box that crosses the antimeridian (west > east) as the rest of the globe, so it also counts those',
      corpus: byBbox,
    },
    {
      name: 'datetime',
      cairn: get(`${ITEMS}?datetime=${DATETIME}&limit=10`),
      peer: get(`/collections/metadata:main/items?datetime=${DATETIME}&limit=10`),
      known:
        'pycsw counts only records wholly inside the period; OGC API – Records asks for any overlap',
      corpus: byDatetime,
    },
    {
      name: 'bbox-datetime-text',
      cairn: get(`${ITEMS}?bbox=${BBOX}&datetime=${DATETIME}&q=flood&limit=10`),
      peer: get(
        `/collections/metadata:main/items?bbox=${BBOX}&datetime=${DATETIME}&q=flood&limit=10`,
      ),
      known:
        'pycsw reads antimeridian-crossing boxes as the rest of the globe and counts only records wholly inside the period',
    },
    {
      name: 'cql2-filter',
      cairn: get(`${ITEMS}?filter-lang=cql2-text&filter=${encodeURIComponent(CQL2_TEXT)}&limit=10`),
      // pycsw 3.0.0b2 reads a GET filter as ECQL (pygeofilter 0.2.1).
      peer: get(
        `/collections/metadata:main/items?filter=${encodeURIComponent(PYCSW_ECQL)}&limit=10`,
      ),
      known:
        'pycsw reads a record box that crosses the antimeridian (west > east) as the rest of the globe',
      corpus: (records) =>
        countBbox(
          records.filter((record) => record.type === 'series'),
          BOX,
        ),
    },
    {
      name: 'sort-date',
      cairn: get(`${ITEMS}?sortby=-updated&limit=10`),
      peer: get('/collections/metadata:main/items?sortby=-updated&limit=10'),
    },
    {
      name: 'sort-title',
      cairn: get(`${ITEMS}?sortby=title&limit=10`),
      peer: get('/collections/metadata:main/items?sortby=title&limit=10'),
    },
    {
      name: 'csw-getrecords-constraint',
      cairn: get(`/catalogue/csw?${csw(constraint)}`, 'csw'),
      peer: get(`/csw?${csw(constraint)}`, 'csw'),
    },
    ...deepPages(size).map((page) => ({
      name: page.clamped
        ? `csw-page-${page.start} (asked ${page.requested})`
        : `csw-page-${page.start}`,
      cairn: get(`/catalogue/csw?${csw({ startPosition: String(page.start) })}`, 'csw'),
      peer: get(`/csw?${csw({ startPosition: String(page.start) })}`, 'csw'),
    })),
    {
      name: 'single-record',
      cairn: get(`${ITEMS}/${encodeURIComponent(sampleId)}`, 'single'),
      peer: get(`/collections/metadata:main/items/${encodeURIComponent(sampleId)}`, 'single'),
    },
  ];
}

/** Cairn on OpenSearch against SFEOS on the same node (STAC API). */
function sfeosQueries(sampleId: string): PeerQuery[] {
  const intersects = {
    type: 'Polygon',
    coordinates: [
      [
        [-10, 40],
        [20, 40],
        [20, 60],
        [-10, 60],
        [-10, 40],
      ],
    ],
  };
  // SFEOS 8 takes cql2-json (and cql2-text) in POST /search: comparisons, LIKE, IN, BETWEEN,
  // s_intersects and friends, t_* on datetime; a property without a prefix is read under properties.
  const filter = {
    op: 'and',
    args: [
      { op: 's_intersects', args: [{ property: 'geometry' }, intersects] },
      { op: '=', args: [{ property: 'license' }, 'CC-BY-4.0'] },
    ],
  };
  return [
    {
      name: 'stac-text',
      cairn: get('/catalogue/search?q=flood&limit=10'),
      peer: get('/search?q=flood&limit=10'),
    },
    {
      name: 'stac-bbox',
      cairn: get(`/catalogue/search?bbox=${BBOX}&limit=10`),
      peer: get(`/search?bbox=${BBOX}&limit=10`),
      corpus: byBbox,
    },
    {
      name: 'stac-datetime',
      cairn: get(`/catalogue/search?datetime=${DATETIME}&limit=10`),
      peer: get(`/search?datetime=${DATETIME}&limit=10`),
      known:
        "the STAC Items Cairn writes give a record without a temporal extent its record date (cairn:time_fallback) and a half-open period its start as datetime, and SFEOS matches those; Cairn's /search matches the temporal extent itself, which is what the corpus holds",
      corpus: byDatetime,
    },
    {
      name: 'stac-bbox-datetime-text',
      cairn: get(`/catalogue/search?bbox=${BBOX}&datetime=${DATETIME}&q=flood&limit=10`),
      peer: get(`/search?bbox=${BBOX}&datetime=${DATETIME}&q=flood&limit=10`),
      known:
        "as stac-datetime: SFEOS matches the fallback datetime of the STAC Items Cairn writes, Cairn's /search the temporal extent",
    },
    {
      name: 'stac-sort-date',
      cairn: get('/catalogue/search?sortby=-properties.datetime&limit=10'),
      peer: get('/search?sortby=-properties.datetime&limit=10'),
    },
    {
      name: 'stac-sort-title',
      cairn: get('/catalogue/search?sortby=properties.title&limit=10'),
      peer: get('/search?sortby=properties.title&limit=10'),
    },
    {
      name: 'stac-post-intersects',
      cairn: post('/catalogue/search', { intersects, limit: 10 }),
      peer: post('/search', { intersects, limit: 10 }),
    },
    {
      name: 'stac-post-cql2-filter',
      cairn: post('/catalogue/search', { 'filter-lang': 'cql2-json', filter, limit: 10 }),
      peer: post('/search', { 'filter-lang': 'cql2-json', filter, limit: 10 }),
    },
    {
      name: 'stac-single-item',
      cairn: get(`/catalogue/search?ids=${encodeURIComponent(sampleId)}`),
      peer: get(`/search?ids=${encodeURIComponent(sampleId)}`),
    },
  ];
}

async function request(origin: string, side: Side): Promise<{ status: number; body: string }> {
  const response = await fetch(`${origin}${side.path}`, {
    method: side.method,
    ...(side.body !== undefined && {
      body: JSON.stringify(side.body),
      headers: { 'content-type': 'application/json' },
    }),
  });
  return { status: response.status, body: await response.text() };
}

/** Like {@link request}, but a network failure becomes status 0 with the cause as the body. */
async function requestOrFailure(
  origin: string,
  side: Side,
): Promise<{ status: number; body: string }> {
  try {
    return await request(origin, side);
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { status: 0, body: `request failed${cause}` };
  }
}

function asCase(name: string, side: Side): QueryCase {
  return {
    name,
    description: name,
    method: side.method,
    path: side.path,
    ...(side.body !== undefined && { body: side.body }),
    buildQuery: () => {
      throw new Error('not used by bench:peers');
    },
  };
}

/** The engine a pairing's Cairn reads, and the call to replay at it for each query. */
interface EngineAlone {
  origin: string;
  /** The engine's process (for its CPU time), when it can be found. */
  pid: number | undefined;
  calls: Map<string, EngineCall>;
  /**
   * The bench's reader in front of the engine (scripts/bench/pass-through.ts --read), timed on
   * the same calls: the least a front that reads its records costs.
   */
  reader?: ApiProcess;
  /**
   * The bench's splicer (scripts/bench/pass-through.ts --splice) on a copy of Cairn's index that
   * keeps each record's STAC Item as a string, and the queries whose spliced page was checked to
   * be Cairn's (only those are timed).
   */
  splicer?: { process: ApiProcess; checked: Set<string> };
}

/** What one pairing (Cairn against one peer) records. */
interface PairingResult {
  peer: string;
  cairnBackend: string;
  /** Why the pairing did not run, when it did not. */
  skipped?: string;
  workers: number[];
  load: Record<string, unknown>;
  loads: LoadRate[];
  counts: CountCheck[];
  repetitions: (Repetition & { loadAverage1m: number })[];
  table: string;
  /** The engine alone beside Cairn and the peer (SFEOS pairings), as markdown. */
  engineTable?: string;
  /** The reader beside Cairn and the peer (SFEOS pairings), as markdown. */
  readerTable?: string;
  /** The splicer beside Cairn and the peer (SFEOS pairings), as markdown. */
  splicerTable?: string;
  /** Per query: the engine calls Cairn sent for it, and the one replayed as the engine alone. */
  engineCalls?: Record<string, { calls: { method: string; path: string }[]; replayed?: string }>;
  notes: string[];
}

function emptyPairing(peer: string, cairnBackend: string, workers: number[]): PairingResult {
  return {
    peer,
    cairnBackend,
    workers,
    load: {},
    loads: [],
    counts: [],
    repetitions: [],
    table: '',
    notes: [],
  };
}

/** One timed run of one side; resident memory summed over the server's process tree. */
async function timeSide(
  origin: string,
  pid: number,
  probe: string,
  queryCase: QueryCase,
  concurrency: number,
  duration: number,
  cpuPid = 0,
): Promise<HttpCaseResult & { drainSeconds: number }> {
  const rss = sampleTreeRss(pid);
  // runHttpCase reads the CPU time of `cpuPid` (none for 0); its resident memory is replaced by
  // the tree sampler's (a peer's server is several processes).
  const outcome = await runHttpCase(origin, cpuPid, queryCase, concurrency, duration);
  const memory = rss.stop();
  // A server that takes requests faster than it answers them is still working through the
  // window's backlog when the load generator stops (a heavy query at concurrency 16 on 100,000
  // records): the next side's window must not run against it. Wait until a cheap request on the
  // same server is answered, and record how long that took.
  const drainStarted = performance.now();
  try {
    await (await fetch(`${origin}${probe}`, { signal: AbortSignal.timeout(300_000) })).text();
  } catch {
    // not answered within 5 minutes: recorded as such through drainSeconds
  }
  const drainSeconds = Math.round((performance.now() - drainStarted) / 10) / 100;
  return { ...outcome, rssMiB: memory, drainSeconds };
}

/**
 * Checks counts (Cairn against the peer's first server; against the corpus where they differ and
 * the bench can count it), then times each query interleaved: Cairn, then the peer at each worker
 * count, for each repetition at each concurrency.
 */
/** The id of the corpus's first record (some queries look it up). */
function firstId(records: readonly CoreRecord[]): string {
  const [first] = records;
  if (first === undefined) throw new Error('the corpus is empty');
  return first.id;
}

async function compare(
  options: Options,
  api: ApiProcess,
  peers: Peer[],
  queries: PeerQuery[],
  records: readonly CoreRecord[],
  result: PairingResult,
  engine?: EngineAlone,
): Promise<void> {
  const [peer] = peers;
  if (peer === undefined) throw new Error('compare: no peer');
  const peerName = peer.name;
  const timed: PeerQuery[] = [];
  const chosen = options.queries;
  for (const query of queries.filter((q) => !chosen || chosen.includes(q.name))) {
    const [a, b] = [
      await requestOrFailure(api.origin, query.cairn),
      await requestOrFailure(peer.origin, query.peer),
    ];
    const cairnCount = readMatchCount(query.cairn.count, a.status, a.body);
    const peerCount = readMatchCount(query.peer.count, b.status, b.body);
    const check = checkCounts(
      query.name,
      cairnCount,
      peerCount,
      query.known,
      cairnCount !== peerCount && query.corpus ? query.corpus(records) : undefined,
    );
    if (check.cairn === undefined)
      result.notes.push(`${query.name}: Cairn answered ${a.status}: ${a.body.slice(0, 200)}`);
    if (check.peer === undefined)
      result.notes.push(`${query.name}: ${peerName} answered ${b.status}: ${b.body.slice(0, 200)}`);
    result.counts.push(check);
    log(`count ${peerName} ${formatCountCheck(check)}`);
    // A query one side cannot answer (an error instead of a count) is shown, not timed.
    if (check.cairn !== undefined && check.peer !== undefined) timed.push(query);
    else result.notes.push(`${query.name}: not timed (a side answered with an error, above)`);
  }
  for (const query of timed) {
    for (const concurrency of options.concurrency) {
      for (let repetition = 1; repetition <= options.repetitions; repetition += 1) {
        const [loadAverage1m] = readLoadAverage();
        const cairn = await timeSide(
          api.origin,
          api.pid,
          '/healthz',
          asCase(query.name, query.cairn),
          concurrency,
          options.duration,
          api.pid,
        );
        result.repetitions.push({
          query: query.name,
          side: 'cairn',
          repetition,
          result: cairn,
          loadAverage1m,
        });
        const drained = (seconds: number): string =>
          seconds >= 1 ? ` (drained ${seconds} s)` : '';
        const line = [
          `Cairn ${cairn.requestsPerSecond} req/s p99 ${cairn.latencyMs.p99}${drained(cairn.drainSeconds)}`,
        ];
        for (const peer of peers) {
          const outcome = await timeSide(
            peer.origin,
            peer.child.pid ?? 0,
            peer.probe,
            asCase(query.name, query.peer),
            concurrency,
            options.duration,
          );
          result.repetitions.push({
            query: query.name,
            side: 'peer',
            workers: peer.workers,
            repetition,
            result: outcome,
            loadAverage1m,
          });
          line.push(
            `${peerName}×${peer.workers} ${outcome.requestsPerSecond} req/s p99 ${outcome.latencyMs.p99}${outcome.ok ? '' : ' ERRORS'}${drained(outcome.drainSeconds)}`,
          );
        }
        const replay = engine?.calls.get(query.name);
        if (engine && replay) {
          const outcome = await timeSide(
            engine.origin,
            engine.pid ?? 0,
            '/',
            engineCallCase(query.name, replay),
            concurrency,
            options.duration,
            engine.pid ?? 0,
          );
          result.repetitions.push({
            query: query.name,
            side: 'engine',
            repetition,
            result: outcome,
            loadAverage1m,
          });
          line.push(
            `engine alone ${outcome.requestsPerSecond} req/s p99 ${outcome.latencyMs.p99}${outcome.ok ? '' : ' ERRORS'}`,
          );
        }
        // The fronts in front of the engine, each on the same captured search: the reader, then
        // the splicer where its page was checked to be Cairn's.
        const fronts: ['reader' | 'splicer', ApiProcess | undefined][] = [
          ['reader', engine?.reader],
          [
            'splicer',
            engine?.splicer?.checked.has(query.name) ? engine.splicer.process : undefined,
          ],
        ];
        for (const [side, front] of fronts) {
          if (!front || !replay) continue;
          const outcome = await timeSide(
            front.origin,
            front.pid,
            '/readyz',
            engineCallCase(query.name, replay),
            concurrency,
            options.duration,
            front.pid,
          );
          result.repetitions.push({
            query: query.name,
            side,
            repetition,
            result: outcome,
            loadAverage1m,
          });
          line.push(
            `${side} ${outcome.requestsPerSecond} req/s p99 ${outcome.latencyMs.p99}${outcome.ok ? '' : ' ERRORS'}`,
          );
        }
        log(
          `${query.name} c=${concurrency} rep ${repetition} (load ${loadAverage1m}): ${line.join(', ')}`,
        );
      }
    }
  }
  result.table = renderRatioTable(peerName, ratioRows(result.repetitions));
  if (engine)
    result.engineTable = renderEngineCeilingTable(
      peerName,
      engineCeilingRows(result.repetitions, availableParallelism()),
    );
  if (engine?.reader)
    result.readerTable = renderReaderFloorTable(
      peerName,
      readerFloorRows(result.repetitions, availableParallelism(), SFEOS_FACTOR),
      SFEOS_FACTOR,
    );
  if (engine?.splicer)
    result.splicerTable = renderReaderFloorTable(
      peerName,
      readerFloorRows(result.repetitions, availableParallelism(), SFEOS_FACTOR, 'splicer'),
      SFEOS_FACTOR,
      'splicer',
    );
}

/** Bytes of ISO 19139 queued for pycsw's loader before the writer waits for the pipe. */
const PYCSW_QUEUE_BYTES = 32 * 1024 * 1024;

/** What the pycsw side needs from its load to its timing. */
interface PycswSide {
  dir: string;
  ports: number[];
  sqlitePath: string;
  result: PairingResult;
}

/**
 * Loads pycsw: Cairn's ISO 19139 writer streams each record to `pycsw_peer.py load-stream`,
 * which parses it with pycsw's own parser and commits through its repository layer (500 per
 * commit) while the next records are written.
 */
async function loadPycsw(
  clock: PhaseClock,
  venv: string,
  side: PycswSide,
  records: readonly CoreRecord[],
): Promise<void> {
  const python = join(venv, 'bin', 'python');
  const script = PYCSW_PEER_SCRIPT;
  const loaded = await clock.time(
    'pycsw: write ISO 19139 and load it (its parser and repository layer)',
    async () => {
      await runCommand(python, [script, 'setup', side.dir, `http://127.0.0.1:${side.ports[0]}/`]);
      log(`pycsw: loading ${records.length} ISO 19139 records`);
      const started = performance.now();
      const output = await runCommand(
        python,
        [script, 'load-stream', side.dir, '500'],
        async (stdin) => {
          for (const [index, record] of records.entries()) {
            if (stdin.destroyed) return; // the loader has gone: its exit says why
            stdin.write(frameDocument(writeIso19139(record)));
            // Let the other loads run between records; wait for the pipe only when far ahead.
            if (index % 50 === 49) await new Promise((done) => setImmediate(done));
            if (stdin.writableLength > PYCSW_QUEUE_BYTES) await once(stdin, 'drain');
          }
        },
      );
      const summary = JSON.parse(output) as { loaded: number; seconds: number };
      return { ...summary, secondsWithWriting: round2((performance.now() - started) / 1000) };
    },
    LOADS,
  );
  side.result.load.pycsw = loaded;
  side.result.loads.push({
    side: 'pycsw',
    records: loaded.loaded,
    seconds: loaded.seconds,
    how: 'pycsw parser + repository layer, 500 records per commit, ISO 19139 streamed in as Cairn writes it',
  });
  log(`pycsw load: ${JSON.stringify(loaded)}`);
}

/** Loads Cairn on SQLite through its ingest pipeline (the file the API then serves). */
async function loadCairnSqlite(
  clock: PhaseClock,
  options: Options,
  side: PycswSide,
): Promise<void> {
  await clock.time(
    'Cairn (SQLite): load',
    async () => {
      const backend = await createBackend(
        loadConfig({ SQLITE_PATH: side.sqlitePath, LOG_LEVEL: 'warn' }),
      );
      try {
        const outcome = await loadOrReuseCorpus({
          backend,
          markerPath: `${side.sqlitePath}.corpus.json`,
          location: side.sqlitePath,
          seed: options.seed,
          size: options.size,
          batchSize: 500,
          maxBytes: 64 * 1024 * 1024,
          force: true,
        });
        side.result.load.cairn = outcome.marker;
        side.result.loads.push({
          side: 'Cairn (SQLite)',
          records: outcome.written,
          seconds: outcome.marker.loadSeconds,
          how: "Cairn's ingest pipeline, 500 records per batch",
        });
        log(`Cairn (SQLite) load: ${outcome.marker.recordsPerSecond} records/s`);
      } finally {
        await backend.close();
      }
    },
    LOADS,
  );
}

async function timePycsw(
  options: Options,
  clock: PhaseClock,
  venv: string,
  side: PycswSide,
  records: readonly CoreRecord[],
): Promise<void> {
  const peers: Peer[] = [];
  let api: ApiProcess | undefined;
  try {
    await clock.time('pycsw: start its servers and Cairn (SQLite)', async () => {
      for (const [index, workers] of options.workers.entries()) {
        peers.push(await startPycsw(venv, side.dir, side.ports[index] ?? 0, workers));
      }
      api = await startApi(REPO_ROOT, { SQLITE_PATH: side.sqlitePath });
    });
    side.result.notes.push(
      `pycsw runs under gunicorn with ${options.workers.join(' and ')} gthread worker(s) of 1 thread (one server per worker count, side by side); resident memory is summed over the gunicorn master and its workers, Cairn's over its API process`,
    );
    const started = api as unknown as ApiProcess;
    await clock.time('pycsw: count check and timed cases', () =>
      compare(
        options,
        started,
        peers,
        pycswQueries(options.size, firstId(records)),
        records,
        side.result,
      ),
    );
  } finally {
    if (api) await stopApi(api);
    for (const peer of peers) await stopChild(peer.child);
  }
}

/**
 * Whether the engine can map `geo_shape` (SFEOS maps every item geometry so): undefined when it
 * can, else the reason. Creates and deletes one probe index under the bench's own prefix.
 */
async function missingGeoShape(engine: string): Promise<string | undefined> {
  const probe = `${engine}/${INDEX_PREFIX}geo-shape-probe`;
  await fetch(probe, { method: 'DELETE' });
  const response = await fetch(probe, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mappings: { properties: { geometry: { type: 'geo_shape' } } } }),
  });
  const text = await response.text();
  if (response.ok) {
    await fetch(probe, { method: 'DELETE' });
    return undefined;
  }
  let reason = text.slice(0, 200);
  try {
    reason = (JSON.parse(text) as { error?: { reason?: string } }).error?.reason ?? reason;
  } catch {
    // not JSON: keep the text
  }
  return `the engine at ${engine} has no geo_shape field type (creating a geo_shape mapping answered ${response.status}: ${reason})`;
}

/** Whether a Python module is importable in the venv. */
function hasModule(venv: string, module: string): boolean {
  try {
    execFileSync(join(venv, 'bin', 'python'), ['-c', `import ${module}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What one SFEOS flavour needs from its load to its timing. */
interface SfeosSide {
  flavour: SfeosFlavour;
  engine: string;
  alias: string;
  environment: Record<string, string>;
  ports: number[];
  peers: Peer[];
  result: PairingResult;
}

/** Records per Cairn engine bulk request, and requests in flight, when loading Cairn's engine. */
const CAIRN_ENGINE_BATCH = 1000;
const CAIRN_ENGINE_IN_FLIGHT = 3;

/**
 * Loads Cairn on an engine: the generated documents through Cairn's parser and the engine
 * backend's bulk writes, as the ingest pipeline does, but with a few batches in flight (as the
 * worker runs jobs side by side) so that parsing one batch overlaps the engine indexing the last.
 */
async function loadCairnEngine(
  clock: PhaseClock,
  options: Options,
  side: SfeosSide,
): Promise<void> {
  await clock.time(
    `Cairn (${side.flavour.backend}): load`,
    async () => {
      const config = loadConfig({ ...side.environment, LOG_LEVEL: 'warn' });
      const backend = await createBackend(config);
      try {
        const started = performance.now();
        const starts: number[] = [];
        for (let start = 0; start < options.size; start += CAIRN_ENGINE_BATCH) starts.push(start);
        const outcomes = await runPool(starts, CAIRN_ENGINE_IN_FLIGHT, async (start) => {
          const size = Math.min(CAIRN_ENGINE_BATCH, options.size - start);
          const [document] = [
            ...generateCorpusDocuments(size, options.seed, CAIRN_ENGINE_BATCH, start),
          ];
          if (document === undefined) throw new Error(`no corpus document at ${start}`);
          const parsed = parseDocuments(document.content, {
            name: document.name,
            maxBytes: config.limits.bodyBytes * 20,
          });
          const written = await backend.upsert(parsed.records);
          return {
            written: written.written,
            refused: parsed.failures.length + written.failures.length,
            firstRefusal: written.failures[0]?.reason ?? parsed.failures[0]?.reason,
          };
        });
        if ('refresh' in backend && typeof backend.refresh === 'function')
          await (backend as { refresh(): Promise<void> }).refresh();
        const seconds = round2((performance.now() - started) / 1000);
        const written = outcomes.reduce((sum, outcome) => sum + outcome.written, 0);
        const refused = outcomes.reduce((sum, outcome) => sum + outcome.refused, 0);
        side.result.load.cairn = {
          seed: options.seed,
          size: options.size,
          backend: side.flavour.backend,
          location: `${side.engine} alias ${side.alias}`,
          written,
          refused,
          firstRefusal: outcomes.find((outcome) => outcome.firstRefusal)?.firstRefusal,
          loadSeconds: seconds,
          recordsPerSecond: Math.round(written / seconds),
        };
        side.result.loads.push({
          side: `Cairn (${side.flavour.backend})`,
          records: written,
          seconds,
          how: `Cairn's parser and engine backend bulk writes, ${CAIRN_ENGINE_BATCH} records per request, ${CAIRN_ENGINE_IN_FLIGHT} in flight`,
        });
        log(`Cairn (${side.flavour.backend}) load: ${JSON.stringify(side.result.load.cairn)}`);
      } finally {
        await backend.close();
      }
    },
    LOADS,
  );
}

/** Items per SFEOS `bulk_items` request, and requests in flight over its servers. */
const SFEOS_BATCH = 1000;
const SFEOS_IN_FLIGHT = 4;

/**
 * Sends one `bulk_items` request. A connection that fails before an answer (the server closed
 * it, or restarted a worker) is retried up to twice with `upsert`, so items the failed attempt
 * may have written are not refused as duplicates; the cause is logged.
 */
async function sendBulkItems(
  url: string,
  items: Record<string, unknown>,
  peer: string,
): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items, method: attempt === 1 ? 'insert' : 'upsert' }),
      });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      log(`${peer}: bulk_items attempt ${attempt} failed: ${String(error)} (${String(cause)})`);
      if (attempt >= 3) throw error;
    }
  }
}

/**
 * Starts SFEOS's servers (one per worker count) and loads the corpus through its Transactions
 * API: `bulk_items` of STAC Items written by Cairn, spread over the servers, with the items
 * index's refresh off during the load (put back to the engine's default and refreshed after).
 * SFEOS checks that the collection exists once per item, so its load is bound by round trips;
 * several requests in flight keep its workers and the engine busy.
 */
async function loadSfeos(
  clock: PhaseClock,
  venv: string,
  side: SfeosSide,
  records: readonly CoreRecord[],
  workers: number[],
): Promise<void> {
  const { flavour, engine } = side;
  await clock.time(
    `${flavour.peer}: start its servers and load (bulk_items)`,
    async () => {
      // Started one after the other: each SFEOS creates its indexes at start-up, and two doing it
      // at once race (resource_already_exists_exception kills the second).
      for (const [index, count] of workers.entries()) {
        side.peers.push(
          await startSfeos(venv, flavour, engine, INDEX_PREFIX, side.ports[index] ?? 0, count),
        );
      }
      const [firstPeer] = side.peers;
      if (firstPeer === undefined) throw new Error(`${side.flavour.peer}: no server started`);
      const origin = firstPeer.origin;
      const created = await fetch(`${origin}/collections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'Collection',
          stac_version: '1.0.0',
          id: SFEOS_COLLECTION,
          description: 'bench:peers corpus',
          license: 'proprietary',
          links: [],
          extent: {
            spatial: { bbox: [[-180, -90, 180, 90]] },
            temporal: { interval: [[null, null]] },
          },
        }),
      });
      if (!created.ok)
        throw new Error(
          `${flavour.peer}: creating the collection answered ${created.status}: ${await created.text()}`,
        );
      const itemIndexes = `${engine}/${INDEX_PREFIX}items_*`;
      const refresh = async (interval: string | null): Promise<void> => {
        const response = await fetch(`${itemIndexes}/_settings`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ index: { refresh_interval: interval } }),
        });
        if (!response.ok)
          log(`${flavour.peer}: refresh_interval ${interval} answered ${response.status}`);
      };
      await refresh('-1');
      const started = performance.now();
      const starts: number[] = [];
      for (let start = 0; start < records.length; start += SFEOS_BATCH) starts.push(start);
      const outcomes = await runPool(starts, SFEOS_IN_FLIGHT, async (start, index) => {
        const items: Record<string, unknown> = {};
        for (const record of records.slice(start, start + SFEOS_BATCH)) {
          const item = writeStacItem(record, {
            self: `${origin}/collections/${SFEOS_COLLECTION}/items/${record.id}`,
            root: `${origin}/`,
          });
          items[record.id] = { ...item, collection: SFEOS_COLLECTION };
        }
        const target = side.peers[index % side.peers.length]!.origin; // non-empty, as above
        const response = await sendBulkItems(
          `${target}/collections/${SFEOS_COLLECTION}/bulk_items`,
          items,
          flavour.peer,
        );
        return readBulkItemsAnswer(
          response.status,
          await response.text(),
          Object.keys(items).length,
        );
      });
      await refresh(null);
      await fetch(`${itemIndexes}/_refresh`, { method: 'POST' });
      const seconds = round2((performance.now() - started) / 1000);
      const counted = await fetch(`${itemIndexes}/_count`);
      const indexed = counted.ok ? ((await counted.json()) as { count?: number }).count : undefined;
      const errors = outcomes.flatMap((outcome) => outcome.errors);
      const success = outcomes.reduce((sum, outcome) => sum + outcome.success, 0);
      side.result.load.sfeos = {
        sent: records.length,
        success,
        skipped: outcomes.reduce((sum, outcome) => sum + outcome.skipped, 0),
        refused: errors.length,
        errors: errors.slice(0, 20),
        indexed,
        seconds,
        recordsPerSecond: Math.round(success / seconds),
      };
      if (errors.length > 0)
        side.result.notes.push(
          `${flavour.peer} refused ${errors.length} of ${records.length} items at load: ${errors.slice(0, 5).join('; ')}`,
        );
      side.result.loads.push({
        side: flavour.peer,
        records: success,
        seconds,
        how: `Transactions API bulk_items, ${SFEOS_BATCH} items per request, ${SFEOS_IN_FLIGHT} in flight over its ${side.peers.length} servers, items index refresh off (STAC Items written by Cairn)`,
      });
      log(`${flavour.peer} load: ${JSON.stringify(side.result.load.sfeos)}`);
    },
    LOADS,
  );
}

/**
 * Checks whether the engine of a flavour of SFEOS can take it; the reason when it cannot (whether
 * the module is installed is checked once the venv is there).
 */
async function engineSkipReason(flavour: SfeosFlavour): Promise<string | undefined> {
  const engine = process.env[flavour.variable];
  if (!engine) return `${flavour.variable} is not set (source ~/.cache/cairn/run/env.sh)`;
  const engineUrl = new URL(engine);
  if (engineUrl.hostname !== '127.0.0.1' && engineUrl.hostname !== 'localhost')
    throw new Error(`${flavour.peer}: ${flavour.variable} must be on loopback`);
  const missing = await missingGeoShape(engine);
  if (missing)
    return `${missing}; SFEOS maps item geometries as geo_shape, so ${flavour.module.replace('.', '-').replace('_', '-')} cannot run on it`;
  return undefined;
}

async function timeSfeos(
  options: Options,
  clock: PhaseClock,
  side: SfeosSide,
  records: readonly CoreRecord[],
): Promise<void> {
  const { flavour } = side;
  let api: ApiProcess | undefined;
  let reader: ApiProcess | undefined;
  let splicer: ApiProcess | undefined;
  try {
    await clock.time(`${flavour.peer}: start Cairn (${flavour.backend})`, async () => {
      api = await startApi(REPO_ROOT, side.environment);
    });
    side.result.notes.push(
      `${flavour.peer} runs under uvicorn (uvloop, httptools) with ${options.workers.join(' and ')} worker(s) (one server per worker count, side by side) against the same ${flavour.backend} node as Cairn; resident memory is summed over uvicorn and its workers (the engine's is shared and not counted on either side)`,
    );
    const started = api as unknown as ApiProcess;
    const queries = sfeosQueries(firstId(records));
    let engine: EngineAlone | undefined;
    if (options.engineAlone) {
      const captured = await clock.time(`${flavour.peer}: capture Cairn's engine calls`, () =>
        captureEngineCalls(
          REPO_ROOT,
          side.environment,
          flavour.variable,
          queries
            .filter((query) => !options.queries || options.queries.includes(query.name))
            .map((query) => ({
              name: query.name,
              ask: async (origin: string) => (await requestOrFailure(origin, query.cairn)).status,
            })),
          (name, status) => log(`${name}: not captured, Cairn answered ${status}`),
        ),
      );
      const calls = new Map<string, EngineCall>();
      side.result.engineCalls = {};
      for (const [name, list] of captured) {
        const replayed = replayCall(list);
        if (replayed) calls.set(name, replayed);
        side.result.engineCalls[name] = {
          calls: list.map((call) => ({ method: call.method, path: call.path })),
          ...(replayed && { replayed: `${replayed.method} ${replayed.path} ${replayed.body}` }),
        };
      }
      const port = Number(new URL(side.engine).port);
      const origin = side.engine.replace(/\/$/, '');
      reader = await clock.time(`${flavour.peer}: start the reader`, () =>
        startPassThrough(REPO_ROOT, origin, { mode: 'read' }),
      );
      const copy = `${side.alias}-presented`;
      await clock.time(`${flavour.peer}: copy Cairn's index with its items kept as strings`, () =>
        buildCopy(origin, side.alias, copy),
      );
      const splicing = await startPassThrough(REPO_ROOT, origin, {
        mode: 'splice',
        spliceIndex: copy,
      });
      splicer = splicing;
      // Only a query whose spliced page is Cairn's answer is timed through the splicer.
      const checked = new Set<string>();
      for (const query of queries) {
        const call = calls.get(query.name);
        if (!call) continue;
        const cairn = await requestOrFailure(started.origin, query.cairn);
        const spliced = await replayText(splicing.origin, call).catch(
          (error: unknown) => `the splicer did not answer: ${String(error)}`,
        );
        let difference: string | undefined;
        try {
          difference = spliceDifference(cairn.body, started.origin, spliced, splicing.origin);
        } catch {
          difference = `an answer that is not a JSON page: ${spliced.slice(0, 200)}`;
        }
        if (difference === undefined) checked.add(query.name);
        else
          side.result.notes.push(
            `splicer: ${query.name} not timed, its page is not Cairn's: ${difference}`,
          );
      }
      engine = {
        origin,
        pid: listeningPid(port),
        calls,
        reader,
        splicer: { process: splicing, checked },
      };
      side.result.notes.push(
        `splicer: the same search through the bench's splicer (scripts/bench/pass-through.ts --splice, pid ${splicing.pid}) on ${copy}, a copy of Cairn's index whose documents also keep each record's STAC Item, written by Cairn's presenter, as a stored string; it asks the engine for those strings alone, puts the request's base URL in and joins them into a page. Timed after the reader in each repetition, only for the queries whose spliced page was checked to be Cairn's answer (${[...checked].join(', ')}); its CPU per request is the splicer process's alone, and the engine CPU and front budget in its table are the engine alone's on Cairn's own request (the engine does less for the splicer's)`,
      );
      side.result.notes.push(
        `engine alone: for each query, the last search Cairn sends the engine for it (captured through a recording proxy from a second Cairn API, the query's second answer), sent straight to ${side.engine} with the same load generator and concurrency after the peer in each repetition; engine CPU per request is its process's (pid ${engine.pid ?? 'not found'}); the calls of each query are in engineCalls`,
      );
      side.result.notes.push(
        `reader: the same search through the bench's reader (scripts/bench/pass-through.ts --read, pid ${reader.pid}: it parses the engine's answer and writes its hits' sources as a page, nothing else), after the engine alone in each repetition; its CPU per request is the reader process's alone. The front CPU budget is what a front could spend per request and leave the cores room for ${SFEOS_FACTOR}× SFEOS's req/s beside the engine's CPU per request (generous: the load generator's CPU is left out)`,
      );
    }
    await clock.time(`${flavour.peer}: count check and timed cases`, () =>
      compare(options, started, side.peers, queries, records, side.result, engine),
    );
  } finally {
    if (api) await stopApi(api);
    if (reader) await stopApi(reader);
    if (splicer) await stopApi(splicer);
  }
}

/** The machine's CPU counters now, or undefined off Linux. */
function readCpuTicks(): CpuTicks | undefined {
  try {
    return parseCpuTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * After the loads: makes every loaded engine index searchable, then waits until the machine has
 * been quiet for a few seconds in a row (the engine's merges, the loaders' exits), at most
 * {@link SETTLE_RULE}.maxSeconds. Returns what it saw, for the result file.
 */
async function settle(engines: string[], mergeSegments: boolean): Promise<Record<string, unknown>> {
  for (const engine of engines) {
    if (mergeSegments) {
      const response = await fetch(`${engine}/${INDEX_PREFIX}*/_forcemerge?max_num_segments=1`, {
        method: 'POST',
      });
      if (!response.ok) {
        throw new Error(`merging ${engine}: ${response.status} ${await response.text()}`);
      }
    }
    await fetch(`${engine}/${INDEX_PREFIX}*/_refresh`, { method: 'POST' });
  }
  const shares: number[] = [];
  let last = readCpuTicks();
  if (!last) return { settled: false, reason: 'no /proc/stat', mergeSegments };
  for (;;) {
    await sleep(1000);
    const now = readCpuTicks();
    if (!now) break;
    shares.push(Math.round(busyShare(last, now) * 100) / 100);
    last = now;
    const verdict = settleVerdict(shares);
    if (verdict.done) {
      log(
        verdict.settled
          ? `settled after ${shares.length} s`
          : `not settled after ${shares.length} s (busy ${shares.slice(-5).join(', ')}): timing anyway`,
      );
      return { settled: verdict.settled, busyShares: shares, rule: SETTLE_RULE, mergeSegments };
    }
  }
  return { settled: false, busyShares: shares, rule: SETTLE_RULE, mergeSegments };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The phase inside which every side is loaded at once. */
const LOADS = 'install the peers, generate the corpus and load every side (at once)';

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const clock = new PhaseClock();
  const loadAverageAtStart = loadavg().map((value) => Math.round(value * 100) / 100);
  log(`load average at start: ${loadAverageAtStart.join(', ')}`);
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-peers-'));
  const pairings: PairingResult[] = [];
  const sfeosSides: SfeosSide[] = [];
  let pycswSide: PycswSide | undefined;
  let records: CoreRecord[] = [];
  let settling: Record<string, unknown> = {};
  try {
    // The peers' venv is built (or found) while the corpus is generated and Cairn loads; a peer's
    // load starts once the venv is there. Every load runs at once: none depends on another, and
    // no timing runs until all are done.
    const installing = clock.time(
      'install the peers (scripts/python-env.sh peers)',
      async () => installPeers(),
      LOADS,
    );
    installing.catch(() => undefined); // awaited below; not unhandled while the corpus is built
    records = await clock.time(LOADS, async () => {
      log(`corpus: ${options.size} generated records, seed ${options.seed}`);
      const generated = await clock.time(
        'generate the corpus',
        () => corpusRecords(options.size, options.seed),
        LOADS,
      );
      let pycsw: PycswSide | undefined;
      if (options.peers.includes('pycsw')) {
        const result = emptyPairing('pycsw', 'sqlite', options.workers);
        pairings.push(result);
        pycsw = {
          dir: join(work, 'pycsw'),
          ports: await Promise.all(options.workers.map(() => findFreePort())),
          sqlitePath: join(work, 'cairn.sqlite'),
          result,
        };
        pycswSide = pycsw;
      }
      for (const name of ['sfeos', 'sfeos-elasticsearch'] as const) {
        if (!options.peers.includes(name)) continue;
        const flavour = SFEOS_FLAVOURS[name];
        const result = emptyPairing(name, flavour.backend, options.workers);
        pairings.push(result);
        const skipped = await engineSkipReason(flavour);
        if (skipped) {
          result.skipped = skipped;
          log(`${name} SKIPPED: ${skipped}`);
          continue;
        }
        const engine = process.env[flavour.variable] as string;
        const alias = `${INDEX_PREFIX}cairn`;
        await deletePeerIndexesAndTemplates(engine, INDEX_PREFIX);
        sfeosSides.push({
          flavour,
          engine,
          alias,
          environment: { [flavour.variable]: engine, SEARCH_INDEX_ALIAS: alias },
          ports: await Promise.all(options.workers.map(() => findFreePort())),
          peers: [],
          result,
        });
      }
      const loads: Promise<void>[] = [];
      if (pycsw) {
        const side = pycsw;
        loads.push(loadCairnSqlite(clock, options, side));
        loads.push(installing.then((ready) => loadPycsw(clock, ready, side, generated)));
      }
      for (const side of sfeosSides) {
        loads.push(loadCairnEngine(clock, options, side));
        loads.push(
          installing.then(async (ready) => {
            if (!hasModule(ready, side.flavour.module)) {
              side.result.skipped = `${side.flavour.module} is not installed in the peers' venv (scripts/bench/peers/requirements.txt)`;
              log(`${side.flavour.peer} SKIPPED: ${side.result.skipped}`);
              return;
            }
            await loadSfeos(clock, ready, side, generated, options.workers);
          }),
        );
      }
      const outcomes = await Promise.allSettled([installing, ...loads]);
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      return generated;
    });
    const venv = await installing;
    settling = await clock.time(
      'settle: refresh the engine indexes, wait for a quiet machine',
      () => settle([...new Set(sfeosSides.map((side) => side.engine))], options.mergeSegments),
    );

    if (pycswSide) await timePycsw(options, clock, venv, pycswSide, records);
    for (const side of sfeosSides)
      if (!side.result.skipped) await timeSfeos(options, clock, side, records);
  } finally {
    for (const side of sfeosSides) {
      for (const peer of side.peers) await stopChild(peer.child);
      const deleted = await deletePeerIndexesAndTemplates(side.engine, INDEX_PREFIX);
      log(`deleted ${deleted.length} ${side.flavour.backend} indexes named ${INDEX_PREFIX}*`);
    }
    rmSync(work, { recursive: true, force: true });
  }
  const loadAverageAtEnd = loadavg().map((value) => Math.round(value * 100) / 100);
  const elapsedSeconds = round2((Date.now() - started.getTime()) / 1000);
  const output = {
    benchmark: 'cairn-bench-peers',
    date: started.toISOString(),
    command: `npm run bench:peers -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: await readSystemInfo(REPO_ROOT, undefined),
    loadAverage: { atStart: loadAverageAtStart, atEnd: loadAverageAtEnd },
    parameters: options,
    elapsedSeconds,
    phases: clock.phases,
    settle: settling,
    notes: [
      'every side is loaded at once (phase "load every side"), so each load rate was taken while the other loads shared the machine; timing starts only after all loads and the settle phase',
    ],
    pairings,
  };
  const path = join(
    REPO_ROOT,
    'bench',
    'results',
    `peers-${options.size}-${started.toISOString().replace(/[:.]/g, '-')}.json`,
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(output, null, 2)}\n`);
  for (const pairing of pairings) {
    console.log(`\n## Cairn (${pairing.cairnBackend}) vs ${pairing.peer}\n`);
    if (pairing.skipped) {
      console.log(`SKIPPED: ${pairing.skipped}`);
      continue;
    }
    console.log(`Load rates (all sides loaded at once):\n\n${renderLoadTable(pairing.loads)}\n`);
    console.log('Counts before timing:');
    for (const check of pairing.counts) console.log(`- ${formatCountCheck(check)}`);
    console.log(`\n${pairing.table}\n`);
    if (pairing.engineTable)
      console.log(`The engine alone beside them:\n\n${pairing.engineTable}\n`);
    if (pairing.readerTable) console.log(`The reader beside them:\n\n${pairing.readerTable}\n`);
    if (pairing.splicerTable) console.log(`The splicer beside them:\n\n${pairing.splicerTable}\n`);
    for (const note of pairing.notes) console.log(`- ${note}`);
  }
  console.log(`\n## Elapsed time per phase\n\n${renderPhaseTable(clock.phases)}\n`);
  console.log(`Wall clock: ${elapsedSeconds} s`);
  console.log(
    `Load average (1, 5, 15 min): ${loadAverageAtStart.join(', ')} at start, ${loadAverageAtEnd.join(', ')} at end`,
  );
  log(`wrote ${path}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
