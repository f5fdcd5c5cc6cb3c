import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { InvalidRecordError } from '../../shared/errors/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { CONTRACT_RECORDS } from '../fixtures/contract-records.js';
import { describeBackendContract } from './backend-contract.js';
import { describeChangeFeedContract } from './change-feed-contract.js';
import { describeIdWalkContract } from './id-walk-contract.js';
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

describeIdWalkContract('sqlite (file, 2 read workers)', async () => {
  const backend = new SqliteBackend({ path: join(directory, 'walk.sqlite'), readWorkers: 2 });
  await backend.init();
  return backend;
});

describeIdWalkContract('sqlite (in memory, with a time budget)', async () => {
  const backend = new SqliteBackend({ path: ':memory:', timeBudgetMs: 5000 });
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

describe('sqlite learned properties', () => {
  const feature = (id: string, properties: Record<string, unknown>) =>
    defined(
      parseDocuments(JSON.stringify({ ...CONTRACT_RECORDS[0], id, properties })).records[0],
      id,
    );
  const names = async (backend: SqliteBackend) =>
    (await backend.learnedProperties()).map((property) => property.name);

  it('are shared by every connection to the file, as soon as the write commits', async () => {
    const path = join(directory, 'learned-shared.sqlite');
    const writer = new SqliteBackend({ path });
    const reader = new SqliteBackend({ path });
    try {
      expect(await names(reader)).to.deep.equal([]);
      await writer.upsert([feature('a', { depth: 1 })]);
      expect(await names(reader)).to.deep.equal(['depth']);
      // A name seen with a second type keeps both.
      await writer.upsert([feature('b', { depth: 'deep' })]);
      expect(await reader.learnedProperties()).to.deep.equal([
        { name: 'depth', types: ['number', 'string'], sortable: true },
      ]);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('stop at the cap: later names are not learned, known names still take new types', async () => {
    const backend = new SqliteBackend({
      path: join(directory, 'learned-cap.sqlite'),
      maxLearnedProperties: 2,
    });
    try {
      await backend.upsert([feature('a', { p1: 1, p2: 2, p3: 3 })]);
      await backend.upsert([feature('b', { p4: 4, p1: 'one' })]);
      const learned = await backend.learnedProperties();
      expect(learned.map((property) => property.name)).to.deep.equal(['p1', 'p2']);
      expect(learned[0]!.types).to.deep.equal(['number', 'string']);
    } finally {
      await backend.close();
    }
  });

  it('are learned from the stored records when a file written before them is opened', async () => {
    const path = join(directory, 'learned-upgrade.sqlite');
    const old = new SqliteBackend({ path });
    await old.upsert([feature('a', { legacy_code: 'X1', legacy_flag: true, title: 'Old' })]);
    await old.close();
    const database = new Database(path);
    database.exec('DROP TABLE learned_properties');
    database.close();
    const reopened = new SqliteBackend({ path });
    try {
      expect(await reopened.learnedProperties()).to.deep.equal([
        { name: 'legacy_code', types: ['string'], sortable: true },
        { name: 'legacy_flag', types: ['boolean'], sortable: true },
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('are not learned at all with a cap of 0', async () => {
    const backend = new SqliteBackend({ path: ':memory:', maxLearnedProperties: 0 });
    try {
      await backend.upsert([feature('a', { p1: 1 })]);
      expect(await names(backend)).to.deep.equal([]);
    } finally {
      await backend.close();
    }
  });
});
