/**
 * A scaled-mode catalogue for the fault tests: an engine alias of the test's own seeded with
 * generated records, the environment the API and worker processes share (engine, Redis queue,
 * identity provider, ingest log), and exact reads of what the engine holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../shared/config/index.js';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import { createEngineBackend } from '../../../shared/search/create-backend.js';
import { generateRecords } from '../../../scripts/corpus/generator.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import { CLIENT, ISSUER } from '../../integration/keycloak/keycloak-support.js';

/** Seed of the generated records a test loads before the fault (the load writes seed 9001). */
export const SEED_RECORDS_SEED = 7;

export interface ScaledCatalogue {
  /** The environment of the API and worker processes. */
  environment: Record<string, string>;
  /** Folder for the processes' logs and the ingest log. */
  directory: string;
  engineUrl: string;
  alias: string;
}

/** The shared Elasticsearch the test suites use (not stopped by any fault test). */
export function sharedEngineUrl(): string {
  const url = process.env.CAIRN_TEST_ELASTICSEARCH_URL;
  if (!url)
    throw new Error(
      'CAIRN_TEST_ELASTICSEARCH_URL is not set. Start the engine with `bash scripts/services.sh start elasticsearch` and export its URL (scripts/test-all.sh does both).',
    );
  return url;
}

/** Creates the alias with `seedCount` records and returns the processes' environment. */
export async function createScaledCatalogue(
  name: string,
  engineUrl: string,
  redisUrl: string,
  seedCount: number,
): Promise<ScaledCatalogue> {
  const directory = mkdtempSync(join(tmpdir(), `cairn-faults-${name}-`));
  const alias = `cairn-faults-${name}-${process.pid}-${Date.now()}`;
  const backend = createEngineBackend({ engine: 'elasticsearch', url: engineUrl, alias });
  try {
    await backend.init();
    const content = [...generateRecords(seedCount, SEED_RECORDS_SEED)]
      .map((record) => JSON.stringify(record))
      .join('\n');
    const { records, failures } = parseDocuments(content, { name: 'seed' });
    if (failures.length > 0) throw new Error(`seed records rejected: ${JSON.stringify(failures)}`);
    const result = await backend.upsert(records);
    if (result.written !== seedCount) throw new Error(`seeded ${result.written} of ${seedCount}`);
    await backend.refresh();
  } finally {
    await backend.close();
  }
  return {
    directory,
    engineUrl,
    alias,
    environment: {
      LOG_LEVEL: 'info',
      ELASTICSEARCH_URL: engineUrl,
      SEARCH_INDEX_ALIAS: alias,
      REDIS_URL: redisUrl,
      WORKER_QUEUE_PREFIX: `cairn-faults-${name}-${process.pid}-${Date.now()}`,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
    },
  };
}

/** The producer side of the catalogue's queues, to watch them drain. */
export function queuesOf(catalogue: ScaledCatalogue): JobQueues {
  const config = loadConfig(catalogue.environment);
  if (!config.redisUrl) throw new Error('the catalogue has no queue');
  return new JobQueues(config.redisUrl, config.worker);
}

/** True when no ingest or delete job is waiting, delayed or running. */
export async function queuesDrained(queues: JobQueues): Promise<boolean> {
  for (const queue of [queues.queues.ingest, queues.queues.delete]) {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(counts).some((count) => count > 0)) return false;
  }
  return true;
}

/** The ids of every record in the alias (after a refresh), sorted. */
export async function engineRecordIds(catalogue: ScaledCatalogue): Promise<string[]> {
  const base = `${catalogue.engineUrl}/${encodeURIComponent(catalogue.alias)}`;
  const refresh = await fetch(`${base}/_refresh`, { method: 'POST' });
  if (!refresh.ok) throw new Error(`refresh: HTTP ${refresh.status}`);
  const response = await fetch(`${base}/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ size: 10000, _source: false, query: { match_all: {} } }),
  });
  if (!response.ok) throw new Error(`search: HTTP ${response.status}`);
  const body = (await response.json()) as { hits: { hits: { _id: string }[] } };
  return body.hits.hits.map((hit) => hit._id).sort();
}

/** Removes the alias, its indices and templates. */
export async function destroyScaledCatalogue(catalogue: ScaledCatalogue): Promise<void> {
  const backend = createEngineBackend({
    engine: 'elasticsearch',
    url: catalogue.engineUrl,
    alias: catalogue.alias,
    maxRetries: 0,
  });
  try {
    await backend.destroy();
  } finally {
    await backend.close();
  }
}

/**
 * Removes a test's folder (process logs, ingest log) after its suite passed; after a failure it
 * is kept, and named, for the diagnosis.
 */
export function removeTestFolder(directory: string, suite: Mocha.Suite | undefined): void {
  if (suite?.tests.every((test) => test.state === 'passed')) {
    rmSync(directory, { recursive: true, force: true });
  } else {
    console.error(`fault suite: logs kept in ${directory}`);
  }
}
