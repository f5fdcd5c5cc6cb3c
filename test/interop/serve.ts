/**
 * Starts the real API for the interoperability tests: a temporary SQLite file (or, with
 * `--backend elasticsearch|opensearch`, a fresh alias on the engine at CAIRN_TEST_ELASTICSEARCH_URL
 * or CAIRN_TEST_OPENSEARCH_URL) loaded with the repository's STAC samples (data/samples/stac:
 * Items, Collections, the ISO collection records the Items name as their parent, the OGC record)
 * and generated records, served on 127.0.0.1 on a free port.
 * Prints one JSON line `{"url", "urls", "records", "rejected", "backend"}` on stdout once it
 * listens, and stops (removing the file or the engine's indices) on SIGTERM, SIGINT or when stdin
 * closes. `--replicas N` serves N API instances over the same backend (sharing the OAI-PMH token
 * secret, as replicas behind one address do), each on its own port (`urls`); `--auth` protects
 * writes with the test realm of the real Keycloak (KEYCLOAK_URL); `--oai-page-size` sets
 * OAI_PAGE_SIZE.
 *
 *   npx tsx test/interop/serve.ts [--records N] [--samples all|stac,iso19139,...]
 *                                 [--backend sqlite|elasticsearch|opensearch]
 *                                 [--replicas N] [--auth] [--oai-page-size N]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createTestBackend } from '../integration/engine-backend-cases.js';
import { CLIENT, ISSUER } from '../integration/keycloak/keycloak-support.js';
import { samplePath } from '../support/fixtures.js';

/** The sample documents (JSON and XML) of one data/samples folder, by file name. */
function readSamples(directory: string): RawDocument[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json') || name.endsWith('.xml'))
    .sort()
    .map((name) => ({ name, content: readFileSync(join(directory, name), 'utf8') }));
}

/** Sample folders loaded: `--samples all` (every format) or a comma-separated list. */
const SAMPLE_FOLDERS = ['stac', 'iso19139', 'iso19115-3', 'dublin-core-cite'];

/** The engines `--backend` takes, with their test URL variable and spatial mode. */
const ENGINES = {
  elasticsearch: { variable: 'CAIRN_TEST_ELASTICSEARCH_URL', spatial: 'envelope' },
  opensearch: { variable: 'CAIRN_TEST_OPENSEARCH_URL', spatial: 'shape' },
} as const;

/** The backend to serve from: the SQLite file, or a fresh alias on a test engine. */
async function openBackend(kind: string, sqlitePath: string): Promise<SearchBackend> {
  if (kind === 'sqlite') {
    const backend = new SqliteBackend({ path: sqlitePath });
    await backend.init();
    return backend;
  }
  if (kind !== 'elasticsearch' && kind !== 'opensearch') {
    throw new Error(`--backend must be sqlite, elasticsearch or opensearch, got "${kind}"`);
  }
  const { variable, spatial } = ENGINES[kind];
  const url = process.env[variable];
  if (!url) throw new Error(`--backend ${kind} needs ${variable} (see scripts/services.sh)`);
  // Closing it deletes its indices.
  return createTestBackend(kind, url, { spatial });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      records: { type: 'string', default: '200' },
      samples: { type: 'string', default: 'stac' },
      backend: { type: 'string', default: 'sqlite' },
      replicas: { type: 'string', default: '1' },
      auth: { type: 'boolean', default: false },
      'oai-page-size': { type: 'string', default: '100' },
    },
  });
  const folders = values.samples === 'all' ? SAMPLE_FOLDERS : values.samples.split(',');
  const samples = folders.flatMap((folder) => readSamples(samplePath(folder)));

  const directory = mkdtempSync(join(tmpdir(), 'cairn-interop-'));
  const path = join(directory, 'cairn.sqlite');
  const config = loadConfig({
    LOG_LEVEL: 'error',
    SQLITE_PATH: path,
    HOST: '127.0.0.1',
    OAI_PAGE_SIZE: values['oai-page-size'],
    OAI_TOKEN_SECRET: 'the interoperability tests share this secret between replicas',
    ...(values.auth ? { AUTH_ISSUER_URL: ISSUER, AUTH_CLIENT_ID: CLIENT.catalogue } : {}),
  });
  const backend = await openBackend(values.backend, path);
  const generated = [...generateRecords(Number(values.records), 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
  const summary = await ingestDocuments(backend, [...samples, ...generated]).catch(
    async (error: unknown) => {
      await backend.close(); // an engine alias is not left behind
      throw error;
    },
  );

  const servers = await Promise.all(
    Array.from({ length: Math.max(1, Number(values.replicas)) }, async () => {
      const app = createApp({ config, backend, logger: createLogger('error', 'interop') });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      return server;
    }),
  );
  const urls = servers.map(
    (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue`,
  );
  const line = {
    url: urls[0],
    urls,
    records: summary.written,
    rejected: summary.rejected,
    backend: backend.kind,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    void backend.close().finally(() => {
      rmSync(directory, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

main().catch((error: unknown) => {
  console.error('interop server failed:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
