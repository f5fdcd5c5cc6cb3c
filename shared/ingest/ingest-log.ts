/**
 * The ingest log: one entry per job with its outcome (counts, timings, failures with reasons),
 * written by the worker and read by the admin endpoints. Stores implement IngestLog: a SQLite
 * table (shared/search/sqlite/sqlite-ingest-log.ts) or the engine's ingest-log index
 * (shared/search/engine/engine-ingest-log.ts); open-ingest-log.ts picks the one for a backend.
 */

/** Where a job stands in the log. */
export type IngestJobStatus = 'completed' | 'failed' | 'retrying';

/** One failed record (or the whole job, when `name` is "job"). */
export interface IngestFailure {
  name: string;
  reason: string;
}

export interface IngestLogEntry {
  jobId: string;
  queue: string;
  status: IngestJobStatus;
  /** Attempts made so far, this one included. */
  attempts: number;
  read: number;
  written: number;
  deleted: number;
  rejected: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  requestedBy?: string | undefined;
  /** Why the job failed or is being retried. */
  error?: string;
  failures: IngestFailure[];
}

export interface IngestLogPage {
  total: number;
  entries: Omit<IngestLogEntry, 'failures'>[];
}

export interface IngestLog {
  /** Adds or replaces the entry of a job (a retried or redelivered job keeps one entry). */
  record(entry: IngestLogEntry): Promise<void>;
  /** Entries, newest first, without their failures. */
  list(options: { limit: number; offset: number }): Promise<IngestLogPage>;
  /** One entry with its failures, or null. */
  get(jobId: string): Promise<IngestLogEntry | null>;
  close(): Promise<void>;
}
