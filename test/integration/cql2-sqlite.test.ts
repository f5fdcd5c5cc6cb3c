/**
 * The whole CQL2 suite (cql2/suite.ts) on the embedded SQLite backend, in a real SQLite file:
 * reading on the event loop, and on two read workers (read-pool.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { describeCql2Suite } from './cql2/suite.js';

for (const readWorkers of [0, 2]) {
  describeCql2Suite(readWorkers === 0 ? 'SQLite' : `SQLite, ${readWorkers} read workers`, {
    async open() {
      const directory = mkdtempSync(join(tmpdir(), 'cairn-cql2-'));
      const backend = new SqliteBackend({ path: join(directory, 'cql2.sqlite'), readWorkers });
      const close = backend.close.bind(backend);
      backend.close = async () => {
        try {
          await close();
        } finally {
          rmSync(directory, { recursive: true, force: true });
        }
      };
      await backend.init();
      return backend;
    },
  });
}
