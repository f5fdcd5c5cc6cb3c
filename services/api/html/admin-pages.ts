/**
 * The admin HTML pages (ingest log, one job, its failures, the dead-letter list, and the
 * sign-in messages), in the look of the public pages (base.njk). Pure apart from reading
 * templates: the routes fetch the data and pass it in.
 */
import type { DeadLetter } from '../../../shared/queue/dead-letter-store.js';
import type { IngestFailure, IngestLogEntry } from '../../../shared/ingest/ingest-log.js';
import { itemsUrl, jobUrl } from '../common/urls.js';
import { renderTemplate } from './render.js';
import { buildPage, type Breadcrumb, type PageView } from './views.js';
import type { PageRequest } from './pages.js';

/** Who is signed in, for the header of every admin page. */
export interface OperatorView {
  userName: string;
  /** The sign-out form's action (POST). */
  signOutAction: string;
}

/** A page of a longer list: where it starts and the neighbouring pages' addresses. */
export interface Paging {
  offset: number;
  limit: number;
  total: number;
}

type JobSummary = Omit<IngestLogEntry, 'failures'>;

const admin = (baseUrl: string) => `${baseUrl}/catalogue/admin`;

/** The common page view, with the admin navigation instead of the public one. */
function buildAdminPage(
  request: PageRequest,
  title: string,
  breadcrumbs: Breadcrumb[],
  current?: 'jobs' | 'dead-letters',
): PageView {
  const page = buildPage({
    ...request,
    title,
    links: [],
    breadcrumbs: [
      { title: 'Admin', href: `${admin(request.baseUrl)}/jobs?f=html` },
      ...breadcrumbs,
    ],
  });
  page.nav = [
    {
      title: 'Search',
      href: `${itemsUrl(request.baseUrl)}?f=html`,
      current: false,
    },
    { title: 'Jobs', href: `${admin(request.baseUrl)}/jobs?f=html`, current: current === 'jobs' },
    {
      title: 'Dead letters',
      href: `${admin(request.baseUrl)}/dead-letters?f=html`,
      current: current === 'dead-letters',
    },
  ];
  return page;
}

/** "850 ms", "12.4 s", "3 min 05 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** An ISO timestamp as "2025-03-01 14:05:09 UTC" (the value itself goes in `datetime`). */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Previous/next links and the "1–50 of 120" numbers of a paged list. */
export function buildPager(paging: Paging, shown: number, href: (offset: number) => string) {
  const { offset, limit, total } = paging;
  return {
    first: shown > 0 ? offset + 1 : 0,
    last: offset + shown,
    total,
    prev: offset > 0 ? href(Math.max(0, offset - limit)) : undefined,
    next: offset + shown < total && shown > 0 ? href(offset + limit) : undefined,
  };
}

const jobHref = (baseUrl: string, jobId: string) => `${jobUrl(baseUrl, jobId)}?f=html`;

function buildJobRow(baseUrl: string, job: JobSummary) {
  return {
    ...job,
    href: jobHref(baseUrl, job.jobId),
    started: formatTimestamp(job.startedAt),
    finished: formatTimestamp(job.finishedAt),
    duration: formatDuration(job.durationMs),
  };
}

/** The ingest log: jobs newest first, with status, counts and timings. */
export function renderJobsPage(
  jobs: JobSummary[],
  paging: Paging,
  request: PageRequest & { operator: OperatorView },
): string {
  const page = buildAdminPage(request, 'Ingest jobs', [{ title: 'Jobs' }], 'jobs');
  const list = `${admin(request.baseUrl)}/jobs`;
  return renderTemplate('admin-jobs.njk', {
    page,
    operator: request.operator,
    jobs: jobs.map((job) => buildJobRow(request.baseUrl, job)),
    pager: buildPager(
      paging,
      jobs.length,
      (offset) => `${list}?f=html&limit=${paging.limit}&offset=${offset}`,
    ),
  });
}

/** One job: every field of its log entry and the way to its failures. */
export function renderJobPage(
  job: IngestLogEntry,
  request: PageRequest & { operator: OperatorView },
): string {
  const page = buildAdminPage(request, `Job ${job.jobId}`, [
    { title: 'Jobs', href: `${admin(request.baseUrl)}/jobs?f=html` },
    { title: job.jobId },
  ]);
  const { failures, ...summary } = job;
  return renderTemplate('admin-job.njk', {
    page,
    operator: request.operator,
    job: buildJobRow(request.baseUrl, summary),
    failureCount: failures.length,
    failuresHref: `${admin(request.baseUrl)}/jobs/${encodeURIComponent(job.jobId)}/failures?f=html`,
  });
}

/** A job's failed records with their reasons, paged. */
export function renderFailuresPage(
  jobId: string,
  failures: IngestFailure[],
  paging: Paging,
  request: PageRequest & { operator: OperatorView },
): string {
  const page = buildAdminPage(request, `Failures of job ${jobId}`, [
    { title: 'Jobs', href: `${admin(request.baseUrl)}/jobs?f=html` },
    { title: jobId, href: jobHref(request.baseUrl, jobId) },
    { title: 'Failures' },
  ]);
  const list = `${admin(request.baseUrl)}/jobs/${encodeURIComponent(jobId)}/failures`;
  return renderTemplate('admin-failures.njk', {
    page,
    operator: request.operator,
    jobId,
    jobHref: jobHref(request.baseUrl, jobId),
    failures,
    pager: buildPager(
      paging,
      failures.length,
      (offset) => `${list}?f=html&limit=${paging.limit}&offset=${offset}`,
    ),
  });
}

/** Longest payload shown inline on the dead-letter page; the JSON endpoint has the rest. */
const PAYLOAD_PREVIEW = 20_000;

/** Dead letters (bad records kept with payload and reason), or why there are none to show. */
export function renderDeadLettersPage(
  letters: DeadLetter[] | undefined,
  paging: Paging,
  request: PageRequest & { operator: OperatorView },
): string {
  const page = buildAdminPage(request, 'Dead letters', [{ title: 'Dead letters' }], 'dead-letters');
  const list = `${admin(request.baseUrl)}/dead-letters`;
  const rows = (letters ?? []).map((letter) => {
    const text =
      typeof letter.payload === 'string' ? letter.payload : JSON.stringify(letter.payload, null, 2);
    return {
      ...letter,
      when: formatTimestamp(letter.at),
      jobHref: jobHref(request.baseUrl, letter.jobId),
      payloadText: text.length > PAYLOAD_PREVIEW ? `${text.slice(0, PAYLOAD_PREVIEW)}\n…` : text,
      truncated: text.length > PAYLOAD_PREVIEW,
    };
  });
  return renderTemplate('admin-dead-letters.njk', {
    page,
    operator: request.operator,
    queueConfigured: letters !== undefined,
    letters: rows,
    pager: buildPager(
      paging,
      rows.length,
      (offset) => `${list}?f=html&limit=${paging.limit}&offset=${offset}`,
    ),
  });
}

/**
 * A message page of the sign-in flow and the admin errors: signed out, sign-in failed,
 * forbidden (with a sign-out button), not configured, provider unreachable.
 */
export function renderAdminMessagePage(
  message: { status: number; title: string; description: string; code?: string },
  request: PageRequest & { operator?: OperatorView | undefined },
): string {
  const page = buildAdminPage(request, message.title, [{ title: message.title }]);
  return renderTemplate('admin-message.njk', {
    page,
    operator: request.operator,
    message,
    signInHref: `${admin(request.baseUrl)}/sign-in`,
  });
}
