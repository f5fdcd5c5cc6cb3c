/**
 * A steady load of queries on every protocol and of bulk writes, run against an API process
 * while a test breaks its dependencies. Every answer is classified on the spot:
 *
 * - `ok`: the normal answer (200 for a query, 202 for a write taken into the queue);
 * - `unavailable`: 503 with a positive integer `Retry-After`, in the protocol's own error
 *   format (OGC API `{code, description}` JSON, an HTML page, a CSW ExceptionReport of the
 *   request's OWS version);
 * - `wrong`: anything else — a 500, a hang (no answer within the client timeout), a JSON error
 *   on a CSW request, a missing Retry-After… A fault test asserts there is none.
 */
import { generateRecords } from '../../../scripts/corpus/generator.js';
import { exceptionOf, NS } from '../../support/csw-client.js';
import { defined } from '../../support/defined.js';

export type Protocol =
  'records' | 'records-html' | 'stac' | 'csw-2.0.2' | 'csw-3.0.0' | 'opensearch' | 'write';

export type Verdict = 'ok' | 'unavailable' | 'wrong';

export interface Outcome {
  protocol: Protocol;
  verdict: Verdict;
  status: number;
  /** Milliseconds since the epoch when the request was sent and when its answer was read. */
  sentAt: number;
  doneAt: number;
  /** What was wrong, for `wrong` outcomes. */
  problem?: string | undefined;
}

interface Probe {
  protocol: Exclude<Protocol, 'write'>;
  path: string;
  init?: RequestInit;
  /** Checks a 200 answer; returns a problem or undefined. */
  checkOk(response: Response, text: string): string | undefined;
  /** Checks a 503 answer's body; returns a problem or undefined. */
  checkUnavailable(response: Response, text: string): string | undefined;
}

/** A request gets this long to answer; beyond it the outcome is `wrong` (a hang). */
const CLIENT_TIMEOUT_MS = 30_000;
const ITEMS = '/catalogue/collections/metadata:main/items';

function checkJsonError(response: Response, text: string): string | undefined {
  if (!response.headers.get('content-type')?.startsWith('application/json'))
    return `content type ${response.headers.get('content-type')}`;
  const body = JSON.parse(text) as { code?: unknown; description?: unknown };
  if (typeof body.code !== 'string' || typeof body.description !== 'string')
    return `not {code, description}: ${text.slice(0, 200)}`;
  return undefined;
}

function checkExceptionReport(namespace: string) {
  return (_response: Response, text: string): string | undefined => {
    try {
      const report = exceptionOf(text);
      if (report.ns !== namespace) return `ExceptionReport in ${report.ns}, expected ${namespace}`;
      if (report.code !== 'NoApplicableCode') return `exceptionCode ${report.code}`;
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
}

function checkJsonOk(key: string) {
  return (_response: Response, text: string): string | undefined =>
    key in (JSON.parse(text) as object) ? undefined : `no "${key}" in ${text.slice(0, 200)}`;
}

function checkXmlRoot(local: string) {
  return (_response: Response, text: string): string | undefined =>
    text.includes(local) ? undefined : `no ${local} in ${text.slice(0, 200)}`;
}

const csw = (version: string, extra: Record<string, string> = {}): string =>
  `/catalogue/csw?${new URLSearchParams({
    service: 'CSW',
    version,
    request: 'GetRecords',
    typeNames: 'csw:Record',
    resultType: 'results',
    maxRecords: '5',
    ...extra,
  }).toString()}`;

/** One request per protocol, each with the checks of its normal and its 503 answer. */
export const PROBES: readonly Probe[] = [
  {
    protocol: 'records',
    path: `${ITEMS}?q=climate,soil&bbox=-30,30,40,72&limit=5`,
    checkOk: checkJsonOk('numberMatched'),
    checkUnavailable: checkJsonError,
  },
  {
    protocol: 'records-html',
    path: `${ITEMS}?f=html&limit=5`,
    checkOk: checkXmlRoot('<html'),
    checkUnavailable: (response) =>
      response.headers.get('content-type')?.startsWith('text/html')
        ? undefined
        : `content type ${response.headers.get('content-type')}`,
  },
  {
    protocol: 'stac',
    path: '/catalogue/search',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bbox: [-180, -90, 180, 90], limit: 5 }),
    },
    checkOk: checkJsonOk('features'),
    checkUnavailable: checkJsonError,
  },
  {
    protocol: 'csw-2.0.2',
    path: csw('2.0.2', { constraintLanguage: 'CQL_TEXT', constraint: "AnyText LIKE '%a%'" }),
    checkOk: checkXmlRoot('GetRecordsResponse'),
    checkUnavailable: checkExceptionReport(NS.ows),
  },
  {
    protocol: 'csw-3.0.0',
    path: csw('3.0.0'),
    checkOk: checkXmlRoot('GetRecordsResponse'),
    checkUnavailable: checkExceptionReport(NS.ows20),
  },
  {
    protocol: 'opensearch',
    path: csw('3.0.0', { mode: 'opensearch', q: 'water', outputFormat: 'application/atom+xml' }),
    checkOk: checkXmlRoot('feed'),
    checkUnavailable: checkExceptionReport(NS.ows20),
  },
];

/** Why a 503 is not a proper one: no positive integer Retry-After. */
function retryAfterProblem(response: Response): string | undefined {
  const value = response.headers.get('retry-after');
  return value !== null && /^[1-9]\d*$/.test(value) ? undefined : `Retry-After "${value}"`;
}

