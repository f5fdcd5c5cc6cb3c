/**
 * Parse + normalise throughput of ISO 19139 records on one core: loops over the ISO 19139
 * samples (safe XML parse → CoreRecord), prints records per second and writes the figures to
 * bench/results/parse-<date>.json.
 *
 *   npx tsx scripts/bench-parse.ts [--iterations 20000] [--samples DIR] [--out DIR] [--check]
 *
 * `--check` exits non-zero below the 2,000 records/s target. The loop runs in rounds; medians of
 * the per-round rates are reported, by CPU time (records per second of one core's time, the
 * figure the target is checked against, steady on a shared machine) and by wall clock (equal
 * to it on an idle machine), with the load average so a reader can judge the run.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseXmlRecord } from '../shared/records/formats/xml/index.js';
import { median } from './bench/median.js';

const TARGET_RECORDS_PER_SECOND = 2000;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface BenchOptions {
  iterations: number;
  rounds: number;
  warmup: number;
  samples: string;
  out: string;
  check: boolean;
}

function pathValue(flag: string, value: string | undefined): string {
  if (value === undefined) throw new Error(`${flag} needs a value`);
  return resolve(value);
}

function readOptions(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    iterations: 20_000,
    rounds: 5,
    warmup: 2_000,
    samples: resolve(REPO_ROOT, 'data', 'samples', 'iso19139'),
    out: join(REPO_ROOT, 'bench', 'results'),
    check: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--iterations':
        options.iterations = Number(value);
        i += 1;
        break;
      case '--rounds':
        options.rounds = Number(value);
        i += 1;
        break;
      case '--warmup':
        options.warmup = Number(value);
        i += 1;
        break;
      case '--samples':
        options.samples = pathValue('--samples', value);
        i += 1;
        break;
      case '--out':
        options.out = pathValue('--out', value);
        i += 1;
        break;
      case '--check':
        options.check = true;
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  if (!Number.isInteger(options.iterations) || options.iterations < 1) {
    throw new Error('--iterations must be a positive integer');
  }
  if (!Number.isInteger(options.rounds) || options.rounds < 1) {
    throw new Error('--rounds must be a positive integer');
  }
  return options;
}

interface Round {
  wallSeconds: number;
  cpuSeconds: number;
}

/** Runs the benchmark in rounds and returns the result written to disk. */
function runBenchmark(options: BenchOptions): Record<string, unknown> {
  const files = readdirSync(options.samples).filter((name) => name.endsWith('.xml'));
  if (files.length === 0) throw new Error(`no .xml samples in ${options.samples}`);
  const documents = files.map((name) => {
    const text = readFileSync(join(options.samples, name), 'utf8');
    return { text, bytes: Buffer.byteLength(text) };
  });
  /** The samples in turn, round and round (`documents` is not empty). */
  const sample = (count: number) => documents[count % documents.length]!;

  let checksum = 0;
  for (let i = 0; i < options.warmup; i += 1) {
    checksum += parseXmlRecord(sample(i).text).links.length;
  }
  const perRound = Math.ceil(options.iterations / options.rounds);
  const rounds: Round[] = [];
  let totalBytes = 0;
  let parsed = 0;
  for (let round = 0; round < options.rounds; round += 1) {
    const cpuStart = process.cpuUsage();
    const wallStart = process.hrtime.bigint();
    for (let i = 0; i < perRound; i += 1) {
      const { text, bytes } = sample(parsed);
      checksum += parseXmlRecord(text).links.length;
      totalBytes += bytes;
      parsed += 1;
    }
    const cpu = process.cpuUsage(cpuStart);
    rounds.push({
      wallSeconds: Number(process.hrtime.bigint() - wallStart) / 1e9,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    });
  }
  const wallRates = rounds.map((round) => perRound / round.wallSeconds);
  const cpuRates = rounds.map((round) => perRound / round.cpuSeconds);
  const wallSeconds = rounds.reduce((sum, round) => sum + round.wallSeconds, 0);
  const cpuSeconds = rounds.reduce((sum, round) => sum + round.cpuSeconds, 0);
  const recordsPerCpuSecond = Math.round(median(cpuRates));
  return {
    benchmark: 'parse+normalise ISO 19139 → CoreRecord (parseXmlRecord), one core',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    loadAverage1m: Number((loadavg()[0] ?? Number.NaN).toFixed(2)),
    samples: {
      directory: options.samples,
      files: files.length,
      averageBytes: Math.round(totalBytes / parsed),
    },
    iterations: parsed,
    rounds: options.rounds,
    warmup: options.warmup,
    wallSeconds: Number(wallSeconds.toFixed(3)),
    cpuSeconds: Number(cpuSeconds.toFixed(3)),
    recordsPerSecond: Math.round(median(wallRates)),
    bestRecordsPerSecond: Math.round(Math.max(...wallRates)),
    recordsPerCpuSecond,
    megabytesPerSecond: Number((totalBytes / wallSeconds / 1e6).toFixed(1)),
    target: TARGET_RECORDS_PER_SECOND,
    meetsTarget: recordsPerCpuSecond >= TARGET_RECORDS_PER_SECOND,
    checksum,
  };
}

function main(): void {
  const options = readOptions(process.argv.slice(2));
  const result = runBenchmark(options);
  mkdirSync(options.out, { recursive: true });
  const file = join(options.out, `parse-${String(result.date).slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `ISO 19139 parse+normalise: ${String(result.recordsPerCpuSecond)} records per CPU second (one core), ` +
      `${String(result.recordsPerSecond)} records/s wall (best round ${String(result.bestRecordsPerSecond)}) ` +
      `(${String(result.iterations)} parses of ${(result.samples as { files: number }).files} samples, ` +
      `load ${String(result.loadAverage1m)}; target ${TARGET_RECORDS_PER_SECOND}) → ${file}`,
  );
  if (options.check && !result.meetsTarget) process.exitCode = 1;
}

main();
