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
import { InvalidParameterError, NotFoundError } from '../../../../shared/errors/index.js';
import { parseHarvestSource, type StoredSource } from '../../../../shared/harvest/index.js';
import { jobUrl, sourceUrl } from '../../common/urls.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import {
  registerSource,
  runSource,
  unregisterSource,
  type HarvestContext,
} from '../../commands/harvest.js';

export interface SourcesDependencies {
  auth: AuthMiddleware;
  harvest: HarvestContext;
}

/** A source as the endpoints show it: definition, state, links. */
export function presentSource(request: Request, stored: StoredSource): Record<string, unknown> {
  const href = sourceUrl(request.publicBaseUrl, stored.definition.id);
  return {
    ...stored.definition,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    lastSuccessStartedAt: stored.lastSuccessStartedAt ?? null,
    lastRun: stored.lastRun
      ? {
          ...stored.lastRun,
          ...(stored.lastRun.jobId
            ? { href: jobUrl(request.publicBaseUrl, stored.lastRun.jobId) }
            : {}),
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
      .location(sourceUrl(request.publicBaseUrl, definition.id))
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
    if (created) response.location(sourceUrl(request.publicBaseUrl, id));
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
    const href = jobUrl(request.publicBaseUrl, run.jobId);
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
