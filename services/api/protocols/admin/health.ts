/**
 * The health endpoints at the deployment root, open to probes: `/healthz` (the process
 * answers) and `/readyz` (the backend answers; a queue that is down only degrades it).
 */
import { Router } from 'express';
import type { JobQueues } from '../../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';

export interface HealthDependencies {
  backend: SearchBackend;
  /** The job queues (scaled mode), undefined without REDIS_URL. */
  queue: () => JobQueues | undefined;
}

/** Builds the router of /healthz and /readyz. */
export function createHealthRouter({ backend, queue }: HealthDependencies): Router {
  const router = Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  // Ready while the backend answers (reads are the service); a queue that is down only
  // degrades it (writes answer 503), so every instance is not taken out of rotation at once.
  router.get('/readyz', async (_request, response) => {
    const [health, queueHealth] = await Promise.all([backend.health(), queue()?.health()]);
    const status = !health.ok ? 'unavailable' : queueHealth?.ok === false ? 'degraded' : 'ready';
    response
      .status(health.ok ? 200 : 503)
      .json({ status, backend: health, ...(queueHealth && { queue: queueHealth }) });
  });
  return router;
}
