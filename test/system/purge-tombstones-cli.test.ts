/**
 * `npm run purge-tombstones` on an embedded catalogue file: with OAI_TOMBSTONE_MAX_AGE_DAYS it
 * removes the tombstones older than that and keeps the others; without it, none.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { REPO_ROOT } from '../support/fixtures.js';

function purge(path: string, environment: Record<string, string> = {}): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/purge-tombstones.ts'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', SQLITE_PATH: path, ...environment },
  });
  expect(run.status, run.stderr).to.equal(0);
  return run.stdout;
}

describe('purge-tombstones CLI', function () {
  this.timeout(60_000);
  const directory = mkdtempSync(join(tmpdir(), 'cairn-purge-'));
  const path = join(directory, 'cairn.sqlite');
  after(() => rmSync(directory, { recursive: true, force: true }));

  before(async () => {
    const backend = new SqliteBackend({ path });
    await backend.upsert(parseDocuments(JSON.stringify(CONTRACT_RECORDS)).records);
    expect(await backend.delete(['r1', 'r2'])).to.equal(2);
    await backend.close();
    // r1 was deleted long ago.
    const db = new Database(path);
    db.prepare("UPDATE tombstones SET changed = '2000-01-01T00:00:00.000Z' WHERE id = 'r1'").run();
    db.close();
  });

  it('keeps every tombstone without a maximum age', () => {
    expect(purge(path)).to.match(/not set: tombstones are kept for ever, none removed/);
  });

  it('removes the tombstones older than the maximum age, and only those', async () => {
    expect(purge(path, { OAI_TOMBSTONE_MAX_AGE_DAYS: '30' })).to.match(/^removed 1 tombstones /);
    const backend = new SqliteBackend({ path });
    try {
      expect(await backend.change('r1')).to.equal(null);
      expect(await backend.change('r2')).to.include({ id: 'r2', deleted: true });
    } finally {
      await backend.close();
    }
  });
});
