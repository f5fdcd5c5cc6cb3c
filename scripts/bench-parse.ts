/**
 * Parse + normalise throughput of ISO 19139 records on one core: loops over the ISO 19139
 * samples (safe XML parse → CoreRecord), prints records per second and writes the figures to
 * bench/results/parse-<date>.json.
 *
 *   npx tsx scripts/bench-parse.ts [--iterations 20000] [--samples DIR] [--out DIR] [--check]
 *
 * `--check` exits non-zero below the 2,000 records/s target. Wall-clock and CPU-time rates are
 * both reported: on a shared machine the CPU-time rate is the steadier one-core figure.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseXmlRecord } from '../shared/records/formats/xml/index.js';

const TARGET_RECORDS_PER_SECOND = 2000;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface BenchOptions {
  iterations: number;
  warmup: number;
  samples: string;
  out: string;
  check: boolean;
}

function readOptions(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    iterations: 20_000,
    warmup: 2_000,
    samples: resolve(REPO_ROOT, '..', 'shared', 'data', 'samples', 'iso19139'),
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
      case '--warmup':
        options.warmup = Number(value);
        i += 1;
        break;
      case '--samples':
        options.samples = resolve(value);
        i += 1;
        break;
      case '--out':
        options.out = resolve(value);
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
  return options;
}

/** Runs the benchmark and returns the result written to disk. */
function runBenchmark(options: BenchOptions): Record<string, unknown> {
  const files = readdirSync(options.samples).filter((name) => name.endsWith('.xml'));
  if (files.length === 0) throw new Error(`no .xml samples in ${options.samples}`);
  const documents = files.map((name) => readFileSync(join(options.samples, name), 'utf8'));
  const bytes = documents.map((text) => Buffer.byteLength(text));

  let checksum = 0;
  for (let i = 0; i < options.warmup; i += 1) {
    checksum += parseXmlRecord(documents[i % documents.length]).links.length;
  }
  let totalBytes = 0;
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  for (let i = 0; i < options.iterations; i += 1) {
    const index = i % documents.length;
    checksum += parseXmlRecord(documents[index]).links.length;
    totalBytes += bytes[index];
  }
  const wallSeconds = Number(process.hrtime.bigint() - wallStart) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;

  const recordsPerSecond = Math.round(options.iterations / wallSeconds);
  const recordsPerCpuSecond = Math.round(options.iterations / cpuSeconds);
  return {
    benchmark: 'parse+normalise ISO 19139 → CoreRecord (parseXmlRecord)',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    loadAverage1m: Number(loadavg()[0].toFixed(2)),
    samples: {
      directory: options.samples,
      files: files.length,
      averageBytes: Math.round(totalBytes / options.iterations),
    },
    iterations: options.iterations,
    warmup: options.warmup,
    wallSeconds: Number(wallSeconds.toFixed(3)),
    cpuSeconds: Number(cpuSeconds.toFixed(3)),
    recordsPerSecond,
    recordsPerCpuSecond,
    megabytesPerSecond: Number((totalBytes / wallSeconds / 1e6).toFixed(1)),
    target: TARGET_RECORDS_PER_SECOND,
    meetsTarget: recordsPerSecond >= TARGET_RECORDS_PER_SECOND,
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
    `ISO 19139 parse+normalise: ${result.recordsPerSecond} records/s wall, ` +
      `${result.recordsPerCpuSecond} records/s per CPU second ` +
      `(${result.iterations} parses of ${(result.samples as { files: number }).files} samples, ` +
      `load ${result.loadAverage1m}; target ${TARGET_RECORDS_PER_SECOND}) → ${file}`,
  );
  if (options.check && !result.meetsTarget) process.exitCode = 1;
}

main();