export interface FaultLoadOptions {
  origin: string;
  /** The bearer token for writes (called for every write, so it may be refreshed). */
  token: () => string;
  /** Records per bulk write; their ids are `cairn-<seed>-<n>`. */
  recordsPerWrite?: number;
  seed?: number;
  /** Concurrent query loops and write loops. */
  queryLoops?: number;
  writeLoops?: number;
  /** Pause between two requests of one query loop and of one write loop (keeps the load
   * steady on a small machine, and the queue of accepted writes short). */
  queryPauseMs?: number;
  writePauseMs?: number;
}

/** Runs the load until `stop()`; keeps every outcome and the ids of accepted writes. */
export class FaultLoad {
  readonly outcomes: Outcome[] = [];
  /** Ids of records in writes answered 202. */
  readonly acceptedIds = new Set<string>();
  /** Ids of records in writes refused (503): not promised, but a refusal may race a commit. */
  readonly refusedIds = new Set<string>();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private nextRecord = 0;
  private nextProbe = 0;

  constructor(private readonly options: FaultLoadOptions) {}

  start(): this {
    const { queryLoops = 3, writeLoops = 1, queryPauseMs = 50, writePauseMs = 250 } = this.options;
    for (let i = 0; i < queryLoops; i += 1)
      this.loops.push(this.loop(() => this.query(), queryPauseMs));
    for (let i = 0; i < writeLoops; i += 1)
      this.loops.push(this.loop(() => this.write(), writePauseMs));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /** Sends `count` writes at once (a backlog for the worker), besides the steady load. */
  async writeBurst(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, () => this.write()));
  }

  /** Outcomes whose request was sent at or after `time`. */
  since(time: number): Outcome[] {
    return this.outcomes.filter((outcome) => outcome.sentAt >= time);
  }

  /** Every `wrong` outcome, described one a line. */
  problems(): string[] {
    return this.outcomes
      .filter((outcome) => outcome.verdict === 'wrong')
      .map((outcome) => `${outcome.protocol} ${outcome.status}: ${outcome.problem}`);
  }

  /** Resolves once `check` holds for the outcomes (polled), or rejects after `timeoutMs`. */
  async until(check: (outcomes: Outcome[]) => boolean, timeoutMs: number, what: string) {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.outcomes)) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}; answers so far: ${JSON.stringify(tally(this.outcomes))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private async loop(step: () => Promise<void>, pauseMs: number): Promise<void> {
    while (!this.stopped) {
      await step();
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  private async query(): Promise<void> {
    const index = this.nextProbe++ % PROBES.length;
    const probe = defined(PROBES[index], `probe ${index}`);
    await this.send(probe.protocol, probe.path, probe.init ?? {}, (response, text) => {
      if (response.status === 200) return probe.checkOk(response, text);
      return probe.checkUnavailable(response, text);
    });
  }

  private async write(): Promise<void> {
    const count = this.options.recordsPerWrite ?? 5;
    const records = [...generateRecords(count, this.options.seed ?? 9001, this.nextRecord)];
    this.nextRecord += count;
    const ids = records.map((record) => String(record.id));
    const verdict = await this.send(
      'write',
      '/catalogue/admin/ingest',
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.token()}`,
          'content-type': 'application/x-ndjson',
        },
        body: records.map((record) => JSON.stringify(record)).join('\n'),
      },
      (response, text) => {
        if (response.status === 202)
          return (JSON.parse(text) as { jobId?: unknown }).jobId ? undefined : 'no jobId';
        return checkJsonError(response, text);
      },
      202,
    );
    for (const id of ids) (verdict === 'ok' ? this.acceptedIds : this.refusedIds).add(id);
  }

  /** Sends one request and records its outcome. */
  private async send(
    protocol: Protocol,
    path: string,
    init: RequestInit,
    check: (response: Response, text: string) => string | undefined,
    okStatus = 200,
  ): Promise<Verdict> {
    const sentAt = Date.now();
    const record = (verdict: Verdict, status: number, problem?: string): Verdict => {
      this.outcomes.push({ protocol, verdict, status, sentAt, doneAt: Date.now(), problem });
      return verdict;
    };
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.options.origin}${path}`, {
        ...init,
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      return record('wrong', 0, `no answer: ${(error as Error).message}`);
    }
    if (response.status !== okStatus && response.status !== 503)
      return record('wrong', response.status, text.slice(0, 300));
    let problem: string | undefined;
    try {
      problem =
        (response.status === 503 ? retryAfterProblem(response) : undefined) ??
        check(response, text);
    } catch (error) {
      problem = `unreadable answer: ${(error as Error).message}: ${text.slice(0, 200)}`;
    }
    if (problem) return record('wrong', response.status, problem);
    return record(response.status === 503 ? 'unavailable' : 'ok', response.status);
  }
}

/** Counts outcomes by protocol and verdict, e.g. `{ records: { ok: 12, unavailable: 3 } }`. */
export function tally(outcomes: Outcome[]): Record<string, Partial<Record<Verdict, number>>> {
  const counts: Record<string, Partial<Record<Verdict, number>>> = {};
  for (const { protocol, verdict } of outcomes) {
    const entry = (counts[protocol] ??= {});
    entry[verdict] = (entry[verdict] ?? 0) + 1;
  }
  return counts;
}
