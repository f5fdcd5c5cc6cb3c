/**
 * The cluster check's arithmetic, free of any I/O so that unit tests can pin it down: which ids
 * were lost or duplicated, whether a harvest saw every record exactly once, which requests
 * failed outside the failover windows, and the closing result line.
 */

/** What became of the accepted records in the engine. */
export interface IndexingCheck {
  accepted: number;
  /** Documents the engine holds for the run (every id listed, duplicates included). */
  indexed: number;
  /** Accepted ids the engine does not hold. */
  lost: number;
  /** Ids the engine lists more than once. */
  duplicates: number;
  /** Ids in the engine that no accepted write carried. */
  unexpected: number;
  /** A few examples of each, for the report. */
  examples: { lost: string[]; duplicates: string[]; unexpected: string[] };
}

const EXAMPLES = 5;

/** Compares the accepted ids with the ids the engine lists (a list: duplicates count). */
export function checkIndexing(
  accepted: Iterable<string>,
  indexedIds: Iterable<string>,
): IndexingCheck {
  const acceptedSet = new Set(accepted);
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  let indexed = 0;
  for (const id of indexedIds) {
    indexed += 1;
    if (seen.has(id)) duplicates.add(id);
    else seen.add(id);
  }
  const lost = [...acceptedSet].filter((id) => !seen.has(id));
  const unexpected = [...seen].filter((id) => !acceptedSet.has(id));
  return {
    accepted: acceptedSet.size,
    indexed,
    lost: lost.length,
    duplicates: duplicates.size,
    unexpected: unexpected.length,
    examples: {
      lost: lost.slice(0, EXAMPLES),
      duplicates: [...duplicates].slice(0, EXAMPLES),
      unexpected: unexpected.slice(0, EXAMPLES),
    },
  };
}

export function indexingPassed(check: IndexingCheck): boolean {
  return (
    check.lost === 0 &&
    check.duplicates === 0 &&
    check.unexpected === 0 &&
    check.indexed === check.accepted
  );
}

/** One harvest pass: every record of the catalogue, each exactly once. */
export interface HarvestCheck {
  protocol: string;
  pages: number;
  /** Records the pages carried (duplicates included). */
  seen: number;
  /** Distinct records seen. */
  distinct: number;
  /** Records of the catalogue the pass never saw. */
  missed: number;
  /** Records seen on more than one page. */
  repeated: number;
  /** Records seen that the catalogue does not hold. */
  foreign: number;
  examples: { missed: string[]; repeated: string[] };
}

export function checkHarvest(
  protocol: string,
  pages: number,
  harvested: readonly string[],
  catalogue: Iterable<string>,
): HarvestCheck {
  const expected = new Set(catalogue);
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of harvested) {
    if (seen.has(id)) repeated.add(id);
    else seen.add(id);
  }
  const missed = [...expected].filter((id) => !seen.has(id));
  return {
    protocol,
    pages,
    seen: harvested.length,
    distinct: seen.size,
    missed: missed.length,
    repeated: repeated.size,
    foreign: [...seen].filter((id) => !expected.has(id)).length,
    examples: { missed: missed.slice(0, EXAMPLES), repeated: [...repeated].slice(0, EXAMPLES) },
  };
}

export function harvestPassed(check: HarvestCheck): boolean {
  return check.missed === 0 && check.repeated === 0 && check.foreign === 0 && check.seen > 0;
}

/** One request's answer as a client saw it. */
export interface RequestOutcome {
  /** ingest, discovery, harvest-live, harvest-csw, harvest-stac, … */
  client: string;
  status: number;
  /** Milliseconds since the epoch. */
  sentAt: number;
  doneAt: number;
  /** The Retry-After header of a 503 (seconds), when it was a positive integer. */
  retryAfter?: number | undefined;
  /** What was wrong, for an answer that is neither the normal one nor a 503. */
  problem?: string | undefined;
}

/** A kill and the time the failover window closes (the component back, plus a grace). */
export interface FailoverWindow {
  what: string;
  from: number;
  to: number;
}

export interface RequestCheck {
  total: number;
  /** Requests answered normally. */
  ok: number;
  /** 503s with Retry-After sent inside a failover window (tolerated). */
  unavailableInWindow: number;
  /**
   * Answers cut by the SIGKILL of the API replica serving them: sent no later than `CUT_SLACK_MS`
   * after the kill began (the kill takes effect asynchronously: a page requested in the same
   * instant can still reach the dying process) and ended by the socket closing within
   * `CUT_SLACK_MS` of it. No balancer can retry a
   * response it has begun to forward; the client sends the request again (tolerated).
   */
  cutByKill: number;
  /** Everything else that did not get its normal answer. */
  failed: number;
  /** Per window: the 503s it excused, and the slowest answer sent inside it (ms). */
  windows: { what: string; seconds: number; unavailable: number; slowestMs: number }[];
  examples: string[];
}

/** True when the outcome is the protocol's normal answer. */
export function isNormal(outcome: RequestOutcome): boolean {
  return outcome.problem === undefined && outcome.status >= 200 && outcome.status < 300;
}

function inWindow(outcome: RequestOutcome, window: FailoverWindow): boolean {
  return outcome.sentAt <= window.to && outcome.doneAt >= window.from;
}

