/**
 * Configuration: read once from the environment (and an optional YAML file with the
 * service's descriptive metadata), validated, typed and frozen. Nothing else in Cairn
 * reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { QueryLimits } from '../query/query-limits.js';
import { deepFreeze } from '../deep-freeze.js';
import { parseAllowedEntry } from '../harvest/address-policy.js';

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionalUrl = z.url().optional();

const environmentSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  PUBLIC_BASE_URL: optionalUrl,
  TRUST_PROXY: booleanString.default(false),
  SQLITE_PATH: z.string().min(1).default('data/cairn.sqlite'),
  SQLITE_READ_WORKERS: z.coerce.number().int().min(0).max(256).optional(),
  SQLITE_READ_QUEUE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(256),
  ELASTICSEARCH_URL: optionalUrl,
  OPENSEARCH_URL: optionalUrl,
  REDIS_URL: optionalUrl,
  LOG_LEVEL: z
    .enum(['silent', 'error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])
    .default('info'),
  LIMIT_DEFAULT: z.coerce.number().int().min(1).default(10),
  LIMIT_MAX: z.coerce.number().int().min(1).default(1000),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  SEARCH_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  URL_LIMIT_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(8192),
  JSON_DEPTH_LIMIT: z.coerce.number().int().min(8).max(1000).default(64),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  SAMPLE_RECORDS: z.coerce.number().int().min(0).default(300),
  QUERY_MAX_FILTER_DEPTH: z.coerce.number().int().min(2).max(200).default(32),
  QUERY_MAX_FILTER_NODES: z.coerce.number().int().min(10).max(100_000).default(500),
  QUERY_MAX_ARRAY_ITEMS: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  QUERY_MAX_GEOMETRY_PARTS: z.coerce.number().int().min(1).max(1_000_000).default(100),
  QUERY_MAX_GEOMETRY_VERTICES: z.coerce.number().int().min(4).max(10_000_000).default(10_000),
  QUERY_MAX_TEXT_WORDS: z.coerce.number().int().min(1).max(100_000).default(1000),
  QUERY_MAX_TEXT_LENGTH: z.coerce.number().int().min(16).max(10_000_000).default(10_000),
  QUERY_MAX_SORT_KEYS: z.coerce.number().int().min(1).max(100).default(8),
  QUERY_MAX_WILDCARD_PATTERNS: z.coerce.number().int().min(0).max(10_000).default(10),
  QUERY_MAX_PATTERN_WILDCARDS: z.coerce.number().int().min(1).max(10_000).default(16),
  QUERY_MAX_FACETS: z.coerce.number().int().min(1).max(100).default(16),
  QUERYABLES_MAX_LEARNED: z.coerce.number().int().min(0).max(10_000).default(1000),
  QUERY_MAX_AGGREGATION_BUCKETS: z.coerce.number().int().min(10).max(10_000).default(1000),
  QUERY_MAX_OFFSET: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10_000),
  QUERY_TIME_BUDGET_MS: z.coerce.number().int().min(100).max(600_000).default(3000),
  QUERY_EXPENSIVE_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).optional(),
  QUERY_EXPENSIVE_PER_CLIENT: z.coerce.number().int().min(1).max(10_000).default(1),
  QUERY_EXPENSIVE_CLIENT_SHARE: z.coerce.number().gt(0).max(1).default(0.25),
  QUERY_EXPENSIVE_WILDCARD_PATTERNS: z.coerce.number().int().min(0).max(10_000).default(3),
  QUERY_EXPENSIVE_FACETS: z.coerce.number().int().min(0).max(100).default(4),
  QUERY_EXPENSIVE_FACET_BUCKETS: z.coerce.number().int().min(0).max(100_000).default(50),
  QUERY_EXPENSIVE_OFFSET: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(1000),
  QUERY_EXPENSIVE_SORT_KEYS: z.coerce.number().int().min(0).max(100).default(2),
  QUERY_EXPENSIVE_TEXT_WORDS: z.coerce.number().int().min(0).max(100_000).default(32),
  REFUSAL_PACE_PER_SECOND: z.coerce.number().min(0).max(100_000).default(10),
  REFUSAL_PACE_BURST: z.coerce.number().int().min(1).max(100_000).default(20),
  REFUSAL_PACE_MAX_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  SEARCH_INDEX_ALIAS: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, _ and - only')
    .default('cairn-records'),
  SEARCH_SPATIAL_MODE: z.enum(['shape', 'envelope']).optional(),
  SEARCH_TEXT_ANALYSIS: z.enum(['standard', 'full']).default('standard'),
  SEARCH_REFRESH: z.enum(['false', 'true', 'wait_for']).default('false'),
  SEARCH_REFRESH_INTERVAL: z
    .string()
    .regex(/^(-1|[1-9]\d*(ms|s|m))$/, 'a time such as 1s, 500ms or 1m, or -1 (off)')
    .optional(),
  SEARCH_SHARDS: z.coerce.number().int().min(1).max(1024).default(1),
  SEARCH_REPLICAS: z.coerce.number().int().min(0).max(16).optional(),
  SEARCH_CHECKPOINT_IDLE_SECONDS: z.coerce.number().int().min(1).max(86400).default(600),
  SEARCH_CHECKPOINTS_PER_QUERY: z.coerce.number().int().min(1).max(100000).default(512),
  SEARCH_REFINE_MAX_CANDIDATES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  SEARCH_REFINE_WORKERS: z.coerce.number().int().min(0).max(256).optional(),
  SERVICE_METADATA_FILE: z.string().min(1).optional(),
  METRICS_ENABLED: booleanString.default(true),
  RESULT_CACHE_ENABLED: booleanString.default(true),
  RESULT_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 40)
    .default(64 * 1024 * 1024),
  RESULT_CACHE_MAX_ENTRY_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 32)
    .default(1024 * 1024),
  RESULT_CACHE_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  MAP_TILE_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'an http(s) URL template')
    .refine(
      (value) => ['{z}', '{x}', '{y}'].every((part) => value.includes(part)),
      'a tile URL template with {z}, {x} and {y}, e.g. https://tiles.example.org/{z}/{x}/{y}.png',
    )
    .optional(),
  MAP_TILE_ATTRIBUTION: z.string().max(500).optional(),
});

const contactSchema = z.object({
  name: z.string().optional(),
  organization: z.string().optional(),
  email: z.string().optional(),
  url: z.url().optional(),
});

const serviceMetadataSchema = z.object({
  title: z.string().min(1).default('Cairn catalogue'),
  description: z
    .string()
    .default(
      'Descriptive metadata about geospatial resources, searchable through OGC API – Records, CSW, OpenSearch and STAC.',
    ),
  keywords: z.array(z.string()).default(['catalogue', 'metadata', 'geospatial', 'discovery']),
  contact: contactSchema.default({}),
  provider: z.object({ name: z.string(), url: z.url().optional() }).default({ name: 'Cairn' }),
  license: z.string().default('CC-BY-4.0'),
});

export type ServiceMetadata = z.infer<typeof serviceMetadataSchema>;

export interface Config {
  host: string;
  port: number;
  /** Fixed public base URL (no trailing slash); when absent it is derived per request. */
  publicBaseUrl?: string | undefined;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when deriving the base URL. */
  trustProxy: boolean;
  logLevel: string;
  search:
    | {
        kind: 'sqlite';
        path: string;
        /** Worker threads reading the file (0: reads on the event loop). */
        readWorkers: number;
        /** Reads that may wait for a worker before the next is refused with a 503. */
        readQueueLimit: number;
      }
    | {
        kind: 'elasticsearch' | 'opensearch';
        url: string;
        /** Index alias over the versioned record indices. */
        alias: string;
        /** Spatial indexing; unset: `shape` on OpenSearch, `envelope` on Elasticsearch. */
        spatial?: 'shape' | 'envelope' | undefined;
        /** `full` needs the analysis-common module (stemming, folding). */
        analysis: 'standard' | 'full';
        refresh: false | true | 'wait_for';
        /**
         * `index.refresh_interval` of the index versions the backend creates; unset leaves the
         * engine's default (every second while the index is searched, see es-mappings/README.md).
         */
        refreshInterval?: string | undefined;
        /** Primary shards of a records index Cairn creates (fixed until the next reindex). */
        shards: number;
        /** Replicas per shard; undefined: one when a second node is there (auto-expand 0-1). */
        replicas?: number | undefined;
        /**
         * Deep-paging checkpoints shared in Redis (with REDIS_URL): a query's expire after
         * `idleSeconds` unused, and each query keeps at most `perQuery`.
         */
        checkpoints: { idleSeconds: number; perQuery: number };
        /**
         * Most candidate records a search may check in Node when the engine cannot decide its
         * filter alone (refine-search.ts); more is a 400.
         */
        refineMaxCandidates: number;
        /** Threads that decide refined candidates off the event loop; 0: on it. */
        refineWorkers: number;
      };
  redisUrl?: string | undefined;
  /** Paging defaults and request size limits (`urlBytes`: path and query string). */
  limits: {
    defaultLimit: number;
    maxLimit: number;
    bodyBytes: number;
    /**
     * Largest JSON body of a search or another read (STAC and Records POST searches, admin
     * forms): well above what the query limits admit, so that a body no query may have is
     * refused before it is read and parsed. Writes and CSW keep `bodyBytes`.
     */
    searchBodyBytes: number;
    urlBytes: number;
    /** Deepest nesting of arrays and objects in a metadata record's JSON (write bodies, ingest). */
    jsonDepth: number;
  };
  /**
   * What one query may cost (shared/query/query-limits.ts): bounds on every input that
   * multiplies work, and the time a backend may spend on one query before cancelling it.
   */
  query: QueryLimits & {
    timeBudgetMs: number;
    /**
     * Distinct own properties of records (beyond the core queryables) the catalogue learns and
     * lets filters name at most (QUERYABLES_MAX_LEARNED, docs/operations.md).
     */
    maxLearnedQueryables: number;
    /**
     * The expensive lane (shared/search/expensive-lane.ts): places in this process and per
     * client, and the thresholds beyond which a search is expensive (shared/query/search-lanes.ts).
     */
    expensive: {
      concurrency: number;
      perClient: number;
      clientShare: number;
      cheapWildcardPatterns: number;
      cheapFacets: number;
      cheapFacetBuckets: number;
      cheapOffset: number;
      cheapSortKeys: number;
      cheapTextWords: number;
    };
  };
  /** Timeouts of the HTTP server against slow or idle clients (services/api/http-server.ts). */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
  /**
   * The pace of a client's cost refusals (services/api/middleware/refusal-pace.ts): refusals a
   * second and burst answered at once, the longest a refusal beyond them is held (at most half
   * QUERY_TIME_BUDGET_MS).
   */
  refusalPace: { perSecond: number; burst: number; maxDelayMs: number };
  /** How many generated records to load into an empty embedded database at start-up. */
  sampleRecords: number;
  service: ServiceMetadata;
  /** Bearer-token verification, route protection and outbound token exchange (shared/auth). */
  auth: AuthConfig;
  /** Queue worker: concurrency, batch sizes and retry policy (shared/queue, services/worker). */
  worker: WorkerConfig;
  /** Prometheus metrics: `enabled` serves the API's unauthenticated /metrics (shared/metrics). */
  metrics: { enabled: boolean };
  /**
   * Whole answers to public reads kept in process memory, served only while the catalogue
   * generation they were made at is current (services/api/middleware/result-cache.ts).
   */
  resultCache: ResultCacheConfig;
  /** Outbound requests to harvest sources (shared/harvest). */
  harvest: HarvestConfig;
  /** The OAI-PMH data provider and the tombstones of deleted records (OAI_*). */
  oai: OaiConfig;
  /** The HTML maps' background: the offline world outline, or tiles when `tileUrl` is set. */
  map: MapConfig;
  /** What web crawlers are offered: /robots.txt and the sitemaps (services/api/protocols/web). */
  web: WebConfig;
}

