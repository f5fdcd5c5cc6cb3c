/**
 * One harvest run of a source, the same in the worker (scaled mode) and in the API (embedded
 * mode):
 *
 * - full run (the first one, `full`, or a source that cannot filter): every record, page by
 *   page, upserted by id; the ids seen are the source's listing;
 * - incremental run: only records modified since the last successful run started, then the
 *   source's complete identifier listing, from which ids not yet here are fetched by id;
 * - then records this source contributed that are no longer listed are deleted (unless another
 *   source contributed them too), and ownership is updated.
 *
 * A listing the source reports as incomplete fails the run before anything is deleted.
 */
import { emptySummary, writeRecords } from '../ingest/pipeline.js';
import type { Logger } from '../logging/index.js';
import type { JobResult } from '../queue/job-payloads.js';
import type { CoreRecord } from '../records/core-record.js';
import { parseDocuments } from '../records/formats/index.js';
import type { SearchBackend } from '../search/backend.js';
import { createSourceAdapter, type HarvestedDocument } from './adapters/index.js';
import type { ResolvedSource } from './harvest-source.js';
import { HarvestSourceError, type SourceClient } from './source-client.js';
import type { HarvestRunSummary, HarvestStore } from './harvest-store.js';
import { HarvestCancelledError, type RunDeadlines } from './run-deadlines.js';

/** A record the run could not use, with what it came from. */
export interface HarvestDeadLetter {
  name: string;
  reason: string;
  payload: unknown;
}

export interface HarvestOutcome extends JobResult {
  mode: 'full' | 'incremental';
  /** Bad records, for the dead-letter store. */
  letters: HarvestDeadLetter[];
}

export interface HarvestRunOptions {
  source: ResolvedSource;
  backend: SearchBackend;
  client: SourceClient;
  /** Source state and ownership; absent for a one-off run (always full, deletes nothing). */
  store?: HarvestStore | undefined;
  /** Force a full run. */
  full?: boolean | undefined;
  batchSize: number;
  /** Largest response or document accepted from the source. */
  maxBytes: number;
  jobId?: string | undefined;
  logger?: Logger | undefined;
  /** The run's and each page's deadline, and the caller's stop signal; absent: none. */
  deadlines?: RunDeadlines;
}

/** Deletes per backend call. */
const DELETE_BATCH = 500;

/** Characters kept of a fetched document in which no record was recognised. */
export const DEAD_LETTER_EXCERPT_CHARS = 160;

/**
 * What a dead letter keeps of a document: the whole document when it held metadata (some of
 * its records were read), else — an answer that is not metadata at all, such as a service's
 * status page a source redirected to — only its name, format, size and a short excerpt, so
 * that whatever it was does not land verbatim where editors read the dead letters.
 */
export function deadLetterPayload(
  document: HarvestedDocument,
  recordsRead: number,
): HarvestedDocument | Record<string, unknown> {
  if (recordsRead > 0) return document;
  const { content } = document;
  return {
    name: document.name,
    ...(document.format ? { format: document.format } : {}),
    bytes: Buffer.byteLength(content),
    excerpt: content.slice(0, DEAD_LETTER_EXCERPT_CHARS).replace(/[\uD800-\uDBFF]$/, ''),
    truncated: content.length > DEAD_LETTER_EXCERPT_CHARS,
  };
}

class RunState {
  readonly outcome: HarvestOutcome;
  /** Ids of records read from the source in this run (written or refused by the backend). */
  readonly seen = new Set<string>();

  constructor(
    mode: HarvestOutcome['mode'],
    private readonly options: HarvestRunOptions,
    /** Whether the source is still registered as it was when the run started. */
    private readonly stillThere: () => Promise<boolean>,
  ) {
    this.outcome = { mode, read: 0, written: 0, deleted: 0, rejected: 0, records: [], letters: [] };
  }

  /** The pages of `pages` under the run's deadlines, the source re-checked before each. */
  paced<T>(pages: AsyncIterable<T>): AsyncIterable<T> {
    const { deadlines } = this.options;
    return deadlines ? deadlines.paced(pages, this.stillThere) : pages;
  }

  /** Parses documents and upserts their records; a record seen before in this run is skipped. */
  async write(documents: HarvestedDocument[]): Promise<void> {
    const { outcome, options } = this;
    const records: CoreRecord[] = [];
    for (const document of documents) {
      const parsed = parseDocuments(document.content, {
        name: document.name,
        ...(document.format === undefined ? {} : { format: document.format }),
        maxBytes: options.maxBytes,
      });
      outcome.read += parsed.records.length + parsed.failures.length;
      const payload = deadLetterPayload(document, parsed.records.length);
      for (const failure of parsed.failures)
        outcome.letters.push({ name: failure.name, reason: failure.reason, payload });
      for (const record of parsed.records) {
        if (this.seen.has(record.id)) continue;
        this.seen.add(record.id);
        records.push(record);
      }
    }
    const summary = emptySummary();
    await writeRecords(options.backend, records, summary, { batchSize: options.batchSize });
    const refused = new Map(summary.rejected.map((failure) => [failure.name, failure.reason]));
    const written: string[] = [];
    for (const record of records) {
      const reason = refused.get(record.id);
      if (reason === undefined) {
        written.push(record.id);
        outcome.records.push({ name: record.id, status: 'written' });
      } else outcome.letters.push({ name: record.id, reason, payload: record.source.content });
    }
    outcome.written += written.length;
    await options.store?.addOwned(options.source.id, written);
  }