/** The open window whose kill came last before the answer (overlapping windows: the latest). */
function latestWindow(outcome: RequestOutcome, windows: readonly FailoverWindow[]): number {
  let best = -1;
  let bestFrom = 0;
  windows.forEach((window, index) => {
    if (inWindow(outcome, window) && (best < 0 || window.from > bestFrom)) {
      best = index;
      bestFrom = window.from;
    }
  });
  return best;
}

/** How long after an API replica's kill a socket error still counts as cut by that kill. */
const CUT_SLACK_MS = 2_000;

/** True when the outcome is an answer cut by the kill of the API replica serving it. */
function cutByKill(outcome: RequestOutcome, windows: readonly FailoverWindow[]): boolean {
  if (outcome.status !== 0 || !/^no answer: .*\(UND_ERR_SOCKET\)$/.test(outcome.problem ?? ''))
    return false;
  return windows.some(
    (window) =>
      window.what.startsWith('API replica') &&
      outcome.sentAt <= window.from + CUT_SLACK_MS &&
      outcome.doneAt >= window.from &&
      outcome.doneAt <= window.from + CUT_SLACK_MS,
  );
}

/**
 * Classifies every outcome: normal, a tolerated 503 (with Retry-After, while a window was
 * open when it was sent or answered), or a failure.
 */
export function checkRequests(
  outcomes: readonly RequestOutcome[],
  windows: readonly FailoverWindow[],
): RequestCheck {
  let ok = 0;
  let unavailableInWindow = 0;
  let cut = 0;
  const failures: RequestOutcome[] = [];
  const perWindow = windows.map((window) => ({
    what: window.what,
    seconds: Math.round((window.to - window.from) / 100) / 10,
    unavailable: 0,
    slowestMs: 0,
  }));
  for (const outcome of outcomes) {
    windows.forEach((window, index) => {
      const stats = perWindow[index];
      if (stats && inWindow(outcome, window))
        stats.slowestMs = Math.max(stats.slowestMs, outcome.doneAt - outcome.sentAt);
    });
    if (isNormal(outcome)) {
      ok += 1;
      continue;
    }
    const excusedBy =
      outcome.status === 503 && outcome.retryAfter !== undefined && outcome.problem === undefined
        ? latestWindow(outcome, windows)
        : -1;
    const excused = perWindow[excusedBy];
    if (excused) {
      unavailableInWindow += 1;
      excused.unavailable += 1;
    } else if (cutByKill(outcome, windows)) cut += 1;
    else failures.push(outcome);
  }
  return {
    total: outcomes.length,
    ok,
    unavailableInWindow,
    cutByKill: cut,
    failed: failures.length,
    windows: perWindow,
    examples: failures
      .slice(0, EXAMPLES)
      .map(
        (failure) =>
          `${failure.client} ${failure.status} at ${new Date(failure.sentAt).toISOString()}: ${failure.problem ?? (failure.retryAfter === undefined ? 'no Retry-After' : 'outside every failover window')}`,
      ),
  };
}

/** Everything the closing line reports. */
export interface ClusterSummary {
  indexing: IndexingCheck;
  harvests: HarvestCheck[];
  requests: RequestCheck;
  sessionShared: boolean;
  sourceHarvested: boolean;
}

export function summaryPassed(summary: ClusterSummary): boolean {
  return (
    indexingPassed(summary.indexing) &&
    summary.harvests.length > 0 &&
    summary.harvests.every(harvestPassed) &&
    summary.requests.failed === 0 &&
    summary.sessionShared &&
    summary.sourceHarvested
  );
}

/**
 * The closing line, e.g. `cluster: 100000 accepted, 100000 indexed, 0 lost, 0 duplicates,
 * harvest csw 100000/100000 once, …, 0 failed requests (12 503s in failover windows), session
 * shared, source harvested on a worker: PASS`.
 */
export function resultLine(summary: ClusterSummary): string {
  const { indexing, requests } = summary;
  const parts = [
    `${indexing.accepted} accepted`,
    `${indexing.indexed} indexed`,
    `${indexing.lost} lost`,
    `${indexing.duplicates} duplicates`,
  ];
  if (indexing.unexpected > 0) parts.push(`${indexing.unexpected} unexpected`);
  for (const harvest of summary.harvests) {
    const expected = harvest.distinct - harvest.foreign + harvest.missed;
    parts.push(
      `harvest ${harvest.protocol} ${harvest.distinct - harvest.foreign}/${expected}` +
        (harvestPassed(harvest)
          ? ' once'
          : ` (${harvest.missed} missed, ${harvest.repeated} repeated, ${harvest.foreign} foreign)`),
    );
  }
  parts.push(
    `${requests.failed} failed requests of ${requests.total} (${requests.unavailableInWindow} 503s in failover windows, ${requests.cutByKill} answers cut by a replica kill)`,
  );
  parts.push(summary.sessionShared ? 'session shared' : 'session NOT shared');
  parts.push(
    summary.sourceHarvested ? 'source harvested on a worker' : 'source NOT harvested on a worker',
  );
  return `cluster: ${parts.join(', ')}: ${summaryPassed(summary) ? 'PASS' : 'FAIL'}`;
}
