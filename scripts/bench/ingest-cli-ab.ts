/**
 * The ingest CLI of two checkouts on one corpus: `npm run ingest`'s script run by each
 * checkout's own code into a fresh SQLite file, one process per run, the two alternated and
 * their order swapped every round so that each meets the machine's load as often first as
 * second. The corpus is the ISO 19139 and ISO 19115-3 samples of `data/samples` copied to
 * `--files` files, each copy with an identifier of its own (the multilingual samples among
 * them, so translations are parsed, indexed and written in their share). Prints and writes the
 * records per second of every run (wall time of the process, start-up included, as a user
 * sees it) with the 1-minute load average.
 *
 *   npx tsx scripts/bench/ingest-cli-ab.ts --base DIR [--files 3000] [--rounds 8] [--out FILE]
 *
 * `--base` is a checkout of the other commit with its node_modules; this checkout is "branch".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './median.js';
import { readLoadAverage } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    files: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '8' },
    out: { type: 'string' },
  },
});
if (values.base === undefined) throw new Error('--base DIR (a checkout of the other commit)');
const sides = { base: resolve(values.base), branch: REPO_ROOT };
const files = Number(values.files);
const rounds = Number(values.rounds);

/** The identifier element of each ISO schema: its text is replaced in every copy. */
const IDENTIFIERS = [
  /(<gmd:fileIdentifier[^>]*>\s*<gco:CharacterString[^>]*>)([^<]*)(<\/gco:CharacterString>)/,
  /(<mdb:metadataIdentifier[^>]*>\s*<mcc:MD_Identifier[^>]*>\s*<mcc:code[^>]*>\s*<gco:CharacterString[^>]*>)([^<]*)(<\/gco:CharacterString>)/,
];

/** Writes the corpus: the ISO samples copied round-robin, each with its own identifier. */
function writeCorpus(directory: string): void {
  const templates = ['iso19139', 'iso19115-3'].flatMap((folder) =>
    readdirSync(join(REPO_ROOT, 'data', 'samples', folder))
      .filter((name) => name.endsWith('.xml'))
      .sort()
      .map((name) => readFileSync(join(REPO_ROOT, 'data', 'samples', folder, name), 'utf8')),
  );
  mkdirSync(directory, { recursive: true });
  for (let index = 0; index < files; index += 1) {
    const template = templates[index % templates.length]!;
    const id = `ingest-ab-${String(index).padStart(6, '0')}`;
    const pattern = IDENTIFIERS.find((candidate) => candidate.test(template));
    if (!pattern) throw new Error(`sample ${index % templates.length} has no identifier element`);
    writeFileSync(join(directory, `${id}.xml`), template.replace(pattern, `$1${id}$3`));
  }
}

interface Run {
  side: 'base' | 'branch';
  round: number;
  seconds: number;
  recordsPerSecond: number;
  loadAverage1m: number;
}

function ingestOnce(side: 'base' | 'branch', corpus: string, database: string): number {
  rmSync(database, { force: true });
  rmSync(`${database}-wal`, { force: true });
  rmSync(`${database}-shm`, { force: true });
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/ingest.ts', corpus, '--quiet'],
    {
      cwd: sides[side],
      env: { ...process.env, SQLITE_PATH: database, LOG_LEVEL: 'warn', REDIS_URL: '' },
      encoding: 'utf8',
    },
  );
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) {
    throw new Error(`${side}: exit ${result.status}: ${result.stderr.slice(0, 500)}`);
  }
  // Every file is one record: a run that wrote fewer measured less work.
  const distinct = /distinct records written: (\d+)/.exec(result.stdout)?.[1];
  if (Number(distinct) !== files) {
    throw new Error(`${side}: ${distinct ?? 'no'} distinct records written of ${files}`);
  }
  return seconds;
}

function main(): void {
  const work = join(tmpdir(), `cairn-ingest-ab-${process.pid}`);
  const corpus = join(work, 'corpus');
  writeCorpus(corpus);
  const commits = Object.fromEntries(
    Object.entries(sides).map(([side, root]) => [
      side,
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
    ]),
  );
  console.log(`[ingest-ab] ${files} files; base ${commits.base}, branch ${commits.branch}`);
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= rounds; round += 1) {
      const order: ('base' | 'branch')[] =
        round % 2 === 1 ? ['base', 'branch'] : ['branch', 'base'];
      for (const side of order) {
        const seconds = ingestOnce(side, corpus, join(work, `${side}.sqlite`));
        const run: Run = {
          side,
          round,
          seconds: Math.round(seconds * 100) / 100,
          recordsPerSecond: Math.round(files / seconds),
          loadAverage1m: readLoadAverage()[0],
        };
        runs.push(run);
        console.log(
          `[ingest-ab] round ${round} ${side}: ${run.recordsPerSecond} records/s (${run.seconds} s), load ${run.loadAverage1m}`,
        );
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const medianOf = (side: 'base' | 'branch') =>
    median(runs.filter((run) => run.side === side).map((run) => run.recordsPerSecond));
  const summary = { base: medianOf('base'), branch: medianOf('branch') };
  console.log(
    `[ingest-ab] medians: base ${summary.base}, branch ${summary.branch} records/s (branch/base ${(summary.branch / summary.base).toFixed(3)})`,
  );
  if (values.out) {
    mkdirSync(dirname(resolve(values.out)), { recursive: true });
    writeFileSync(
      values.out,
      `${JSON.stringify({ benchmark: 'ingest-cli-ab', date: new Date().toISOString(), files, commits, summary, runs }, null, 2)}\n`,
    );
    console.log(`[ingest-ab] wrote ${values.out}`);
  }
}

main();
