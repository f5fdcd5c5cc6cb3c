/**
 * The harvest source store of embedded mode: registered sources with the state of their last
 * runs, and which records each source contributed (source ownership), in SQLite tables of the
 * ingest-log file (WORKER_INGEST_LOG_PATH). Scaled mode keeps the same in Redis
 * (redis-harvest-store.ts); both answer the HarvestStore contract (harvest-store.ts).
 */
import type Database from 'better-sqlite3';
import { openDatabase } from './open-database.js';
import { readStoredSource, SourceExistsError } from '../../harvest/harvest-store.js';
import type { HarvestSourceDefinition } from '../../harvest/harvest-source.js';
import type { HarvestRunSummary, HarvestStore, StoredSource } from '../../harvest/harvest-store.js';

interface SourceRow {
  id: string;
  definition: string;
  created_at: string;
  updated_at: string;
  last_success_started_at: string | null;
  last_run: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS harvest_sources (
  id TEXT PRIMARY KEY,
  definition TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_success_started_at TEXT,
  last_run TEXT
);
CREATE TABLE IF NOT EXISTS harvest_records (
  source_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  PRIMARY KEY (source_id, record_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS harvest_records_record ON harvest_records (record_id);
`;

export class SqliteHarvestStore implements HarvestStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openDatabase(path);
    this.db.exec(SCHEMA);
  }

  private toStored(row: SourceRow): StoredSource {
    const count = this.db
      .prepare('SELECT count(*) AS n FROM harvest_records WHERE source_id = ?')
      .get(row.id) as { n: number };
    return readStoredSource(
      {
        definition: row.definition,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        lastSuccessStartedAt: row.last_success_started_at,
        lastRun: row.last_run,
      },
      count.n,
    );
  }

  /** Every registered source, by id. */
  async list(): Promise<StoredSource[]> {
    const rows = this.db.prepare('SELECT * FROM harvest_sources ORDER BY id').all() as SourceRow[];
    return rows.map((row) => this.toStored(row));
  }

  /** One source, or null. */
  async get(id: string): Promise<StoredSource | null> {
    return this.read(id);
  }

  private read(id: string): StoredSource | null {
    const row = this.db.prepare('SELECT * FROM harvest_sources WHERE id = ?').get(id) as
      SourceRow | undefined;
    return row ? this.toStored(row) : null;
  }

  /** Registers a new source; SourceExistsError when the id is taken. */
  async create(definition: HarvestSourceDefinition): Promise<StoredSource> {
    const now = new Date().toISOString();
    const inserted = this.db
      .prepare(
        `INSERT INTO harvest_sources (id, definition, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO NOTHING`,
      )
      .run(definition.id, JSON.stringify(definition), now, now);
    if (inserted.changes === 0) throw new SourceExistsError(definition.id);
    return this.read(definition.id) as StoredSource;
  }

  /**
   * Creates or replaces a source's definition. A changed URL or protocol makes the next run a
   * full one (the old modification date means nothing for another source).
   */
  async put(
    definition: HarvestSourceDefinition,
  ): Promise<{ source: StoredSource; created: boolean }> {
    const before = this.read(definition.id);
    const now = new Date().toISOString();
    const sameSource =
      before?.definition.url === definition.url &&
      before.definition.protocol === definition.protocol;
    this.db
      .prepare(
        `INSERT INTO harvest_sources (id, definition, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET definition = excluded.definition,
           updated_at = excluded.updated_at,
           last_success_started_at = CASE WHEN ? THEN last_success_started_at ELSE NULL END`,
      )
      .run(definition.id, JSON.stringify(definition), now, now, sameSource ? 1 : 0);
    return { source: this.read(definition.id) as StoredSource, created: before === null };
  }

  /** Unregisters a source and forgets which records it contributed (the records stay). */
  async remove(id: string): Promise<boolean> {
    const removal = this.db.transaction(() => {
      this.db.prepare('DELETE FROM harvest_records WHERE source_id = ?').run(id);
      return this.db.prepare('DELETE FROM harvest_sources WHERE id = ?').run(id).changes > 0;
    });
    return removal();
  }

  /** Records a run's outcome; a completed run also moves the incremental starting point. */
  async recordRun(id: string, run: HarvestRunSummary): Promise<void> {
    const success = run.status === 'completed' ? run.startedAt : null;
    this.db
      .prepare(
        `UPDATE harvest_sources SET last_run = ?,
           last_success_started_at = COALESCE(?, last_success_started_at) WHERE id = ?`,
      )
      .run(JSON.stringify(run), success, id);
  }

  /** The ids of the records a source contributed. */
  async ownedIds(sourceId: string): Promise<Set<string>> {
    const rows = this.db
      .prepare('SELECT record_id FROM harvest_records WHERE source_id = ?')
      .pluck()
      .all(sourceId) as string[];
    return new Set(rows);
  }

  /** Marks records as contributed by a source. */
  async addOwned(sourceId: string, recordIds: Iterable<string>): Promise<void> {
    this.runPerRecord(
      'INSERT INTO harvest_records (source_id, record_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
      sourceId,
      recordIds,
    );
  }

  /** Forgets that a source contributed these records. */
  async removeOwned(sourceId: string, recordIds: Iterable<string>): Promise<void> {
    this.runPerRecord(
      'DELETE FROM harvest_records WHERE source_id = ? AND record_id = ?',
      sourceId,
      recordIds,
    );
  }

  /** Runs a statement taking (source id, record id) once per record, in one transaction. */
  private runPerRecord(sql: string, sourceId: string, recordIds: Iterable<string>): void {
    const statement = this.db.prepare(sql);
    this.db.transaction((ids: Iterable<string>) => {
      for (const recordId of ids) statement.run(sourceId, recordId);
    })(recordIds);
  }

  /** Which of these records another source also contributed (they must not be deleted). */
  async ownedElsewhere(sourceId: string, recordIds: Iterable<string>): Promise<Set<string>> {
    const query = this.db.prepare(
      'SELECT 1 FROM harvest_records WHERE record_id = ? AND source_id <> ? LIMIT 1',
    );
    const shared = new Set<string>();
    for (const recordId of recordIds) if (query.get(recordId, sourceId)) shared.add(recordId);
    return shared;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
