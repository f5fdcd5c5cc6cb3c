import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { loadConfig } from '../../shared/config/index.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { samplePath, REPO_ROOT } from '../support/fixtures.js';
import { cliCount, ingestWithCli } from '../support/ingest-cli.js';
import { systemBackend } from '../support/system-backend.js';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
}

async function ingest(databasePath: string, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/ingest.ts', '--quiet', ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, SQLITE_PATH: databasePath, LOG_LEVEL: 'silent' },
      },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failure = error as { code: number; stdout: string };
    return { code: failure.code, stdout: failure.stdout };
  }
}

describe('ingest CLI', function () {
  // Each test starts the CLI in a Node process of its own through tsx: about 3 s on a quiet
  // machine, many times that when every parallel suite shares two cores.
  this.timeout(120_000);
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'cairn-ingest-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('loads a folder of JSON, NDJSON and FeatureCollections, reporting bad files without stopping', async () => {
    const records = [...generateRecords(30, 3)];
    writeFileSync(join(directory, 'one.json'), JSON.stringify(records[0]));
    writeFileSync(
      join(directory, 'many.ndjson'),
      records
        .slice(1, 20)
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    writeFileSync(
      join(directory, 'fc.geojson'),
      JSON.stringify({ type: 'FeatureCollection', features: records.slice(20) }),
    );
    writeFileSync(join(directory, 'broken.json'), '{"type": "Feature", "id": ');
    writeFileSync(join(directory, 'notes.txt'), 'ignored: not a metadata file extension');
    const database = join(directory, 'out.sqlite');

    const result = await ingest(database, directory);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.contain('records read: 31');
    expect(result.stdout).to.contain('records written: 30 into sqlite');
    expect(result.stdout).to.contain('records rejected: 1');
    expect(result.stdout).to.match(/broken\.json: malformed JSON/);
    expect(result.stdout).to.match(/rate: \d+ records\/s/);

    const backend = new SqliteBackend({ path: database });
    const stored = await backend.search({ sort: [], offset: 0, limit: 1 });
    await backend.close();
    expect(stored.total).to.equal(30);
  });

  it('reads an XML file in the encoding it declares (ISO-8859-1) and reports one that is not valid UTF-8', async () => {
    const record = (id: string, declaration: string) =>
      `${declaration}<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier>${id}</dc:identifier><dc:title>Carte géologique du Québec</dc:title></csw:Record>`;
    writeFileSync(
      join(directory, 'latin1.xml'),
      Buffer.from(record('latin1-file', '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1'),
    );
    writeFileSync(join(directory, 'undeclared.xml'), Buffer.from(record('bad', ''), 'latin1'));
    const database = join(directory, 'out.sqlite');
    const result = await ingest(database, directory);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.contain('records written: 1 into sqlite');
    expect(result.stdout).to.match(/undeclared\.xml: .*not valid utf-8/);
    const backend = new SqliteBackend({ path: database });
    const stored = await backend.get('latin1-file');
    await backend.close();
    expect(stored?.title).to.equal('Carte géologique du Québec');
  });

  it('exits non-zero when nothing could be written', async () => {
    writeFileSync(join(directory, 'broken.json'), 'not json at all');
    const result = await ingest(
      join(directory, 'out.sqlite'),
      join(directory, 'broken.json'),
      join(directory, 'missing.json'),
    );
    expect(result.code).to.equal(1);
    expect(result.stdout).to.contain('records written: 0');
  });

  describe('records of one run with the same id', () => {
    // Two files whose ids overlap: a.ndjson holds dup-0…dup-9, b.geojson (read after it, in
    // name order) dup-5…dup-14 with other titles. 20 records are written, the last 5 of them
    // replacing records of the same id written earlier in the run: 15 distinct records.
    const writeOverlappingFiles = (): void => {
      const records = [...generateRecords(15, 5)];
      const withId = (n: number, title: string) => ({
        ...records[n]!,
        id: `dup-${n}`,
        properties: { ...(records[n]!.properties as Record<string, unknown>), title },
      });
      writeFileSync(
        join(directory, 'a.ndjson'),
        Array.from({ length: 10 }, (_, n) => JSON.stringify(withId(n, `first ${n}`))).join('\n'),
      );
      writeFileSync(
        join(directory, 'b.geojson'),
        JSON.stringify({
          type: 'FeatureCollection',
          features: Array.from({ length: 10 }, (_, k) => withId(k + 5, `second ${k + 5}`)),
        }),
      );
    };
    const expectHonestSummary = (stdout: string): void => {
      expect(cliCount(stdout, 'records read')).to.equal(20);
      expect(cliCount(stdout, 'records written')).to.equal(20);
      expect(stdout).to.match(
        /^records written: 20 into \w+ \(5 replaced a record of the same id written earlier in this run\)$/m,
      );
      expect(cliCount(stdout, 'distinct records written')).to.equal(15);
      expect(cliCount(stdout, 'records rejected')).to.equal(0);
    };

    for (const workers of ['0', '2']) {
      it(`counts the replaced records and the distinct ones the store holds (SQLite, --workers ${workers})`, async () => {
        writeOverlappingFiles();
        const database = join(directory, 'out.sqlite');
        const result = await ingest(
          database,
          '--workers',
          workers,
          '--batch-size',
          '4',
          join(directory, 'a.ndjson'),
          join(directory, 'b.geojson'),
        );
        expect(result.code).to.equal(0);
        expectHonestSummary(result.stdout);
        const backend = new SqliteBackend({ path: database });
        try {
          const stored = await backend.search({ sort: [], offset: 0, limit: 1 });
          expect(stored.total).to.equal(cliCount(result.stdout, 'distinct records written'));
          expect((await backend.get('dup-4'))?.title).to.equal('first 4');
          expect((await backend.get('dup-5'))?.title).to.equal('second 5');
        } finally {
          await backend.close();
        }
      });
    }

    const target = systemBackend();
    it(`counts them the same on the backend CAIRN_TEST_SYSTEM_BACKEND chooses (${target.label})`, async () => {
      writeOverlappingFiles();
      const catalogue = await ingestWithCli(target, [
        join(directory, 'a.ndjson'),
        join(directory, 'b.geojson'),
      ]);
      try {
        expect(catalogue.ingest.code, catalogue.ingest.stderr).to.equal(0);
        expectHonestSummary(catalogue.ingest.stdout);
        const items = await request(catalogue.app)
          .get('/catalogue/collections/metadata:main/items?limit=100')
          .expect(200);
        expect(items.body.numberMatched).to.equal(
          cliCount(catalogue.ingest.stdout, 'distinct records written'),
        );
        expect((await catalogue.backend.get('dup-9'))?.title).to.equal('second 9');
      } finally {
        await catalogue.close();
      }
    });
  });

  describe('repository samples (data/samples)', () => {
    before(function () {});

    it('loads every sample file (ISO 19139, ISO 19115-3, Dublin Core, STAC, OGC records) from its folder', async () => {
      const folder = samplePath();
      const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) =>
        /\.(xml|json)$/.test(name),
      );
      const result = await ingest(join(directory, 'out.sqlite'), folder);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.contain(`files: ${files.length}`);
      expect(result.stdout).to.contain(`records written: ${files.length} into sqlite`);
      expect(result.stdout).to.contain('records rejected: 0');
      const backend = new SqliteBackend({ path: join(directory, 'out.sqlite') });
      try {
        const app = createApp({
          config: loadConfig({ LOG_LEVEL: 'silent' }),
          backend,
          logger: createLogger('silent', 'test'),
        });
        const items = await request(app)
          .get('/catalogue/collections/metadata:main/items?limit=100')
          .expect(200);
        expect(items.body.numberMatched).to.equal(files.length);
        const ids = new Set((items.body.features as { id: string }[]).map((feature) => feature.id));
        expect(ids.size).to.equal(files.length);
        const iso = await request(app)
          .get('/catalogue/collections/metadata:main/items?q=Sentinel&limit=100')
          .expect(200);
        expect(iso.body.numberMatched).to.be.greaterThan(0);
      } finally {
        await backend.close();
      }
    });
  });
});
