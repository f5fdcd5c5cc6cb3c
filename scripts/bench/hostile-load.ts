/**
 * The hostile-load benchmark (`npm run bench:hostile`): the classes of the CI suite
 * (scripts/bench/hostile-attacks.ts) against the API built as `npm start` runs it, over a
 * generated corpus on one search engine, with baseline phases (the benign client alone) and
 * attack phases (K attackers beside it) interleaved, several repetitions. Reports per phase the
 * benign client's p50/p99 and throughput and the attackers' statuses and slowest answer, checks
 * the issue's targets (under attack: benign p99 under 250 ms, benign throughput at least half
 * the baseline's, no benign failure, the engine up) and writes every figure, with the machine's
 * load average, to bench/results/hostile-load-<date>/<engine>-<time>.json.
 *
 *   npm run bench:hostile -- --backend elasticsearch --url http://127.0.0.1:9250
 *   options: --records 100000 --attackers 8 --seconds 5 --repetitions 3 --classes sort-keys,…
 *            --alias <alias> --spatial envelope|shape --force (reload the corpus)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { startApi, stopApi, type ApiProcess } from './api-process.js';
import { loadOrReuseCorpus } from './bench-corpus.js';
import {
  ATTACK_CLASSES,
  engineAlive,
  runPhase,
  summarizePhase,
  type AttackClass,
  type PhaseSummary,
} from './hostile-attacks.js';
import { readLoadAverage, readSystemInfo, type SystemInfo } from './system-info.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SEED = 7;
/** The issue's targets under attack. */
const TARGET_P99_MS = 250;
const TARGET_THROUGHPUT_SHARE = 0.5;

interface Options {
  backend: 'elasticsearch' | 'opensearch';
  url: string;
  records: number;
  attackers: number;
  seconds: number;
  repetitions: number;
  classes: AttackClass[];
  alias: string;
  spatial: string | undefined;
  force: boolean;
}

/** One repetition of one class: a baseline phase, then an attack phase. */
interface PairResult {
  repetition: number;
  attack: string;
  loadAverageBefore: number[];
  baseline: PhaseSummary;
  underAttack: PhaseSummary;
  loadAverageAfter: number[];
  /** Undefined when the engine answered after the attack; else why not. */
  engineDown?: string | undefined;
  p99Met: boolean;
  throughputMet: boolean;
}

interface HostileLoadResult {
  startedAt: string;
  finishedAt?: string;
  commit: string;
  system: SystemInfo;
  options: Omit<Options, 'classes'> & { classes: string[] };
  corpus: { reused: boolean; records?: number | undefined; loadSeconds: number };
  targets: { benignP99Ms: number; throughputShare: number };
  pairs: PairResult[];
}

