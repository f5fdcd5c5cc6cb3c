/**
 * `npm run bench:peers` (issue 29, first slice): Cairn side by side with its peers on this
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
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../shared/config/index.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { writeIso19139 } from '../../../shared/records/writers/xml/iso19139.js';
import { writeStacItem } from '../../../shared/records/writers/stac-item.js';
import { createBackend } from '../../../shared/search/create-backend.js';
import { findFreePort, startApi, stopApi, type ApiProcess } from '../api-process.js';
import { loadOrReuseCorpus } from '../bench-corpus.js';
import { runHttpCase, type HttpCaseResult } from '../http-load.js';
import type { QueryCase } from '../query-mix.js';
import { readSystemInfo } from '../system-info.js';
import { generateRecord } from '../../corpus/generator.js';
import {
  checkCounts,
  deepPages,
  formatCountCheck,
  PhaseClock,
  ratioRows,
  readMatchCount,
  renderLoadTable,
  renderPhaseTable,
  renderRatioTable,
  type CountCheck,
  type CountStyle,
  type LoadRate,
  type Repetition,
} from './peer-report.js';
import { countBbox, countDatetime } from './corpus-truth.js';
import { sampleTreeRss } from './process-tree.js';
import { cswGetRecords } from '../csw-get-records.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const INDEX_PREFIX = 'peersbench-';
const SFEOS_COLLECTION = 'peersbench';
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
    records.push(parsed.records[0]);
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
const DATETIME = '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z';
const [FROM, TO] = DATETIME.split('/');
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

/** A peer server child process: one worker count of one peer. */
interface Peer {
  name: string;
  workers: number;
  origin: string;
  /** A cheap request on the server, answered once its backlog is done. */
  probe: string;
  child: ChildProcess;
  stderr: () => string;
}

