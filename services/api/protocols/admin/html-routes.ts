/**
 * The admin HTML pages and their browser sign-in, mounted at /catalogue before the JSON admin
 * router. The pages share the JSON endpoints' addresses and are chosen by content negotiation
 * (`f=html`, or an Accept header preferring HTML): /admin/jobs, /admin/jobs/{id},
 * /admin/jobs/{id}/failures and /admin/dead-letters; every other request falls through to the
 * JSON router and its bearer tokens, unchanged.
 *
 * Sign-in is the authorization code flow with PKCE (middleware/admin-session.ts):
 * /admin/sign-in starts it, /admin/callback completes it, POST /admin/sign-out ends the session
 * here and at the provider (a form from another origin is a 403: middleware/same-origin.ts),
 * /admin/signed-out says so. Without AUTH_WEB_CLIENT_ID (or without
 * a provider) every page answers 503 with an explanation: the pages are never open.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import { NotFoundError } from '../../../../shared/errors/index.js';
import { OidcSignIn } from '../../../../shared/auth/oidc-sign-in.js';
import { lazyStore } from '../../../../shared/auth/session-store.js';
import type { SecretSource } from '../../../../shared/auth/sign-in-state.js';
import { SignInNotConfiguredError } from '../../../../shared/auth/sign-in-errors.js';
import type { IngestLog } from '../../../../shared/ingest/ingest-log.js';
import type { JobQueues } from '../../../../shared/queue/job-queues.js';
import {
  renderAdminMessagePage,
  renderDeadLettersPage,
  renderFailuresPage,
  renderJobPage,
  renderJobsPage,
  type OperatorView,
} from '../../html/admin-pages.js';
import { wantsHtml } from '../../html/errors.js';
import type { PageRequest } from '../../html/pages.js';
import { describeForClient, fromHttpError } from '../../middleware/errors.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import { requireSameOrigin } from '../../middleware/same-origin.js';
import {
  ADMIN_PATH,
  AdminSessions,
  MAX_SESSIONS,
  type Session,
} from '../../middleware/admin-session.js';
import { parseCount } from './routes.js';

export interface AdminHtmlDependencies {
  config: Readonly<Config>;
  auth: AuthMiddleware;
  /** The ingest log, opened on first use. */
  ingestLog: () => IngestLog;
  /** The job queues with the dead-letter store; undefined in embedded mode. */
  queue: () => JobQueues | undefined;
}

/** The pages served as HTML (the JSON router serves the same paths as JSON). */
const PAGES = [
  '/admin',
  '/admin/jobs',
  '/admin/jobs/:jobId',
  '/admin/jobs/:jobId/failures',
  '/admin/dead-letters',
];
const DEFAULT_RETURN = `${ADMIN_PATH}/jobs?f=html`;
/** Longest return path kept (it travels in the sign-in cookie). */
const MAX_RETURN_LENGTH = 1024;

/**
 * The secret sealing sign-in state: AUTH_WEB_STATE_SECRET when set; else, in scaled mode, one
 * random secret for the whole deployment kept in Redis; else (embedded) one per process.
 */
function signInSecret(
  configured: string | undefined,
  shared: (() => JobQueues) | undefined,
): SecretSource | undefined {
  if (configured !== undefined) return async () => Buffer.from(configured);
  if (shared) return () => shared().sharedSecret('admin:sign-in-secret');
  return undefined;
}