/** The result cache (RESULT_CACHE_*). */
export interface ResultCacheConfig {
  /** Whether answers are kept at all (ETags and 304 answers are given either way). */
  enabled: boolean;
  /** The bytes of answer bodies kept, least recently used first out. */
  maxBytes: number;
  /** The largest answer body kept. */
  maxEntryBytes: number;
  /**
   * How long an answer is served at most, however quiet the catalogue: answers carry times
   * (a search's timeStamp, an OAI-PMH resumption token's expiry) that must not grow old.
   */
  maxAgeSeconds: number;
}

/** The HTML maps' background (MAP_TILE_*). */
export interface MapConfig {
  /** XYZ tile URL template ({z}/{x}/{y}, Web Mercator); unset: the offline world outline. */
  tileUrl?: string | undefined;
  /** Attribution shown with the tiles (plain text). */
  tileAttribution?: string | undefined;
}

/** Thrown by loadConfig with every problem found, so start-up can list them all. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * What a process prints when it cannot start: a configuration error as its list of problems,
 * anything else as one line naming the process; never a stack trace.
 */
export function describeStartupFailure(processName: string, error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  return `${processName} failed to start: ${error instanceof Error ? error.message : String(error)}`;
}

function describeIssues(prefix: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => `${prefix}${issue.path.join('.')}: ${issue.message}`);
}

