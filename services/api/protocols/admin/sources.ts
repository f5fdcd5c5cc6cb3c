/**
 * Harvest sources over HTTP, for tokens with the write role (deny by default):
 *
 *   GET    /catalogue/admin/sources            every registered source with its last run
 *   POST   /catalogue/admin/sources            register one (JSON; 201 + Location, 409 if taken)
 *   GET    /catalogue/admin/sources/{id}       one source
 *   PUT    /catalogue/admin/sources/{id}       create or replace it
 *   DELETE /catalogue/admin/sources/{id}       unregister it (its records stay)
 *   POST   /catalogue/admin/sources/{id}/run   harvest it now (`?full=true`: not incrementally);
 *                                              202 + job link in scaled mode, 200 + outcome in
 *                                              embedded mode
 */
import { Router, type Request } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import {
  parseHarvestSource,
  SqliteHarvestStore,
  type HarvestStore,
  type StoredSource,
} from '../../../../shared/harvest/index.js';
import type { IngestLog } from '../../../../shared/ingest/ingest-log.js';
import type { Logger } from '../../../../shared/logging/index.js';
import type { JobQueues } from '../../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import {
  registerSource,
  runSource,
  unregisterSource,
  type HarvestContext,
} from './harvest-commands.js';

/** What the harvest commands of one app need; the source store opens on first use. */
export interface HarvestContextDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  logger: Logger;
  queue: () => JobQueues | undefined;
  ingestLog: () => IngestLog;
}

/**
 * The harvest context of one app. The source store lives in Redis in scaled mode (where the
 * worker reads it), in the ingest-log SQLite file in embedded mode.
 */
export function createHarvestContext(dependencies: HarvestContextDependencies): HarvestContext {
  let store: HarvestStore | undefined;
  return {
    ...dependencies,
    store: () =>
      (store ??=
        dependencies.queue()?.harvestStore() ??
        new SqliteHarvestStore(dependencies.config.worker.ingestLogPath)),
    running: new Set(),
  };
}

export interface SourcesDependencies {
  auth: AuthMiddleware;
  harvest: HarvestContext;
}

function sourceLink(request: Request, id: string): string {
  return `${request.publicBaseUrl}/catalogue/admin/sources/${encodeURIComponent(id)}`;
}

function jobLink(request: Request, jobId: string): string {
  return `${request.publicBaseUrl}/catalogue/admin/jobs/${encodeURIComponent(jobId)}`;
}

/** A source as the endpoints show it: definition, state, links. */
export function presentSource(request: Request, stored: StoredSource): Record<string, unknown> {
  const href = sourceLink(request, stored.definition.id);
  return {
    ...stored.definition,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    lastSuccessStartedAt: stored.lastSuccessStartedAt ?? null,
    lastRun: stored.lastRun
      ? {
          ...stored.lastRun,
          ...(stored.lastRun.jobId ? { href: jobLink(request, stored.lastRun.jobId) } : {}),
        }
      : null,
    recordCount: stored.recordCount,
    links: [
      { rel: 'self', type: 'application/json', href },
      { rel: 'run', type: 'application/json', href: `${href}/run`, method: 'POST' },
    ],
  };
}

function jsonBody(request: Request): unknown {
  if (!request.is('application/json') || typeof request.body !== 'object' || request.body === null)
    throw new InvalidParameterError('body', 'send the source definition as a JSON object');
  return request.body;
}

function parseFull(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidParameterError('full', 'full must be true or false');
}

/** Builds the harvest source router (mounted at /catalogue). */
export function createSourcesRouter(dependencies: SourcesDependencies): Router {
  const { auth, harvest: context } = dependencies;
  const router = Router();
  router.use('/admin/sources', auth.writeAccess);

  router.get('/admin/sources', async (request, response) => {
    const sources = await context.store().list();
    response.json({ sources: sources.map((source) => presentSource(request, source)) });
  });

  router.post('/admin/sources', async (request, response) => {
    const definition = parseHarvestSource(jsonBody(request));
    const { source } = await registerSource(context, definition, { replace: false });
    response
      .status(201)
      .location(sourceLink(request, definition.id))
      .json(presentSource(request, source));
  });

  router.get('/admin/sources/:sourceId', async (request, response) => {
    const id = String(request.params.sourceId);
    const source = await context.store().get(id);
    if (!source) throw new NotFoundError(`No harvest source "${id}"`);
    response.json(presentSource(request, source));
  });

  router.put('/admin/sources/:sourceId', async (request, response) => {
    const id = String(request.params.sourceId);
    const body = jsonBody(request) as Record<string, unknown>;
    if (body.id !== undefined && body.id !== id)
      throw new InvalidParameterError('id', `the body's id "${String(body.id)}" is not "${id}"`);
    const definition = parseHarvestSource({ ...body, id });
    const { source, created } = await registerSource(context, definition, { replace: true });
    if (created) response.location(sourceLink(request, id));
    response.status(created ? 201 : 200).json(presentSource(request, source));
  });

  router.delete('/admin/sources/:sourceId', async (request, response) => {
    await unregisterSource(context, String(request.params.sourceId));
    response.status(204).end();
  });

  router.post('/admin/sources/:sourceId/run', async (request, response) => {
    const id = String(request.params.sourceId);
    const run = await runSource(context, id, {
      full: parseFull(request.query.full),
      requestedBy: request.auth?.subject,
    });
    const href = jobLink(request, run.jobId);
    if (run.mode === 'queued') {
      response
        .status(202)
        .location(href)
        .json({
          status: 'queued',
          jobId: run.jobId,
          source: id,
          links: [{ rel: 'monitor', type: 'application/json', href }],
        });
      return;
    }
    const { outcome } = run;
    response.json({
      status: 'applied',
      jobId: run.jobId,
      source: id,
      mode: outcome.mode,
      read: outcome.read,
      written: outcome.written,
      deleted: outcome.deleted,
      rejected: outcome.rejected,
      failures: outcome.letters.map((letter) => ({ name: letter.name, reason: letter.reason })),
      links: [{ rel: 'monitor', type: 'application/json', href }],
    });
  });

  return router;
}
