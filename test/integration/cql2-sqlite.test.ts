/**
 * The whole CQL2 suite (cql2/suite.ts) on the embedded SQLite backend, in a real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { describeCql2Suite } from './cql2/suite.js';

describeCql2Suite('SQLite', {
  async open() {
    const directory = mkdtempSync(join(tmpdir(), 'cairn-cql2-'));
    const backend = new SqliteBackend({ path: join(directory, 'cql2.sqlite') });
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
