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
 *   npm run bench:peers -- --size 10000 --duration 3 --repetitions 2 --concurrency 1,16 --peers pycsw,sfeos
 *
 * Needs Python >= 3.11 (the peers go into a venv made by `scripts/python-env.sh peers`) and, for
 * SFEOS, OPENSEARCH_URL (the services script's OpenSearch). Everything binds 127.0.0.1; the
 * OpenSearch indexes it makes are named `peersbench-…` and deleted at the end.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { runHttpCase } from '../http-load.js';
import type { QueryCase } from '../query-mix.js';
import { readSystemInfo } from '../system-info.js';
import { generateRecord } from '../../corpus/generator.js';
import {
  checkCounts,
  formatCountCheck,
  ratioRows,
  readMatchCount,
  renderRatioTable,
  type CountCheck,
  type CountStyle,
  type Repetition,
} from './peer-report.js';
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
  pycswWorkers: number;
  sfeosWorkers: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    size: 10_000,
    seed: 42,
    duration: 3,
    repetitions: 2,
    concurrency: [1, 16],
    peers: ['pycsw', 'sfeos'],
    pycswWorkers: 1,
    sfeosWorkers: 1,
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
    else if (flag === '--pycsw-workers') options.pycswWorkers = number();
    else if (flag === '--sfeos-workers') options.sfeosWorkers = number();
    else if (flag === '--concurrency') {
      options.concurrency = (value ?? '').split(',').map(Number);
      if (options.concurrency.some((n) => !Number.isInteger(n) || n < 1))
        throw new Error('--concurrency needs a list of positive integers');
      index += 1;
    } else if (flag === '--peers') {
      options.peers = (value ?? '').split(',');
      if (options.peers.some((peer) => peer !== 'pycsw' && peer !== 'sfeos'))
        throw new Error('--peers takes pycsw and/or sfeos');
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
}

function get(path: string, count: CountStyle = 'numberMatched'): Side {
  return { method: 'GET', path, count };
}

function post(path: string, body: unknown): Side {
  return { method: 'POST', path, body, count: 'numberMatched' };
}

const BBOX = '-10,40,20,60';
const DATETIME = '2000-01-01T00:00:00Z/2015-12-31T23:59:59Z';

function csw(parameters: Record<string, string>): string {
  return new URLSearchParams(cswGetRecords('summary', 10, parameters)).toString();
}

/** Cairn on SQLite against pycsw (OGC API – Records and CSW 2.0.2). */
function pycswQueries(size: number, sampleId: string): PeerQuery[] {
  const constraint = {
    constraintLanguage: 'CQL_TEXT',
    // pycsw's CQL_TEXT reader wants the csw: prefix and a lower-case `like` ("Invalid Filter
    // syntax" otherwise); Cairn reads both spellings. Not '%ocean%': Cairn reads AnyText as
    // words (like q), pycsw as a substring, so 'oceans' (a topic category) matches only there.
    constraint: "csw:AnyText like '%flood%'",
  };
  const deep = Math.max(1, size - 9);
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
        'pycsw reads a record box that crosses the antimeridian (west > east) as the rest of the globe, so it also counts those; Cairn is right',
    },
    {
      name: 'datetime',
      cairn: get(`${ITEMS}?datetime=${DATETIME}&limit=10`),
      peer: get(`/collections/metadata:main/items?datetime=${DATETIME}&limit=10`),
      known:
        'pycsw counts only records wholly inside the period; Cairn (any overlap) is right for OGC API – Records',
    },
    {
      name: 'sort-date',
      cairn: get(`${ITEMS}?sortby=-updated&limit=10`),
      peer: get('/collections/metadata:main/items?sortby=-updated&limit=10'),
    },
    {
      name: 'csw-getrecords-constraint',
      cairn: get(`/catalogue/csw?${csw(constraint)}`, 'csw'),
      peer: get(`/csw?${csw(constraint)}`, 'csw'),
    },
    ...[...new Set([1_000, deep])]
      .filter((start) => start <= deep)
      .map((start) => ({
        name: `csw-page-${start}`,
        cairn: get(`/catalogue/csw?${csw({ startPosition: String(start) })}`, 'csw'),
        peer: get(`/csw?${csw({ startPosition: String(start) })}`, 'csw'),
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
    },
    {
      name: 'stac-datetime',
      cairn: get(`/catalogue/search?datetime=${DATETIME}&limit=10`),
      peer: get(`/search?datetime=${DATETIME}&limit=10`),
      known:
        "both right for what they hold: the STAC Items Cairn writes give a record without a temporal extent its record date (cairn:time_fallback) and a half-open period its start as datetime, and SFEOS matches those; Cairn's /search matches the temporal extent itself",
    },
    {
      name: 'stac-sort-date',
      cairn: get('/catalogue/search?sortby=-properties.datetime&limit=10'),
      peer: get('/search?sortby=-properties.datetime&limit=10'),
    },
    {
      name: 'stac-post-intersects',
      cairn: post('/catalogue/search', { intersects, limit: 10 }),
      peer: post('/search', { intersects, limit: 10 }),
    },
    {
      name: 'stac-single-item',
      cairn: get(`/catalogue/search?ids=${encodeURIComponent(sampleId)}`),
      peer: get(`/search?ids=${encodeURIComponent(sampleId)}`),
    },
  ];
}

/** A peer server child process. */
interface Peer {
  name: string;
  origin: string;
  child: ChildProcess;
  stderr: () => string;
}

function spawnPeer(
  name: string,
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
  return { name, origin: '', child, stderr: () => stderr };
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

/** The first child process of `pid` (a gunicorn/uvicorn worker), or `pid` itself without one. */
function firstWorker(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    const first = Number(children[0]);
    return Number.isInteger(first) && first > 0 ? first : pid;
  } catch {
    return pid;
  }
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
  load: Record<string, unknown>;
  counts: CountCheck[];
  repetitions: Repetition[];
  table: string;
  notes: string[];
}

/** Checks counts, then times each query interleaved: A B A B at each concurrency. */
async function compare(
  options: Options,
  peerName: string,
  api: ApiProcess,
  peer: Peer,
  peerPid: number,
  queries: PeerQuery[],
  result: PairingResult,
): Promise<void> {
  for (const query of queries) {
    const [a, b] = [
      await requestOrFailure(api.origin, query.cairn),
      await requestOrFailure(peer.origin, query.peer),
    ];
    const check = checkCounts(
      query.name,
      readMatchCount(query.cairn.count, a.status, a.body),
      readMatchCount(query.peer.count, b.status, b.body),
      query.known,
    );
    if (check.cairn === undefined)
      result.notes.push(`${query.name}: Cairn answered ${a.status}: ${a.body.slice(0, 200)}`);
    if (check.peer === undefined)
      result.notes.push(`${query.name}: ${peerName} answered ${b.status}: ${b.body.slice(0, 200)}`);
    result.counts.push(check);
    log(`count ${peerName} ${formatCountCheck(check)}`);
  }
  for (const query of queries) {
    for (const concurrency of options.concurrency) {
      for (let repetition = 1; repetition <= options.repetitions; repetition += 1) {
        for (const side of ['cairn', 'peer'] as const) {
          const origin = side === 'cairn' ? api.origin : peer.origin;
          const pid = side === 'cairn' ? api.pid : peerPid;
          const outcome = await runHttpCase(
            origin,
            pid,
            asCase(query.name, query[side]),
            concurrency,
            options.duration,
          );
          result.repetitions.push({ query: query.name, side, repetition, result: outcome });
          log(
            `${query.name} c=${concurrency} rep ${repetition} ${side === 'cairn' ? 'Cairn' : peerName}: ${outcome.requestsPerSecond} req/s p50 ${outcome.latencyMs.p50} p99 ${outcome.latencyMs.p99} errors ${outcome.non2xx + outcome.errors + outcome.timeouts}`,
          );
        }
      }
    }
  }
  result.table = renderRatioTable(peerName, ratioRows(result.repetitions));
}

async function runPycsw(
  options: Options,
  venv: string,
  work: string,
  records: CoreRecord[],
  sqlitePath: string,
): Promise<PairingResult> {
  const result: PairingResult = {
    peer: 'pycsw',
    cairnBackend: 'sqlite',
    load: {},
    counts: [],
    repetitions: [],
    table: '',
    notes: [],
  };
  const pycswDir = join(work, 'pycsw');
  const xmlDir = join(work, 'iso19139');
  mkdirSync(xmlDir, { recursive: true });
  for (const record of records) {
    writeFileSync(join(xmlDir, `${record.id.replace(/[^\w.-]/g, '_')}.xml`), writeIso19139(record));
  }
  const port = await findFreePort();
  const python = join(venv, 'bin', 'python');
  const script = join(REPO_ROOT, 'scripts', 'bench', 'peers', 'pycsw_peer.py');
  execFileSync(python, [script, 'setup', pycswDir, `http://127.0.0.1:${port}/`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  log(`pycsw: loading ${records.length} ISO 19139 records through its parser and repository layer`);
  result.load.pycsw = JSON.parse(
    execFileSync(python, [script, 'load', pycswDir, xmlDir, '500'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as Record<string, unknown>;
  log(`pycsw load: ${JSON.stringify(result.load.pycsw)}`);
  const peer = spawnPeer(
    'pycsw',
    join(venv, 'bin', 'gunicorn'),
    // gthread with one thread: one request at a time per worker, like the sync worker, but
    // with keep-alive — the sync worker closes every connection, which autocannon times wrongly
    // (a p50 of hundreds of ms at 1 connection while a sequential client sees 15 ms).
    [
      '-w',
      String(options.pycswWorkers),
      '-k',
      'gthread',
      '--threads',
      '1',
      '--keep-alive',
      '30',
      '-b',
      `127.0.0.1:${port}`,
      '--log-level',
      'warning',
      'pycsw.wsgi_flask:APP',
    ],
    { ...process.env, PYCSW_CONFIG: join(pycswDir, 'pycsw.yml') },
    pycswDir,
  );
  peer.origin = `http://127.0.0.1:${port}`;
  let api: ApiProcess | undefined;
  try {
    await waitFor(peer, `${peer.origin}/conformance`);
    api = await startApi(REPO_ROOT, { SQLITE_PATH: sqlitePath });
    result.notes.push(
      `pycsw runs under gunicorn with ${options.pycswWorkers} gthread worker(s) of 1 thread; resident memory is of its first worker process`,
    );
    await compare(
      options,
      'pycsw',
      api,
      peer,
      firstWorker(peer.child.pid ?? 0),
      pycswQueries(options.size, records[0].id),
      result,
    );
  } finally {
    if (api) await stopApi(api);
    await stopChild(peer.child);
  }
  return result;
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

async function runSfeos(
  options: Options,
  venv: string,
  records: CoreRecord[],
): Promise<PairingResult> {
  const result: PairingResult = {
    peer: 'sfeos',
    cairnBackend: 'opensearch',
    load: {},
    counts: [],
    repetitions: [],
    table: '',
    notes: [],
  };
  const engine = process.env.OPENSEARCH_URL;
  if (!engine)
    throw new Error('sfeos: OPENSEARCH_URL is not set (source ~/.cache/cairn/run/env.sh)');
  const engineUrl = new URL(engine);
  if (engineUrl.hostname !== '127.0.0.1' && engineUrl.hostname !== 'localhost')
    throw new Error('sfeos: OPENSEARCH_URL must be on loopback');
  await deletePeerIndexes(engine);
  const port = await findFreePort();
  const peer = spawnPeer(
    'sfeos',
    join(venv, 'bin', 'uvicorn'),
    [
      'stac_fastapi.opensearch.app:create_app',
      '--factory',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--loop',
      'uvloop',
      '--http',
      'httptools',
      '--workers',
      String(options.sfeosWorkers),
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
  );
  peer.origin = `http://127.0.0.1:${port}`;
  const alias = `${INDEX_PREFIX}cairn`;
  let api: ApiProcess | undefined;
  try {
    // Cairn on the same OpenSearch node, its own alias.
    const environment = { OPENSEARCH_URL: engine, SEARCH_INDEX_ALIAS: alias };
    const backend = await createBackend(loadConfig({ ...environment, LOG_LEVEL: 'warn' }));
    try {
      const config = loadConfig({ ...environment, LOG_LEVEL: 'warn' });
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
      log(`Cairn (OpenSearch) load: ${cairnLoad.marker.recordsPerSecond} records/s`);
    } finally {
      await backend.close();
    }
    await waitFor(peer, `${peer.origin}/`);
    const created = await fetch(`${peer.origin}/collections`, {
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
        `sfeos: creating the collection answered ${created.status}: ${await created.text()}`,
      );
    const started = performance.now();
    let loaded = 0;
    const failures: string[] = [];
    for (let start = 0; start < records.length; start += 500) {
      const items: Record<string, unknown> = {};
      for (const record of records.slice(start, start + 500)) {
        const item = writeStacItem(record, {
          self: `${peer.origin}/collections/${SFEOS_COLLECTION}/items/${record.id}`,
          root: `${peer.origin}/`,
        });
        items[record.id] = { ...item, collection: SFEOS_COLLECTION };
      }
      const response = await fetch(`${peer.origin}/collections/${SFEOS_COLLECTION}/bulk_items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items, method: 'insert' }),
      });
      const text = await response.text();
      if (response.ok) loaded += Object.keys(items).length;
      else if (failures.length < 3) failures.push(`${response.status}: ${text.slice(0, 300)}`);
    }
    await fetch(`${engine}/${INDEX_PREFIX}*/_refresh`, { method: 'POST' });
    const seconds = (performance.now() - started) / 1000;
    result.load.sfeos = {
      sent: records.length,
      acceptedInBatches: loaded,
      failures,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round(loaded / seconds),
    };
    log(`sfeos load: ${JSON.stringify(result.load.sfeos)}`);
    api = await startApi(REPO_ROOT, { OPENSEARCH_URL: engine, SEARCH_INDEX_ALIAS: alias });
    result.notes.push(
      `SFEOS runs under uvicorn (uvloop, httptools) with ${options.sfeosWorkers} worker(s) against the same OpenSearch node as Cairn; resident memory is of the uvicorn process (its first worker when several)`,
    );
    await compare(
      options,
      'sfeos',
      api,
      peer,
      firstWorker(peer.child.pid ?? 0),
      sfeosQueries(records[0].id),
      result,
    );
  } finally {
    if (api) await stopApi(api);
    await stopChild(peer.child);
    const deleted = await deletePeerIndexes(engine);
    log(`deleted ${deleted.length} OpenSearch indexes named ${INDEX_PREFIX}*`);
  }
  return result;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  log('installing the peers (scripts/python-env.sh peers)');
  const venv = execFileSync('bash', [join(REPO_ROOT, 'scripts', 'python-env.sh'), 'peers'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-peers-'));
  const pairings: PairingResult[] = [];
  try {
    log(`corpus: ${options.size} generated records, seed ${options.seed}`);
    const records = corpusRecords(options.size, options.seed);
    if (options.peers.includes('pycsw')) {
      const sqlitePath = join(work, 'cairn.sqlite');
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
        log(`Cairn (SQLite) load: ${outcome.marker.recordsPerSecond} records/s`);
        const pairing = await runPycsw(options, venv, work, records, sqlitePath);
        pairing.load.cairn = outcome.marker;
        pairings.push(pairing);
      } finally {
        await backend.close();
      }
    }
    if (options.peers.includes('sfeos')) pairings.push(await runSfeos(options, venv, records));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const output = {
    benchmark: 'cairn-bench-peers',
    date: started.toISOString(),
    command: `npm run bench:peers -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: await readSystemInfo(REPO_ROOT, undefined),
    parameters: options,
    pairings,
  };
  const path = join(
    REPO_ROOT,
    'bench',
    'results',
    `peers-${started.toISOString().replace(/[:.]/g, '-')}.json`,
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(output, null, 2)}\n`);
  for (const pairing of pairings) {
    console.log(`\n## Cairn (${pairing.cairnBackend}) vs ${pairing.peer}\n`);
    console.log('Counts before timing:');
    for (const check of pairing.counts) console.log(`- ${formatCountCheck(check)}`);
    console.log(`\n${pairing.table}\n`);
    for (const note of pairing.notes) console.log(`- ${note}`);
  }
  log(`wrote ${path}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
