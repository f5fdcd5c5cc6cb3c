/**
 * Command-line options of `npm run soak`.
 */
import { parseArgs } from 'node:util';

export type SoakBackendKind = 'sqlite' | 'elasticsearch' | 'opensearch';

/** Parsed, validated options. */
export interface SoakOptions {
  backend: SoakBackendKind;
  /** Engine URL (elasticsearch/opensearch). */
  url?: string | undefined;
  /** Redis URL: writes are queued and a worker process performs them (scaled mode). */
  redis?: string | undefined;
  /** Identity provider base URL (Keycloak with the cairn-test realm), for the write token. */
  keycloak: string;
  durationSeconds: number;
  /** Concurrent query loops. */
  concurrency: number;
  /** Concurrent write loops, and each loop's pause between two writes. */
  writers: number;
  writeIntervalMs: number;
  /** Generated records loaded before the run. */
  records: number;
  /** Seconds between two memory samples of the API (and worker). */
  sampleSeconds: number;
  outDir: string;
}

export const USAGE = `usage: npm run soak -- [options]
  --duration D           run time: seconds, or with a unit (90s, 10m) (default 10m)
  --backend sqlite|elasticsearch|opensearch   (default sqlite)
  --url URL              engine URL (default: ELASTICSEARCH_URL / OPENSEARCH_URL, or CAIRN_TEST_*)
  --redis URL            queue writes in Redis and run a worker process (default: writes applied by the API)
  --keycloak URL         identity provider with the cairn-test realm, for the write token
                         (default KEYCLOAK_URL or http://127.0.0.1:8180)
  --concurrency N        concurrent query loops (default 8)
  --writers N            concurrent write loops (default 1)
  --write-interval MS    pause of each write loop between two writes (default 500)
  --records N            generated records loaded before the run (default 5000)
  --sample S             seconds between memory samples (default 5)
  --out DIR              result files (default bench/results)`;

function parseInteger(value: string, name: string, minimum: number): number {
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(number) || number < minimum)
    throw new Error(`--${name} must be an integer ≥ ${minimum}, got "${value}"`);
  return number;
}

/** Reads a duration: plain seconds, or a number with s, m or h. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  if (!match) throw new Error(`--duration must be seconds or a number with s, m or h: "${value}"`);
  const seconds = Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] ?? 's']!;
  if (seconds < 1) throw new Error('--duration must be at least one second');
  return Math.round(seconds);
}

/** Parses the command line (engine and provider URLs default from the environment). */
export function parseSoakOptions(
  argv: string[],
  environment: Readonly<Record<string, string | undefined>>,
): SoakOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      help: { type: 'boolean' },
      duration: { type: 'string', default: '10m' },
      backend: { type: 'string', default: 'sqlite' },
      url: { type: 'string' },
      redis: { type: 'string' },
      keycloak: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      writers: { type: 'string', default: '1' },
      'write-interval': { type: 'string', default: '500' },
      records: { type: 'string', default: '5000' },
      sample: { type: 'string', default: '5' },
      out: { type: 'string', default: 'bench/results' },
    },
  });
  if (values.help) return 'help';
  const backend = values.backend as SoakBackendKind;
  if (!['sqlite', 'elasticsearch', 'opensearch'].includes(backend))
    throw new Error(`--backend must be sqlite, elasticsearch or opensearch, got "${backend}"`);
  const engineVariable = backend === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL';
  const url =
    backend === 'sqlite'
      ? undefined
      : (values.url ?? environment[engineVariable] ?? environment[`CAIRN_TEST_${engineVariable}`]);
  if (backend !== 'sqlite' && !url)
    throw new Error(`--backend ${backend} needs --url or ${engineVariable} in the environment`);
  return {
    backend,
    url,
    redis: values.redis,
    keycloak: (values.keycloak ?? environment.KEYCLOAK_URL ?? 'http://127.0.0.1:8180').replace(
      /\/+$/,
      '',
    ),
    durationSeconds: parseDuration(values.duration),
    concurrency: parseInteger(values.concurrency, 'concurrency', 1),
    writers: parseInteger(values.writers, 'writers', 0),
    writeIntervalMs: parseInteger(values['write-interval'], 'write-interval', 0),
    records: parseInteger(values.records, 'records', 100),
    sampleSeconds: parseInteger(values.sample, 'sample', 1),
    outDir: values.out,
  };
}
