/**
 * Starts the real API for the interoperability tests: a temporary SQLite file loaded with the
 * repository's STAC samples (data/samples/stac: Items, Collections, the ISO collection records the Items name as
 * their parent, the OGC record) and generated records, served on 127.0.0.1 on a free port.
 * Prints one JSON line `{"url", "records", "rejected"}` on stdout once it listens, and stops
 * (removing the file) on SIGTERM, SIGINT or when stdin closes.
 *
 *   npx tsx test/interop/serve.ts [--records N] [--samples all|stac,iso19139,...]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      records: { type: 'string', default: '200' },
      samples: { type: 'string', default: 'stac' },
    },
  });
  const folders = values.samples === 'all' ? SAMPLE_FOLDERS : values.samples.split(',');
  const samples = folders.flatMap((folder) => readSamples(samplePath(folder)));

  const directory = mkdtempSync(join(tmpdir(), 'cairn-interop-'));
  const path = join(directory, 'cairn.sqlite');
  const config = loadConfig({ LOG_LEVEL: 'error', SQLITE_PATH: path, HOST: '127.0.0.1' });
  const backend = new SqliteBackend({ path });
  await backend.init();
  const generated = [...generateRecords(Number(values.records), 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
  const summary = await ingestDocuments(backend, [...samples, ...generated]);

  const app = createApp({ config, backend, logger: createLogger('error', 'interop') });
  const server = app.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    const line = {
      url: `http://127.0.0.1:${port}/catalogue`,
      records: summary.written,
      rejected: summary.rejected,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  });

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
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