function readServiceMetadata(path: string | undefined, problems: string[]): ServiceMetadata {
  let raw: unknown = {};
  if (path) {
    try {
      raw = parseYaml(readFileSync(path, 'utf8')) ?? {};
    } catch (error) {
      problems.push(`SERVICE_METADATA_FILE: cannot read ${path}: ${(error as Error).message}`);
    }
  }
  const parsed = serviceMetadataSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  problems.push(...describeIssues(`SERVICE_METADATA_FILE ${path}: `, parsed.error));
  return serviceMetadataSchema.parse({});
}

/** Validates an environment (default: process.env) into a frozen Config, or throws ConfigError listing every problem. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  );
  const problems: string[] = [];
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) problems.push(...describeIssues('', parsed.error));
  const env = parsed.success ? parsed.data : undefined;
  const service = readServiceMetadata(env?.SERVICE_METADATA_FILE, problems);
  const auth = readAuthConfig(present, problems);
  const worker = readWorkerConfig(present, problems);
  const harvest = readHarvestConfig(present, problems);
  const web = readWebConfig(present, problems);
  const oai = readOaiConfig(present, problems);
  if (env && env.ELASTICSEARCH_URL && env.OPENSEARCH_URL) {
    problems.push('ELASTICSEARCH_URL and OPENSEARCH_URL: set at most one search engine');
  }
  if (env && env.LIMIT_DEFAULT > env.LIMIT_MAX) {
    problems.push(
      `LIMIT_DEFAULT (${env.LIMIT_DEFAULT}) must not exceed LIMIT_MAX (${env.LIMIT_MAX})`,
    );
  }
  if (env && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push(
      `HTTP_HEADERS_TIMEOUT_MS (${env.HTTP_HEADERS_TIMEOUT_MS}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS})`,
    );
  }
  if (!env || problems.length > 0) throw new ConfigError(problems);

  const engineUrl = env.ELASTICSEARCH_URL ?? env.OPENSEARCH_URL;
  const config: Config = {
    host: env.HOST,
    port: env.PORT,
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    trustProxy: env.TRUST_PROXY,
    logLevel: env.LOG_LEVEL,
    search: engineUrl
      ? {
          kind: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'opensearch',
          url: engineUrl,
          alias: env.SEARCH_INDEX_ALIAS,
          spatial: env.SEARCH_SPATIAL_MODE,
          analysis: env.SEARCH_TEXT_ANALYSIS,
          refresh: env.SEARCH_REFRESH === 'wait_for' ? 'wait_for' : env.SEARCH_REFRESH === 'true',
          refreshInterval: env.SEARCH_REFRESH_INTERVAL,
          shards: env.SEARCH_SHARDS,
          replicas: env.SEARCH_REPLICAS,
          checkpoints: {
            idleSeconds: env.SEARCH_CHECKPOINT_IDLE_SECONDS,
            perQuery: env.SEARCH_CHECKPOINTS_PER_QUERY,
          },
          refineMaxCandidates: env.SEARCH_REFINE_MAX_CANDIDATES,
          // One per core: each expensive search (QUERY_EXPENSIVE_CONCURRENCY) refines on its own.
          refineWorkers: env.SEARCH_REFINE_WORKERS ?? availableParallelism(),
        }
      : {
          kind: 'sqlite',
          path: env.SQLITE_PATH,
          readWorkers: env.SQLITE_READ_WORKERS ?? availableParallelism(),
          readQueueLimit: env.SQLITE_READ_QUEUE_LIMIT,
        },
    redisUrl: env.REDIS_URL,
    limits: {
      defaultLimit: env.LIMIT_DEFAULT,
      maxLimit: env.LIMIT_MAX,
      bodyBytes: env.BODY_LIMIT_BYTES,
      searchBodyBytes: Math.min(env.SEARCH_BODY_LIMIT_BYTES, env.BODY_LIMIT_BYTES),
      urlBytes: env.URL_LIMIT_BYTES,
      jsonDepth: env.JSON_DEPTH_LIMIT,
    },
    query: {
      maxFilterDepth: env.QUERY_MAX_FILTER_DEPTH,
      maxFilterNodes: env.QUERY_MAX_FILTER_NODES,
      maxArrayItems: env.QUERY_MAX_ARRAY_ITEMS,
      maxGeometryParts: env.QUERY_MAX_GEOMETRY_PARTS,
      maxGeometryVertices: env.QUERY_MAX_GEOMETRY_VERTICES,
      maxTextWords: env.QUERY_MAX_TEXT_WORDS,
      maxTextLength: env.QUERY_MAX_TEXT_LENGTH,
      maxSortKeys: env.QUERY_MAX_SORT_KEYS,
      maxOffset: env.QUERY_MAX_OFFSET,
      maxFacets: env.QUERY_MAX_FACETS,
      maxLearnedQueryables: env.QUERYABLES_MAX_LEARNED,
      maxAggregationBuckets: env.QUERY_MAX_AGGREGATION_BUCKETS,
      maxWildcardPatterns: env.QUERY_MAX_WILDCARD_PATTERNS,
      maxPatternWildcards: env.QUERY_MAX_PATTERN_WILDCARDS,
      timeBudgetMs: env.QUERY_TIME_BUDGET_MS,
      expensive: {
        // One expensive search per core: each keeps a core busy (the engine's search threads
        // or the Node refinement), so more at once only makes each slower.
        concurrency: env.QUERY_EXPENSIVE_CONCURRENCY ?? availableParallelism(),
        perClient: env.QUERY_EXPENSIVE_PER_CLIENT,
        clientShare: env.QUERY_EXPENSIVE_CLIENT_SHARE,
        cheapWildcardPatterns: env.QUERY_EXPENSIVE_WILDCARD_PATTERNS,
        cheapFacets: env.QUERY_EXPENSIVE_FACETS,
        cheapFacetBuckets: env.QUERY_EXPENSIVE_FACET_BUCKETS,
        cheapOffset: env.QUERY_EXPENSIVE_OFFSET,
        cheapSortKeys: env.QUERY_EXPENSIVE_SORT_KEYS,
        cheapTextWords: env.QUERY_EXPENSIVE_TEXT_WORDS,
      },
    },
    http: {
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    refusalPace: {
      perSecond: env.REFUSAL_PACE_PER_SECOND,
      burst: env.REFUSAL_PACE_BURST,
      // A held refusal never comes later than an answer may: at most half the time budget.
      maxDelayMs: Math.min(env.REFUSAL_PACE_MAX_DELAY_MS, Math.floor(env.QUERY_TIME_BUDGET_MS / 2)),
    },
    sampleRecords: env.SAMPLE_RECORDS,
    service,
    auth,
    worker: { ...worker, jsonDepth: env.JSON_DEPTH_LIMIT },
    metrics: { enabled: env.METRICS_ENABLED },
    resultCache: {
      enabled: env.RESULT_CACHE_ENABLED,
      maxBytes: env.RESULT_CACHE_MAX_BYTES,
      maxEntryBytes: env.RESULT_CACHE_MAX_ENTRY_BYTES,
      maxAgeSeconds: env.RESULT_CACHE_MAX_AGE_SECONDS,
    },
    harvest,
    oai,
    map: { tileUrl: env.MAP_TILE_URL, tileAttribution: env.MAP_TILE_ATTRIBUTION },
    web,
  };
  return deepFreeze(config);
}

// ---------------------------------------------------------------------------------------------
// Authentication and authorization (AUTH_*), owned by shared/auth. Kept in one block: the
// variables, their validation and the typed result. See .env.example for each variable.
// ---------------------------------------------------------------------------------------------

/** Asymmetric JWS algorithms a verifier may allow; `none` and HS* are never accepted. */
export const SIGNING_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * Seconds a token's `exp`/`nbf` may be off: used by the API's verifier and by the
 * token-exchange helper's local expiry check alike (AUTH_CLOCK_TOLERANCE_SECONDS).
 */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** Where bearer tokens come from and how they are checked; present only when configured. */
