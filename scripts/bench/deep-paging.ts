/**
 * Sequential deep paging through the API, as a CSW harvester pages: for each sampled page k
 * (pages of 10), the first request for page k (a jump) and then the next pages k+1…k+3 in
 * order (sequential), each compared with the same measurement at page 1. Those jumps may
 * start from checkpoints the shallower pages left; cold jumps (`measureColdJump`) run in an
 * API process of their own, which has none.
 */
import { COLLECTION_ID } from '../../services/api/common/urls.js';
import { cswGetRecords } from './csw-get-records.js';
import { median } from './median.js';

/** One sampled page. */
export interface DeepPageSample {
  page: number;
  offset: number;
  jumpMs: number;
  sequentialMs: number;
  jumpRatio: number;
  sequentialRatio: number;
  status: number;
}

/** The deep-paging part of a result. */
export interface DeepPagingResult {
  endpoint: string;
  pageSize: number;
  samples: DeepPageSample[];
  note?: string;
}

const SEQUENTIAL_PAGES = 3;

function ms(value: number): number {
  return Math.round(value * 100) / 100;
}

function cswPagePath(page: number, pageSize: number): string {
  const parameters = new URLSearchParams(
    cswGetRecords('brief', pageSize, { startPosition: String((page - 1) * pageSize + 1) }),
  );
  return `/catalogue/csw?${parameters.toString()}`;
}

/** The Records items page at `offset` (OGC API Records `offset` and `limit`). */
function recordsPagePath(offset: number, pageSize: number): string {
  const parameters = new URLSearchParams({ offset: String(offset), limit: String(pageSize) });
  return `/catalogue/collections/${encodeURIComponent(COLLECTION_ID)}/items?${parameters.toString()}`;
}

async function timePath(origin: string, path: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(`${origin}${path}`);
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

function timePage(
  origin: string,
  page: number,
  pageSize: number,
): Promise<{ ms: number; status: number }> {
  return timePath(origin, cswPagePath(page, pageSize));
}

/** The protocols a cold jump is measured through. */
export type JumpEndpoint = 'csw' | 'records';

/** One cold jump: a fresh API process, page 1, then straight to the offset and on. */
export interface ColdJumpResult {
  endpoint: JumpEndpoint;
  /** What the request names: `startPosition` (CSW, 1-based) or `offset` (Records). */
  request: string;
  offset: number;
  pageSize: number;
  /** Median of three page-1 requests in the same process, after a warm-up request. */
  page1Ms: number;
  jumpMs: number;
  jumpRatio: number;
  /** Median of the next three pages, fetched in order. */
  sequentialMs: number;
  sequentialRatio: number;
  status: number;
}

function pagePath(endpoint: JumpEndpoint, offset: number, pageSize: number): string {
  return endpoint === 'csw'
    ? cswPagePath(offset / pageSize + 1, pageSize)
    : recordsPagePath(offset, pageSize);
}

/**
 * Times a cold jump on a fresh API process (`origin`, which has served nothing yet and shares
 * no checkpoints): page 1 once to warm the route and connection, page 1 three more times
 * (their median is the yardstick), the page at `offset`, then the next three pages in order.
 */
export async function measureColdJump(
  origin: string,
  endpoint: JumpEndpoint,
  offset: number,
  pageSize: number,
): Promise<ColdJumpResult> {
  if (offset % pageSize !== 0) throw new Error(`offset ${offset} is not a multiple of ${pageSize}`);
  await timePath(origin, pagePath(endpoint, 0, pageSize));
  const firsts: number[] = [];
  let status = 200;
  for (let repetition = 0; repetition < SEQUENTIAL_PAGES; repetition += 1) {
    const timing = await timePath(origin, pagePath(endpoint, 0, pageSize));
    firsts.push(timing.ms);
    if (timing.status !== 200) status = timing.status;
  }
  const jump = await timePath(origin, pagePath(endpoint, offset, pageSize));
  if (jump.status !== 200) status = jump.status;
  const sequential: number[] = [];
  for (let next = 1; next <= SEQUENTIAL_PAGES; next += 1) {
    const timing = await timePath(origin, pagePath(endpoint, offset + next * pageSize, pageSize));
    sequential.push(timing.ms);
    if (timing.status !== 200) status = timing.status;
  }
  const page1Ms = median(firsts);
  const sequentialMs = median(sequential);
  return {
    endpoint,
    request: endpoint === 'csw' ? `startPosition=${offset + 1}` : `offset=${offset}`,
    offset,
    pageSize,
    page1Ms: ms(page1Ms),
    jumpMs: ms(jump.ms),
    jumpRatio: Math.round((jump.ms / page1Ms) * 100) / 100,
    sequentialMs: ms(sequentialMs),
    sequentialRatio: Math.round((sequentialMs / page1Ms) * 100) / 100,
    status,
  };
}

/** The pages that fit a corpus (the last sampled page still has SEQUENTIAL_PAGES after it). */
export function clampPages(
  pages: number[],
  corpusSize: number,
  pageSize: number,
): { pages: number[]; deepest: number } {
  const deepest = Math.max(1, Math.floor(corpusSize / pageSize) - SEQUENTIAL_PAGES);
  const clamped = [...new Set(pages.map((page) => Math.min(page, deepest)))].sort((a, b) => a - b);
  return { pages: clamped[0] === 1 ? clamped : [1, ...clamped], deepest };
}

/** Samples deep pages through CSW GetRecords (startPosition). */
export async function measureDeepPaging(
  origin: string,
  corpusSize: number,
  wanted: number[],
  pageSize: number,
): Promise<DeepPagingResult> {
  const { pages, deepest } = clampPages(wanted, corpusSize, pageSize);
  // Warm the route, the connection and page 1's query before measuring.
  await timePage(origin, 1, pageSize);
  await timePage(origin, 2, pageSize);
  const samples: DeepPageSample[] = [];
  for (const page of pages) {
    const jump = await timePage(origin, page, pageSize);
    const sequential: number[] = [];
    let status = jump.status;
    for (let next = 1; next <= SEQUENTIAL_PAGES; next += 1) {
      const timing = await timePage(origin, page + next, pageSize);
      sequential.push(timing.ms);
      if (timing.status !== 200) status = timing.status;
    }
    samples.push({
      page,
      offset: (page - 1) * pageSize,
      jumpMs: ms(jump.ms),
      sequentialMs: ms(median(sequential)),
      jumpRatio: 0,
      sequentialRatio: 0,
      status,
    });
  }
  const [first] = samples;
  if (first !== undefined) {
    for (const sample of samples) {
      sample.jumpRatio = Math.round((sample.jumpMs / first.jumpMs) * 100) / 100;
      sample.sequentialRatio = Math.round((sample.sequentialMs / first.sequentialMs) * 100) / 100;
    }
  }
  const clampedAway = wanted.filter((page) => page > deepest);
  return {
    endpoint: 'CSW 2.0.2 GetRecords brief, startPosition',
    pageSize,
    samples,
    ...(clampedAway.length > 0 && {
      note: `deep paging: the corpus has ${corpusSize} records, so pages ${clampedAway.join(', ')} are replaced by page ${deepest} (the deepest with ${SEQUENTIAL_PAGES} pages after it)`,
    }),
  };
}