function log(message: string): void {
  console.error(`[hostile ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      backend: { type: 'string' },
      url: { type: 'string' },
      records: { type: 'string', default: '100000' },
      attackers: { type: 'string', default: '8' },
      seconds: { type: 'string', default: '5' },
      repetitions: { type: 'string', default: '3' },
      classes: { type: 'string' },
      alias: { type: 'string' },
      spatial: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
  });
  const backend = values.backend;
  if (backend !== 'elasticsearch' && backend !== 'opensearch') {
    throw new Error('--backend elasticsearch|opensearch is required');
  }
  if (!values.url) throw new Error('--url <engine URL> is required');
  const wanted = values.classes?.split(',');
  const classes = wanted
    ? wanted.map((id) => {
        const found = ATTACK_CLASSES.find((attack) => attack.id === id);
        if (!found) {
          throw new Error(
            `unknown class ${id}; one of ${ATTACK_CLASSES.map((a) => a.id).join(', ')}`,
          );
        }
        return found;
      })
    : [...ATTACK_CLASSES];
  const records = Number(values.records);
  return {
    backend,
    url: values.url,
    records,
    attackers: Number(values.attackers),
    seconds: Number(values.seconds),
    repetitions: Number(values.repetitions),
    classes,
    alias: values.alias ?? `cairn-bench-hostile-${records}-seed${SEED}`,
    spatial: values.spatial,
    force: values.force,
  };
}

/** The checked-out commit, which names the code measured. */
function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** The markdown table of every pair. */
function formatTable(result: HostileLoadResult): string {
  const lines = [
    '| rep | class | baseline p50 / p99 ms | baseline req/s | attack p50 / p99 ms | attack req/s | share | benign fails | attackers (status: count) | attacker max ms | load 1m | p99 < 250 | ≥ ½ throughput |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const pair of result.pairs) {
    const statuses = Object.entries(pair.underAttack.attackerStatuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const share = pair.underAttack.benignThroughput / pair.baseline.benignThroughput;
    lines.push(
      `| ${pair.repetition} | ${pair.attack} | ${pair.baseline.benignP50Ms} / ${pair.baseline.benignP99Ms} | ${pair.baseline.benignThroughput} | ${pair.underAttack.benignP50Ms} / ${pair.underAttack.benignP99Ms} | ${pair.underAttack.benignThroughput} | ${share.toFixed(2)} | ${pair.underAttack.benignFailures} | ${statuses} | ${pair.underAttack.attackerMaxMs} | ${pair.loadAverageAfter[0] ?? ''} | ${pair.p99Met ? 'yes' : 'no'} | ${pair.throughputMet ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const environment: Record<string, string> = {
    [options.backend === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL']: options.url,
    SEARCH_INDEX_ALIAS: options.alias,
    ...(options.spatial ? { SEARCH_SPATIAL_MODE: options.spatial } : {}),
  };
  const config = loadConfig({ ...environment, LOG_LEVEL: 'warn' });
  const startedAt = new Date();
  const result: HostileLoadResult = {
    startedAt: startedAt.toISOString(),
    commit: commitOf(),
    system: await readSystemInfo(REPO_ROOT, { url: options.url, kind: options.backend }),
    options: { ...options, classes: options.classes.map((attack) => attack.id) },
    corpus: { reused: false, loadSeconds: 0 },
    targets: { benignP99Ms: TARGET_P99_MS, throughputShare: TARGET_THROUGHPUT_SHARE },
    pairs: [],
  };

  const backend = await createBackend(config);
  try {
    log(`corpus: ${options.records} records (seed ${SEED}) in ${options.alias}`);
    const corpus = await loadOrReuseCorpus({
      backend,
      markerPath: join(
        REPO_ROOT,
        'data',
        'bench',
        `hostile-${options.backend}-${new URL(options.url).port}-${options.alias}.corpus.json`,
      ),
      location: `${options.url} alias ${options.alias}`,
      seed: SEED,
      size: options.records,
      batchSize: 1000,
      maxBytes: config.limits.bodyBytes * 20,
      force: options.force,
    });
    result.corpus = {
      reused: corpus.reused,
      records: corpus.backendRecords,
      loadSeconds: corpus.marker.loadSeconds,
    };
    log(`corpus: ${corpus.reused ? 'reused' : `loaded in ${corpus.marker.loadSeconds} s`}`);
  } finally {
    await backend.close();
  }

  let api: ApiProcess | undefined;
  try {
    api = await startApi(REPO_ROOT, environment);
    const origin = api.origin;
    // A warm-up: the first requests compile code paths and fill the engine's caches.
    await runPhase({ origin, attackers: 0, durationMs: 2000 });
    const durationMs = options.seconds * 1000;
    for (let repetition = 1; repetition <= options.repetitions; repetition += 1) {
      for (const attack of options.classes) {
        const loadAverageBefore = readLoadAverage();
        const baseline = summarizePhase(await runPhase({ origin, attackers: 0, durationMs }));
        const underAttack = summarizePhase(
          await runPhase({ origin, attack, attackers: options.attackers, durationMs }),
        );
        const engineDown = await engineAlive(options.url, options.alias);
        const pair: PairResult = {
          repetition,
          attack: attack.id,
          loadAverageBefore,
          baseline,
          underAttack,
          loadAverageAfter: readLoadAverage(),
          engineDown,
          p99Met: underAttack.benignP99Ms < TARGET_P99_MS && underAttack.benignFailures === 0,
          throughputMet:
            underAttack.benignThroughput >= TARGET_THROUGHPUT_SHARE * baseline.benignThroughput,
        };
        result.pairs.push(pair);
        log(
          `rep ${repetition} ${attack.id}: benign p99 ${baseline.benignP99Ms} → ${underAttack.benignP99Ms} ms, ${baseline.benignThroughput} → ${underAttack.benignThroughput} req/s, attackers ${JSON.stringify(underAttack.attackerStatuses)} max ${underAttack.attackerMaxMs} ms${engineDown ? `; ENGINE DOWN: ${engineDown}` : ''}`,
        );
        if (engineDown) throw new Error(`the engine is down after ${attack.id}: ${engineDown}`);
      }
    }
  } finally {
    if (api) await stopApi(api);
    result.finishedAt = new Date().toISOString();
    const folder = join(
      REPO_ROOT,
      'bench',
      'results',
      `hostile-load-${startedAt.toISOString().slice(0, 10)}`,
    );
    mkdirSync(folder, { recursive: true });
    const file = join(
      folder,
      `${options.backend}-${options.records}-${startedAt.toISOString().slice(11, 19).replaceAll(':', '')}.json`,
    );
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(formatTable(result));
    log(`written ${file}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