export interface AuthProviderConfig {
  /** Expected `iss`, exactly as the provider writes it (Keycloak: `{base}/realms/{realm}`). */
  issuer: string;
  /** The catalogue's own client id: tokens must name it in `azp` or carry it in `aud`. */
  clientId: string;
  jwksUrl: string;
  tokenUrl: string;
  algorithms: readonly SigningAlgorithm[];
  clockToleranceSeconds: number;
  /** How long fetched signing keys are trusted before the JWKS is fetched again. */
  jwksCacheSeconds: number;
  /** Least time between two JWKS fetches caused by tokens with an unknown `kid`. */
  jwksRefetchCooldownSeconds: number;
  /** After a failed JWKS fetch, requests that need the keys fail fast (503) this long. */
  jwksFailureCooldownSeconds: number;
  /** Largest JWKS response accepted. */
  jwksMaxBytes: number;
}

export interface AuthConfig {
  /** Absent: no token can be verified, so protected routes refuse every request (503). */
  provider?: AuthProviderConfig | undefined;
  /** Client role (under the catalogue's client id) or realm role that grants write access. */
  writeRole: string;
  /** A scope that also grants write access (for machine clients), when set. */
  writeScope?: string | undefined;
  /** When true, read endpoints require a valid token too (no role needed). */
  readsRequireToken: boolean;
  /** Credentials of the worker's confidential client for token exchange, when set. */
  exchange?: { clientId: string; clientSecret: string } | undefined;
  /** Browser sign-in to the admin HTML pages (AUTH_WEB_*); absent: those pages answer 503. */
  signIn?: SignInConfig;
}

