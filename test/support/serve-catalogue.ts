/**
 * Serves the API in its own process for tests that must watch the server from outside (a
 * request that blocks the event loop would also stall a client in the same process): a
 * temporary SQLite file with generated records, on 127.0.0.1 and a free port. Settings come
 * from the environment (QUERY_* and the like, as `npm start` reads them); the record count
 * from CAIRN_TEST_RECORDS; read workers only when SQLITE_READ_WORKERS is set. Prints one JSON line `{"url"}` once it listens; stops (removing
 * the file) when stdin closes or on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-child-'));
const path = join(directory, 'cairn.sqlite');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', SQLITE_PATH: path });
// Read workers only when a test sets SQLITE_READ_WORKERS (each costs a thread start).
const backend = new SqliteBackend({
  path,
  timeBudgetMs: config.query.timeBudgetMs,
  readWorkers:
    process.env.SQLITE_READ_WORKERS && config.search.kind === 'sqlite'
      ? config.search.readWorkers
      : 0,
});
await backend.init();
const count = Number(process.env.CAIRN_TEST_RECORDS ?? '300');
const loaded = await ingestDocuments(
  backend,
  [...generateRecords(count, 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  })),
);
if (loaded.rejected.length > 0 || loaded.written !== count)
  throw new Error(`generated records not all loaded: ${JSON.stringify(loaded.rejected)}`);
const app = createApp({ config, backend, logger: createLogger('silent', 'child') });
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  server.close();
  void backend.close().finally(() => {
    rmSync(directory, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
