/**
 * The IngestLog contract: the same cases against every store (SQLite table, Elasticsearch and
 * OpenSearch ingest-log index), so the admin endpoints answer the same whatever the mode.
 */
import { expect } from 'chai';
import type { IngestLog, IngestLogEntry } from '../../../shared/ingest/ingest-log.js';

/** A log entry for job `n`, finished `n` seconds after a fixed start. */
export function sampleEntry(n: number, changes: Partial<IngestLogEntry> = {}): IngestLogEntry {
  return {
    jobId: `job-${String(n).padStart(3, '0')}`,
    queue: 'ingest',
    status: 'completed',
    attempts: 1,
    read: 10 + n,
    written: 10 + n - (n % 3),
    deleted: 0,
    rejected: n % 3,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    finishedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n, 500)).toISOString(),
    durationMs: 500,
    ...(n % 2 === 0 ? { requestedBy: 'alice' } : {}),
    failures: Array.from({ length: n % 3 }, (_, i) => ({
      name: `record-${n}-${i}`,
      reason: `bad record ${i}: "title" is required`,
    })),
    ...changes,
  };
}

/** What a client sees: undefined members dropped, as in the JSON the admin endpoints send. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Registers the contract cases for one store; `open` gives a fresh, empty log. */
export function describeIngestLogContract(label: string, open: () => Promise<IngestLog>): void {
  describe(`ingest log contract: ${label}`, function () {
    this.timeout(60000);
    let log: IngestLog;

    beforeEach(async () => {
      log = await open();
    });
    afterEach(async () => {
      await log?.close();
    });

    it('gives back a recorded entry exactly, failures included', async () => {
      const entry = sampleEntry(2, {
        status: 'failed',
        attempts: 3,
        error: 'search engine unavailable',
        failures: [
          { name: 'job', reason: 'search engine unavailable' },
          { name: 'urn:x:1', reason: 'no "id"' },
        ],
      });
      await log.record(entry);
      expect(asJson(await log.get(entry.jobId))).to.deep.equal(asJson(entry));
      expect(await log.get('job-none')).to.equal(null);
    });

    it('keeps one entry per job: a retried job replaces its entry', async () => {
      await log.record(sampleEntry(1, { status: 'retrying', attempts: 1, error: 'timeout' }));
      await log.record(sampleEntry(1, { status: 'completed', attempts: 2 }));
      const page = await log.list({ limit: 10, offset: 0 });
      expect(page.total).to.equal(1);
      expect(
        page.entries.map((entry) => [entry.status, entry.attempts, entry.error]),
      ).to.deep.equal([['completed', 2, undefined]]);
    });

    it('lists newest first (ties by job id), paged, without failures', async () => {
      for (const n of [4, 1, 5, 2, 3]) await log.record(sampleEntry(n));
      await log.record(sampleEntry(6, { finishedAt: sampleEntry(5).finishedAt }));
      const first = await log.list({ limit: 4, offset: 0 });
      const second = await log.list({ limit: 4, offset: 4 });
      expect(first.total).to.equal(6);
      expect(second.total).to.equal(6);
      expect([...first.entries, ...second.entries].map((entry) => entry.jobId)).to.deep.equal([
        'job-005',
        'job-006',
        'job-004',
        'job-003',
        'job-002',
        'job-001',
      ]);
      const { failures, ...withoutFailures } = sampleEntry(4);
      expect(failures).to.have.length(1);
      expect(asJson(first.entries[2])).to.deep.equal(asJson(withoutFailures));
      expect((await log.list({ limit: 0, offset: 0 })).entries).to.deep.equal([]);
    });

    it('keeps every status the worker writes', async () => {
      const statuses = ['completed', 'failed', 'retrying'] as const;
      for (const [i, status] of statuses.entries()) await log.record(sampleEntry(i, { status }));
      for (const [i, status] of statuses.entries())
        expect((await log.get(sampleEntry(i).jobId))?.status).to.equal(status);
    });
  });
}
