/**
 * The hostile-load attacks of the CI suite (test/system/hostile-load.test.ts) and of the
 * benchmark (scripts/bench/hostile-load.ts), in one place so that both send the same requests:
 * one class per expensive kind of anonymous request (huge sort lists, giant text, wildcard
 * patterns, facet variants, deep offsets, filters refined in Node), K attackers looping over a
 * class beside one benign client looping a cheap bbox page, and what each phase measured.
 *
 * Each class sends what a single attacker finds worst: the request as first reported (which the
 * cost model at the door now refuses or shrinks) alternating with the heaviest variant it still
 * admits (at each QUERY_MAX_* bound), so that the load is not only cheap 400s. Requests vary per
 * attacker and round where the engine could otherwise answer from a cache.
 */
import { FACET_PROPERTIES, MAX_BUCKET_COUNT } from '../../services/api/protocols/records/parse.js';

/** The Records items path of the catalogue's one collection. */
export const ITEMS_PATH = '/catalogue/collections/metadata:main/items';
const SEARCH_PATH = '/catalogue/search';
const CSW_PATH = '/catalogue/csw';

/** The benign client's request: one cheap page of a bbox search. */
export const BENIGN_PATH = `${ITEMS_PATH}?bbox=5,45,15,55&limit=10`;

/** One HTTP request of an attacker. */
export interface AttackRequest {
  method: 'GET' | 'POST';
  path: string;
  /**
   * A JSON body (POST), encoded once: the attackers share a process with the benign client,
   * whose latencies must not include the encoding of megabytes per request.
   */
  body?: Uint8Array;
}

/** One class of hostile requests (issue table rows 1–6). */
export interface AttackClass {
  id: string;
  title: string;
  /** The request attacker `attacker` sends in its round `round` (0, 1, …). */
  request(attacker: number, round: number): AttackRequest;
}

const get = (path: string): AttackRequest => ({ method: 'GET', path });
const post = (path: string, json: unknown): AttackRequest => encoded(path, JSON.stringify(json));
const encoded = (path: string, body: string): AttackRequest => ({
  method: 'POST',
  path,
  body: Buffer.from(body),
});
const encode = encodeURIComponent;

/** `title,-title,updated,-updated` repeated to 900 keys (two distinct properties). */
const NINE_HUNDRED_KEYS = Array.from(
  { length: 900 },
  (_, i) => ['title', '-title', 'updated', '-updated'][i % 4],
).join(',');

/** Eight distinct sortable properties: QUERY_MAX_SORT_KEYS (8) at its bound. */
const EIGHT_KEYS = 'title,-updated,created,type,language,platform,instrument,-parentId';

/** `{"q": [4.6 MB of one-letter words joined by hyphens, without a space]}`, encoded once. */
const GIANT_TEXT_REQUEST = encoded(SEARCH_PATH, JSON.stringify({ q: ['a-b-'.repeat(1_150_000)] }));

/** Hyphen-joined words just under QUERY_MAX_TEXT_WORDS (1,000) and QUERY_MAX_TEXT_LENGTH. */
function wordsAtTheBound(seed: number): string {
  return Array.from({ length: 999 }, (_, i) => `w${(seed + i) % 997}`).join('-');
}

/** A CQL2 text OR of `count` LIKE patterns with inner wildcards (each one automaton). */
function likePatterns(count: number, seed: number): string {
  return Array.from({ length: count }, (_, i) => `title LIKE '%${seed}x${i}________y%'`).join(
    ' OR ',
  );
}

/** The 256 upper/lower-case spellings of `keywords`, of which a request uses 310. */
const KEYWORD_SPELLINGS = Array.from({ length: 256 }, (_, mask) =>
  [...'keywords'].map((c, i) => (mask & (1 << i) ? c.toUpperCase() : c)).join(''),
);
const FACET_VARIANTS = Array.from(
  { length: 310 },
  (_, i) => `${KEYWORD_SPELLINGS[i % KEYWORD_SPELLINGS.length]}:100:value_asc`,
).join(',');

/** Every facet property the catalogue offers, with the most buckets, in value order. */
const ALL_FACETS = FACET_PROPERTIES.map((name) => `${name}:${MAX_BUCKET_COUNT}:value_asc`).join(
  ',',
);

/** A distinct datetime interval per request, so that no answer is cached. */
function distinctInterval(attacker: number, round: number): string {
  const year = 1990 + ((attacker * 7 + round) % 30);
  const day = String(1 + (round % 28)).padStart(2, '0');
  return `${year}-01-${day}T00:00:00Z/..`;
}

/** A STAC `token` for an offset. */
function stacToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

