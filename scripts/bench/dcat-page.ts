/**
 * What a page of 100 records costs to present as DCAT-AP (Turtle, RDF/XML, JSON-LD) against the
 * GeoJSON page, in the API process's own functions (no HTTP, no search): the sample records of
 * every format, repeated to 100, presented in turn for several rounds; prints the median ms per
 * page and the ratio to GeoJSON, and writes them to a JSON file.
 *
 *   npx tsx scripts/bench/dcat-page.ts [--rounds 20] [--out bench/results/dcat-page.json]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { loadConfig } from '../../shared/config/index.js';
import { presentItems, type PageContext } from '../../services/api/protocols/records/present.js';
import {
  presentDcatItems,
  type DcatFormat,
} from '../../services/api/protocols/records/present-dcat.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '20' }, out: { type: 'string' } },
});
const rounds = Number(values.rounds);

const samples: CoreRecord[] = ['dublin-core-cite', 'iso19139', 'iso19115-3', 'stac'].flatMap(
  (folder) =>
    readdirSync(join('data', 'samples', folder))
      .filter((name) => /\.(xml|json)$/.test(name))
      .flatMap(
        (name) =>
          parseDocuments(readFileSync(join('data', 'samples', folder, name), 'utf8')).records,
      ),
);
const records = Array.from({ length: 100 }, (_, index) => samples[index % samples.length]).filter(
  (record): record is CoreRecord => record !== undefined,
);
const result = { records, total: 10_000 };
const context: PageContext = {
  baseUrl: 'http://127.0.0.1:8000',
  query: { limit: '100' },
  offset: 100,
  limit: 100,
  timeStamp: new Date().toISOString(),
};
const service = loadConfig({}).service;

const VARIANTS: Record<string, () => Promise<number>> = {
  geojson: () => Promise.resolve(JSON.stringify(presentItems(result, context)).length),
  ...Object.fromEntries(
    (['ttl', 'rdf', 'dcat'] as DcatFormat[]).map((format) => [
      format,
      () => Promise.resolve(presentDcatItems(result, context, service, format).body.length),
    ]),
  ),
};

const times: Record<string, number[]> = Object.fromEntries(
  Object.keys(VARIANTS).map((name) => [name, []]),
);
const bytes: Record<string, number> = {};
for (let round = 0; round < rounds + 2; round += 1) {
  for (const [name, run] of Object.entries(VARIANTS)) {
    const started = process.hrtime.bigint();
    bytes[name] = await run();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (round >= 2) times[name]?.push(ms); // two warm-up rounds
  }
}
const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const geojson = median(times.geojson ?? []);
const report = Object.fromEntries(
  Object.entries(times).map(([name, list]) => [
    name,
    {
      medianMs: Number(median(list).toFixed(2)),
      ratio: Number((median(list) / geojson).toFixed(2)),
      bytes: bytes[name],
    },
  ]),
);
console.table(report);
if (values.out) writeFileSync(values.out, `${JSON.stringify({ rounds, report }, null, 2)}\n`);