const authEnvironmentSchema = z.object({
  AUTH_ISSUER_URL: optionalUrl,
  AUTH_CLIENT_ID: z.string().min(1).optional(),
  AUTH_JWKS_URL: optionalUrl,
  AUTH_TOKEN_URL: optionalUrl,
  AUTH_ALGORITHMS: z.string().min(1).default('RS256'),
  AUTH_CLOCK_TOLERANCE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300)
    .default(DEFAULT_CLOCK_TOLERANCE_SECONDS),
  AUTH_JWKS_CACHE_SECONDS: z.coerce.number().int().min(1).max(86400).default(600),
  AUTH_JWKS_REFETCH_COOLDOWN_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  AUTH_JWKS_FAILURE_COOLDOWN_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  AUTH_JWKS_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  AUTH_WRITE_ROLE: z.string().min(1).default('editor'),
  AUTH_WRITE_SCOPE: z.string().min(1).optional(),
  AUTH_READS_REQUIRE_TOKEN: booleanString.default(false),
  AUTH_EXCHANGE_CLIENT_ID: z.string().min(1).optional(),
  AUTH_EXCHANGE_CLIENT_SECRET: z.string().min(1).optional(),
});

function parseAlgorithms(list: string, problems: string[]): SigningAlgorithm[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const allowed = new Set<string>(SIGNING_ALGORITHMS);
  const unsupported = names.filter((name) => !allowed.has(name));
  if (unsupported.length > 0 || names.length === 0)
    problems.push(
      `AUTH_ALGORITHMS: ${unsupported.join(', ') || '(empty)'} not allowed; choose from ${SIGNING_ALGORITHMS.join(', ')}`,
    );
  return names.filter((name): name is SigningAlgorithm => allowed.has(name));
}