  /** Deletes what this source contributed and no longer lists. */
  async removeGone(listed: Set<string>): Promise<void> {
    const { store, source, backend } = this.options;
    if (!store) return;
    const gone = [...(await store.ownedIds(source.id))].filter((id) => !listed.has(id));
    if (gone.length === 0) return;
    const shared = await store.ownedElsewhere(source.id, gone);
    const removable = gone.filter((id) => !shared.has(id));
    for (let start = 0; start < removable.length; start += DELETE_BATCH) {
      const batch = removable.slice(start, start + DELETE_BATCH);
      this.outcome.deleted += await backend.delete(batch);
      for (const id of batch) this.outcome.records.push({ name: id, status: 'deleted' });
    }
    await store.removeOwned(source.id, gone);
  }

  /**
   * Deletes the records the source reported deleted that it contributed here (unless another
   * source contributed them too, or the run wrote them again).
   */
  async removeDeleted(ids: readonly string[]): Promise<void> {
    const { store, source } = this.options;
    if (!store || ids.length === 0) return;
    const owned = await store.ownedIds(source.id);
    const reported = new Set(ids.filter((id) => owned.has(id) && !this.seen.has(id)));
    await this.removeGone(new Set([...owned].filter((id) => !reported.has(id))));
  }

  finish(): HarvestOutcome {
    const { outcome } = this;
    for (const letter of outcome.letters)
      outcome.records.push({ name: letter.name, status: 'rejected', reason: letter.reason });
    outcome.rejected = outcome.letters.length;
    return outcome;
  }
}

async function runFull(state: RunState, options: HarvestRunOptions): Promise<void> {
  const adapter = createSourceAdapter(options.source, options.client, options);
  for await (const page of state.paced(adapter.pages({}))) await state.write(page);
  options.deadlines?.check();
  await state.removeGone(state.seen);
}

async function runIncremental(
  state: RunState,
  options: HarvestRunOptions,
  since: string,
): Promise<void> {
  const adapter = createSourceAdapter(options.source, options.client, options);
  if (adapter.deletions) {
    // The source says what was deleted: no complete listing needed.
    for await (const page of state.paced(adapter.pages({ modifiedSince: since })))
      await state.write(page);
    options.deadlines?.check();
    await state.removeDeleted(adapter.deletions.deletedIds());
    return;
  }
  const listing = adapter.incremental;
  if (!listing) throw new Error('runIncremental needs an adapter that lists identifiers');
  for await (const page of state.paced(adapter.pages({ modifiedSince: since })))
    await state.write(page);
  const listed = new Set<string>();
  for await (const ids of state.paced(listing.identifiers())) for (const id of ids) listed.add(id);
  const owned = (await options.store?.ownedIds(options.source.id)) ?? new Set<string>();
  const missing = [...listed].filter((id) => !owned.has(id) && !state.seen.has(id));
  if (missing.length > 0)
    for await (const page of state.paced(listing.fetchByIds(missing))) await state.write(page);
  options.deadlines?.check();
  await state.removeGone(listed);
}

function canRunIncrementally(options: HarvestRunOptions, since: string | undefined): boolean {
  if (options.full || !options.source.incremental || since === undefined || !options.store)
    return false;
  return options.source.protocol !== 'document';
}

/** Runs one harvest of the source and records its outcome in the store. */
export async function runHarvest(options: HarvestRunOptions): Promise<HarvestOutcome> {
  const { store, source } = options;
  const startedAt = new Date().toISOString();
  const registered = await store?.get(source.id);
  const since = registered?.lastSuccessStartedAt;
  // Deleting the source (or replacing it by a new one of the same id) cancels the run.
  const stillThere = async (): Promise<boolean> =>
    !store || (await store.get(source.id))?.createdAt === registered?.createdAt;
  let state = new RunState(
    canRunIncrementally(options, since) ? 'incremental' : 'full',
    options,
    stillThere,
  );
  const summary = (status: HarvestRunSummary['status'], error?: string): HarvestRunSummary => ({
    ...(options.jobId ? { jobId: options.jobId } : {}),
    mode: state.outcome.mode,
    status,
    startedAt,
    finishedAt: new Date().toISOString(),
    read: state.outcome.read,
    written: state.outcome.written,
    deleted: state.outcome.deleted,
    rejected: state.outcome.letters.length,
    ...(error ? { error } : {}),
  });
  try {
    if (state.outcome.mode === 'incremental' && since !== undefined) {
      try {
        await runIncremental(state, options, since);
      } catch (error) {
        // A source that refuses the modification-date filter is harvested whole instead.
        if (!(error instanceof HarvestSourceError && error.permanent && state.outcome.read === 0))
          throw error;
        options.logger?.warn('incremental harvest refused; running a full harvest', {
          source: source.id,
          reason: error.message,
        });
        state = new RunState('full', options, stillThere);
        await runFull(state, options);
      }
    } else await runFull(state, options);
    const outcome = state.finish();
    if (store) await store.recordRun(source.id, summary('completed'));
    return outcome;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (store && !(error instanceof HarvestCancelledError))
      await store.recordRun(source.id, summary('failed', reason));
    throw error;
  } finally {
    options.deadlines?.finish();
  }
}
