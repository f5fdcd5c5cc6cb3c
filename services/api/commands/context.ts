/** What the commands of one app work with: the configuration, the backend, queue and log. */
import type { Config } from '../../../shared/config/index.js';
import type { IngestLog } from '../../../shared/ingest/ingest-log.js';
import type { JobQueues } from '../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../shared/search/backend.js';

/** The app's dependencies every command may use; the queue and the log open on first use. */
export interface CommandContext {
  config: Readonly<Config>;
  backend: SearchBackend;
  /** The queues in scaled mode, undefined in embedded mode. */
  queue: () => JobQueues | undefined;
  /** The ingest log, where writes applied at once (embedded mode) are recorded too. */
  ingestLog: () => IngestLog;
}
