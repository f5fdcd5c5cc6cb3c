/**
 * Command-line options of `npm run bench`.
 */
import { parseArgs } from 'node:util';

export type BenchBackendKind = 'sqlite' | 'elasticsearch' | 'opensearch';

/** The parts of the benchmark that can be run separately. */
export const BENCH_PARTS = ['load', 'http', 'engine', 'backend', 'paging', 'ingest'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

/** Parsed, validated options. */
export interface BenchOptions {
  backend: BenchBackendKind;
  /** Engine URL (elasticsearch/opensearch). */
  url?: string;
  /** Engine index alias (SEARCH_INDEX_ALIAS); default names the size and seed. */
  alias?: string;
  /** Engine spatial mode (SEARCH_SPATIAL_MODE); default: the backend's own default. */
  spatial?: 'shape' | 'envelope';
  size: number;
  seed: number;
  /** Seconds per HTTP case and concurrency. */
  duration: number;
  concurrency: number[];
  parts: Set<BenchPart>;
  /** Only these query cases (names), or all. */
  cases?: Set<string>;
  /** Wanted deep offset; clamped to the corpus. */
  deepOffset: number;
  /** Deep-paging pages sampled (1-based, pages of 10). */
  pages: number[];
  /** Offsets of the cold jumps (each in a fresh API process), clamped to the corpus. */
  coldOffsets: number[];
  /** The protocols each cold jump is measured through. */
  coldEndpoints: ('csw' | 'records')[];
  /** Records per format in the ingest part. */
  ingestRecords: number;
  /** Repetitions of each direct backend query. */
  backendRepetitions: number;
  /** A/B rounds of API and engine-alone runs per case and concurrency (part `engine`). */
  rounds: number;
  batchSize: number;
  dataDir: string;
  outDir: string;
  force: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --backend sqlite|elasticsearch|opensearch   (default sqlite)
  --url URL              engine URL (default: ELASTICSEARCH_URL / OPENSEARCH_URL from the environment)
  --alias NAME           engine index alias (default cairn-bench-<size>-seed<seed>-records)
  --spatial MODE         engine spatial mode, shape|envelope (default: the engine's default)
  --size N               corpus records (default 100000 on sqlite, 1000000 on the engines)
  --seed N               generator seed (default 42)
  --duration S           seconds per HTTP case and concurrency (default 10)
  --concurrency LIST     connections, comma-separated (default 1,8,64)
  --parts LIST           load,http,engine,backend,paging,ingest (default all; load is implied;
                         engine: the API's own engine requests replayed at the engine, A/B)
  --rounds N             API/engine-alone rounds per case and concurrency (default 2)
  --cases LIST           only these query cases (default all)
  --deep-offset N        deep offset wanted (default 100010; clamped to the corpus)
  --pages LIST           deep-paging pages of 10 (default 1,10,100,1000,9001,10000,90000; clamped)
  --cold-offsets LIST    cold jumps, each in a fresh API process (default 90000,899990; clamped)
  --cold-endpoints LIST  csw,records: CSW startPosition / Records offset (default both)
  --ingest-records N     records per format in the ingest part (default 5000)
  --backend-repetitions N  direct backend calls per case (default 30)
  --batch-size N         ingest batch size (default 1000)
  --data-dir DIR         where SQLite corpora and markers live (default data/bench)
  --out DIR              result files (default bench/results)
  --force                reload the corpus even when a matching one is recorded`;

function parseInteger(value: string, name: string, minimum = 0): number {
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(number) || number < minimum) {
    throw new Error(`--${name} must be an integer ≥ ${minimum}, got "${value}"`);
  }
  return number;
}

function parseList(value: string, name: string, minimum: number): number[] {
  const items = value.split(',').map((item) => parseInteger(item.trim(), name, minimum));
  if (items.length === 0) throw new Error(`--${name} must list at least one number`);
  return items;
}

/** Parses the command line (and the engine URL from the environment given). */
export function parseBenchOptions(
  argv: string[],
  environment: Readonly<Record<string, string | undefined>>,
): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      backend: { type: 'string', default: 'sqlite' },
      url: { type: 'string' },
      alias: { type: 'string' },
      spatial: { type: 'string' },
      size: { type: 'string' },
      seed: { type: 'string', default: '42' },
      duration: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '1,8,64' },
      parts: { type: 'string', default: BENCH_PARTS.join(',') },
      cases: { type: 'string' },
      'deep-offset': { type: 'string', default: '100010' },
      pages: { type: 'string', default: '1,10,100,1000,9001,10000,90000' },
      'cold-offsets': { type: 'string', default: '90000,899990' },
      'cold-endpoints': { type: 'string', default: 'csw,records' },
      'ingest-records': { type: 'string', default: '5000' },
      'backend-repetitions': { type: 'string', default: '30' },
      rounds: { type: 'string', default: '2' },
      'batch-size': { type: 'string', default: '1000' },
      'data-dir': { type: 'string', default: 'data/bench' },
      out: { type: 'string', default: 'bench/results' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new Error(USAGE);
  const backend = values.backend as BenchBackendKind;
  if (!['sqlite', 'elasticsearch', 'opensearch'].includes(backend)) {
    throw new Error(`--backend must be sqlite, elasticsearch or opensearch, got "${backend}"`);
  }
  const url =
    values.url ??
    (backend === 'elasticsearch'
      ? environment.ELASTICSEARCH_URL
      : backend === 'opensearch'
        ? environment.OPENSEARCH_URL
        : undefined);
  if (backend !== 'sqlite' && !url) {
    throw new Error(`--backend ${backend} needs --url or the engine URL in the environment`);
  }
  if (values.spatial !== undefined && !['shape', 'envelope'].includes(values.spatial)) {
    throw new Error(`--spatial must be shape or envelope, got "${values.spatial}"`);
  }
  const parts = new Set<BenchPart>();
  for (const part of values.parts.split(',').map((item) => item.trim())) {
    if (!(BENCH_PARTS as readonly string[]).includes(part)) {
      throw new Error(`--parts: unknown part "${part}"; choose from ${BENCH_PARTS.join(', ')}`);
    }
    parts.add(part as BenchPart);
  }
  const duration = Number(values.duration);
  if (!(duration > 0)) throw new Error('--duration must be a positive number of seconds');
  const size =
    values.size !== undefined
      ? parseInteger(values.size, 'size', 1)
      : backend === 'sqlite'
        ? 100_000
        : 1_000_000;
  const seed = parseInteger(values.seed, 'seed');
  const coldEndpoints = values['cold-endpoints'].split(',').map((item) => item.trim());
  for (const endpoint of coldEndpoints) {
    if (endpoint !== 'csw' && endpoint !== 'records') {
      throw new Error(`--cold-endpoints: unknown endpoint "${endpoint}"; choose csw or records`);
    }
  }
  return {
    backend,
    ...(url !== undefined && { url }),
    ...(backend !== 'sqlite' && {
      alias: values.alias ?? `cairn-bench-${size}-seed${seed}-records`,
    }),
    ...(values.spatial !== undefined && { spatial: values.spatial as 'shape' | 'envelope' }),
    size,
    seed,
    duration,
    concurrency: parseList(values.concurrency, 'concurrency', 1),
    parts,
    ...(values.cases !== undefined && {
      cases: new Set(values.cases.split(',').map((item) => item.trim())),
    }),
    deepOffset: parseInteger(values['deep-offset'], 'deep-offset'),
    pages: parseList(values.pages, 'pages', 1),
    coldOffsets:
      values['cold-offsets'].trim() === ''
        ? []
        : parseList(values['cold-offsets'], 'cold-offsets', 0),
    coldEndpoints: coldEndpoints as ('csw' | 'records')[],
    ingestRecords: parseInteger(values['ingest-records'], 'ingest-records', 1),
    backendRepetitions: parseInteger(values['backend-repetitions'], 'backend-repetitions', 1),
    rounds: parseInteger(values.rounds, 'rounds', 1),
    batchSize: parseInteger(values['batch-size'], 'batch-size', 1),
    dataDir: values['data-dir'],
    outDir: values.out,
    force: values.force,
  };
}
