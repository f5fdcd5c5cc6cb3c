/**
 * Admin JSON endpoints, for tokens with the write role (deny by default): the ingest log
 * (`/admin/jobs`, `/admin/jobs/{id}`, `/admin/jobs/{id}/failures`), the dead letters
 * (`/admin/dead-letters`, `/admin/dead-letters/{id}`) and reindexing (`POST /admin/reindex`).
 */
import { Router, type Request } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import type { IngestLog } from '../../../../shared/ingest/ingest-log.js';
import type { JobQueues } from '../../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { jobUrl } from '../../common/urls.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import { enqueueReindex } from '../../commands/reindex.js';

export interface AdminDependencies {
  config: Readonly<Config>;
  auth: AuthMiddleware;
  /** The ingest log, opened on first use. */
  ingestLog: () => IngestLog;
  /** The job queues (with the dead-letter store); undefined in embedded mode. */
  queue: () => JobQueues | undefined;
  backend: SearchBackend;
}

/** Reads a non-negative integer query parameter within bounds. */
export function parseCount(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > max)
    throw new InvalidParameterError(name, `${name} must be an integer from 0 to ${max}`);
  return number;
}

/** Page sizes of the admin listings (`limit`): the default and the maximum. */
export const ADMIN_PAGE_LIMITS = Object.freeze({ defaultLimit: 50, maxLimit: 1000 });

/** Reads `limit` and `offset` of an admin listing. */
export function parseAdminPaging(query: Request['query']): { limit: number; offset: number } {
  const { defaultLimit, maxLimit } = ADMIN_PAGE_LIMITS;
  return {
    limit: parseCount(query.limit, 'limit', defaultLimit, maxLimit),
    offset: parseCount(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
  };
}

/** Builds the admin router (mounted at /catalogue). */
export function createAdminRouter(dependencies: AdminDependencies): Router {
  const { config, auth, ingestLog, queue, backend } = dependencies;
  const router = Router();
  router.use('/admin', auth.requireAuth({ role: config.auth.writeRole }));

  router.get('/admin/jobs', async (request, response) => {
    const page = await ingestLog().list(parseAdminPaging(request.query));
    response.json({
      total: page.total,
      jobs: page.entries.map((entry) => ({
        ...entry,
        href: jobUrl(request.publicBaseUrl, entry.jobId),
      })),
    });
  });

  const getEntry = async (id: string) => {
    const entry = await ingestLog().get(id);
    if (!entry) throw new NotFoundError(`No job "${id}" in the ingest log`);
    return entry;
  };

  router.get('/admin/jobs/:jobId', async (request, response) => {
    const { failures, ...entry } = await getEntry(String(request.params.jobId));
    response.json({ ...entry, failureCount: failures.length });
  });

  router.get('/admin/jobs/:jobId/failures', async (request, response) => {
    const entry = await getEntry(String(request.params.jobId));
    response.json({ jobId: entry.jobId, failures: entry.failures });
  });

  // Dead letters are kept by the worker in Redis; in embedded mode there are none (a bad
  // record is refused with a 400 and never kept).
  router.get('/admin/dead-letters', async (request, response) => {
    const store = queue()?.deadLetters;
    const page = store
      ? await store.page(parseAdminPaging(request.query))
      : { total: 0, letters: [] };
    response.json({
      total: page.total,
      deadLetters: page.letters.map(({ payload, ...letter }) => ({
        ...letter,
        payloadBytes: Buffer.byteLength(JSON.stringify(payload) ?? ''),
        href: `${request.publicBaseUrl}/catalogue/admin/dead-letters/${encodeURIComponent(letter.id)}`,
        job: jobUrl(request.publicBaseUrl, letter.jobId),
      })),
    });
  });

  router.get('/admin/dead-letters/:id', async (request, response) => {
    const id = String(request.params.id);
    const letter = await queue()?.deadLetters.get(id);
    if (!letter) throw new NotFoundError(`No dead letter "${id}"`);
    response.json({ ...letter, job: jobUrl(request.publicBaseUrl, letter.jobId) });
  });

  router.post('/admin/reindex', async (request, response) => {
    const jobId = await enqueueReindex(backend, queue(), request.auth?.subject);
    const href = jobUrl(request.publicBaseUrl, jobId);
    response
      .status(202)
      .location(href)
      .json({
        status: 'queued',
        jobId,
        links: [{ rel: 'monitor', type: 'application/json', href }],
      });
  });
  return router;
}
