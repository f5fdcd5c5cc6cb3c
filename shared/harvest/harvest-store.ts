/**
 * What a harvest run and the source endpoints need of a source store: registered sources with
 * the state of their last runs, and which records each source contributed (source ownership),
 * so that a run removes the records that disappeared at the source without touching anybody
 * else's. Embedded mode keeps it in the ingest-log SQLite file (shared/search/sqlite/sqlite-harvest-store.ts); scaled mode in
 * Redis (redis-harvest-store.ts), which every API and worker process already reaches, so no
 * process needs a shared disk.
 */
import { CairnError } from '../errors/index.js';
import { parseHarvestSource, type HarvestSourceDefinition } from './harvest-source.js';

/** The outcome of a source's latest run. */
export interface HarvestRunSummary {
  jobId?: string;
  mode: 'full' | 'incremental';
  status: 'completed' | 'failed';
  startedAt: string;
  finishedAt: string;
  read: number;
  written: number;
  deleted: number;
  rejected: number;
  error?: string;
}

/** A registered source with its state. */
export interface StoredSource {
  definition: HarvestSourceDefinition;
  createdAt: string;
  updatedAt: string;
  /** When the last successful run started: the next incremental run asks for changes since. */
  lastSuccessStartedAt?: string;
  lastRun?: HarvestRunSummary;
  /** How many records this source contributed. */
  recordCount: number;
}

/** A source as both stores keep it: the definition and the last run as JSON text. */
export interface StoredSourceFields {
  definition: string;
  createdAt: string;
  updatedAt: string;
  lastSuccessStartedAt?: string | null;
  lastRun?: string | null;
}

/** Reads a stored source back from the fields a store kept, with its record count. */
export function readStoredSource(fields: StoredSourceFields, recordCount: number): StoredSource {
  return {
    definition: parseHarvestSource(JSON.parse(fields.definition)),
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    ...(fields.lastSuccessStartedAt ? { lastSuccessStartedAt: fields.lastSuccessStartedAt } : {}),
    ...(fields.lastRun ? { lastRun: JSON.parse(fields.lastRun) as HarvestRunSummary } : {}),
    recordCount,
  };
}

/** A source id that is already registered (409). */
export class SourceExistsError extends CairnError {
  constructor(id: string) {
    super('CONFLICT', 409, `a harvest source "${id}" already exists; replace it with PUT`, true, {
      locator: 'id',
    });
  }
}

export interface HarvestStore {
  /** Every registered source, by id. */
  list(): Promise<StoredSource[]>;
  /** One source, or null. */
  get(id: string): Promise<StoredSource | null>;
  /** Registers a new source; SourceExistsError when the id is taken. */
  create(definition: HarvestSourceDefinition): Promise<StoredSource>;
  /**
   * Creates or replaces a source's definition. A changed URL or protocol makes the next run a
   * full one (the old modification date means nothing for another source).
   */
  put(definition: HarvestSourceDefinition): Promise<{ source: StoredSource; created: boolean }>;
  /** Unregisters a source and forgets which records it contributed (the records stay). */
  remove(id: string): Promise<boolean>;
  /** Records a run's outcome; a completed run also moves the incremental starting point. */
  recordRun(id: string, run: HarvestRunSummary): Promise<void>;
  /** The ids of the records a source contributed. */
  ownedIds(sourceId: string): Promise<Set<string>>;
  /** Marks records as contributed by a source. */
  addOwned(sourceId: string, recordIds: Iterable<string>): Promise<void>;
  /** Forgets that a source contributed these records. */
  removeOwned(sourceId: string, recordIds: Iterable<string>): Promise<void>;
  /** Which of these records another source also contributed (they must not be deleted). */
  ownedElsewhere(sourceId: string, recordIds: Iterable<string>): Promise<Set<string>>;
  /** Releases what the store holds open (not a shared connection). */
  close(): Promise<void>;
}
