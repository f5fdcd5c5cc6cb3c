/**
 * The backends the CSW and OpenSearch system suites run on: the embedded SQLite file, and the
 * search engines as the test services run them (Elasticsearch in `envelope` mode, OpenSearch in
 * `shape` mode), so that every CSW answer is checked against SQLite and a search engine. With
 * CAIRN_TEST_SYSTEM_BACKEND set (system-backend.ts), a suite runs on that backend only:
 * scripts/test-all.sh runs these suites once per backend (system, system-es, system-os).
 *
 * A suite loads its records once per backend (one fresh, uniquely named alias per suite,
 * deleted when it closes); the OGC CITE records, which several suites read without writing,
 * are loaded once per engine for the whole run. An engine whose CAIRN_TEST_* URL is missing
 * registers a failing test that says how to provide it: the suites never pass by skipping.
 */
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { EngineBackendSettings } from '../../shared/search/create-backend.js';
import { createApp } from '../../services/api/app.js';
import { requireEngineUrl } from '../integration/engine-backend-cases.js';
import { readDocuments } from './catalogue-app.js';
import { samplePath } from './fixtures.js';
import {
  BACKEND_TITLES,
  chosenBackendKind,
  engineTarget,
  openEngineBackend,
  type SuiteBackend,
} from './system-backend.js';
import { startApp, type TestApp } from './test-app.js';

export type { SuiteBackend } from './system-backend.js';

const ENGINES = ['elasticsearch', 'opensearch'] as const;

/**
 * The backends to run on: the one CAIRN_TEST_SYSTEM_BACKEND chooses (scripts/test-all.sh runs
 * these suites once per backend); unset, SQLite and every engine. Call it at the top level of
 * a test file: a missing engine URL registers its failing test there.
 */
export function suiteBackends(): SuiteBackend[] {
  const chosen = chosenBackendKind();
  if (chosen === 'sqlite') return [{ kind: 'sqlite', label: BACKEND_TITLES.sqlite }];
  const backends: SuiteBackend[] =
    chosen === undefined ? [{ kind: 'sqlite', label: BACKEND_TITLES.sqlite }] : [];
  for (const kind of ENGINES) {
    if (chosen !== undefined && chosen !== kind) continue;
    if (requireEngineUrl(kind)) backends.push(engineTarget(kind));
  }
  return backends;
}

/**
 * Starts an app over exactly these documents on the backend; fails when any is rejected.
 * `engine` options apply to the engines only (e.g. a small result window, so that a few
 * hundred records reach the deep-paging path). The returned `close` deletes the SQLite file or
 * the engine's indices.
 */
export async function createCatalogueAppOn(
  target: SuiteBackend,
  documents: RawDocument[],
  environment: Record<string, string> = {},
  engine: Partial<EngineBackendSettings> = {},
): Promise<TestApp> {
  if (target.kind === 'sqlite') return startApp(target, documents, environment);
  const backend = await loadEngine(target, documents, engine);
  return appOver(backend, environment, () => backend.close());
}

/** A fresh engine alias loaded with the documents (deleted again if loading fails). */
async function loadEngine(
  target: SuiteBackend,
  documents: RawDocument[],
  engine: Partial<EngineBackendSettings> = {},
): Promise<SearchBackend> {
  const backend = await openEngineBackend(target, engine);
  try {
    const summary = await ingestDocuments(backend, documents);
    if (summary.rejected.length > 0) {
      throw new Error(`documents rejected: ${JSON.stringify(summary.rejected)}`);
    }
  } catch (error) {
    await backend.close();
    throw error;
  }
  return backend;
}

function appOver(
  backend: SearchBackend,
  environment: Record<string, string>,
  close: () => Promise<void>,
): TestApp {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...environment });
  const app = createApp({ config, backend, logger: createLogger('silent', 'test') });
  return { app, backend, config, close };
}

/** The CITE records, loaded once per engine, by engine label. */
const citeEngines = new Map<string, Promise<SearchBackend>>();

// Root-level hook: deletes the shared CITE aliases once every suite has run.
after(async () => {
  const loaded = await Promise.allSettled(citeEngines.values());
  citeEngines.clear();
  for (const result of loaded) {
    if (result.status === 'fulfilled') await result.value.close();
  }
});

/**
 * Starts an app (with its own configuration) over the OGC CITE Dublin Core records on the
 * backend. On the engines the records are loaded once for the whole run, so suites using this
 * must not write; `close` then leaves the shared alias in place.
 */
export async function createCiteAppOn(
  target: SuiteBackend,
  environment: Record<string, string> = {},
): Promise<TestApp> {
  const documents = readDocuments(samplePath('dublin-core-cite'));
  if (target.kind === 'sqlite') return startApp(target, documents, environment);
  let loading = citeEngines.get(target.label);
  if (loading === undefined) {
    loading = loadEngine(target, documents);
    citeEngines.set(target.label, loading);
    // A failed load is not cached: the next suite tries again (and fails with its reason).
    loading.catch(() => citeEngines.delete(target.label));
  }
  return appOver(await loading, environment, async () => undefined);
}