/** Picks the request of a round from a rotation. */
function rotate(
  variants: ((attacker: number, round: number) => AttackRequest)[],
): AttackClass['request'] {
  return (attacker, round) => variants[(attacker + round) % variants.length]!(attacker, round);
}

/** The six classes of the table, in its order. */
export const ATTACK_CLASSES: readonly AttackClass[] = [
  {
    id: 'sort-keys',
    title: '1 huge sortby (900 keys, offset 9990; STAC POST array; 8 distinct keys)',
    request: rotate([
      () => get(`${ITEMS_PATH}?offset=9990&sortby=${NINE_HUNDRED_KEYS}`),
      () =>
        post(SEARCH_PATH, {
          limit: 10,
          sortby: Array.from({ length: 900 }, (_, i) => ({
            field: i % 2 ? 'title' : 'updated',
            direction: i % 4 < 2 ? 'asc' : 'desc',
          })),
        }),
      () => get(`${ITEMS_PATH}?offset=9990&sortby=${EIGHT_KEYS}`),
    ]),
  },
  {
    id: 'giant-text',
    title: '2 giant text without spaces (4.6 MB; 999 hyphenated words)',
    request: rotate([
      () => GIANT_TEXT_REQUEST,
      (attacker, round) => post(SEARCH_PATH, { q: [wordsAtTheBound(attacker * 131 + round)] }),
    ]),
  },
  {
    id: 'wildcards',
    title: '3 OR of LIKE patterns (80; 10 at the bound)',
    request: rotate([
      (attacker, round) =>
        get(`${ITEMS_PATH}?filter=${encode(likePatterns(80, attacker * 1000 + round))}`),
      (attacker, round) =>
        get(`${ITEMS_PATH}?filter=${encode(likePatterns(10, attacker * 1000 + round))}`),
    ]),
  },
  {
    id: 'facets',
    title: '4 facet variants (310 spellings; all facets, 100 buckets), a new datetime each',
    request: rotate([
      (attacker, round) =>
        get(
          `${ITEMS_PATH}?limit=10&facets=${FACET_VARIANTS}&datetime=${encode(distinctInterval(attacker, round))}`,
        ),
      (attacker, round) =>
        get(
          `${ITEMS_PATH}?limit=10&facets=${ALL_FACETS}&datetime=${encode(distinctInterval(attacker, round))}`,
        ),
    ]),
  },
  {
    id: 'deep-offsets',
    title: '5 deep offsets (Records offset, CSW startPosition, STAC token)',
    request: rotate([
      () => get(`${ITEMS_PATH}?offset=99990&sortby=title`),
      (attacker, round) =>
        get(
          `${ITEMS_PATH}?offset=9990&sortby=-updated&datetime=${encode(distinctInterval(attacker, round))}`,
        ),
      () =>
        get(
          `${CSW_PATH}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&elementSetName=brief&sortBy=dc:title:D&startPosition=9991`,
        ),
      () =>
        get(
          `${CSW_PATH}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&elementSetName=brief&startPosition=9007199254740991`,
        ),
      () => get(`${SEARCH_PATH}?token=${stacToken(2 ** 53 - 1)}`),
      () =>
        post(SEARCH_PATH, {
          limit: 10,
          token: stacToken(9990),
          sortby: [{ field: 'title', direction: 'desc' }],
        }),
    ]),
  },
  {
    id: 'refinement',
    title: '6 filters refined in Node (S_TOUCHES, updated > created)',
    request: rotate([
      () => get(`${ITEMS_PATH}?filter=${encode('S_TOUCHES(geometry,BBOX(-76,-47.3,-48,5))')}`),
      (_attacker, round) =>
        get(
          `${ITEMS_PATH}?filter=${encode('updated > created')}&sortby=${round % 2 ? '-' : ''}title`,
        ),
      () =>
        get(
          `${ITEMS_PATH}?filter=${encode('S_OVERLAPS(geometry, BBOX(-180,-90,0,90)) OR updated > created')}`,
        ),
    ]),
  },
];

/** One answer: its status (0: no answer) and how long it took from sending to its last byte. */
export interface Sample {
  status: number;
  ms: number;
  /** When started, in ms since the phase began. */
  at: number;
  error?: string;
}

/** What one phase measured. */
export interface PhaseSamples {
  benign: Sample[];
  attackers: Sample[];
  /** Milliseconds from the phase's start to its last answer. */
  elapsedMs: number;
}