function spawnPeer(
  name: string,
  workers: number,
  origin: string,
  probe: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Peer {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return { name, workers, origin, probe, child, stderr: () => stderr };
}

async function waitFor(peer: Peer, url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (peer.child.exitCode !== null) throw new Error(`${peer.name} exited: ${peer.stderr()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(300);
  }
  throw new Error(`${peer.name} not ready within ${timeoutMs} ms: ${peer.stderr()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
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
  name: string,
  side: Side,
  concurrency: number,
  duration: number,
): Promise<HttpCaseResult & { drainSeconds: number }> {
  const rss = sampleTreeRss(pid);
  // pid 0: runHttpCase's own sampler (one process) reads nothing; the tree sampler replaces it.
  const outcome = await runHttpCase(origin, 0, asCase(name, side), concurrency, duration);
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
async function compare(
  options: Options,
  api: ApiProcess,
  peers: Peer[],
  queries: PeerQuery[],
  records: readonly CoreRecord[],
  result: PairingResult,
): Promise<void> {
  const peerName = peers[0].name;
  const timed: PeerQuery[] = [];
  const chosen = options.queries;
  for (const query of queries.filter((q) => !chosen || chosen.includes(q.name))) {
    const [a, b] = [
      await requestOrFailure(api.origin, query.cairn),
      await requestOrFailure(peers[0].origin, query.peer),
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
        const loadAverage1m = Math.round(loadavg()[0] * 100) / 100;
        const cairn = await timeSide(
          api.origin,
          api.pid,
          '/healthz',
          query.name,
          query.cairn,
          concurrency,
          options.duration,
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
            query.name,
            query.peer,
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
        log(
          `${query.name} c=${concurrency} rep ${repetition} (load ${loadAverage1m}): ${line.join(', ')}`,
        );
      }
    }
  }
  result.table = renderRatioTable(peerName, ratioRows(result.repetitions));
}

async function runPycsw(
  options: Options,
  clock: PhaseClock,
  venv: string,
  work: string,
  records: CoreRecord[],
  sqlitePath: string,
  result: PairingResult,
): Promise<void> {
  const pycswDir = join(work, 'pycsw');
  const xmlDir = join(work, 'iso19139');
  mkdirSync(xmlDir, { recursive: true });
  await clock.time('pycsw: write the corpus as ISO 19139 files', () => {
    for (const record of records) {
      writeFileSync(
        join(xmlDir, `${record.id.replace(/[^\w.-]/g, '_')}.xml`),
        writeIso19139(record),
      );
    }
  });
  const ports = await Promise.all(options.workers.map(() => findFreePort()));
  const python = join(venv, 'bin', 'python');
  const script = join(REPO_ROOT, 'scripts', 'bench', 'peers', 'pycsw_peer.py');
  const loaded = await clock.time('pycsw: load (its parser and repository layer)', () => {
    execFileSync(python, [script, 'setup', pycswDir, `http://127.0.0.1:${ports[0]}/`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    log(`pycsw: loading ${records.length} ISO 19139 records`);
    return JSON.parse(
      execFileSync(python, [script, 'load', pycswDir, xmlDir, '500'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ) as { loaded: number; seconds: number };
  });
  result.load.pycsw = loaded;
  result.loads.push({
    side: 'pycsw',
    records: loaded.loaded,
    seconds: loaded.seconds,
    how: 'pycsw parser + repository layer, 500 records per commit',
  });
  log(`pycsw load: ${JSON.stringify(loaded)}`);
  rmSync(xmlDir, { recursive: true, force: true });
  const peers: Peer[] = [];
  const spawnPycsw = options.workers.map(
    (workers, index) => () =>
      spawnPeer(
        'pycsw',
        workers,
        `http://127.0.0.1:${ports[index]}`,
        '/conformance',
        join(venv, 'bin', 'gunicorn'),
        // gthread with one thread: one request at a time per worker, like the sync worker, but
        // with keep-alive — the sync worker closes every connection, which autocannon times wrongly
        // (a p50 of hundreds of ms at 1 connection while a sequential client sees 15 ms).
        [
          '-w',
          String(workers),
          '-k',
          'gthread',
          '--threads',
          '1',
          '--keep-alive',
          '30',
          '-b',
          `127.0.0.1:${ports[index]}`,
          '--log-level',
          'warning',
          'pycsw.wsgi_flask:APP',
        ],
        { ...process.env, PYCSW_CONFIG: join(pycswDir, 'pycsw.yml') },
        pycswDir,
      ),
  );
  let api: ApiProcess | undefined;
  try {
    await clock.time('pycsw: start its servers and Cairn (SQLite)', async () => {
      for (const spawnOne of spawnPycsw) {
        const peer = spawnOne();
        peers.push(peer);
        await waitFor(peer, `${peer.origin}/conformance`);
      }
      api = await startApi(REPO_ROOT, { SQLITE_PATH: sqlitePath });
    });
    result.notes.push(
      `pycsw runs under gunicorn with ${options.workers.join(' and ')} gthread worker(s) of 1 thread (one server per worker count, side by side); resident memory is summed over the gunicorn master and its workers, Cairn's over its API process`,
    );
    const started = api as unknown as ApiProcess;
    await clock.time('pycsw: count check and timed cases', () =>
      compare(options, started, peers, pycswQueries(options.size, records[0].id), records, result),
    );
  } finally {
    if (api) await stopApi(api);
    for (const peer of peers) await stopChild(peer.child);
  }
}

async function deletePeerIndexes(engine: string): Promise<string[]> {
  const response = await fetch(`${engine}/_cat/indices/${INDEX_PREFIX}*?format=json&h=index`);
  const indexes = response.ok
    ? ((await response.json()) as { index: string }[]).map((row) => row.index)
    : [];
  for (const index of indexes) {
    if (!index.startsWith(INDEX_PREFIX)) continue;
    await fetch(`${engine}/${encodeURIComponent(index)}`, { method: 'DELETE' });
  }
  return indexes;
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

interface SfeosFlavour {
  /** The pairing's name: sfeos (stac-fastapi-opensearch) or sfeos-elasticsearch. */
  peer: string;
  backend: 'opensearch' | 'elasticsearch';
  variable: 'OPENSEARCH_URL' | 'ELASTICSEARCH_URL';
  module: string;
}

const SFEOS_FLAVOURS: Record<string, SfeosFlavour> = {
  sfeos: {
    peer: 'sfeos',
    backend: 'opensearch',
    variable: 'OPENSEARCH_URL',
    module: 'stac_fastapi.opensearch',
  },
  'sfeos-elasticsearch': {
    peer: 'sfeos-elasticsearch',
    backend: 'elasticsearch',
    variable: 'ELASTICSEARCH_URL',
    module: 'stac_fastapi.elasticsearch',
  },
};

async function runSfeos(
  options: Options,
  clock: PhaseClock,
  flavour: SfeosFlavour,
  venv: string,
  records: CoreRecord[],
  result: PairingResult,
): Promise<void> {
  const engine = process.env[flavour.variable];
  if (!engine) {
    result.skipped = `${flavour.variable} is not set (source ~/.cache/cairn/run/env.sh)`;
    return;
  }
  const engineUrl = new URL(engine);
  if (engineUrl.hostname !== '127.0.0.1' && engineUrl.hostname !== 'localhost')
    throw new Error(`${flavour.peer}: ${flavour.variable} must be on loopback`);
  const missing = await missingGeoShape(engine);
  if (missing) {
    result.skipped = `${missing}; SFEOS maps item geometries as geo_shape, so ${flavour.module.replace('.', '-').replace('_', '-')} cannot run on it`;
    return;
  }
  if (!hasModule(venv, flavour.module)) {
    result.skipped = `${flavour.module} is not installed in the peers' venv (scripts/bench/peers/requirements.txt)`;
    return;
  }
  await deletePeerIndexes(engine);
  const ports = await Promise.all(options.workers.map(() => findFreePort()));
  const peers: Peer[] = [];
  // Started one after the other: each SFEOS creates its indexes at start-up, and two doing it at
  // once race (resource_already_exists_exception kills the second).
  const spawnSfeos = options.workers.map(
    (workers, index) => () =>
      spawnPeer(
        flavour.peer,
        workers,
        `http://127.0.0.1:${ports[index]}`,
        '/',
        join(venv, 'bin', 'uvicorn'),
        [
          `${flavour.module}.app:create_app`,
          '--factory',
          '--host',
          '127.0.0.1',
          '--port',
          String(ports[index]),
          '--loop',
          'uvloop',
          '--http',
          'httptools',
          '--workers',
          String(workers),
          '--log-level',
          'warning',
        ],
        {
          ...process.env,
          ES_HOST: engineUrl.hostname,
          ES_PORT: engineUrl.port || '9200',
          ES_USE_SSL: 'false',
          ES_VERIFY_CERTS: 'false',
          ENABLE_TRANSACTIONS_EXTENSIONS: 'true',
          STAC_COLLECTIONS_INDEX: `${INDEX_PREFIX}collections`,
          STAC_ITEMS_INDEX_PREFIX: `${INDEX_PREFIX}items_`,
        },
        REPO_ROOT,
      ),
  );
  const alias = `${INDEX_PREFIX}cairn`;
  let api: ApiProcess | undefined;
  try {
    // Cairn on the same engine node, its own alias.
    const environment = { [flavour.variable]: engine, SEARCH_INDEX_ALIAS: alias };
    await clock.time(`Cairn (${flavour.backend}): load`, async () => {
      const config = loadConfig({ ...environment, LOG_LEVEL: 'warn' });
      const backend = await createBackend(config);
      try {
        const cairnLoad = await loadOrReuseCorpus({
          backend,
          markerPath: join(tmpdir(), `peersbench-cairn-${process.pid}.corpus.json`),
          location: `${engine} alias ${alias}`,
          seed: options.seed,
          size: options.size,
          batchSize: 500,
          maxBytes: config.limits.bodyBytes * 20,
          force: true,
        });
        result.load.cairn = cairnLoad.marker;
        result.loads.push({
          side: `Cairn (${flavour.backend})`,
          records: cairnLoad.written,
          seconds: cairnLoad.marker.loadSeconds,
          how: "Cairn's ingest pipeline, 500 records per batch",
        });
        log(`Cairn (${flavour.backend}) load: ${cairnLoad.marker.recordsPerSecond} records/s`);
      } finally {
        rmSync(join(tmpdir(), `peersbench-cairn-${process.pid}.corpus.json`), { force: true });
        await backend.close();
      }
    });
    await clock.time(`${flavour.peer}: start its servers and load (bulk_items)`, async () => {
      for (const spawnOne of spawnSfeos) {
        const peer = spawnOne();
        peers.push(peer);
        await waitFor(peer, `${peer.origin}/`);
      }
      const origin = peers[0].origin;
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
      const started = performance.now();
      let loaded = 0;
      const failures: string[] = [];
      for (let start = 0; start < records.length; start += 500) {
        const items: Record<string, unknown> = {};
        for (const record of records.slice(start, start + 500)) {
          const item = writeStacItem(record, {
            self: `${origin}/collections/${SFEOS_COLLECTION}/items/${record.id}`,
            root: `${origin}/`,
          });
          items[record.id] = { ...item, collection: SFEOS_COLLECTION };
        }
        const response = await fetch(`${origin}/collections/${SFEOS_COLLECTION}/bulk_items`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ items, method: 'insert' }),
        });
        const text = await response.text();
        if (response.ok) loaded += Object.keys(items).length;
        else if (failures.length < 3) failures.push(`${response.status}: ${text.slice(0, 300)}`);
      }
      await fetch(`${engine}/${INDEX_PREFIX}*/_refresh`, { method: 'POST' });
      const seconds = Math.round(((performance.now() - started) / 1000) * 100) / 100;
      result.load.sfeos = {
        sent: records.length,
        acceptedInBatches: loaded,
        failures,
        seconds,
        recordsPerSecond: Math.round(loaded / seconds),
      };
      result.loads.push({
        side: flavour.peer,
        records: loaded,
        seconds,
        how: 'Transactions API bulk_items, 500 items per request (STAC Items written by Cairn)',
      });
      log(`${flavour.peer} load: ${JSON.stringify(result.load.sfeos)}`);
      api = await startApi(REPO_ROOT, environment);
    });
    result.notes.push(
      `${flavour.peer} runs under uvicorn (uvloop, httptools) with ${options.workers.join(' and ')} worker(s) (one server per worker count, side by side) against the same ${flavour.backend} node as Cairn; resident memory is summed over uvicorn and its workers (the engine's is shared and not counted on either side)`,
    );
    const started = api as unknown as ApiProcess;
    await clock.time(`${flavour.peer}: count check and timed cases`, () =>
      compare(options, started, peers, sfeosQueries(records[0].id), records, result),
    );
  } finally {
    if (api) await stopApi(api);
    for (const peer of peers) await stopChild(peer.child);
    const deleted = await deletePeerIndexes(engine);
    log(`deleted ${deleted.length} ${flavour.backend} indexes named ${INDEX_PREFIX}*`);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const clock = new PhaseClock();
  const loadAverageAtStart = loadavg().map((value) => Math.round(value * 100) / 100);
  log(`load average at start: ${loadAverageAtStart.join(', ')}`);
  const venv = await clock.time('install the peers (scripts/python-env.sh peers)', () =>
    execFileSync('bash', [join(REPO_ROOT, 'scripts', 'python-env.sh'), 'peers'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim(),
  );
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-peers-'));
  const pairings: PairingResult[] = [];
  try {
    log(`corpus: ${options.size} generated records, seed ${options.seed}`);
    const records = await clock.time('generate the corpus', () =>
      corpusRecords(options.size, options.seed),
    );
    if (options.peers.includes('pycsw')) {
      const pairing = emptyPairing('pycsw', 'sqlite', options.workers);
      pairings.push(pairing);
      const sqlitePath = join(work, 'cairn.sqlite');
      await clock.time('Cairn (SQLite): load', async () => {
        const backend = await createBackend(
          loadConfig({ SQLITE_PATH: sqlitePath, LOG_LEVEL: 'warn' }),
        );
        try {
          const outcome = await loadOrReuseCorpus({
            backend,
            markerPath: `${sqlitePath}.corpus.json`,
            location: sqlitePath,
            seed: options.seed,
            size: options.size,
            batchSize: 500,
            maxBytes: 64 * 1024 * 1024,
            force: true,
          });
          pairing.load.cairn = outcome.marker;
          pairing.loads.push({
            side: 'Cairn (SQLite)',
            records: outcome.written,
            seconds: outcome.marker.loadSeconds,
            how: "Cairn's ingest pipeline, 500 records per batch",
          });
          log(`Cairn (SQLite) load: ${outcome.marker.recordsPerSecond} records/s`);
        } finally {
          await backend.close();
        }
      });
      await runPycsw(options, clock, venv, work, records, sqlitePath, pairing);
    }
    for (const name of ['sfeos', 'sfeos-elasticsearch']) {
      if (!options.peers.includes(name)) continue;
      const flavour = SFEOS_FLAVOURS[name];
      const pairing = emptyPairing(name, flavour.backend, options.workers);
      pairings.push(pairing);
      await runSfeos(options, clock, flavour, venv, records, pairing);
      if (pairing.skipped) log(`${name} SKIPPED: ${pairing.skipped}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const loadAverageAtEnd = loadavg().map((value) => Math.round(value * 100) / 100);
  const output = {
    benchmark: 'cairn-bench-peers',
    date: started.toISOString(),
    command: `npm run bench:peers -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: await readSystemInfo(REPO_ROOT, undefined),
    loadAverage: { atStart: loadAverageAtStart, atEnd: loadAverageAtEnd },
    parameters: options,
    phases: clock.phases,
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
    console.log(`Load rates:\n\n${renderLoadTable(pairing.loads)}\n`);
    console.log('Counts before timing:');
    for (const check of pairing.counts) console.log(`- ${formatCountCheck(check)}`);
    console.log(`\n${pairing.table}\n`);
    for (const note of pairing.notes) console.log(`- ${note}`);
  }
  console.log(`\n## Elapsed time per phase\n\n${renderPhaseTable(clock.phases)}\n`);
  console.log(
    `Load average (1, 5, 15 min): ${loadAverageAtStart.join(', ')} at start, ${loadAverageAtEnd.join(', ')} at end`,
  );
  log(`wrote ${path}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
