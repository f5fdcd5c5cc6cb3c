/**
 * Configuration: read once from the environment (and an optional YAML file with the
 * service's descriptive metadata), validated, typed and frozen. Nothing else in Cairn
 * reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionalUrl = z.url().optional();

const environmentSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  PUBLIC_BASE_URL: optionalUrl,
  TRUST_PROXY: booleanString.default(true),
  SQLITE_PATH: z.string().min(1).default('data/cairn.sqlite'),
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
  SAMPLE_RECORDS: z.coerce.number().int().min(0).default(300),
  SERVICE_METADATA_FILE: z.string().min(1).optional(),
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
  publicBaseUrl?: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when deriving the base URL. */
  trustProxy: boolean;
  logLevel: string;
  search: { kind: 'sqlite'; path: string } | { kind: 'elasticsearch' | 'opensearch'; url: string };
  redisUrl?: string;
  limits: { defaultLimit: number; maxLimit: number; bodyBytes: number };
  /** How many generated records to load into an empty embedded database at start-up. */
  sampleRecords: number;
  service: ServiceMetadata;
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
  if (env && env.ELASTICSEARCH_URL && env.OPENSEARCH_URL) {
    problems.push('ELASTICSEARCH_URL and OPENSEARCH_URL: set at most one search engine');
  }
  if (env && env.LIMIT_DEFAULT > env.LIMIT_MAX) {
    problems.push(
      `LIMIT_DEFAULT (${env.LIMIT_DEFAULT}) must not exceed LIMIT_MAX (${env.LIMIT_MAX})`,
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
      ? { kind: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'opensearch', url: engineUrl }
      : { kind: 'sqlite', path: env.SQLITE_PATH },
    redisUrl: env.REDIS_URL,
    limits: {
      defaultLimit: env.LIMIT_DEFAULT,
      maxLimit: env.LIMIT_MAX,
      bodyBytes: env.BODY_LIMIT_BYTES,
    },
    sampleRecords: env.SAMPLE_RECORDS,
    service,
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
