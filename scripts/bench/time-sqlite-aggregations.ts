/**
 * Times SqliteBackend.aggregate over a whole SQLite catalogue (no query), one aggregation at a
 * time on the calling thread: `stats`, the month and day histograms and the geohash grid at
 * precisions 1, 3 and 5. Prints the median and each answer's size, first buckets and total, so
 * that two builds run on copies of one file can be compared answer for answer.
 * Usage: tsx scripts/bench/time-sqlite-aggregations.ts FILE [REPEATS]
 */
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { AggregationRequest } from '../../shared/search/aggregations.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

const REQUESTS: Record<string, AggregationRequest> = {
  stats: { kind: 'stats' },
  month: { kind: 'histogram', interval: 'month' },
  day: { kind: 'histogram', interval: 'day' },
  grid3: { kind: 'grid', precision: 3 },
  grid1: { kind: 'grid', precision: 1 },
  grid5: { kind: 'grid', precision: 5 },
};

const [file, repeatText = '5'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: time-sqlite-aggregations.ts FILE [REPEATS]');
const repeats = Number(repeatText);
// The backend's default time budget would cut the heaviest grids on a busy machine.
const backend = new SqliteBackend({ path: file, timeBudgetMs: 60_000 });
const query: SearchQuery = { limit: 10, offset: 0, sort: [] };
try {
  for (const [name, request] of Object.entries(REQUESTS)) {
    const times: number[] = [];
    let summary = '';
    for (let index = 0; index < repeats; index += 1) {
      const start = process.hrtime.bigint();
      const answer = (await backend.aggregate(query, { a: request })).a;
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (answer?.kind === 'buckets') {
        const total = answer.buckets.reduce((sum, bucket) => sum + bucket.count, 0);
        summary = `${answer.buckets.length} buckets, first ${JSON.stringify(answer.buckets.slice(0, 2))}, sum ${total}`;
      } else if (answer?.kind === 'stats') {
        summary = JSON.stringify(answer.stats);
      }
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
    console.log(`${name}: p50 ${median.toFixed(1)} ms; ${summary}`);
  }
} finally {
  await backend.close();
}
