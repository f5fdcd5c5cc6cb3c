/**
 * A catalogue loaded the way a user loads one: the ingest CLI (`scripts/ingest.ts`, what
 * `npm run ingest` runs) in a child process, writing into the backend CAIRN_TEST_SYSTEM_BACKEND
 * chooses (a fresh SQLite file, or a fresh alias on Elasticsearch or OpenSearch), then the API
 * app over that same store. The child's environment holds only the backend the test gives it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Express } from 'express';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { uniqueAlias } from '../integration/engine-backend-cases.js';
import { REPO_ROOT } from './fixtures.js';
import { engineUrl, openEngineBackend, type SuiteBackend } from './system-backend.js';

const run = promisify(execFile);

/** Settings of the caller's environment the child must not inherit (they choose a backend). */
const BACKEND_SETTINGS = [
  'ELASTICSEARCH_URL',
  'OPENSEARCH_URL',
  'REDIS_URL',
  'SQLITE_PATH',
  'SEARCH_INDEX_ALIAS',
  'SEARCH_SPATIAL_MODE',
  'SEARCH_REFRESH',
];

/** What the ingest CLI said and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A catalogue the CLI loaded, with the app over it. */
export interface CliCatalogue {
  app: Express;
  backend: SearchBackend;
  config: Readonly<Config>;
  /** The CLI's run. */
  ingest: CliRun;
  /** Closes the app's backend and deletes the SQLite file or the engine's indices. */
  close: () => Promise<void>;
}

/** Runs the ingest CLI on the paths with the given backend settings (quiet: no progress bar). */
export async function runIngestCli(
  paths: readonly string[],
  backendEnvironment: Record<string, string>,
): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...backendEnvironment };
  for (const name of BACKEND_SETTINGS) {
    if (!(name in backendEnvironment)) delete env[name];
  }
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/ingest.ts', '--quiet', ...paths],
      { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? -1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** The number after `label: ` in the CLI's summary (e.g. `records written`). */
export function cliCount(stdout: string, label: string): number {
  const match = new RegExp(`^${label}: (\\d+)`, 'm').exec(stdout);
  if (!match?.[1]) throw new Error(`the ingest CLI printed no "${label}":\n${stdout}`);
  return Number(match[1]);
}

/**
 * Loads the paths with the ingest CLI into a fresh store on the target backend and builds the
 * app over it (`environment` adds settings of the app, e.g. LIMIT_MAX).
 */
export async function ingestWithCli(
  target: SuiteBackend,
  paths: readonly string[],
  environment: Record<string, string> = {},
): Promise<CliCatalogue> {
  if (target.kind === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
    const path = join(directory, 'cairn.sqlite');
    const removeDirectory = () => rmSync(directory, { recursive: true, force: true });
    try {
      const ingest = await runIngestCli(paths, { SQLITE_PATH: path });
      const config = loadConfig({ LOG_LEVEL: 'silent', SQLITE_PATH: path, ...environment });
      const backend = new SqliteBackend({ path, readWorkers: 0 });
      await backend.init();
      const app = createApp({ config, backend, logger: createLogger('silent', 'test') });
      const close = async () => {
        try {
          await backend.close();
        } finally {
          removeDirectory();
        }
      };
      return { app, backend, config, ingest, close };
    } catch (error) {
      removeDirectory();
      throw error;
    }
  }
  const url = engineUrl(target);
  const spatial = target.spatial ?? 'envelope';
  const alias = uniqueAlias(spatial);
  const urlSetting = target.kind === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL';
  // The alias exists (and is deleted on close) before the CLI writes into it.
  const backend = await openEngineBackend(target, { alias });
  try {
    const ingest = await runIngestCli(paths, {
      [urlSetting]: url,
      SEARCH_INDEX_ALIAS: alias,
      SEARCH_SPATIAL_MODE: spatial,
      // Every record searchable when the CLI exits.
      SEARCH_REFRESH: 'wait_for',
    });
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      [urlSetting]: url,
      SEARCH_INDEX_ALIAS: alias,
      SEARCH_SPATIAL_MODE: spatial,
      ...environment,
    });
    const app = createApp({ config, backend, logger: createLogger('silent', 'test') });
    return { app, backend, config, ingest, close: () => backend.close() };
  } catch (error) {
    await backend.close();
    throw error;
  }
}
