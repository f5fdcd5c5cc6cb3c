/**
 * The ingest log in a SQLite table (embedded mode, and the worker's log until the engines have
 * an ingest-log index store).
 */
import type Database from 'better-sqlite3';
import { openDatabase } from './open-database.js';
import type {
  IngestFailure,
  IngestLog,
  IngestLogEntry,
  IngestLogPage,
} from '../../ingest/ingest-log.js';

interface EntryRow {
  job_id: string;
  queue: string;
  status: IngestLogEntry['status'];
  attempts: number;
  read: number;
  written: number;
  deleted: number;
  rejected: number;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  requested_by: string | null;
  error: string | null;
  failures: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ingest_log (
  job_id TEXT PRIMARY KEY,
  queue TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  read INTEGER NOT NULL,
  written INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  rejected INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  requested_by TEXT,
  error TEXT,
  failures TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ingest_log_finished ON ingest_log (finished_at);
`;

function toEntry(row: EntryRow): IngestLogEntry {
  return {
    jobId: row.job_id,
    queue: row.queue,
    status: row.status,
    attempts: row.attempts,
    read: row.read,
    written: row.written,
    deleted: row.deleted,
    rejected: row.rejected,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    ...(row.requested_by !== null && { requestedBy: row.requested_by }),
    ...(row.error !== null && { error: row.error }),
    failures: JSON.parse(row.failures) as IngestFailure[],
  };
}

export class SqliteIngestLog implements IngestLog {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openDatabase(path);
    this.db.exec(SCHEMA);
  }

  /** Adds or replaces a job's entry. */
  async record(entry: IngestLogEntry): Promise<void> {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO ingest_log VALUES
         (@jobId, @queue, @status, @attempts, @read, @written, @deleted, @rejected,
          @startedAt, @finishedAt, @durationMs, @requestedBy, @error, @failures)`,
      )
      .run({
        ...entry,
        requestedBy: entry.requestedBy ?? null,
        error: entry.error ?? null,
        failures: JSON.stringify(entry.failures),
      });
  }

  /** Entries, newest first, without failures. */
  async list(options: { limit: number; offset: number }): Promise<IngestLogPage> {
    const total = (this.db.prepare('SELECT count(*) AS n FROM ingest_log').get() as { n: number })
      .n;
    const rows = this.db
      .prepare('SELECT * FROM ingest_log ORDER BY finished_at DESC, job_id LIMIT ? OFFSET ?')
      .all(options.limit, options.offset) as EntryRow[];
    return {
      total,
      entries: rows.map((row) => {
        const entry: Partial<IngestLogEntry> = toEntry(row);
        delete entry.failures;
        return entry as Omit<IngestLogEntry, 'failures'>;
      }),
    };
  }

  /** One entry with its failures. */
  async get(jobId: string): Promise<IngestLogEntry | null> {
    const row = this.db.prepare('SELECT * FROM ingest_log WHERE job_id = ?').get(jobId) as
      EntryRow | undefined;
    return row ? toEntry(row) : null;
  }

  /** Closes the database. */
  async close(): Promise<void> {
    this.db.close();
  }
}
