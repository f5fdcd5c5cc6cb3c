/**
 * Sequential deep paging through the API, as a CSW harvester pages: for each sampled page k
 * (pages of 10), the first request for page k (a jump) and then the next pages k+1…k+3 in
 * order (sequential), each compared with the same measurement at page 1.
 */

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function cswPagePath(page: number, pageSize: number): string {
  const parameters = new URLSearchParams({
    service: 'CSW',
    version: '2.0.2',
    request: 'GetRecords',
    typeNames: 'csw:Record',
    resultType: 'results',
    elementSetName: 'brief',
    maxRecords: String(pageSize),
    startPosition: String((page - 1) * pageSize + 1),
  });
  return `/catalogue/csw?${parameters.toString()}`;
}

async function timePage(
  origin: string,
  page: number,
  pageSize: number,
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(`${origin}${cswPagePath(page, pageSize)}`);
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
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
  const first = samples[0];
  for (const sample of samples) {
    sample.jumpRatio = Math.round((sample.jumpMs / first.jumpMs) * 100) / 100;
    sample.sequentialRatio = Math.round((sample.sequentialMs / first.sequentialMs) * 100) / 100;
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
