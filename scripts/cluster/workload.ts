/**
 * The cluster check's clients, all through the balancer: the ingest writers (bulk NDJSON
 * writes to /catalogue/admin/ingest, each answered 202 once its jobs are queued), discovery
 * clients querying every protocol, and harvesters paging through the whole catalogue with CSW
 * `startPosition` and STAC `next` links.
 */
import { generateRecords } from '../corpus/generator.js';
import { Recorder, sleep, type Answer } from './client.js';
import { cswGetRecords } from '../bench/csw-get-records.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

/** Something that says when to stop a loop. */
export interface Stopper {
  stopped: boolean;
}

export interface IngestOptions {
  origin: string;
  records: number;
  seed: number;
  recordsPerRequest: number;
  writers: number;
  token: () => string;
  /** Resolves when the queue's backlog is small enough for another write. */
  backpressure: () => Promise<void>;
}

/** Sends every record once it is accepted (202), retrying a batch until it is. */
export async function ingest(
  recorder: Recorder,
  options: IngestOptions,
  accepted: Set<string>,
): Promise<void> {
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < options.records) {
      const from = next;
      const count = Math.min(options.recordsPerRequest, options.records - from);
      next += count;
      const records = [...generateRecords(count, options.seed, from)];
      const body = records.map((record) => JSON.stringify(record)).join('\n');
      await options.backpressure();
      const answer = await recorder.sendUntilAnswered(
        'ingest',
        `${options.origin}/catalogue/admin/ingest`,
        () => ({
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.token()}`,
            'content-type': 'application/x-ndjson',
          },
          body,
        }),
        (reply) =>
          reply.status === 202 && (JSON.parse(reply.text) as { jobId?: unknown }).jobId
            ? undefined
            : `not a 202 with a jobId: ${reply.status} ${reply.text.slice(0, 200)}`,
      );
      if (answer.status === 202 && !answer.outcome.problem)
        for (const record of records) accepted.add(String(record.id));
    }
  };
  await Promise.all(Array.from({ length: options.writers }, () => writer()));
}

const json = (key: string) => (answer: Answer) =>
  key in (JSON.parse(answer.text) as object) ? undefined : `no "${key}" in the answer`;
const xml = (root: string) => (answer: Answer) =>
  answer.text.includes(root) ? undefined : `no ${root} in the answer`;

/** Queries a discovery client sends in turn: one per protocol. */
const QUERIES: {
  path: string;
  init?: RequestInit;
  check: (answer: Answer) => string | undefined;
}[] = [
  { path: `${ITEMS}?q=climate,soil&bbox=-30,30,40,72&limit=10`, check: json('numberMatched') },
  { path: `${ITEMS}?f=html&limit=5`, check: xml('<html') },
  {
    path: '/catalogue/search',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bbox: [-20, -40, 60, 40], limit: 10 }),
    },
    check: json('features'),
  },
  {
    path: `/catalogue/csw?${new URLSearchParams({
      service: 'CSW',
      version: '2.0.2',
      request: 'GetRecords',
      typeNames: 'csw:Record',
      resultType: 'results',
      maxRecords: '10',
      constraintLanguage: 'CQL_TEXT',
      constraint: "AnyText LIKE '%water%'",
    }).toString()}`,
    check: xml('GetRecordsResponse'),
  },
  {
    path: `/catalogue/csw?${new URLSearchParams({
      service: 'CSW',
      version: '3.0.0',
      request: 'GetRecords',
      typeNames: 'csw:Record',
      mode: 'opensearch',
      q: 'forest',
      outputFormat: 'application/atom+xml',
    }).toString()}`,
    check: xml('feed'),
  },
];

/** A discovery client: one query after another, with a pause, until stopped. */
export async function discover(
  recorder: Recorder,
  origin: string,
  stopper: Stopper,
  offset: number,
  pauseMs = 500,
): Promise<void> {
  for (let i = offset; !stopper.stopped; i += 1) {
    const query = QUERIES[i % QUERIES.length]!; // a constant, non-empty list
    await recorder.send('discovery', `${origin}${query.path}`, query.init ?? {}, query.check);
    await sleep(pauseMs);
  }
}

/** One harvest pass: the ids in the order the pages gave them, and the pages fetched. */
export interface HarvestPass {
  ids: string[];
  pages: number;
  /** Records the catalogue said it held on the first page. */
  matched: number;
}

/** Progress callback after each page: pages fetched and the catalogue's size; may pause. */
export type OnPage = (pages: number, fetched: number, matched: number) => void | Promise<void>;

const IDENTIFIER = /<dc:identifier>([^<]+)<\/dc:identifier>/g;

/** Every record through CSW 2.0.2 GetRecords, `startPosition` from `nextRecord`. */
export async function harvestCsw(
  recorder: Recorder,
  client: string,
  origin: string,
  pageSize: number,
  stopper: Stopper = { stopped: false },
  onPage?: OnPage,
): Promise<HarvestPass> {
  const ids: string[] = [];
  let pages = 0;
  let matched = 0;
  let start = 1;
  while (!stopper.stopped) {
    const url = `${origin}/catalogue/csw?${new URLSearchParams(
      cswGetRecords('brief', pageSize, { startPosition: String(start) }),
    ).toString()}`;
    const answer = await recorder.sendUntilAnswered(
      client,
      url,
      () => ({}),
      (reply) =>
        /<csw:SearchResults[^>]*nextRecord="\d+"/.test(reply.text) ? undefined : 'no SearchResults',
    );
    if (answer.status !== 200 || answer.outcome.problem)
      throw new Error(`CSW harvest stopped at startPosition ${start}: ${answer.outcome.problem}`);
    const results = /<csw:SearchResults[^>]*>/.exec(answer.text)![0];
    const attribute = (name: string) => Number(new RegExp(`${name}="(\\d+)"`).exec(results)?.[1]);
    if (pages === 0) matched = attribute('numberOfRecordsMatched');
    pages += 1;
    for (const [, id] of answer.text.matchAll(IDENTIFIER)) if (id !== undefined) ids.push(id);
    await onPage?.(pages, ids.length, matched);
    const nextRecord = attribute('nextRecord');
    if (!nextRecord) break;
    start = nextRecord;
  }
  return { ids, pages, matched };
}

interface StacLink {
  rel: string;
  href: string;
  method?: string;
  body?: unknown;
}

/** Every record through STAC API item search, following `next` links (POST with their body). */
export async function harvestStac(
  recorder: Recorder,
  client: string,
  origin: string,
  pageSize: number,
  stopper: Stopper = { stopped: false },
  onPage?: OnPage,
): Promise<HarvestPass> {
  const ids: string[] = [];
  let pages = 0;
  let matched = 0;
  let request: { href: string; method: string; body?: unknown } = {
    href: `${origin}/catalogue/search`,
    method: 'POST',
    body: { limit: pageSize, fields: { include: ['id'], exclude: [] } },
  };
  while (!stopper.stopped) {
    const current = request;
    const answer = await recorder.sendUntilAnswered(
      client,
      current.href,
      () => ({
        method: current.method,
        ...(current.body
          ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(current.body) }
          : {}),
      }),
      json('features'),
    );
    if (answer.status !== 200 || answer.outcome.problem)
      throw new Error(`STAC harvest stopped after ${pages} pages: ${answer.outcome.problem}`);
    const page = JSON.parse(answer.text) as {
      features: { id: string }[];
      numberMatched: number;
      links: StacLink[];
    };
    if (pages === 0) matched = page.numberMatched;
    pages += 1;
    for (const feature of page.features) ids.push(feature.id);
    await onPage?.(pages, ids.length, matched);
    const next = page.links.find((link) => link.rel === 'next');
    if (!next) break;
    request = { href: next.href, method: next.method ?? 'GET', body: next.body };
  }
  return { ids, pages, matched };
}

/** The live harvester: CSW and STAC passes one after the other while the ingest runs. */
export async function harvestLive(
  recorder: Recorder,
  origin: string,
  pageSize: number,
  stopper: Stopper,
): Promise<{ passes: number; pages: number; records: number }> {
  const totals = { passes: 0, pages: 0, records: 0 };
  while (!stopper.stopped) {
    for (const harvest of [harvestCsw, harvestStac]) {
      if (stopper.stopped) break;
      // A page a second: a harvester beside the ingest, not a load test.
      const pause = () => sleep(1000);
      const pass = await harvest(recorder, 'harvest-live', origin, pageSize, stopper, pause).catch(
        () => ({
          ids: [],
          pages: 0,
          matched: 0,
        }),
      );
      totals.passes += 1;
      totals.pages += pass.pages;
      totals.records += pass.ids.length;
    }
  }
  return totals;
}
