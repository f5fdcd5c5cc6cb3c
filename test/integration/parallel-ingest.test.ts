/**
 * The parallel SQLite load (parse on worker threads, write on the main thread) against real
 * SQLite files: it must leave exactly the state the sequential pipeline leaves, keep input
 * order for repeated ids across documents, and reject bad records while writing the rest.
 */
import { expect } from 'chai';
import type { Feature } from 'geojson';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { ingestDocumentsInParallel } from '../../shared/ingest/parallel-ingest.js';
import { ingestDocuments, type RawDocument } from '../../shared/ingest/pipeline.js';
import { buildMatchAllQuery, type SearchQuery } from '../../shared/query/search-query.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-parallel-'));
after(() => rmSync(directory, { recursive: true, force: true }));

let opened = 0;
async function openBackend(): Promise<SqliteBackend> {
  opened += 1;
  const backend = new SqliteBackend({ path: join(directory, `load-${opened}.sqlite`) });
  await backend.init();
  return backend;
}

/** Generated records as NDJSON documents of `perDocument` lines each. */
function ndjsonDocuments(count: number, perDocument: number): RawDocument[] {
  const lines = [...generateRecords(count, 7)].map((record) => JSON.stringify(record));
  const documents: RawDocument[] = [];
  for (let start = 0; start < lines.length; start += perDocument) {
    documents.push({
      name: `part-${start}`,
      content: lines.slice(start, start + perDocument).join('\n'),
    });
  }
  return documents;
}

/** Every stored record, by id, as the backend returns it. */
async function snapshot(backend: SqliteBackend): Promise<Map<string, unknown>> {
  const result = await backend.search({ ...buildMatchAllQuery(10_000) });
  return new Map(result.records.map((record) => [record.id, record]));
}

describe('parallel SQLite ingest', function () {
  this.timeout(120_000);

  it('leaves the same records, free text and boxes as the sequential pipeline', async () => {
    const documents = ndjsonDocuments(1500, 200);
    const sequential = await openBackend();
    const parallel = await openBackend();
    try {
      const expected = await ingestDocuments(sequential, documents, { batchSize: 400 });
      const summary = await ingestDocumentsInParallel(parallel, documents, {
        batchSize: 400,
        workers: 2,
      });
      expect(summary).to.deep.equal(expected);
      expect(summary.written).to.equal(1500);
      expect(await snapshot(parallel)).to.deep.equal(await snapshot(sequential));
      const query: SearchQuery = {
        ...buildMatchAllQuery(50),
        text: [['coastal'], ['river']],
        spatial: { bbox: [-30, -60, 60, 70], relation: 'intersects' },
      };
      const [a, b] = await Promise.all([sequential.search(query), parallel.search(query)]);
      expect(b.total).to.equal(a.total).and.to.be.greaterThan(0);
      expect(b.records.map((r) => r.id)).to.deep.equal(a.records.map((r) => r.id));
    } finally {
      await sequential.close();
      await parallel.close();
    }
  });

  it('keeps input order: a later document replaces an earlier record with the same id', async () => {
    const first = generateRecords(1, 11).next().value as Feature;
    const versions = Array.from({ length: 9 }, (_, n) => ({
      name: `version-${n}`,
      content: JSON.stringify({ ...first, properties: { ...first.properties, title: `v${n}` } }),
    }));
    const backend = await openBackend();
    try {
      const summary = await ingestDocumentsInParallel(backend, versions, {
        batchSize: 2,
        workers: 3,
      });
      expect(summary.read).to.equal(9);
      // Nine writes, eight of them replacing the record of the same id written before.
      expect(summary.written).to.equal(9);
      expect(summary.replaced).to.equal(8);
      expect((await backend.get(String(first.id)))?.title).to.equal('v8');
      expect((await backend.search(buildMatchAllQuery())).total).to.equal(1);
      const sequential = await openBackend();
      try {
        expect(await ingestDocuments(sequential, versions, { batchSize: 2 })).to.deep.equal(
          summary,
        );
      } finally {
        await sequential.close();
      }
    } finally {
      await backend.close();
    }
  });

  it('rejects bad records and unreadable documents with reasons and writes the rest', async () => {
    const good = ndjsonDocuments(20, 10);
    const broken: RawDocument[] = [
      { name: 'truncated.json', content: '{"type":"Feature","id":' },
      { name: 'not-a-record.json', content: JSON.stringify({ hello: 'world' }) },
    ];
    const backend = await openBackend();
    try {
      const summary = await ingestDocumentsInParallel(backend, [good[0]!, ...broken, good[1]!], {
        batchSize: 1000,
        workers: 2,
      });
      expect(summary.written).to.equal(20);
      expect(summary.rejected.map((failure) => failure.name)).to.have.members([
        'truncated.json',
        'not-a-record.json',
      ]);
      for (const failure of summary.rejected) expect(failure.reason.length).to.be.greaterThan(0);
      expect((await backend.search(buildMatchAllQuery(1))).total).to.equal(20);
    } finally {
      await backend.close();
    }
  });

  describe('bulk loads', () => {
    const indexNames = (backend: SqliteBackend) =>
      (backend as unknown as { db: { prepare(sql: string): { pluck(): { all(): string[] } } } }).db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name")
        .pluck()
        .all();

    it('builds the secondary indexes after a load into an empty catalogue, even a failed one', async () => {
      const backend = await openBackend();
      try {
        const before = indexNames(backend);
        expect(before.length).to.be.greaterThan(5);
        let during: string[] = [];
        await backend.bulkLoad(async () => {
          during = indexNames(backend);
        });
        // The id's own unique index and the span and probe indexes (appended in rowid order) stay,
        // and the tombstones' index (another table, untouched by a load).
        expect(during).to.have.members([
          'records_span',
          'records_probe',
          'sqlite_autoindex_records_1',
          'tombstones_changed',
        ]);
        expect(indexNames(backend)).to.deep.equal(before);
        const failed = backend.bulkLoad(async () => {
          throw new Error('the load failed');
        });
        await failed.then(
          () => expect.fail('the load should have failed'),
          (error: Error) => expect(error.message).to.equal('the load failed'),
        );
        expect(indexNames(backend)).to.deep.equal(before);
      } finally {
        await backend.close();
      }
    });

    it('keeps every index while loading into a catalogue that has records', async () => {
      const backend = await openBackend();
      try {
        await ingestDocumentsInParallel(backend, ndjsonDocuments(10, 10), { workers: 1 });
        const before = indexNames(backend);
        let during: string[] = [];
        await backend.bulkLoad(async () => {
          during = indexNames(backend);
        });
        expect(during).to.deep.equal(before);
      } finally {
        await backend.close();
      }
    });
  });
});
