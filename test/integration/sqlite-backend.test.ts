import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { describeBackendContract } from './backend-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-sqlite-'));
after(() => rmSync(directory, { recursive: true, force: true }));

describeBackendContract('sqlite (file)', async () => {
  const backend = new SqliteBackend({ path: join(directory, 'contract.sqlite') });
  await backend.init();
  return backend;
});
