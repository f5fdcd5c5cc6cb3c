/**
 * Writes a deterministic corpus of generated OGC API – Records as NDJSON:
 * `npm run generate -- --count 100000 --out data/corpus-100000.ndjson [--seed 42]`.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { generateRecords } from './corpus/generator.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '42' },
      out: { type: 'string' },
    },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed)) {
    throw new Error('--count and --seed must be integers');
  }
  const out = values.out ?? `data/corpus-${count}.ndjson`;
  mkdirSync(dirname(out), { recursive: true });
  const stream = createWriteStream(out);
  for (const record of generateRecords(count, seed)) {
    if (!stream.write(`${JSON.stringify(record)}\n`)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  console.log(`wrote ${count} records to ${out}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