function readAuthConfig(
  present: Record<string, string | undefined>,
  problems: string[],
): AuthConfig {
  const has = (name: string): boolean => Boolean(present[name]);
  if (has('AUTH_ISSUER_URL') !== has('AUTH_CLIENT_ID'))
    problems.push(
      'AUTH_ISSUER_URL and AUTH_CLIENT_ID: set both to enable bearer tokens, or neither',
    );
  if (!has('AUTH_ISSUER_URL') && (has('AUTH_JWKS_URL') || has('AUTH_TOKEN_URL')))
    problems.push('AUTH_JWKS_URL / AUTH_TOKEN_URL: need AUTH_ISSUER_URL');
  if (has('AUTH_EXCHANGE_CLIENT_ID') !== has('AUTH_EXCHANGE_CLIENT_SECRET'))
    problems.push('AUTH_EXCHANGE_CLIENT_ID and AUTH_EXCHANGE_CLIENT_SECRET: set both, or neither');
  if (has('AUTH_EXCHANGE_CLIENT_ID') && !has('AUTH_ISSUER_URL'))
    problems.push('AUTH_EXCHANGE_CLIENT_ID: needs AUTH_ISSUER_URL (the token endpoint)');
  const parsed = authEnvironmentSchema.safeParse(present);
  if (!parsed.success) {
    problems.push(...describeIssues('', parsed.error));
    return { writeRole: 'editor', readsRequireToken: false };
  }
  const env = parsed.data;
  const algorithms = parseAlgorithms(env.AUTH_ALGORITHMS, problems);
  if (env.AUTH_READS_REQUIRE_TOKEN && !env.AUTH_ISSUER_URL)
    problems.push('AUTH_READS_REQUIRE_TOKEN=true needs AUTH_ISSUER_URL and AUTH_CLIENT_ID');
  const base = env.AUTH_ISSUER_URL?.replace(/\/+$/, '');
  return {
    provider:
      env.AUTH_ISSUER_URL && env.AUTH_CLIENT_ID && base
        ? {
            issuer: env.AUTH_ISSUER_URL,
            clientId: env.AUTH_CLIENT_ID,
            jwksUrl: env.AUTH_JWKS_URL ?? `${base}/protocol/openid-connect/certs`,
            tokenUrl: env.AUTH_TOKEN_URL ?? `${base}/protocol/openid-connect/token`,
            algorithms,
            clockToleranceSeconds: env.AUTH_CLOCK_TOLERANCE_SECONDS,
            jwksCacheSeconds: env.AUTH_JWKS_CACHE_SECONDS,
            jwksRefetchCooldownSeconds: env.AUTH_JWKS_REFETCH_COOLDOWN_SECONDS,
            jwksFailureCooldownSeconds: env.AUTH_JWKS_FAILURE_COOLDOWN_SECONDS,
            jwksMaxBytes: env.AUTH_JWKS_MAX_BYTES,
          }
        : undefined,
    writeRole: env.AUTH_WRITE_ROLE,
    writeScope: env.AUTH_WRITE_SCOPE,
    readsRequireToken: env.AUTH_READS_REQUIRE_TOKEN,
    exchange:
      env.AUTH_EXCHANGE_CLIENT_ID && env.AUTH_EXCHANGE_CLIENT_SECRET
        ? { clientId: env.AUTH_EXCHANGE_CLIENT_ID, clientSecret: env.AUTH_EXCHANGE_CLIENT_SECRET }
        : undefined,
    ...optional('signIn', readSignInConfig(present, problems)),
  };
}

// ---------------------------------------------------------------------------------------------
// Admin pages' browser sign-in (AUTH_WEB_*): the authorization code flow with PKCE through a
// public client of the same issuer. See .env.example and the README's "Admin pages" section.
// ---------------------------------------------------------------------------------------------

/** Sign-in of operators to the admin HTML pages; present only when AUTH_WEB_CLIENT_ID is set. */
export interface SignInConfig {
  /** The provider's public client used for the code flow (PKCE S256, no secret). */
  clientId: string;
  /**
   * Origin (and path prefix) the provider redirects back to, without a trailing slash: the
   * callback is `{redirectBase}/catalogue/admin/callback`. Absent: PUBLIC_BASE_URL, else the
   * request's own base URL.
   */
  redirectBase?: string | undefined;
  /** Lifetime of a sign-in session from sign-in, whatever the refresh token would allow. */
  sessionTtlSeconds: number;
  /**
   * Secret from which the key sealing sign-in state cookies is derived (AUTH_WEB_STATE_SECRET,
   * at least 32 characters, the same on every API process). Absent: a random one kept in Redis
   * in scaled mode, or one per process in embedded mode.
   */
  stateSecret?: string;
}

const signInEnvironmentSchema = z.object({
  AUTH_WEB_CLIENT_ID: z.string().min(1).optional(),
  AUTH_WEB_REDIRECT_BASE: optionalUrl,
  AUTH_WEB_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(604800).default(28800),
  AUTH_WEB_STATE_SECRET: z.string().min(32, 'at least 32 characters').optional(),
});

/** `{[key]: value}` when value is defined, else `{}` (keeps absent settings out of the object). */
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function readSignInConfig(
  present: Record<string, string | undefined>,
  problems: string[],
): SignInConfig | undefined {
  const parsed = signInEnvironmentSchema.safeParse(present);
  if (!parsed.success) {
    problems.push(...describeIssues('', parsed.error));
    return undefined;
  }
  const env = parsed.data;
  if (!env.AUTH_WEB_CLIENT_ID) {
    if (env.AUTH_WEB_REDIRECT_BASE)
      problems.push('AUTH_WEB_REDIRECT_BASE: needs AUTH_WEB_CLIENT_ID (the sign-in client)');
    return undefined;
  }
  if (!present.AUTH_ISSUER_URL || !present.AUTH_CLIENT_ID)
    problems.push(
      'AUTH_WEB_CLIENT_ID: needs AUTH_ISSUER_URL and AUTH_CLIENT_ID (whose tokens it checks)',
    );
  return {
    clientId: env.AUTH_WEB_CLIENT_ID,
    redirectBase: env.AUTH_WEB_REDIRECT_BASE?.replace(/\/+$/, ''),
    sessionTtlSeconds: env.AUTH_WEB_SESSION_TTL_SECONDS,
    ...optional('stateSecret', env.AUTH_WEB_STATE_SECRET),
  };
}

