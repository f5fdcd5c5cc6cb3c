/**
 * Reindex over HTTP: enqueue a `reindex` job for the worker. Reindexing rebuilds a search
 * engine's index from the stored sources; the embedded SQLite backend keeps its tables and
 * indexes up to date on every write, so there it is refused with a 409 saying why.
 */
import { CairnError } from '../../../shared/errors/index.js';
import type { JobQueues } from '../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../shared/search/backend.js';

/** The request cannot be served in this deployment mode (409, with the reason). */
function notAvailable(message: string): CairnError {
  return new CairnError('REINDEX_NOT_AVAILABLE', 409, message, true);
}

/** Enqueues a reindex job and returns its id; 409 when this deployment cannot reindex. */
export async function enqueueReindex(
  backend: SearchBackend,
  queue: JobQueues | undefined,
  requestedBy: string | undefined,
): Promise<string> {
  if (!backend.reindex)
    throw notAvailable(
      `Reindex is a search engine operation; the ${backend.kind} backend keeps its indexes up to date on every write, so there is nothing to rebuild`,
    );
  if (!queue)
    throw notAvailable('Reindex runs on the worker: configure REDIS_URL and start the worker');
  return queue.enqueue('reindex', requestedBy === undefined ? {} : { requestedBy });
}
