/**
 * The ingest log in the engine's ingest-log index (scaled mode): one document per job, id = job
 * id, so a retried or redelivered job keeps one entry. The index (es-mappings/ingest-log.json)
 * is laid out for Kibana / OpenSearch Dashboards: keyword ids and statuses, date times, numeric
 * counts, and failures as a plain object array.
 */
import { InvalidParameterError } from '../../errors/index.js';
import type {
  IngestFailure,
  IngestLog,
  IngestLogEntry,
  IngestLogPage,
} from '../../ingest/ingest-log.js';
import type { EngineAdapter, JsonObject } from './engine-adapter.js';
import { toReadError, toWriteError } from './engine-errors.js';

/** The document stored per job: the entry plus a failure count operators can aggregate on. */
type IngestLogDocument = IngestLogEntry & { failureCount: number };

const ENTRY_FIELDS = [
  'jobId',
  'queue',
  'status',
  'attempts',
  'read',
  'written',
  'deleted',
  'rejected',
  'startedAt',
  'finishedAt',
  'durationMs',
  'requestedBy',
  'error',
];

/** Turns a stored document back into an entry (without engine-only fields). */
function readEntry(source: JsonObject): Omit<IngestLogEntry, 'failures'> {
  const entry = Object.fromEntries(
    ENTRY_FIELDS.filter((field) => source[field] !== undefined && source[field] !== null).map(
      (field) => [field, source[field]],
    ),
  );
  return entry as unknown as Omit<IngestLogEntry, 'failures'>;
}

export class EngineIngestLog implements IngestLog {
  /**
   * @param adapter the backend's engine client (the backend owns and closes it)
   * @param index the ingest-log index, created by EngineBackend.init() from its template
   * @param resultWindow the index's max_result_window: the deepest page `list` can serve
   */
  constructor(
    private readonly adapter: EngineAdapter,
    readonly index: string,
    private readonly resultWindow = 10_000,
  ) {}

  /**
   * Adds or replaces a job's entry. The small log index is refreshed at once, so the admin
   * listing shows a job as soon as the worker has recorded it.
   */
  async record(entry: IngestLogEntry): Promise<void> {
    const document: IngestLogDocument = { ...entry, failureCount: entry.failures.length };
    try {
      await this.adapter.indexDocument(this.index, entry.jobId, { ...document }, true);
    } catch (error) {
      throw toWriteError(error);
    }
  }

  /** Entries, newest first (ties by job id), without failures. */
  async list(options: { limit: number; offset: number }): Promise<IngestLogPage> {
    if (options.offset + options.limit > this.resultWindow)
      throw new InvalidParameterError(
        'offset',
        `The ingest log pages through its newest ${this.resultWindow} jobs; use a smaller offset`,
      );
    try {
      const response = await this.adapter.search({
        index: this.index,
        body: {
          query: { match_all: {} },
          sort: [{ finishedAt: 'desc' }, { jobId: 'asc' }],
          from: options.offset,
          size: options.limit,
          track_total_hits: true,
          _source: ENTRY_FIELDS,
        },
      });
      return {
        total: response.hits.total?.value ?? 0,
        entries: response.hits.hits.map((hit) => readEntry(hit._source ?? {})),
      };
    } catch (error) {
      throw toReadError(error);
    }
  }

  /** One entry with its failures (a realtime get: no refresh needed). */
  async get(jobId: string): Promise<IngestLogEntry | null> {
    try {
      const source = await this.adapter.getSource(this.index, jobId, [...ENTRY_FIELDS, 'failures']);
      if (!source) return null;
      return {
        ...readEntry(source),
        failures: ((source.failures as IngestFailure[] | undefined) ?? []).map((failure) => ({
          name: failure.name,
          reason: failure.reason,
        })),
      };
    } catch (error) {
      throw toReadError(error);
    }
  }

  /** Nothing to close: the backend owns the engine client. */
  async close(): Promise<void> {}
}