/** Options of one phase. */
export interface PhaseOptions {
  origin: string;
  /** Undefined: a baseline phase (the benign client alone). */
  attack?: AttackClass | undefined;
  attackers: number;
  /** How long the clients keep sending (in-flight requests are then awaited). */
  durationMs: number;
  /** A request not answered within this is counted as failed (status 0). */
  requestTimeoutMs?: number;
}

/** Sends one request and times it to its last byte. */
export async function send(
  origin: string,
  request: AttackRequest,
  phaseStart: number,
  timeoutMs = 60_000,
): Promise<Sample> {
  const started = performance.now();
  const at = started - phaseStart;
  try {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      ...(request.body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: request.body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started, at };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, at, error: (error as Error).message };
  }
}

/**
 * Runs one phase: the benign client loops BENIGN_PATH one request at a time while `attackers`
 * attackers each loop over the class's requests, all for `durationMs`; resolves with every
 * answer once the last in-flight one is in.
 */
export async function runPhase(options: PhaseOptions): Promise<PhaseSamples> {
  const started = performance.now();
  const ends = started + options.durationMs;
  const timeout = options.requestTimeoutMs ?? 60_000;
  const benign: Sample[] = [];
  const attackers: Sample[] = [];
  const benignLoop = async (): Promise<void> => {
    while (performance.now() < ends) {
      benign.push(await send(options.origin, get(BENIGN_PATH), started, timeout));
    }
  };
  const attackerLoop = async (attacker: number, attack: AttackClass): Promise<void> => {
    for (let round = 0; performance.now() < ends; round += 1) {
      attackers.push(await send(options.origin, attack.request(attacker, round), started, timeout));
    }
  };
  const attack = options.attack;
  await Promise.all([
    benignLoop(),
    ...(attack ? Array.from({ length: options.attackers }, (_, i) => attackerLoop(i, attack)) : []),
  ]);
  return { benign, attackers, elapsedMs: performance.now() - started };
}

/** The q-th quantile (0..1) of values, nearest rank; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** A phase in figures. */
export interface PhaseSummary {
  benignRequests: number;
  benignFailures: number;
  benignP50Ms: number;
  benignP99Ms: number;
  benignMaxMs: number;
  /** Benign answers per second. */
  benignThroughput: number;
  attackerRequests: number;
  /** Attackers' answers by status ("0": no answer). */
  attackerStatuses: Record<string, number>;
  attackerMaxMs: number;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Summarises a phase: the benign client's p50/p99 and throughput, attackers' statuses. */
export function summarizePhase(samples: PhaseSamples): PhaseSummary {
  const benignMs = samples.benign.map((sample) => sample.ms);
  const statuses: Record<string, number> = {};
  for (const sample of samples.attackers) {
    statuses[sample.status] = (statuses[sample.status] ?? 0) + 1;
  }
  return {
    benignRequests: samples.benign.length,
    benignFailures: samples.benign.filter((sample) => sample.status !== 200).length,
    benignP50Ms: round1(quantile(benignMs, 0.5)),
    benignP99Ms: round1(quantile(benignMs, 0.99)),
    benignMaxMs: round1(Math.max(0, ...benignMs)),
    benignThroughput: round1(samples.benign.length / (samples.elapsedMs / 1000)),
    attackerRequests: samples.attackers.length,
    attackerStatuses: statuses,
    attackerMaxMs: round1(Math.max(0, ...samples.attackers.map((sample) => sample.ms))),
  };
}

/**
 * Whether an attacker's answer is one the API may give under attack: a 200, a 4xx (the cost
 * model's 400, a body too large) or a 503 (overloaded, out of budget). Any other 5xx and no
 * answer at all are not.
 */
export function isAcceptableAttackStatus(status: number): boolean {
  return status === 200 || status === 503 || (status >= 400 && status < 500);
}

/**
 * Whether the engine is up: its cluster health answers (not red) and a search of `index`
 * answers; the reason when not.
 */
export async function engineAlive(engineUrl: string, index: string): Promise<string | undefined> {
  try {
    const health = await fetch(`${engineUrl}/_cluster/health?timeout=10s`, {
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await health.json()) as { status?: string };
    if (health.status !== 200 || body.status === 'red') {
      return `cluster health ${health.status} ${body.status ?? ''}`;
    }
    const search = await fetch(`${engineUrl}/${encodeURIComponent(index)}/_search?size=1`, {
      signal: AbortSignal.timeout(20_000),
    });
    const hits = (await search.json()) as { hits?: { hits?: unknown[] } };
    if (search.status !== 200 || (hits.hits?.hits?.length ?? 0) === 0) {
      return `a search of ${index} answered ${search.status}`;
    }
    return undefined;
  } catch (error) {
    return `the engine did not answer: ${(error as Error).message}`;
  }
}