// ---------------------------------------------------------------------------------------------
// Queue worker (WORKER_*), owned by shared/queue and services/worker. See .env.example.
// ---------------------------------------------------------------------------------------------

export interface WorkerConfig {
  /** Jobs one worker process performs at the same time. */
  concurrency: number;
  /** Records per backend write inside a job. */
  batchSize: number;
  /** Records per job when the API splits a bulk request. */
  jobRecords: number;
  /** Attempts per job for infrastructure failures (bad data is never retried). */
  attempts: number;
  /** First retry delay; each later one doubles (exponential backoff). */
  backoffMs: number;
  /** How often the worker looks for stalled jobs (a worker that died holding them). */
  stalledIntervalMs: number;
  /** How long a job lock lasts without renewal before the job counts as stalled. */
  lockDurationMs: number;
  /** Prefix of every queue key in Redis. */
  queuePrefix: string;
  /** SQLite file of the ingest log (one entry per job), shared by the worker and the API. */
  ingestLogPath: string;
  /** Where the worker serves Prometheus /metrics; port 0 turns it off. */
  metricsHost: string;
  metricsPort: number;
  /**
   * After SIGTERM/SIGINT, how long in-flight jobs may take to finish (harvests stop at once
   * and are resumed by another worker) before the worker exits anyway.
   */
  shutdownTimeoutMs: number;
  /** JSON_DEPTH_LIMIT: the same limit the API applies to records, for the records of jobs. */
  jsonDepth: number;
}

const workerEnvironmentSchema = z.object({
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(10000).default(500),
  WORKER_JOB_RECORDS: z.coerce.number().int().min(1).max(10000).default(500),
  WORKER_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  WORKER_BACKOFF_MS: z.coerce.number().int().min(10).max(600000).default(1000),
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(100).max(600000).default(30000),
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(100).max(600000).default(30000),
  WORKER_QUEUE_PREFIX: z.string().min(1).default('cairn'),
  WORKER_INGEST_LOG_PATH: z.string().min(1).default('data/ingest-log.sqlite'),
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
});

function readWorkerConfig(
  present: Record<string, string | undefined>,
  problems: string[],
): Omit<WorkerConfig, 'jsonDepth'> {
  const parsed = workerEnvironmentSchema.safeParse(present);
  const fallback = workerEnvironmentSchema.parse({});
  if (!parsed.success) problems.push(...describeIssues('', parsed.error));
  const env = parsed.success ? parsed.data : fallback;
  return {
    concurrency: env.WORKER_CONCURRENCY,
    batchSize: env.WORKER_BATCH_SIZE,
    jobRecords: env.WORKER_JOB_RECORDS,
    attempts: env.WORKER_ATTEMPTS,
    backoffMs: env.WORKER_BACKOFF_MS,
    stalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS,
    lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    queuePrefix: env.WORKER_QUEUE_PREFIX,
    ingestLogPath: env.WORKER_INGEST_LOG_PATH,
    metricsHost: env.WORKER_METRICS_HOST,
    metricsPort: env.WORKER_METRICS_PORT,
    shutdownTimeoutMs: env.WORKER_SHUTDOWN_TIMEOUT_MS,
  };
}

// ---------------------------------------------------------------------------------------------
// Harvesting (HARVEST_*), owned by shared/harvest. See .env.example.
// ---------------------------------------------------------------------------------------------

export interface HarvestConfig {
  /**
   * Addresses or CIDR ranges a harvest may reach although they are not public (loopback,
   * private, link-local, ...); every other non-public address is refused.
   */
  allowedAddresses: readonly string[];
  /** Largest response (or document) accepted from a source, after decompression. */
  maxBytes: number;
  /** Time allowed for one request to a source, redirects and body included. */
  timeoutMs: number;
  /** Time allowed for one page of a run (every request it takes, authentication included). */
  pageTimeoutMs: number;
  /** Time allowed for a whole run; past it the run stops and fails (not retried). */
  runTimeoutMs: number;
}

const harvestEnvironmentSchema = z.object({
  HARVEST_ALLOWED_ADDRESSES: z.string().default(''),
  HARVEST_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  HARVEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  HARVEST_PAGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  HARVEST_RUN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(604_800_000).default(3_600_000),
});

function readHarvestConfig(
  present: Record<string, string | undefined>,
  problems: string[],
): HarvestConfig {
  const parsed = harvestEnvironmentSchema.safeParse(present);
  const env = parsed.success ? parsed.data : harvestEnvironmentSchema.parse({});
  if (!parsed.success) problems.push(...describeIssues('', parsed.error));
  const allowedAddresses = env.HARVEST_ALLOWED_ADDRESSES.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of allowedAddresses) {
    try {
      parseAllowedEntry(entry);
    } catch (error) {
      problems.push(`HARVEST_ALLOWED_ADDRESSES: ${(error as Error).message}`);
    }
  }
  if (env.HARVEST_PAGE_TIMEOUT_MS > env.HARVEST_RUN_TIMEOUT_MS)
    problems.push(
      `HARVEST_PAGE_TIMEOUT_MS (${env.HARVEST_PAGE_TIMEOUT_MS}) must not exceed HARVEST_RUN_TIMEOUT_MS (${env.HARVEST_RUN_TIMEOUT_MS})`,
    );
  return {
    allowedAddresses,
    maxBytes: env.HARVEST_MAX_BYTES,
    timeoutMs: env.HARVEST_TIMEOUT_MS,
    pageTimeoutMs: env.HARVEST_PAGE_TIMEOUT_MS,
    runTimeoutMs: env.HARVEST_RUN_TIMEOUT_MS,
  };
}

