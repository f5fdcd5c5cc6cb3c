import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { InvalidRecordError } from '../../shared/errors/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { describeBackendContract } from './backend-contract.js';
import { describeChangeFeedContract } from './change-feed-contract.js';
import { defined } from '../support/defined.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-sqlite-'));
after(() => rmSync(directory, { recursive: true, force: true }));

describeBackendContract('sqlite (file)', async () => {
  const backend = new SqliteBackend({ path: join(directory, 'contract.sqlite') });
  await backend.init();
  return backend;
});

describeChangeFeedContract('sqlite (file, 2 read workers)', async () => {
  const backend = new SqliteBackend({ path: join(directory, 'changes.sqlite'), readWorkers: 2 });
  await backend.init();
  return backend;
});

// The same answers with searches, facet counts and extents on read connections in worker threads.
describeBackendContract('sqlite (file, 2 read workers)', async () => {
  const backend = new SqliteBackend({ path: join(directory, 'pooled.sqlite'), readWorkers: 2 });
  await backend.init();
  return backend;
});

describe('sqlite applyAtomically', () => {
  it('refuses the whole unit, writing nothing, when one record cannot be stored', async () => {
    const backend = new SqliteBackend({ path: ':memory:' });
    try {
      const [first, second] = parseDocuments(JSON.stringify(CONTRACT_RECORDS.slice(0, 2))).records;
      const kept = defined(first, 'the first record');
      const unstorable = defined(second, 'the second record');
      await backend.upsert([kept]);
      // A value JSON cannot hold: building its row fails, after the first record's row is built.
      unstorable.extra.size = 10n;
      const error = await backend
        .applyAtomically({ upsert: [{ ...kept, title: 'changed' }, unstorable], delete: [kept.id] })
        .catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(InvalidRecordError);
      expect((error as Error).message).to.contain(unstorable.id);
      expect((await backend.get(kept.id))?.title).to.equal(kept.title);
      expect(await backend.get(unstorable.id)).to.equal(null);
    } finally {
      await backend.close();
    }
  });
});
