/**
 * Pure parts of the loading half of `npm run bench:peers`: every side is loaded at
 * once before any timing starts, so these read the peers' bulk answers, frame documents for
 * pycsw's loader, bound how many requests are in flight and decide when the machine has
 * settled after the loads.
 */

/**
 * Runs `work` over `items` with at most `limit` calls in flight; the results come back in the
 * order of `items`. The first failure is thrown once the calls already started have ended.
 */
export async function runPool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error('runPool needs a positive limit');
  const results: R[] = new Array<R>(items.length);
  let failure: { error: unknown } | undefined;
  const pending = items.entries();
  const lane = async (): Promise<void> => {
    while (failure === undefined) {
      const step = pending.next();
      if (step.done) return;
      const [index, item] = step.value;
      try {
        results[index] = await work(item, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
  return results;
}

/** What one SFEOS `bulk_items` request did with its items. */
export interface BulkItemsOutcome {
  /** Items the engine indexed. */
  success: number;
  /** Items skipped (duplicates within the request or already in the index). */
  skipped: number;
  /** One line per refused item: its id and the reason. */
  errors: string[];
}

function describeError(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null) return String(entry);
  const record = entry as Record<string, unknown>;
  if (typeof record.id === 'string' && typeof record.msg === 'string')
    return `${record.id}: ${record.msg}`;
  // An engine bulk error: { create: { _id, status, error: { type, reason } } } or similar.
  for (const value of Object.values(record)) {
    if (typeof value !== 'object' || value === null) continue;
    const action = value as { _id?: unknown; error?: { type?: unknown; reason?: unknown } };
    if (action._id !== undefined) {
      const reason =
        action.error === undefined
          ? 'refused'
          : [action.error.type, action.error.reason].filter(Boolean).join(': ');
      const id = typeof action._id === 'string' ? action._id : JSON.stringify(action._id);
      return `${id}: ${reason}`;
    }
  }
  return JSON.stringify(entry).slice(0, 300);
}

/**
 * Reads SFEOS's answer to `POST /collections/{id}/bulk_items`: since SFEOS 6 a
 * `{received, success, skipped, errors}` object (a refused item answers 200 with an entry in
 * `errors`), before that a sentence ("Successfully added N Items."). `sent` is the number of
 * items in the request. A non-2xx status refuses them all.
 */
export function readBulkItemsAnswer(status: number, body: string, sent: number): BulkItemsOutcome {
  if (status < 200 || status >= 300)
    return {
      success: 0,
      skipped: 0,
      errors: [`the request answered ${status}: ${body.slice(0, 300)}`],
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = body;
  }
  if (typeof parsed === 'string') {
    const added = /added (\d+)/i.exec(parsed);
    const success = added ? Number(added[1]) : sent;
    return {
      success,
      skipped: 0,
      errors: success === sent ? [] : [`${sent - success} of ${sent} not added: ${parsed}`],
    };
  }
  const answer = (parsed ?? {}) as { success?: unknown; skipped?: unknown; errors?: unknown };
  const errors = Array.isArray(answer.errors) ? answer.errors.map(describeError) : [];
  return {
    success: typeof answer.success === 'number' ? answer.success : 0,
    skipped: typeof answer.skipped === 'number' ? answer.skipped : 0,
    errors,
  };
}

/** A document framed for `pycsw_peer.py load-stream`: its length in bytes, a newline, the bytes. */
export function frameDocument(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}\n`, 'ascii'), body]);
}

/** The machine's CPU counters (the `cpu` line of /proc/stat), in clock ticks. */
export interface CpuTicks {
  busy: number;
  total: number;
}

/** Reads the aggregate `cpu` line of /proc/stat (idle and iowait count as not busy). */
export function parseCpuTicks(stat: string): CpuTicks | undefined {
  const line = stat.split('\n').find((entry) => entry.startsWith('cpu '));
  if (!line) return undefined;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < 5 || fields.some((value) => !Number.isFinite(value))) return undefined;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user/nice)
  const counted = fields.slice(0, 8);
  const total = counted.reduce((sum, value) => sum + value, 0);
  const idle = (counted[3] ?? 0) + (counted[4] ?? 0);
  return { busy: total - idle, total };
}

/** The share of the machine's CPU time (0–1, all cores) that was busy between two readings. */
export function busyShare(before: CpuTicks, after: CpuTicks): number {
  const total = after.total - before.total;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (after.busy - before.busy) / total));
}

/** How the bench waits for the machine to settle after the loads. */
export interface SettleRule {
  /** Busy share (0–1 over all cores) at or under which a second counts as quiet. */
  quietShare: number;
  /** Quiet seconds in a row that make the machine settled. */
  quietSeconds: number;
  /** Longest wait, in seconds: a machine others keep busy never settles. */
  maxSeconds: number;
}

/** The default: three seconds in a row at most a quarter busy, at most 60 seconds of waiting. */
export const SETTLE_RULE: SettleRule = { quietShare: 0.25, quietSeconds: 3, maxSeconds: 60 };

/**
 * Whether the per-second busy shares seen so far (oldest first) settle the machine: the last
 * `quietSeconds` of them quiet, or `maxSeconds` of them seen (then `settled` is false: the wait
 * gave up, which the result file records).
 */
export function settleVerdict(
  shares: readonly number[],
  rule: SettleRule = SETTLE_RULE,
): { done: boolean; settled: boolean } {
  const recent = shares.slice(-rule.quietSeconds);
  if (recent.length === rule.quietSeconds && recent.every((share) => share <= rule.quietShare))
    return { done: true, settled: true };
  return { done: shares.length >= rule.maxSeconds, settled: false };
}