/** A local admin path with an optional query: no scheme, no host, no `//`, no backslash. */
const RETURN_PATH = /^\/catalogue\/admin(\/[A-Za-z0-9\-._~%:@!$&'()*+,;=/]*)?(\?[^\s#\\]*)?$/;

/** Where to go after signing in: a validated local admin path (never another site). */
export function parseReturnTo(value: unknown): string {
  return typeof value === 'string' &&
    value.length <= MAX_RETURN_LENGTH &&
    RETURN_PATH.test(value) &&
    !value.includes('//')
    ? value
    : DEFAULT_RETURN;
}

/** Builds the admin HTML router (mounted at /catalogue, before the JSON admin router). */
export function createAdminHtmlRouter(dependencies: AdminHtmlDependencies): Router {
  const { config, auth, ingestLog, queue } = dependencies;
  const { signIn, provider } = config.auth;
  // Scaled mode keeps sessions in Redis, so a browser may reach any API process; the queues'
  // Redis connection opens on the first sign-in, as it does on the first write.
  const shared = config.redisUrl ? () => queue() as JobQueues : undefined;
  const sessions =
    signIn && provider && auth.verifier
      ? new AdminSessions({
          signIn,
          provider: new OidcSignIn({ issuer: provider.issuer, clientId: signIn.clientId }),
          verifier: auth.verifier,
          requirement: { role: config.auth.writeRole },
          stores: shared && {
            sessions: lazyStore(() =>
              shared().expiringStore<Session>('admin:session', MAX_SESSIONS),
            ),
          },
          signInSecret: signInSecret(signIn?.stateSecret, shared),
        })
      : undefined;
  const requireSessions = (): AdminSessions => {
    if (!sessions) throw new SignInNotConfiguredError();
    return sessions;
  };
  const pageRequest = (
    request: Request,
    response: Response,
  ): PageRequest & { operator: OperatorView } => ({
    baseUrl: request.publicBaseUrl,
    service: config.service,
    operator: response.locals.operator as OperatorView,
  });
  const paging = (request: Request) => ({
    limit: parseCount(request.query.limit, 'limit', 50, 1000),
    offset: parseCount(request.query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
  });
  const getEntry = async (id: string) => {
    const entry = await ingestLog().get(id);
    if (!entry) throw new NotFoundError(`No job "${id}" in the ingest log`);
    return entry;
  };

  const router = Router();
  router.get('/admin/sign-in', async (request, response) => {
    await requireSessions().beginSignIn(request, response, parseReturnTo(request.query.return));
  });
  router.get('/admin/callback', async (request, response) => {
    await requireSessions().completeSignIn(request, response);
  });
  // Every state-changing form of these pages goes through the same-origin check first
  // (test/unit/admin-forms.test.ts walks this router and fails on a POST without it).
  const sameOrigin = requireSameOrigin((request) => [
    request.publicBaseUrl,
    ...(signIn?.redirectBase ? [signIn.redirectBase] : []),
  ]);
  router.post('/admin/sign-out', sameOrigin, async (request, response) => {
    await requireSessions().signOut(request, response);
  });
  router.get('/admin/signed-out', (request, response) => {
    const message = {
      status: 200,
      title: 'Signed out',
      description: 'You are signed out of the admin pages and of the identity provider.',
    };
    response.type('html').send(
      renderAdminMessagePage(message, {
        baseUrl: request.publicBaseUrl,
        service: config.service,
      }),
    );
  });

  // The pages: HTML requests only, and only for a signed-in operator with the role.
  router.get(PAGES, (request, _response, next) => next(wantsHtml(request) ? undefined : 'router'));
  router.get(PAGES, async (request, response, next) => {
    const current = requireSessions();
    const identity = await current.authenticate(request, response);
    if (!identity)
      return current.beginSignIn(request, response, parseReturnTo(request.originalUrl));
    request.auth = identity.token;
    response.locals.operator = {
      userName: identity.userName,
      signOutAction: `${request.publicBaseUrl}${ADMIN_PATH}/sign-out`,
    } satisfies OperatorView;
    response.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.get('/admin', (request, response) => {
    response.redirect(303, `${request.publicBaseUrl}${DEFAULT_RETURN}`);
  });
  router.get('/admin/jobs', async (request, response) => {
    const { limit, offset } = paging(request);
    const page = await ingestLog().list({ limit, offset });
    response
      .type('html')
      .send(
        renderJobsPage(
          page.entries,
          { limit, offset, total: page.total },
          pageRequest(request, response),
        ),
      );
  });
  router.get('/admin/jobs/:jobId', async (request, response) => {
    const entry = await getEntry(String(request.params.jobId));
    response.type('html').send(renderJobPage(entry, pageRequest(request, response)));
  });
  router.get('/admin/jobs/:jobId/failures', async (request, response) => {
    const { limit, offset } = paging(request);
    const entry = await getEntry(String(request.params.jobId));
    const failures = entry.failures.slice(offset, offset + limit);
    const total = entry.failures.length;
    response
      .type('html')
      .send(
        renderFailuresPage(
          entry.jobId,
          failures,
          { limit, offset, total },
          pageRequest(request, response),
        ),
      );
  });
  router.get('/admin/dead-letters', async (request, response) => {
    const { limit, offset } = paging(request);
    const store = queue()?.deadLetters;
    const all = store ? (await store.list()).reverse() : undefined; // newest first
    response
      .type('html')
      .send(
        renderDeadLettersPage(
          all?.slice(offset, offset + limit),
          { limit, offset, total: all?.length ?? 0 },
          pageRequest(request, response),
        ),
      );
  });

  router.use(renderAdminError(config.service));
  return router;
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Access denied',
  404: 'Not found',
  503: 'Unavailable',
};

/** Renders this router's errors as admin message pages (never a bearer challenge). */
function renderAdminError(service: Config['service']) {
  return (error: unknown, request: Request, response: Response, next: NextFunction): void => {
    if (response.headersSent) return next(error);
    const cairnError = fromHttpError(error);
    const described = describeForClient(cairnError, request);
    if (described.code === 'SIGN_IN_FAILED')
      request.log.info('admin sign-in failed', { reason: described.description });
    if (cairnError.retryAfter && described.status === 503)
      response.setHeader('Retry-After', String(cairnError.retryAfter));
    const title =
      described.code === 'SIGN_IN_FAILED'
        ? 'Sign-in failed'
        : (TITLES[described.status] ?? 'Server error');
    const userName = response.locals.adminUser as string | undefined;
    response
      .status(described.status)
      .setHeader('Cache-Control', 'no-store')
      .type('html')
      .send(
        renderAdminMessagePage(
          { ...described, title },
          {
            baseUrl: request.publicBaseUrl,
            service,
            operator: userName
              ? { userName, signOutAction: `${request.publicBaseUrl}${ADMIN_PATH}/sign-out` }
              : undefined,
          },
        ),
      );
  };
}
