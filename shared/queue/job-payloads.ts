/**
 * Typed job payloads (docs/architecture.md, seam 4): what the API enqueues and the worker performs.
 * The two services share these types and never import each other.
 */
import type { SourceFormat } from '../records/core-record.js';

/** The queues Cairn uses; each holds jobs of the same name. */
export const QUEUE_NAMES = ['ingest', 'delete', 'harvest', 'reindex'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** One raw document in an ingest job (one record, a collection, NDJSON or XML). */
export interface JobDocument {
  /** Names the document in failure reasons. */
  name: string;
  content: string;
  /** Declared format; detected from the content when absent. */
  format?: SourceFormat;
}

/** A batch of raw documents to parse and upsert by record id. */
export interface IngestPayload {
  documents: JobDocument[];
  /** Who asked for it (token subject), for the ingest log. */
  requestedBy?: string;
  /**
   * All or nothing (a CSW-T Transaction): the documents' records and the deletion of
   * `deleteIds` are applied as one unit (SearchBackend.applyAtomically). A bad record fails the
   * whole job with nothing written (the job is kept as one dead letter with its payload).
   */
  atomic?: { deleteIds: string[] };
}

/**
 * How an atomic ingest job's failure reason starts when its records were refused (bad data,
 * final) rather than the job failing for want of infrastructure.
 */
export const ATOMIC_REFUSAL = 'the catalogue refused the transaction';

/** Record ids to delete. */
export interface DeletePayload {
  ids: string[];
  requestedBy?: string;
}

/**
 * A remote source to harvest: a registered source by id (shared/harvest keeps its definition,
 * state and ownership), or one document by URL (a one-off full run).
 */
export interface HarvestPayload {
  sourceId?: string;
  source?: { url: string; format?: SourceFormat };
  /** Harvest a registered source whole, not incrementally. */
  full?: boolean;
  requestedBy?: string;
}

/** Rebuild the search index from the stored records. */
export interface ReindexPayload {
  requestedBy?: string;
}

/** Payload type per queue name. */
export interface JobPayloads {
  ingest: IngestPayload;
  delete: DeletePayload;
  harvest: HarvestPayload;
  reindex: ReindexPayload;
}

/** The outcome of one record in a job. */
export interface RecordOutcome {
  /** Record id, or the document label when no id could be read. */
  name: string;
  status: 'written' | 'deleted' | 'missing' | 'rejected';
  reason?: string;
}

/** What every job returns (kept by BullMQ as the job's return value). */
export interface JobResult {
  read: number;
  written: number;
  deleted: number;
  rejected: number;
  records: RecordOutcome[];
}
