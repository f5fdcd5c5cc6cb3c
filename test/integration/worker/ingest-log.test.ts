/**
 * The ingest log stores against the same contract: the SQLite table, and the ingest-log index
 * on real Elasticsearch and OpenSearch (CAIRN_TEST_ELASTICSEARCH_URL / _OPENSEARCH_URL), plus
 * what only the engines have: a mapping operators can explore in Kibana / OpenSearch
 * Dashboards, and the result window.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import { openIngestLog } from '../../../shared/search/open-stores.js';
import type { EngineName, JsonObject } from '../../../shared/search/engine/engine-adapter.js';
import type { EngineBackend } from '../../../shared/search/engine/engine-backend.js';
import { SqliteIngestLog } from '../../../shared/search/sqlite/sqlite-ingest-log.js';
import { createAdapter, createTestBackend, requireEngineUrl } from '../engine-backend-cases.js';
import { describeIngestLogContract, sampleEntry } from './ingest-log-contract.js';
import { defined } from '../../support/defined.js';

const directory = mkdtempSync(join(tmpdir(), 'cairn-ingest-log-'));
let sqliteFiles = 0;
describeIngestLogContract('sqlite', async () => {
  sqliteFiles += 1;
  return new SqliteIngestLog(join(directory, `log-${sqliteFiles}.sqlite`));
});

for (const engine of ['elasticsearch', 'opensearch'] as EngineName[]) {
  const url = requireEngineUrl(engine);
  if (!url) continue;
  const spatial = engine === 'elasticsearch' ? 'envelope' : 'shape';
  const backends: EngineBackend[] = [];
  /** A fresh backend (its own alias and ingest-log index), deleted after the suite. */
  const freshBackend = async (): Promise<EngineBackend> => {
    const backend = await createTestBackend(engine, url, { spatial });
    backends.push(backend);
    return backend;
  };

  describe(`ingest log on ${engine}`, function () {
    this.timeout(60000);
    after(async () => {
      for (const backend of backends.splice(0)) await backend.close();
    });

    describeIngestLogContract(engine, async () =>
      openIngestLog({ worker: {} as never }, await freshBackend()),
    );

    it('maps ids and statuses as keywords, times as dates, counts as numbers', async () => {
      const backend = await freshBackend();
      const adapter = createAdapter(engine, url);
      try {
        const mappings = defined(
          (await adapter.getMappings(backend.ingestLog))[backend.ingestLog],
          'the ingest log mappings',
        );
        const fields = mappings.properties as Record<string, JsonObject>;
        const typeOf = (name: string): unknown => fields[name]?.type;
        for (const name of ['jobId', 'queue', 'status', 'requestedBy'])
          expect(typeOf(name), name).to.equal('keyword');
        for (const name of ['startedAt', 'finishedAt']) expect(typeOf(name), name).to.equal('date');
        for (const name of ['read', 'written', 'deleted', 'rejected', 'durationMs', 'failureCount'])
          expect(typeOf(name), name).to.equal('long');
        const failures = defined(fields.failures, 'the failures mapping').properties as Record<
          string,
          JsonObject
        >;
        expect(failures.name?.type).to.equal('keyword');
        expect(failures.reason?.type).to.equal('text');
        const reasonFields = defined(failures.reason, 'the failures.reason mapping')
          .fields as Record<string, JsonObject>;
        expect(reasonFields.keyword?.type).to.equal('keyword');
      } finally {
        await adapter.close();
      }
    });

    it('lets operators aggregate failure reasons across jobs', async () => {
      const backend = await freshBackend();
      const log = backend.createIngestLog();
      for (const n of [1, 2, 4, 5]) await log.record(sampleEntry(n));
      const adapter = createAdapter(engine, url);
      try {
        const response = await adapter.search({
          index: backend.ingestLog,
          body: {
            size: 0,
            query: { range: { rejected: { gte: 1 } } },
            aggs: { reasons: { terms: { field: 'failures.reason.keyword' } } },
          },
        });
        const buckets = (response.aggregations?.reasons as { buckets: JsonObject[] }).buckets;
        expect(response.hits.total?.value).to.equal(4);
        expect(buckets.map((bucket) => [bucket.key, bucket.doc_count])).to.deep.equal([
          ['bad record 0: "title" is required', 4],
          ['bad record 1: "title" is required', 2],
        ]);
      } finally {
        await adapter.close();
      }
    });

    it('refuses a page beyond the result window with a 400, not an engine error', async () => {
      const log = (await freshBackend()).createIngestLog();
      const error = await log.list({ limit: 50, offset: 9990 }).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(InvalidParameterError);
      expect((error as InvalidParameterError).status).to.equal(400);
    });
  });
}
