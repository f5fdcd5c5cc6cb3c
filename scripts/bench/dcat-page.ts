/**
 * What a page of 100 records costs to present as DCAT-AP (Turtle, RDF/XML, JSON-LD) against the
 * GeoJSON page, in the API process's own functions (no HTTP, no search): the sample records of
 * every format, repeated to 100, presented in turn for several rounds; prints the median ms per
 * page and the ratio to GeoJSON, and writes them to a JSON file. Every round runs every variant
 * once, in turn (starting one variant further each round), so a comparison is made under the
 * same load.
 *
 * `--before FILE` also times another version of the writers: the variants `ttl-before`,
 * `rdf-before`, `dcat-before`. FILE is a copy of an older `rdf-serialise.ts` placed beside the
 * current one (then the page's quads are built by the current mapping), or of the whole
 * `shared/records/writers/dcat/` folder placed beside it (`…/dcat-before/index.ts`: then the
 * older folder's `buildCatalogPageGraph` builds the quads it writes, so the variants time the
 * older building and writing together, as `ttl` and the others do the current ones).
 *
 * `--floor` adds `graph` (building the page's quads only), `grouped` (those quads without
 * repeats, grouped by subject: what every writer does first) and `n3-writer` (N3.js's Turtle
 * writer over those quads, without prefixes).
 *
 *   npx tsx scripts/bench/dcat-page.ts [--rounds 20] [--out bench/results/dcat-page.json]
 *     [--before shared/records/writers/dcat-before/index.ts] [--floor]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writer, type Quad } from 'n3';
import { parseArgs } from 'node:util';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { loadConfig } from '../../shared/config/index.js';
import { presentItems, type PageContext } from '../../services/api/protocols/records/present.js';
import {
  catalogueDescription,
  presentDcatItems,
  type DcatFormat,
} from '../../services/api/protocols/records/present-dcat.js';
import { buildCatalogPageGraph, distinctQuads } from '../../shared/records/writers/dcat/index.js';
import { dcatOptions } from '../../services/api/common/dcat-options.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    out: { type: 'string' },
    before: { type: 'string' },
    floor: { type: 'boolean', default: false },
  },
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

/** The page's quads, built as presentDcatItems builds them (the view's links aside). */
const pageQuads = (build = buildCatalogPageGraph): Quad[] =>
  build(
    records,
    {
      ...catalogueDescription(context.baseUrl, service),
      view: {
        self: 'http://127.0.0.1:8000/x?offset=100',
        first: 'http://127.0.0.1:8000/x',
        last: 'http://127.0.0.1:8000/x?offset=9900',
      },
      totalItems: result.total,
    },
    dcatOptions(context.baseUrl),
  );

interface Writers {
  buildCatalogPageGraph?: typeof buildCatalogPageGraph;
  writeTurtle(quads: readonly Quad[]): string;
  writeRdfXml(quads: readonly Quad[]): string;
  writeJsonLd(quads: readonly Quad[]): unknown;
}
const before = values.before
  ? ((await import(pathToFileURL(resolve(values.before)).href)) as Writers)
  : undefined;

const VARIANTS: Record<string, () => Promise<number>> = {
  geojson: () => Promise.resolve(JSON.stringify(presentItems(result, context)).length),
  ...Object.fromEntries(
    (['ttl', 'rdf', 'dcat'] as DcatFormat[]).flatMap(
      (format): [string, () => Promise<number>][] => [
        [
          format,
          () => Promise.resolve(presentDcatItems(result, context, service, format).body.length),
        ],
        ...(before
          ? [
              <[string, () => Promise<number>]>[
                `${format}-before`,
                () => {
                  const quads = pageQuads(before.buildCatalogPageGraph);
                  const body =
                    format === 'ttl'
                      ? before.writeTurtle(quads)
                      : format === 'rdf'
                        ? before.writeRdfXml(quads)
                        : JSON.stringify(before.writeJsonLd(quads));
                  return Promise.resolve(body.length);
                },
              ],
            ]
          : []),
      ],
    ),
  ),
  ...(values.floor
    ? {
        graph: () => Promise.resolve(pageQuads().length),
        grouped: () => Promise.resolve(distinctQuads(pageQuads()).length),
        'n3-writer': () => {
          const writer = new Writer({ format: 'text/turtle' });
          writer.addQuads(pageQuads());
          let output = '';
          writer.end((error, written: string) => {
            if (error) throw error;
            output = written;
          });
          return Promise.resolve(output.length);
        },
      }
    : {}),
};

const times: Record<string, number[]> = Object.fromEntries(
  Object.keys(VARIANTS).map((name) => [name, []]),
);
const bytes: Record<string, number> = {};
const order = Object.entries(VARIANTS);
for (let round = 0; round < rounds + 2; round += 1) {
  // Each round starts at the next variant, so that no variant always follows the same one (and
  // pays for the garbage that one left).
  const start = round % order.length;
  for (const [name, run] of [...order.slice(start), ...order.slice(0, start)]) {
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
if (values.out)
  writeFileSync(
    values.out,
    `${JSON.stringify({ rounds, loadAverage: loadavg(), report, every: times }, null, 2)}\n`,
  );
