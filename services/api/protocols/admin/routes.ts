/**
 * Admin endpoints: the ingest log as JSON (`/admin/jobs`, `/admin/jobs/{id}`,
 * `/admin/jobs/{id}/failures`), for tokens with the write role; deny by default.
 */
import { Router } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import type { IngestLog } from '../../../../shared/ingest/ingest-log.js';
import type { AuthMiddleware } from '../../middleware/auth.js';

export interface AdminDependencies {
  config: Readonly<Config>;
  auth: AuthMiddleware;
  /** The ingest log, opened on first use. */
  ingestLog: () => IngestLog;
}

/** Reads a non-negative integer query parameter within bounds. */
export function parseCount(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > max)
    throw new InvalidParameterError(name, `${name} must be an integer from 0 to ${max}`);
  return number;
}

/** Builds the admin router (mounted at /catalogue). */
export function createAdminRouter({ config, auth, ingestLog }: AdminDependencies): Router {
  const router = Router();
  router.use('/admin', auth.requireAuth({ role: config.auth.writeRole }));

  router.get('/admin/jobs', async (request, response) => {
    const limit = parseCount(request.query.limit, 'limit', 50, 1000);
    const offset = parseCount(request.query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
    const page = await ingestLog().list({ limit, offset });
    response.json({
      total: page.total,
      jobs: page.entries.map((entry) => ({
        ...entry,
        href: `${request.publicBaseUrl}/catalogue/admin/jobs/${encodeURIComponent(entry.jobId)}`,
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
  return router;
}
