/**
 * The small internal interface the engine backend talks to. Two thin adapters implement it,
 * one over @elastic/elasticsearch 8.x and one over @opensearch-project/opensearch 2.x, so
 * that everything above them (DSL, paging, writes, reindex) is engine-agnostic. Adapters
 * throw only EngineError; the backend turns those into project errors.
 */

export type EngineName = 'elasticsearch' | 'opensearch';

/** When written documents become visible to search. */
export type RefreshPolicy = boolean | 'wait_for';

export type JsonObject = Record<string, unknown>;

/** One value of a hit's sort key, as the engine returns it. */
export type SortValue = string | number | boolean | null;

export interface EngineHit {
  _id: string;
  _index?: string;
  _score?: number | null;
  _source?: JsonObject;
  sort?: SortValue[];
  /** `docvalue_fields` asked for. */
  fields?: Record<string, unknown[]>;
}

/**
 * The sort values of a hit, without an engine-added tiebreaker (Elasticsearch adds `_shard_doc`
 * under a point in time): the first `sortLength`, those of the search's own sort.
 */
export function sortValues(hit: EngineHit, sortLength: number): SortValue[] {
  return (hit.sort ?? []).slice(0, sortLength);
}

export interface EngineSearchResponse {
  /** True when the search stopped at its `timeout` and the hits are partial. */
  timed_out?: boolean;
  hits: { total?: { value: number; relation: string }; hits: EngineHit[] };
  aggregations?: JsonObject;
  pit_id?: string;
}

/**
 * How long a read may take and what ends it early: the rest of its request's deadline, and the
 * request's abort signal. Aborting closes the connection to the engine, and both engines cancel
 * a `_search` or `_msearch` whose connection closes (Elasticsearch since 7.4, OpenSearch, which
 * forked from 7.10): the engine stops working for an answer nobody waits for.
 */
export interface EngineCallLimits {
  /** Closes the request when it aborts; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Milliseconds the call may take, when less than the client's request timeout. */
  timeoutMs?: number | undefined;
}

export interface EngineSearchRequest extends EngineCallLimits {
  /** The index or alias; omitted when the body names a point in time. */
  index?: string;
  /** query, sort, size, from, search_after, pit, aggs, _source, track_total_hits … */
  body: JsonObject;
  /** Response filtering (`filter_path`), to keep deep walks light. */
  filterPath?: string[];
}

/** A search answered as its JSON text (`searchText`): no `filter_path`, the whole answer. */
export type EngineTextSearchRequest = Omit<EngineSearchRequest, 'filterPath'>;

/** One operation's outcome in a bulk request. */
export interface BulkItemResult {
  id: string;
  status: number;
  result?: string | undefined;
  error?: { type: string; reason?: string | undefined } | undefined;
}

export interface AliasAction {
  add?: { index: string; alias: string; is_write_index?: boolean };
  remove?: { index: string; alias: string };
}

export interface EngineAdapter {
  readonly engine: EngineName;
  search(request: EngineSearchRequest): Promise<EngineSearchResponse>;
  /**
   * The same search answered as the engine's JSON text, unparsed, for a worker thread to parse
   * (shared/search/engine/refine-batch.ts); an error is thrown as `search` throws it.
   */
  searchText(request: EngineTextSearchRequest): Promise<string>;
  /**
   * Several searches of one index in one round trip (`_msearch`), answered in order; throws as
   * `search` would for the first the engine refused.
   */
  searchMany(
    index: string,
    bodies: readonly JsonObject[],
    limits?: EngineCallLimits,
  ): Promise<EngineSearchResponse[]>;
  count(index: string, query?: JsonObject, limits?: EngineCallLimits): Promise<number>;
  /** Sends a bulk request body as it is (see BulkBody and ndjsonBody). */
  bulk(body: Buffer, refresh: RefreshPolicy): Promise<BulkItemResult[]>;
  /** A document's stored source (realtime), or null. */
  getSource(index: string, id: string, includes: string[]): Promise<JsonObject | null>;
  indexDocument(
    index: string,
    id: string,
    document: JsonObject,
    refresh: RefreshPolicy,
  ): Promise<void>;
  openPointInTime(index: string, keepAlive: string): Promise<string>;
  closePointInTime(id: string): Promise<void>;
  putComponentTemplate(name: string, body: JsonObject): Promise<void>;
  putIndexTemplate(name: string, body: JsonObject): Promise<void>;
  deleteIndexTemplate(name: string): Promise<void>;
  deleteComponentTemplate(name: string): Promise<void>;
  indexExists(index: string): Promise<boolean>;
  createIndex(index: string, body: JsonObject): Promise<void>;
  deleteIndex(index: string): Promise<void>;
  /** The physical indices an alias points to ([] when the alias does not exist). */
  aliasTargets(alias: string): Promise<string[]>;
  updateAliases(actions: AliasAction[]): Promise<void>;
  /** The mappings of every index matching the name, by physical index. */
  getMappings(index: string): Promise<Record<string, JsonObject>>;
  putSettings(index: string, settings: JsonObject): Promise<void>;
  /** Adds fields to an index's mapping (`properties`). */
  putMapping(index: string, properties: JsonObject): Promise<void>;
  refresh(index: string): Promise<void>;
  /**
   * Merges an index into one segment per shard (after a bulk load: searches that match many
   * records, spatial ones above all, cost the engine much less on one segment than on several).
   */
  mergeSegments(index: string): Promise<void>;
  clusterHealth(): Promise<{ status: string }>;
  close(): Promise<void>;
}