// ---------------------------------------------------------------------------------------------
// Web crawlers (ROBOTS_TXT*, SITEMAP_*), owned by services/api/protocols/web. See .env.example.
// ---------------------------------------------------------------------------------------------

/** The most of a robots.txt file crawlers read (Google stops at 500 KiB). */
export const ROBOTS_TXT_MAX_BYTES = 500 * 1024;

export interface WebConfig {
  /**
   * What /robots.txt answers: `generated` (the rules and the sitemap index, built per request),
   * `off` (404), or `file` (the text of ROBOTS_TXT_FILE, read at start-up).
   */
  robots: { mode: 'generated' | 'off' } | { mode: 'file'; text: string };
  /** The sitemap index and files; `urlsPerFile`: at most this many record pages per file. */
  sitemap: { enabled: boolean; urlsPerFile: number };
}

const webEnvironmentSchema = z.object({
  ROBOTS_TXT: z.enum(['generated', 'off']).default('generated'),
  ROBOTS_TXT_FILE: z.string().min(1).optional(),
  SITEMAP_ENABLED: booleanString.default(true),
  SITEMAP_URLS_PER_FILE: z.coerce.number().int().min(1).max(50_000).default(50_000),
});

function readWebConfig(present: Record<string, string | undefined>, problems: string[]): WebConfig {
  const parsed = webEnvironmentSchema.safeParse(present);
  const env = parsed.success ? parsed.data : webEnvironmentSchema.parse({});
  if (!parsed.success) problems.push(...describeIssues('', parsed.error));
  const sitemap = { enabled: env.SITEMAP_ENABLED, urlsPerFile: env.SITEMAP_URLS_PER_FILE };
  if (env.ROBOTS_TXT_FILE === undefined) return { robots: { mode: env.ROBOTS_TXT }, sitemap };
  if (present.ROBOTS_TXT === 'off') {
    problems.push('ROBOTS_TXT=off and ROBOTS_TXT_FILE: set at most one');
  }
  let text = '';
  try {
    text = readFileSync(env.ROBOTS_TXT_FILE, 'utf8');
    if (Buffer.byteLength(text, 'utf8') > ROBOTS_TXT_MAX_BYTES) {
      problems.push(`ROBOTS_TXT_FILE: ${env.ROBOTS_TXT_FILE} is larger than 500 KiB`);
    }
  } catch (error) {
    problems.push(
      `ROBOTS_TXT_FILE: cannot read ${env.ROBOTS_TXT_FILE}: ${(error as Error).message}`,
    );
  }
  return { robots: { mode: 'file', text }, sitemap };
}

// ---------------------------------------------------------------------------------------------
// OAI-PMH (OAI_*): the data provider at /catalogue/oai and how long tombstones are kept.
// ---------------------------------------------------------------------------------------------

export interface OaiConfig {
  /** The repository identifier of `oai:<repositoryIdentifier>:<record id>` identifiers. */
  repositoryIdentifier: string;
  /** Records or headers per ListRecords / ListIdentifiers page. */
  pageSize: number;
  /** Seconds a resumption token stays valid (its expirationDate). */
  tokenTtlSeconds: number;
  /**
   * Key that signs resumption tokens (HMAC-SHA256); replicas behind one address must share
   * it. Unset: a random key per process, so tokens are valid only on the process that made them.
   */
  tokenSecret?: string | undefined;
  /**
   * Days a tombstone is kept before `npm run purge-tombstones` removes it (the Identify response
   * then says deletedRecord `transient`); unset: kept for ever (`persistent`).
   */
  tombstoneMaxAgeDays?: number | undefined;
}

/** The oai-identifier scheme's repository identifier: a domain name. */
const REPOSITORY_IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

const oaiEnvironmentSchema = z.object({
  OAI_REPOSITORY_IDENTIFIER: z
    .string()
    .regex(REPOSITORY_IDENTIFIER, 'a domain name, such as catalogue.example.org')
    .default('cairn.local'),
  OAI_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  OAI_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(86_400),
  OAI_TOKEN_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  OAI_TOMBSTONE_MAX_AGE_DAYS: z.coerce.number().int().min(1).optional(),
});

function readOaiConfig(present: Record<string, string | undefined>, problems: string[]): OaiConfig {
  const parsed = oaiEnvironmentSchema.safeParse(present);
  const env = parsed.success ? parsed.data : oaiEnvironmentSchema.parse({});
  if (!parsed.success) problems.push(...describeIssues('', parsed.error));
  return {
    repositoryIdentifier: env.OAI_REPOSITORY_IDENTIFIER,
    pageSize: env.OAI_PAGE_SIZE,
    tokenTtlSeconds: env.OAI_TOKEN_TTL_SECONDS,
    tokenSecret: env.OAI_TOKEN_SECRET,
    tombstoneMaxAgeDays: env.OAI_TOMBSTONE_MAX_AGE_DAYS,
  };
}
