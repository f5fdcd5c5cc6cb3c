/**
 * Times CQL2 array operators (A_*) against a long literal on the embedded backend: generated
 * records in an in-memory SQLite, each operator with a literal of 10 and of N strings, and one
 * NOT A_OVERLAPS that evaluates every record.
 *
 *   npx tsx scripts/bench/array-operators.ts [--records 10000] [--items 1000]
 */
import { parseArgs } from 'node:util';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { parseCql2Json } from '../../shared/query/cql2/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateRecords } from '../corpus/generator.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    items: { type: 'string', default: '1000' },
  },
});
const backend = new SqliteBackend({ path: ':memory:' });
await backend.init();
await ingestDocuments(
  backend,
  [...generateRecords(Number(values.records), 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  })),
);

async function time(label: string, filter: unknown): Promise<void> {
  const started = performance.now();
  const result = await backend.search({
    filter: checkFilter(parseCql2Json(filter)),
    sort: [],
    offset: 0,
    limit: 10,
  });
  console.log(
    `${label.padEnd(28)} ${String(result.total).padStart(6)} matched ${(performance.now() - started).toFixed(1).padStart(9)} ms`,
  );
}

const literal = (count: number): string[] => [
  ...Array.from({ length: count - 2 }, (_, i) => `kw${i}`),
  'soil',
  'flood',
];
for (const count of [10, Number(values.items)]) {
  for (const op of ['a_overlaps', 'a_contains', 'a_containedBy', 'a_equals']) {
    await time(`${op} ${count}`, { op, args: [{ property: 'keywords' }, literal(count)] });
  }
  await time(`not a_overlaps ${count}`, {
    op: 'not',
    args: [{ op: 'a_overlaps', args: [{ property: 'keywords' }, literal(count)] }],
  });
}
await backend.close();