/** What went wrong talking to the engine, without the engine's words. */
export type EngineErrorKind = 'unavailable' | 'rejected' | 'not_found' | 'failed';

/** An engine failure, classified. The original error (with the engine's message) is the cause. */
export class EngineError extends Error {
  readonly kind: EngineErrorKind;
  readonly status?: number | undefined;
  /** The engine's error type (e.g. `search_phase_execution_exception`), for logs and tests. */
  readonly type?: string | undefined;

  constructor(
    kind: EngineErrorKind,
    status: number | undefined,
    type: string | undefined,
    cause: unknown,
  ) {
    super(`search engine ${kind}${status ? ` (${status})` : ''}${type ? `: ${type}` : ''}`, {
      cause,
    });
    this.name = 'EngineError';
    this.kind = kind;
    this.status = status;
    this.type = type;
  }
}

const UNAVAILABLE_ERRORS = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError']);
const UNAVAILABLE_STATUSES = new Set([429, 502, 503, 504]);
const TOO_MANY_CLAUSES = new Set(['too_many_clauses', 'too_many_nested_clauses']);
/**
 * A search the engine cancelled itself (OpenSearch's search backpressure under duress, or its
 * `search.cancel_after_time_interval`): a 500 from the engine, but the same search may succeed
 * once the load passes, so it is answered as the engine being unavailable (503, Retry-After).
 */
const TASK_CANCELLED = 'task_cancelled_exception';

type EngineErrorBody = {
  type?: string;
  root_cause?: { type?: string }[];
  caused_by?: EngineErrorBody;
};

/** Whether the engine's error, or any cause it gives, is a cancelled task. */
function wasCancelled(error: EngineErrorBody | undefined, depth = 0): boolean {
  if (!error || depth > 8) return false;
  if (error.type === TASK_CANCELLED) return true;
  if ((error.root_cause ?? []).some((cause) => cause.type === TASK_CANCELLED)) return true;
  return wasCancelled(error.caused_by, depth + 1);
}

/** Classifies an error thrown by either client (both share the same error class names). */
export function classifyClientError(error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  const name = error instanceof Error ? error.name : '';
  if (UNAVAILABLE_ERRORS.has(name))
    return new EngineError('unavailable', undefined, undefined, error);
  const details = error as { statusCode?: number; meta?: { statusCode?: number; body?: unknown } };
  const status = details.statusCode ?? details.meta?.statusCode;
  const body = details.meta?.body as { error?: EngineErrorBody | string } | undefined;
  const type = typeof body?.error === 'object' ? body.error.type : undefined;
  if (status === undefined) return new EngineError('failed', undefined, name || undefined, error);
  // A query over the engine's clause limit is the request's fault, whatever status says
  // (OpenSearch answers 500 for it).
  const rootCauses = typeof body?.error === 'object' ? (body.error.root_cause ?? []) : [];
  const tooManyClauses = rootCauses.find((cause) => TOO_MANY_CLAUSES.has(cause.type ?? ''));
  if (tooManyClauses) return new EngineError('rejected', status, tooManyClauses.type, error);
  const cancelled = typeof body?.error === 'object' && wasCancelled(body.error);
  if (UNAVAILABLE_STATUSES.has(status) || type === 'cluster_block_exception' || cancelled) {
    return new EngineError('unavailable', status, type, error);
  }
  if (status === 404) return new EngineError('not_found', status, type, error);
  if (status >= 400 && status < 500) return new EngineError('rejected', status, type, error);
  return new EngineError('failed', status, type, error);
}

