/**
 * The checks of shared state across replicas: an admin sign-in session opened on one API
 * replica is honoured by the other (sessions live in Redis), and a harvest source registered
 * through one replica and run through the other is harvested by a worker (sources live in
 * Redis, the run is a queued job).
 */
import { CookieJar, loginAtProvider, syncSignInClients } from '../../test/support/admin-sign-in.js';
import { sleep } from './client.js';

const JOBS = '/catalogue/admin/jobs';
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A browser request to one replica: the jar's cookies, redirects not followed. */
async function browse(origin: string, jar: CookieJar, pathAndQuery: string): Promise<Response> {
  const target = new URL(pathAndQuery, origin);
  const cookie = jar.header(target.pathname);
  const response = await fetch(target, {
    redirect: 'manual',
    headers: { accept: HTML, ...(cookie ? { cookie } : {}) },
  });
  jar.store(response.headers.getSetCookie());
  return response;
}

export interface SessionCheck {
  signedInOn: string;
  usedOn: string;
  /** Status of the admin page on the second replica with the first one's session. */
  status: number;
  shared: boolean;
  problem?: string;
}

/** Signs alice in on `first` (Keycloak's login form), then opens the jobs page on `second`. */
export async function checkSharedSession(first: string, second: string): Promise<SessionCheck> {
  const check: SessionCheck = { signedInOn: first, usedOn: second, status: 0, shared: false };
  try {
    await syncSignInClients(['cairn-web']);
    const jar = new CookieJar();
    const start = await browse(first, jar, `${JOBS}?f=html`);
    if (start.status !== 303) throw new Error(`sign-in did not start: HTTP ${start.status}`);
    const callback = new URL(
      await loginAtProvider(String(start.headers.get('location')), jar, 'alice'),
    );
    const done = await browse(first, jar, `${callback.pathname}${callback.search}`);
    if (done.status !== 303) throw new Error(`callback on ${first}: HTTP ${done.status}`);
    const page = await browse(second, jar, JOBS);
    check.status = page.status;
    const text = await page.text();
    check.shared = page.status === 200 && text.includes('Signed in as');
    if (!check.shared) check.problem = `HTTP ${page.status} on ${second}: ${text.slice(0, 200)}`;
  } catch (error) {
    check.problem = (error as Error).message;
  }
  return check;
}

export interface SourceCheck {
  createdOn: string;
  runOn: string;
  source: string;
  jobId?: string;
  status?: string | undefined;
  written?: number | undefined;
  expected: number;
  harvested: boolean;
  seconds?: number;
  problem?: string;
}

/**
 * Registers a source on `first`, runs it through `second`, and follows the job through the
 * balancer until the worker finished it.
 */
export async function checkHarvestSource(options: {
  first: string;
  second: string;
  balancer: string;
  sourceUrl: string;
  expected: number;
  token: () => string;
}): Promise<SourceCheck> {
  const id = `cluster-check-${Date.now().toString(36)}`;
  const check: SourceCheck = {
    createdOn: options.first,
    runOn: options.second,
    source: id,
    expected: options.expected,
    harvested: false,
  };
  const call = (origin: string, path: string, method = 'GET', body?: unknown) =>
    fetch(`${origin}/catalogue/admin/sources${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token()}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const began = Date.now();
  try {
    const created = await call(options.first, '', 'POST', {
      id,
      protocol: 'records',
      url: options.sourceUrl,
      pageSize: 10,
    });
    if (created.status !== 201)
      throw new Error(`source not created: HTTP ${created.status} ${await created.text()}`);
    const run = await call(options.second, `/${id}/run`, 'POST');
    const queued = (await run.json()) as { jobId?: string };
    if (run.status !== 202 || !queued.jobId)
      throw new Error(`run not queued: HTTP ${run.status} ${JSON.stringify(queued)}`);
    check.jobId = queued.jobId;
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const job = await fetch(
        `${options.balancer}/catalogue/admin/jobs/${encodeURIComponent(queued.jobId)}`,
        { headers: { authorization: `Bearer ${options.token()}` } },
      );
      if (job.status === 200) {
        const entry = (await job.json()) as { status?: string; written?: number };
        check.status = entry.status;
        check.written = entry.written;
        if (entry.status === 'completed' || entry.status === 'failed') break;
      }
      await sleep(1000);
    }
    check.seconds = Math.round((Date.now() - began) / 100) / 10;
    check.harvested = check.status === 'completed' && check.written === options.expected;
    if (!check.harvested)
      check.problem = `job ${check.jobId}: ${check.status ?? 'never finished'}, ${check.written ?? 0} of ${options.expected} written`;
    await call(options.first, `/${id}`, 'DELETE').catch(() => undefined);
  } catch (error) {
    check.problem = (error as Error).message;
  }
  return check;
}
