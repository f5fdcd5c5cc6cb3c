/**
 * The backend the Records, STAC and CSW system suites run on, chosen by the environment so that
 * the same suites run unchanged on the embedded SQLite file and on each search engine:
 *
 *   CAIRN_TEST_SYSTEM_BACKEND=sqlite|elasticsearch|opensearch   (unset: see below)
 *   CAIRN_TEST_SYSTEM_SPATIAL=envelope|shape   (engines; default envelope on Elasticsearch,
 *                                               shape on OpenSearch, as in production)
 *
 * `createTestApp` and `createCatalogueApp` build their app over the chosen backend: a fresh
 * SQLite file, or a fresh, uniquely named alias on the shared engine (the engine URL from
 * CAIRN_TEST_ELASTICSEARCH_URL / CAIRN_TEST_OPENSEARCH_URL), written with refresh `wait_for` so
 * that every record is searchable before a test asserts, and deleted when the app closes.
 *
 * The CSW suites iterate over `suiteBackends()` (csw-backends.ts): unset, that is SQLite and
 * both engines in one run (as a developer runs one file); set, exactly the chosen backend
 * (scripts/test-all.sh runs the protocol suites once per backend, in parallel).
 */
import type { BackendKind } from '../../shared/search/backend.js';
import type { EngineBackendSettings } from '../../shared/search/create-backend.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { createTestBackend } from '../integration/engine-backend-cases.js';

/** One backend a suite runs on. */
export interface SuiteBackend {
  kind: BackendKind;
  /** For suite titles: "SQLite", "Elasticsearch (envelope)" … */
  label: string;
  url?: string | undefined;
  spatial?: SpatialMode;
}

export const BACKEND_VARIABLE = 'CAIRN_TEST_SYSTEM_BACKEND';
export const SPATIAL_VARIABLE = 'CAIRN_TEST_SYSTEM_SPATIAL';

const URL_VARIABLES: Readonly<Record<'elasticsearch' | 'opensearch', string>> = {
  elasticsearch: 'CAIRN_TEST_ELASTICSEARCH_URL',
  opensearch: 'CAIRN_TEST_OPENSEARCH_URL',
};

const DEFAULT_SPATIAL: Readonly<Record<'elasticsearch' | 'opensearch', SpatialMode>> = {
  elasticsearch: 'envelope',
  opensearch: 'shape',
};

export const BACKEND_TITLES: Readonly<Record<BackendKind, string>> = {
  sqlite: 'SQLite',
  elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch',
};

/** The backend kind CAIRN_TEST_SYSTEM_BACKEND names, or undefined when it is unset. */
export function chosenBackendKind(): BackendKind | undefined {
  const value = process.env[BACKEND_VARIABLE];
  if (value === undefined || value === '') return undefined;
  if (value !== 'sqlite' && value !== 'elasticsearch' && value !== 'opensearch') {
    throw new Error(`${BACKEND_VARIABLE}=${value}: expected sqlite, elasticsearch or opensearch`);
  }
  return value;
}

/**
 * The engine as a suite backend. Its URL may be missing: opening it then fails (the suite's
 * hook, never skipping it) saying how to provide it.
 */
export function engineTarget(kind: 'elasticsearch' | 'opensearch'): SuiteBackend {
  const url = process.env[URL_VARIABLES[kind]] || undefined;
  const spatial = process.env[SPATIAL_VARIABLE] || DEFAULT_SPATIAL[kind];
  if (spatial !== 'envelope' && spatial !== 'shape') {
    throw new Error(`${SPATIAL_VARIABLE}=${spatial}: expected envelope or shape`);
  }
  return { kind, label: `${BACKEND_TITLES[kind]} (${spatial})`, url, spatial };
}

/** The backend the single-backend suites (Records, STAC) run on: SQLite unless chosen. */
export function systemBackend(): SuiteBackend {
  const kind = chosenBackendKind() ?? 'sqlite';
  return kind === 'sqlite' ? { kind, label: BACKEND_TITLES.sqlite } : engineTarget(kind);
}

/** The engine's URL; throws, saying how to provide it, when it is missing. */
export function engineUrl(target: SuiteBackend): string {
  if (target.kind === 'sqlite') throw new Error(`${target.label} is not a search engine`);
  if (!target.url) {
    const variable = URL_VARIABLES[target.kind];
    throw new Error(
      `${BACKEND_VARIABLE}=${target.kind} needs ${variable}. Start the engine with \`bash scripts/services.sh start ${target.kind}\` and export the URL (the script writes it to $CAIRN_CACHE/run/env.sh).`,
    );
  }
  return target.url;
}

/**
 * A backend over a fresh, uniquely named alias on the engine (unless `options` name one),
 * writing with refresh `wait_for`; closing it deletes its indices.
 */
export async function openEngineBackend(
  target: SuiteBackend,
  options: Partial<EngineBackendSettings> = {},
): Promise<EngineBackend> {
  const url = engineUrl(target);
  if (target.kind === 'sqlite' || !target.spatial) {
    throw new Error(`${target.label} is not a search engine`);
  }
  return createTestBackend(target.kind, url, { spatial: target.spatial, ...options });
}