/**
 * Runs a client call, classifying whatever it throws; an abort's reason (the request's own
 * error: its deadline passed, its client left) is passed on as it is.
 */
export async function callEngine<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof EngineAbortError) throw error.reason;
    throw classifyClientError(error);
  }
}

/** A read closed by its abort signal; `reason` is the signal's. */
export class EngineAbortError extends Error {
  override readonly name = 'AbortError';
  constructor(readonly reason: unknown) {
    super('the request was aborted');
  }
}

/** Reads the per-operation outcomes of a bulk response (both engines share its shape). */
/**
 * What a bulk response keeps of each item (`filter_path`): enough for the outcome, without the
 * index, version, shard and sequence details that make up most of a large response.
 */
export const BULK_RESPONSE_FILTER = [
  'items.*._id',
  'items.*.status',
  'items.*.result',
  'items.*.error.type',
  'items.*.error.reason',
];

/**
 * A bulk request body, encoded as it is written: each operation's action and document lines go
 * straight into one buffer (sized for ASCII, grown only when a line needs more), so a document's
 * text can be dropped as soon as it is built instead of living until the engine answers. The
 * clients then send the buffer as it is. Each operation's bytes stay addressable, so the
 * operations the engine refused for transient reasons can be sent again on their own.
 */
export class BulkBody {
  private buffer: Buffer;
  private at = 0;
  /** Where each operation ends in the buffer. */
  private readonly ends: number[] = [];

  constructor(capacity = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Operations written so far. */
  get count(): number {
    return this.ends.length;
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.at;
  }

  /** Appends one operation: its action line and, for index operations, its document line. */
  add(action: JsonObject | string, document?: string): void {
    this.writeLine(typeof action === 'string' ? action : JSON.stringify(action));
    if (document !== undefined) this.writeLine(document);
    this.ends.push(this.at);
  }

  /** The whole body, or only the operations at `positions` (in the order given). */
  toBuffer(positions?: number[]): Buffer {
    if (!positions) return this.buffer.subarray(0, this.at);
    return Buffer.concat(
      positions.map((position) =>
        this.buffer.subarray(position === 0 ? 0 : this.ends[position - 1], this.ends[position]),
      ),
    );
  }

  private writeLine(line: string): void {
    // A UTF-16 code unit takes at most three UTF-8 bytes: only then is the exact size needed.
    if (this.buffer.length - this.at < line.length * 3 + 1) {
      const needed = Buffer.byteLength(line) + 1;
      if (this.buffer.length - this.at < needed) {
        const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + needed));
        this.buffer.copy(grown, 0, 0, this.at);
        this.buffer = grown;
      }
    }
    this.at += this.buffer.write(line, this.at);
    this.buffer[this.at] = 0x0a;
    this.at += 1;
  }
}

/** A bulk request body from its lines (actions and documents, in order) at once. */
export function ndjsonBody(lines: (JsonObject | string)[]): Buffer {
  let capacity = lines.length;
  for (const line of lines) if (typeof line === 'string') capacity += line.length;
  const body = new BulkBody(Math.max(capacity, 1024));
  for (const line of lines) body.add(line);
  return body.toBuffer();
}

export function readBulkItems(items: unknown): BulkItemResult[] {
  return (
    items as Record<
      string,
      { _id: string; status: number; result?: string; error?: { type: string; reason?: string } }
    >[]
  ).map((item) => {
    const [outcome] = Object.values(item);
    if (outcome === undefined) throw new Error('A bulk item of the engine names no action');
    return {
      id: outcome._id,
      status: outcome.status,
      result: outcome.result,
      error: outcome.error ? { type: outcome.error.type, reason: outcome.error.reason } : undefined,
    };
  });
}
